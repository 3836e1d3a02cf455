//! Stored images over HTTP, the same for the file fetch and the image proxy: who may have the
//! bytes (`access::file`), their caching, ETag and 304, and a missing file's log line.

use poem::{Body, Request, Response, http::StatusCode};

use sea_orm::DatabaseConnection;

use super::is_file_id;
use crate::{
    access::{self, Viewer},
    error::ApiError,
    storage::entity::file,
};

/// Caching of a file or a variant: private (it is one person's), and immutable since a file id
/// never changes content.
pub const IMMUTABLE_PRIVATE: &str = "private, max-age=31536000, immutable";
/// Another person's file: whether the caller may see it changes (a block, an unmatch, a
/// suspension), so the browser keeps the bytes but asks each time (304 while still allowed).
pub const REVALIDATE_PRIVATE: &str = "private, no-cache";

/// The caching a file's answer allows: its owner keeps it for good, anyone else revalidates.
pub fn cache_control_for(row: &file::Model, viewer: &Viewer) -> &'static str {
    if row.owner_id == viewer.user_id {
        IMMUTABLE_PRIVATE
    } else {
        REVALIDATE_PRIVATE
    }
}

/// The file row if the viewer may see it (`access::file`), else 404 E003 (for an id that cannot
/// be one too, without asking the database).
pub async fn visible_file(
    db: &DatabaseConnection,
    viewer: &Viewer,
    id: &str,
) -> Result<file::Model, ApiError> {
    if !is_file_id(id) {
        return Err(ApiError::NotFound);
    }
    access::file(db, viewer, id)
        .await?
        .ok_or(ApiError::NotFound)
}

/// Answers bytes with a strong ETag, or 304 if the request already has them.
pub fn cached_image(
    req: &Request,
    etag: &str,
    content_type: &str,
    cache_control: &'static str,
    bytes: Vec<u8>,
) -> Response {
    let quoted = format!("\"{etag}\"");
    let matches = req
        .headers()
        .get(poem::http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == quoted || t.trim() == "*"));
    let builder = Response::builder()
        .header(poem::http::header::ETAG, quoted.as_str())
        .header(poem::http::header::CACHE_CONTROL, cache_control)
        .header("x-content-type-options", "nosniff");
    if matches {
        builder.status(StatusCode::NOT_MODIFIED).finish()
    } else {
        builder.content_type(content_type).body(Body::from(bytes))
    }
}

/// A file whose row is there but whose bytes are not: normal for a temp file the sweep has just
/// removed, data loss for anything a profile or avatar claimed.
pub fn missing_bytes(row: &file::Model) {
    if row.claimed_at.is_some() {
        tracing::error!(file = %row.id, purpose = %row.purpose, "a claimed file's bytes are missing");
    }
}
