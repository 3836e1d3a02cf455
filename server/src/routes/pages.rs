//! Web app pages the server writes into: a returning member's /today carries the first card's
//! photo in its frame (docs/design.md, "Files and images"), so that on a slow link the member
//! sees a person while the app's code is still on its way. Any other visit (no session, not
//! APPROVED, paused, an empty list, a build without the frame's mark) gets the plain page.

use poem::{Endpoint, Request, Response, Result, http::Method};

use super::State;
use crate::{
    access::Viewer,
    identity::session::TokenSource,
    images::ipx::cover_webp_path,
    static_site::{FramePhoto, StaticSite},
    usecases::matchmaking::{self, MatchmakingError},
};
use kizuna_core::web_rules::CARD_PHOTO;

/// GET /today.
pub struct TodayPage;

impl Endpoint for TodayPage {
    type Output = Response;

    async fn call(&self, req: Request) -> Result<Response> {
        let state = req.data::<State>().cloned();
        let site = StaticSite::new(
            state
                .as_ref()
                .map(|s| s.settings.web_dir.clone())
                .unwrap_or_default(),
        );
        if req.method() == Method::GET
            && let Some(state) = &state
            && let Some(file_id) = first_card_photo(state, &req).await
            && let Some(resp) = site
                .page_with_frame_photo(&req, &frame_photo(&file_id))
                .await
        {
            return Ok(resp);
        }
        site.call(req).await
    }
}

/// The card's `src`, `srcset` and `sizes` for the photo `file_id` (kizuna-core's `CARD_PHOTO`,
/// which the web's card reads too).
fn frame_photo(file_id: &str) -> FramePhoto {
    let srcset = CARD_PHOTO
        .widths
        .iter()
        .map(|&w| {
            format!(
                "{} {w}w",
                cover_webp_path(file_id, w, CARD_PHOTO.height_of(w))
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    FramePhoto {
        src: cover_webp_path(file_id, CARD_PHOTO.width, CARD_PHOTO.height),
        srcset,
        sizes: CARD_PHOTO.sizes.to_owned(),
    }
}

/// The first card's photo for the session the request's cookie carries; None for anyone without
/// one to show. The page never fails for it: an unexpected error is logged and the plain page goes.
async fn first_card_photo(state: &State, req: &Request) -> Option<String> {
    let auth = state
        .sessions
        .authenticate(req, TokenSource::HeaderOrCookie)
        .await
        .ok()?;
    let viewer = Viewer::from(&auth);
    match matchmaking::first_card_photo(&state.db, &state.pool, &viewer, state.now()).await {
        Ok(photo) => photo,
        Err(MatchmakingError::NotApproved) => None,
        Err(err) => {
            tracing::warn!(error = %err, "the first card's photo for the page's frame");
            None
        }
    }
}
