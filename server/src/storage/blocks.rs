//! Blocks between members.

use anyhow::Context;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, sea_query::OnConflict};

use super::{StorageError, entity::block};

/// Records a block (a second one of the same pair changes nothing).
pub async fn insert_block(
    db: &impl ConnectionTrait,
    blocker: i64,
    blocked: i64,
    now: i64,
) -> Result<(), StorageError> {
    block::Entity::insert(block::ActiveModel {
        blocker_id: Set(blocker),
        blocked_id: Set(blocked),
        created_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([block::Column::BlockerId, block::Column::BlockedId])
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(db)
    .await
    .context("writing a block")?;
    Ok(())
}
