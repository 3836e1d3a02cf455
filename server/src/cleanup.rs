//! The periodic housekeeping task: temp files not claimed within 24 h are deleted (row, file and
//! cached variants), and sessions expired for more than a day are forgotten.

use std::time::Duration;

use anyhow::Context;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QuerySelect};

use crate::{
    clock::now_secs,
    images::FileStore,
    storage::entity::{file, session},
};

pub const TEMP_FILE_TTL_SECS: i64 = 24 * 3600;

/// One sweep; answers how many temp files were removed.
pub async fn sweep(db: &DatabaseConnection, files: &FileStore, now: i64) -> anyhow::Result<usize> {
    let cutoff = now - TEMP_FILE_TTL_SECS;
    let mut removed = 0;
    loop {
        let batch = file::Entity::find()
            .filter(file::Column::ClaimedAt.is_null())
            .filter(file::Column::CreatedAt.lt(cutoff))
            .limit(500)
            .all(db)
            .await
            .context("listing expired temp files")?;
        if batch.is_empty() {
            break;
        }
        let ids: Vec<String> = batch.into_iter().map(|f| f.id).collect();
        // Delete the rows first (only those still unclaimed), then the bytes.
        file::Entity::delete_many()
            .filter(file::Column::Id.is_in(ids.clone()))
            .filter(file::Column::ClaimedAt.is_null())
            .exec(db)
            .await
            .context("deleting expired temp files")?;
        for id in &ids {
            let still_there = file::Entity::find_by_id(id.clone())
                .one(db)
                .await
                .context("re-reading a temp file")?
                .is_some();
            if !still_there {
                files.remove(id).await;
                removed += 1;
            }
        }
        if ids.len() < 500 {
            break;
        }
    }
    session::Entity::delete_many()
        .filter(session::Column::ExpiresAt.lt(now - 24 * 3600))
        .exec(db)
        .await
        .context("deleting expired sessions")?;
    Ok(removed)
}

/// Runs `sweep` every `every` until the process stops.
pub fn spawn(
    db: DatabaseConnection,
    files: FileStore,
    every: Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            match sweep(&db, &files, now_secs()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "expired temp files removed"),
                Err(err) => tracing::warn!(error = ?err, "temp file cleanup failed"),
            }
        }
    })
}
