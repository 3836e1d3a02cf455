//! The periodic housekeeping task: temp files not claimed within 24 h are deleted (row, file and
//! cached variants), and sessions that expired or were revoked more than a day ago are forgotten. At start and then
//! hourly it also removes what a crash can leave on disk: bytes whose row was never written (an
//! upload stores the file first, then its row) and half-written temporary files.

use std::time::Duration;

use anyhow::Context;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QuerySelect};

use crate::{clock::now_secs, images::FileStore, storage::entity::file};

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
    crate::storage::sessions::sweep(db, now).await?;
    // Review infrastructure: finished pushes, old webhook event ids and e-mail codes.
    crate::storage::push_outbox::sweep(db, now).await?;
    crate::storage::line_events::sweep(db, now).await?;
    crate::storage::email_codes::sweep(db, now).await?;
    // Chat events past their replay time (a stream away longer is told to reload).
    crate::storage::chat_events::sweep(db, now).await?;
    Ok(removed)
}

/// How old an orphan must be before it goes: an upload in flight has its bytes on disk a moment
/// before its row.
pub const ORPHAN_GRACE_SECS: u64 = 3600;

/// Up to this many orphans go without question; more, and they must be a minority of the files.
const MAX_ORPHANS_WITHOUT_QUESTION: usize = 10;

/// Removes files on disk that no row knows and half-written temporary files, older than the
/// grace period before `now`. Answers how many ids and temporary files went.
pub async fn sweep_orphans(
    db: &DatabaseConnection,
    files: &FileStore,
    now: std::time::SystemTime,
) -> anyhow::Result<usize> {
    let before = now - Duration::from_secs(ORPHAN_GRACE_SECS);
    let store = files.clone();
    let (ids, parts) = tokio::task::spawn_blocking(move || store.stale_entries(before))
        .await
        .context("walking the file store")?;
    let mut removed = 0;
    for part in parts {
        if tokio::fs::remove_file(&part).await.is_ok() {
            removed += 1;
        }
    }
    let mut orphans = Vec::new();
    for chunk in ids.chunks(500) {
        let known: std::collections::HashSet<String> = file::Entity::find()
            .select_only()
            .column(file::Column::Id)
            .filter(file::Column::Id.is_in(chunk.iter().cloned()))
            .into_tuple::<String>()
            .all(db)
            .await
            .context("looking up stored files")?
            .into_iter()
            .collect();
        orphans.extend(chunk.iter().filter(|id| !known.contains(*id)).cloned());
    }
    // A crash leaves a few orphans. A database that knows almost none of the files on disk is
    // the wrong database for this data dir (a mistyped DATABASE_URL creates an empty one), and
    // "cleaning up" would delete every photo: refuse, loudly.
    if orphans.len() > MAX_ORPHANS_WITHOUT_QUESTION && orphans.len() * 2 > ids.len() {
        anyhow::bail!(
            "{} of the {} files on disk have no row in the database: refusing to delete them. \
             Is DATABASE_URL the database of this KIZUNA_DATA_DIR?",
            orphans.len(),
            ids.len()
        );
    }
    for id in &orphans {
        files.remove(id).await;
        removed += 1;
    }
    Ok(removed)
}

/// Removes the stored files of deleted accounts (bytes, preview, variants) queued in
/// `file_removals`; a removal cut short (a crash, a kill) stays queued and the next run, in this
/// process or the next, finishes it. Answers how many files went.
pub async fn remove_departed_files(
    db: &DatabaseConnection,
    files: &FileStore,
) -> anyhow::Result<usize> {
    let mut removed = 0;
    loop {
        let batch = crate::storage::departures::queued_files(db, 500).await?;
        if batch.is_empty() {
            return Ok(removed);
        }
        for id in &batch {
            files.remove(id).await;
            crate::storage::departures::file_removed(db, id).await?;
            removed += 1;
        }
    }
}

/// Runs `sweep` (and the removal of deleted accounts' files) every `every` until the process stops, and `sweep_orphans` at start and hourly.
pub fn spawn(
    db: DatabaseConnection,
    files: FileStore,
    every: Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        let mut last_orphan_sweep: Option<std::time::Instant> = None;
        loop {
            tick.tick().await;
            match sweep(&db, &files, now_secs()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "expired temp files removed"),
                Err(err) => tracing::warn!(error = ?err, "temp file cleanup failed"),
            }
            let now = now_secs();
            match crate::data_export::resume_stalled(&db, &files, now).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(exports = n, "stalled data exports taken up"),
                Err(err) => tracing::warn!(error = ?err, "resuming data exports failed"),
            }
            if let Err(err) = crate::data_export::sweep(&db, now).await {
                tracing::warn!(error = ?err, "clearing expired data exports failed");
            }
            match remove_departed_files(&db, &files).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "deleted accounts' files removed"),
                Err(err) => tracing::warn!(error = ?err, "removing deleted accounts' files failed"),
            }
            if last_orphan_sweep.is_none_or(|t| t.elapsed() >= Duration::from_secs(3600)) {
                last_orphan_sweep = Some(std::time::Instant::now());
                match sweep_orphans(&db, &files, std::time::SystemTime::now()).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(removed = n, "orphaned files removed"),
                    Err(err) => tracing::error!(error = ?err, "orphan cleanup failed"),
                }
            }
        }
    })
}
