//! The reviewers list: LINE users who may use the review console. Managed with
//! `kizuna-server reviewers add|remove|list` (see `crate::cli`); the review API checks
//! [`is_reviewer`] on every call.
//!
//! Each row is one period of being a reviewer. Removing closes the open period (`removed_at`);
//! adding again opens a new one, so the history of who could decide when is kept.

use anyhow::Context;
use kizuna_core::line::LineUserId;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
};

use crate::storage::{entity::reviewer, is_unique_violation};

pub use reviewer::Model as ReviewerPeriod;

/// What `add` did.
#[derive(Debug, Clone, PartialEq)]
pub enum Added {
    /// A new period starts now.
    Now(ReviewerPeriod),
    /// They already were a reviewer (since the period's `added_at`).
    Already(ReviewerPeriod),
}

/// The open period of a LINE user, if they are a reviewer now.
pub async fn current(
    db: &impl ConnectionTrait,
    line_user_id: &str,
) -> anyhow::Result<Option<ReviewerPeriod>> {
    reviewer::Entity::find()
        .filter(reviewer::Column::LineUserId.eq(line_user_id))
        .filter(reviewer::Column::RemovedAt.is_null())
        .one(db)
        .await
        .context("looking up a reviewer")
}

/// Whether a LINE user is on the reviewers list now. The review API's role check.
pub async fn is_reviewer(db: &impl ConnectionTrait, line_user_id: &str) -> anyhow::Result<bool> {
    Ok(current(db, line_user_id).await?.is_some())
}

/// Puts a LINE user on the list (idempotent: an existing reviewer keeps their period).
pub async fn add(
    db: &impl ConnectionTrait,
    line_user_id: &LineUserId,
    now: i64,
) -> anyhow::Result<Added> {
    if let Some(open) = current(db, line_user_id.as_str()).await? {
        return Ok(Added::Already(open));
    }
    let inserted = reviewer::Entity::insert(reviewer::ActiveModel {
        line_user_id: Set(line_user_id.as_str().to_string()),
        added_at: Set(now),
        removed_at: Set(None),
        ..Default::default()
    })
    .exec(db)
    .await;
    let raced = match inserted {
        Ok(_) => false,
        // Two adds at once: the partial unique index lets one period open.
        Err(err) if is_unique_violation(&err) => true,
        Err(err) => return Err(anyhow::Error::new(err).context("adding a reviewer")),
    };
    let open = current(db, line_user_id.as_str())
        .await?
        .context("the new reviewer period vanished")?;
    Ok(if raced {
        Added::Already(open)
    } else {
        Added::Now(open)
    })
}

/// Takes a LINE user off the list; answers the period it closed, None if they were no reviewer.
pub async fn remove(
    db: &impl ConnectionTrait,
    line_user_id: &LineUserId,
    now: i64,
) -> anyhow::Result<Option<ReviewerPeriod>> {
    let Some(open) = current(db, line_user_id.as_str()).await? else {
        return Ok(None);
    };
    let closed = reviewer::Entity::update_many()
        .col_expr(
            reviewer::Column::RemovedAt,
            sea_orm::sea_query::Expr::value(now),
        )
        .filter(reviewer::Column::Id.eq(open.id))
        .filter(reviewer::Column::RemovedAt.is_null())
        .exec(db)
        .await
        .context("removing a reviewer")?;
    if closed.rows_affected == 0 {
        // A concurrent remove closed it first.
        return Ok(None);
    }
    Ok(Some(ReviewerPeriod {
        removed_at: Some(now),
        ..open
    }))
}

/// The reviewers now, longest-serving first.
pub async fn list(db: &impl ConnectionTrait) -> anyhow::Result<Vec<ReviewerPeriod>> {
    reviewer::Entity::find()
        .filter(reviewer::Column::RemovedAt.is_null())
        .order_by_asc(reviewer::Column::AddedAt)
        .order_by_asc(reviewer::Column::Id)
        .all(db)
        .await
        .context("listing reviewers")
}

/// Every period, current and past, oldest first.
pub async fn history(db: &impl ConnectionTrait) -> anyhow::Result<Vec<ReviewerPeriod>> {
    reviewer::Entity::find()
        .order_by_asc(reviewer::Column::AddedAt)
        .order_by_asc(reviewer::Column::Id)
        .all(db)
        .await
        .context("listing the reviewer history")
}
