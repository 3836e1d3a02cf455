//! What a handler receives already checked: the verified caller (`auth`, as OpenAPI security
//! schemes), strictly read JSON bodies (`body`) and the profile body's schema they document
//! (`profile_schema`), upload bodies read once admitted (`upload`) and ids from the path.

pub mod auth;
pub mod body;
pub mod profile_schema;
pub mod upload;

use crate::error::ApiError;

/// A member, match or other row id from the path: anything but a positive integer is 404 E003,
/// like an unknown id, so a caller learns nothing from the difference.
pub fn path_id(text: &str) -> Result<i64, ApiError> {
    text.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or(ApiError::NotFound)
}
