//! GET /_ipx/{modifiers}/{source}: resized variants of stored files (see `images::ipx`).

use std::sync::Arc;

use poem::{
    Request, Response, handler,
    http::{HeaderValue, header::VARY},
    web::Data,
};

use super::State;
use crate::{
    access::Viewer,
    error::ApiError,
    file_store::FileStore,
    identity::session::TokenSource,
    images::{
        ImageError, Kind,
        decoded::Lookup,
        http::{cache_control_for, cached_image, missing_bytes, visible_file},
        ipx::{OutFormat, Plan, decode, parse_modifiers, parse_source, render_pixels},
    },
};

#[handler]
pub async fn ipx(state: Data<&State>, req: &Request) -> Response {
    match serve(state.0, req).await {
        Ok(resp) => resp,
        Err(err) => poem::Error::from(err).into_response(),
    }
}

async fn serve(state: &State, req: &Request) -> Result<Response, ApiError> {
    // /_ipx/{modifiers}/{source…}
    let rest = req
        .uri()
        .path()
        .strip_prefix("/_ipx/")
        .ok_or(ApiError::NotFound)?;
    let (modifiers, source) = rest
        .split_once('/')
        .ok_or_else(|| ApiError::BadRequest("expected /_ipx/{modifiers}/{source}".into()))?;
    let modifiers = parse_modifiers(modifiers)?;
    let file_id = parse_source(source)?;
    let auth = state
        .sessions
        .authenticate(req, TokenSource::HeaderOrCookie)
        .await?;
    let viewer = Viewer::from(&auth);
    let row = visible_file(&state.db, &viewer, &file_id).await?;
    let source_kind = Kind::from_content_type(&row.content_type)
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("stored file of unknown type")))?;
    let accepts_webp = req
        .headers()
        .get(poem::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("image/webp"));
    let (sw, sh) = (row.width as u32, row.height as u32);
    let plan = Plan::new(&modifiers, sw, sh, source_kind, accepts_webp);
    let key = plan.cache_key(&row.id);
    let cached = FileStore::variant(&row.id, &format!("{key}.{}", plan.extension()));
    let content_type = plan.kind.content_type();
    // With f_auto the bytes depend on Accept: shared caches must keep one copy per Accept.
    let varies = modifiers.format == Some(OutFormat::Auto);
    let cache_policy = cache_control_for(&row, &viewer);
    let answer = |bytes: Vec<u8>| {
        let mut resp = cached_image(req, &key, content_type, cache_policy, bytes);
        if varies {
            resp.headers_mut()
                .insert(VARY, HeaderValue::from_static("Accept"));
        }
        resp
    };

    if let Some(bytes) = state.files.get(&cached).await? {
        return Ok(answer(bytes.into()));
    }
    // Only what is not cached costs the member's budget: varying the modifiers (every `b_`
    // colour is a new variant) must not take the image workers from everyone else.
    if let Err(wait) = state
        .limits
        .get(crate::rate_limit::LimitKind::Render)
        .check(&format!("u:{}", viewer.user_id))
        .await
    {
        return Err(ApiError::Throttled {
            cause: "too many new image sizes at once; wait a moment".into(),
            retry_after: Some(wait.as_secs_f64().ceil().max(1.0) as u64),
        });
    }
    let bytes = {
        let _rendering = crate::monitoring::InFlight::new(crate::metric_names::RENDERS_IN_FLIGHT);
        metrics::counter!(crate::metric_names::RENDERS).increment(1);
        render_variant(state, &row.id, (sw, sh), source_kind, &plan).await?
    };
    let Some(bytes) = bytes else {
        // The temp-file sweep removed it since the row was read.
        missing_bytes(&row);
        return Err(ApiError::NotFound);
    };
    match state.files.variant_count(&row.id).await {
        Ok(n) if n < MAX_VARIANTS_PER_FILE => {
            if let Err(err) = state.files.put(&cached, bytes.clone()).await {
                tracing::warn!(error = ?err, "could not cache an image variant");
            }
        }
        Ok(_) => {}
        Err(err) => tracing::warn!(error = ?err, "could not count an image's variants"),
    }
    Ok(answer(bytes))
}

/// The variant's bytes: from the pixels another render of the same photo decoded moments ago or is
/// decoding now (`images::decoded`), or from a decode of this render's own, which it then shares.
/// None when the stored file's bytes are gone.
async fn render_variant(
    state: &State,
    file_id: &str,
    (sw, sh): (u32, u32),
    kind: Kind,
    plan: &Plan,
) -> Result<Option<Vec<u8>>, ApiError> {
    let want = plan.decode_want(sw, sh);
    let decoded = state.files.decoded();
    let ticket = loop {
        match decoded.lookup(file_id, want) {
            Lookup::Join(waiter) => match waiter.wait().await {
                Some(Ok(pixels)) => {
                    let plan = plan.clone();
                    return state
                        .image_workers
                        .run(move || render_pixels(&pixels, &plan))
                        .await?
                        .map(Some)
                        .map_err(render_failed);
                }
                Some(Err(())) => return Err(render_failed(ImageError::Undecodable)),
                // The render decoding them ended without them: look again.
                None => continue,
            },
            Lookup::Decode(ticket) => break ticket,
        }
    };
    // The upload-time preview when it still covers what the decode must deliver (its aspect is
    // the original's, so the plan carries over); the full file otherwise. (A file too small to
    // have one is not looked for: a store round trip per render saved.)
    let preview = if state.settings.ipx_previews && crate::images::may_have_preview(sw, sh) {
        state.files.get(&FileStore::preview(file_id)).await?
    } else {
        None
    };
    let from_preview = preview.and_then(|bytes| {
        let (pw, ph) = jpeg_dims(&bytes)?;
        (want.0 <= pw && want.1 <= ph).then_some((bytes, Kind::Jpeg))
    });
    let (source, kind) = match from_preview {
        Some(preview) => preview,
        None => match state.files.get(&FileStore::original(file_id)).await? {
            Some(bytes) => (bytes, kind),
            None => return Ok(None),
        },
    };
    let plan = plan.clone();
    state
        .image_workers
        .run(move || {
            let pixels = decode(&source, kind, want).map(Arc::new);
            ticket.publish(pixels.as_ref().map(Arc::clone).map_err(|_| ()));
            let pixels: Arc<crate::images::ipx::Pixels> = pixels?;
            render_pixels(&pixels, &plan)
        })
        .await?
        .map(Some)
        .map_err(render_failed)
}

fn render_failed(err: ImageError) -> ApiError {
    match err {
        ImageError::Encode(err) => ApiError::Internal(err),
        other => ApiError::Internal(anyhow::anyhow!("a stored image failed to decode: {other}")),
    }
}

/// How many variants of one file are kept in the store: the web app asks for a handful of sizes, and a
/// caller inventing modifiers (every `b_` colour is a new variant) must not fill the disk.
const MAX_VARIANTS_PER_FILE: usize = 64;

/// The size of a preview, read from its JPEG header (None when it is not a readable JPEG).
fn jpeg_dims(bytes: &[u8]) -> Option<(u32, u32)> {
    image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Jpeg)
        .into_dimensions()
        .ok()
}
