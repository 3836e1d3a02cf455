//! The rows of the web app's route guard: a path (exact, or a prefix when it ends in `*`) and
//! where a request for it is sent instead. Which rule applies is `usecases::route_rules`'.

use anyhow::Context;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::{StorageError, entity::route_rule};

/// The redirect of the rule for exactly `path`, if there is one.
pub async fn exact(db: &impl ConnectionTrait, path: &str) -> Result<Option<String>, StorageError> {
    Ok(route_rule::Entity::find()
        .filter(route_rule::Column::Path.eq(path))
        .one(db)
        .await
        .context("reading route rules")?
        .map(|rule| rule.redirect))
}

/// Every prefix rule (a path ending in `*`): (path, redirect).
pub async fn prefixes(db: &impl ConnectionTrait) -> Result<Vec<(String, String)>, StorageError> {
    Ok(route_rule::Entity::find()
        .filter(route_rule::Column::Path.like("%*"))
        .all(db)
        .await
        .context("reading route rules")?
        .into_iter()
        .map(|rule| (rule.path, rule.redirect))
        .collect())
}
