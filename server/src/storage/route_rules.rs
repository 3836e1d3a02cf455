//! Redirect rules of the web app's route guard. A rule's path matches exactly, or as a prefix when
//! it ends in `*` (the longest prefix wins; an exact rule beats any prefix).

use anyhow::Context;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::{StorageError, entity::route_rule};

/// Where a request for `path` is sent instead, if a rule says so.
pub async fn redirect_for(
    db: &impl ConnectionTrait,
    path: &str,
) -> Result<Option<String>, StorageError> {
    let exact = route_rule::Entity::find()
        .filter(route_rule::Column::Path.eq(path))
        .one(db)
        .await
        .context("reading route rules")?;
    if let Some(rule) = exact {
        return Ok(Some(rule.redirect));
    }
    Ok(route_rule::Entity::find()
        .filter(route_rule::Column::Path.like("%*"))
        .all(db)
        .await
        .context("reading route rules")?
        .into_iter()
        .filter(|r| path.starts_with(r.path.trim_end_matches('*')))
        .max_by_key(|r| r.path.len())
        .map(|r| r.redirect))
}
