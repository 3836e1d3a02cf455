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

use sea_orm::DatabaseConnection;

use super::{AfterCommit, Outcome};
use crate::storage::{
    self, StorageError,
    exports::{self, ExportRow},
};

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The day's `rules::DATA_EXPORTS_PER_WINDOW` requests were made; the next one can be made
    /// in `retry_after` seconds.
    #[error("too many data exports")]
    Limited { retry_after: i64 },
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// Where a requested copy stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportStatus {
    Preparing,
    Ready,
    /// Ready once, but its link has expired.
    Expired,
    Failed,
}

/// A requested copy as its member follows it.
#[derive(Debug, Clone)]
pub struct ExportView {
    pub status: ExportStatus,
    pub requested_at: i64,
    pub ready_at: Option<i64>,
    /// When the download link stops working, once ready.
    pub expires_at: Option<i64>,
    pub size_bytes: Option<i64>,
}

/// How the member sees `row` at `now`.
fn view(row: &ExportRow, now: i64) -> ExportView {
    let expires_at = expires_at(row);
    let status = match row.status.as_str() {
        exports::READY if expires_at.is_some_and(|t| t < now) => ExportStatus::Expired,
        exports::READY => ExportStatus::Ready,
        exports::PREPARING => ExportStatus::Preparing,
        _ => ExportStatus::Failed,
    };
    ExportView {
        status,
        requested_at: row.requested_at,
        ready_at: row.ready_at,
        expires_at,
        size_bytes: row.size_bytes,
    }
}

/// A request just made: the download token is handed out here, once.
pub struct Requested {
    pub export: ExportView,
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
/// `Limited` (with the wait) beyond `DATA_EXPORTS_PER_WINDOW` requests in a day.
pub async fn request(
    db: &DatabaseConnection,
    user_id: i64,
    now: i64,
) -> Result<Outcome<Requested>, ExportError> {
    // The user's row is held: two requests at once cannot both take the last one of the day.
    let txn = storage::begin_user_write(db, user_id).await?;
    let earlier =
        exports::requested_since(&txn, user_id, now - rules::DATA_EXPORT_WINDOW_SECS).await?;
    if earlier.len() >= rules::DATA_EXPORTS_PER_WINDOW as usize {
        metrics::counter!(crate::metric_names::LIMIT_REFUSALS, "limit" => "data-exports")
            .increment(1);
        let oldest = earlier.iter().copied().min().unwrap_or(now);
        let wait = (oldest + rules::DATA_EXPORT_WINDOW_SECS - now).max(1);
        return Err(ExportError::Limited { retry_after: wait });
    }
    let token = new_token();
    let id = exports::insert(&txn, user_id, &token_hash(&token), now).await?;
    txn.commit()
        .await
        .context("committing a data export request")?;
    let export = exports::find(db, id)
        .await?
        .context("a data export vanished after its commit")?;
    metrics::counter!(crate::metric_names::EXPORTS, "stage" => "requested").increment(1);
    tracing::info!(user = user_id, export = id, "data export requested");
    let mut after = AfterCommit::default();
    after.export_requested(id);
    let export = view(&export, now);
    Ok(Outcome::new(Requested { export, token }, after))
}

/// The user's latest request, as it stands at `now`.
pub async fn latest(
    db: &DatabaseConnection,
    user_id: i64,
    now: i64,
) -> Result<Option<ExportView>, ExportError> {
    Ok(exports::latest(db, user_id)
        .await?
        .map(|row| view(&row, now)))
}

/// The archive behind a download token while its link works; None otherwise (unknown, not ready
/// yet, expired, or its user left).
pub async fn download(
    db: &DatabaseConnection,
    token: &str,
    now: i64,
) -> Result<Option<(ExportView, Vec<u8>)>, ExportError> {
    if !is_token(token) {
        return Ok(None);
    }
    let ready_since = now - rules::DATA_EXPORT_LINK_SECS;
    Ok(exports::archive(db, &token_hash(token), ready_since)
        .await?
        .map(|(row, archive)| (view(&row, now), archive)))
}

/// When a READY export's link stops working.
fn expires_at(export: &ExportRow) -> Option<i64> {
    export.ready_at.map(|t| t + rules::DATA_EXPORT_LINK_SECS)
}
