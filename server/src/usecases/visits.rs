//! An arrival through a push's link, counted under the service's day (Asia/Taipei) and the push's
//! kind, with nothing about who arrived.

use kizuna_core::{date::Date, push::PushKind};
use sea_orm::ConnectionTrait;

use crate::storage::{StorageError, push_outbox};

#[derive(Debug, thiserror::Error)]
pub enum VisitsError {
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// Counts one visit of `kind` on the service's day of `now`.
pub async fn count(db: &impl ConnectionTrait, kind: PushKind, now: i64) -> Result<(), VisitsError> {
    let day = Date::taipei_day(now)
        .ok_or_else(|| anyhow::anyhow!("no date for {now}"))?
        .to_string();
    push_outbox::count_visit(db, &day, kind.as_str()).await?;
    Ok(())
}
