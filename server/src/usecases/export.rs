//! A copy of a member's data (Taiwan's PDPA, Japan's APPI, the GDPR: the right of access): asked
//! for, prepared in the background into one zip (`data.json` and the member's own files), and
//! downloaded through a capability link (a random token, stored only as its SHA-256) that works
//! for `rules::DATA_EXPORT_LINK_SECS` once the archive is ready, `rules::DATA_EXPORTS_PER_WINDOW`
//! requests a day. The archive itself is `crate::data_export`'s.

use anyhow::Context;
use base64::Engine;
use kizuna_core::rules;
use rand::RngCore;
use sha2::{Digest, Sha256};

use super::{AfterCommit, Outcome};
use crate::{
    error::ApiError,
    state::AppState,
    storage::{
        self,
        exports::{self, ExportRow},
    },
};

/// A request just made: the download token is handed out here, once.
pub struct Requested {
    pub export: ExportRow,
    pub token: String,
}

/// The SHA-256 (hex) of a download token: all the database keeps of it.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A download token: 32 random bytes, base64url without padding (43 characters).
fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `token` has the shape of a download token (anything else is not looked up).
pub fn is_token(token: &str) -> bool {
    token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Records a request for a copy of the user's data; the archive is prepared after the commit.
/// 429 E007 (with the wait) beyond `DATA_EXPORTS_PER_WINDOW` requests in a day.
pub async fn request(state: &AppState, user_id: i64) -> Result<Outcome<Requested>, ApiError> {
    let now = state.now();
    // The user's row is held: two requests at once cannot both take the last one of the day.
    let txn = storage::begin_user_write(&state.db, user_id).await?;
    let earlier =
        exports::requested_since(&txn, user_id, now - rules::DATA_EXPORT_WINDOW_SECS).await?;
    if earlier.len() >= rules::DATA_EXPORTS_PER_WINDOW as usize {
        let oldest = earlier.iter().copied().min().unwrap_or(now);
        let wait = (oldest + rules::DATA_EXPORT_WINDOW_SECS - now).max(1);
        return Err(ApiError::Throttled {
            cause: format!(
                "at most {} copies of your data a day: the next one can be asked for in {} minutes",
                rules::DATA_EXPORTS_PER_WINDOW,
                (wait + 59) / 60
            ),
            retry_after: u64::try_from(wait).ok(),
        });
    }
    let token = new_token();
    let id = exports::insert(&txn, user_id, &token_hash(&token), now).await?;
    txn.commit()
        .await
        .context("committing a data export request")?;
    let export = exports::find(&state.db, id)
        .await?
        .context("a data export vanished after its commit")?;
    tracing::info!(user = user_id, export = id, "data export requested");
    let mut after = AfterCommit::default();
    after.export_requested(id);
    Ok(Outcome::new(Requested { export, token }, after))
}

/// The user's latest request.
pub async fn latest(state: &AppState, user_id: i64) -> Result<Option<ExportRow>, ApiError> {
    Ok(exports::latest(&state.db, user_id).await?)
}

/// The archive behind a download token while its link works; None otherwise (unknown, not ready
/// yet, expired, or its user left).
pub async fn download(
    state: &AppState,
    token: &str,
) -> Result<Option<(ExportRow, Vec<u8>)>, ApiError> {
    if !is_token(token) {
        return Ok(None);
    }
    let ready_since = state.now() - rules::DATA_EXPORT_LINK_SECS;
    Ok(exports::archive(&state.db, &token_hash(token), ready_since).await?)
}

/// When a READY export's link stops working.
pub fn expires_at(export: &ExportRow) -> Option<i64> {
    export.ready_at.map(|t| t + rules::DATA_EXPORT_LINK_SECS)
}
