//! The periodic housekeeping task: temp files not claimed within 24 h are deleted (row, file and
//! cached variants), sessions that expired or were revoked more than a day ago are forgotten,
//! finished pushes a day after they finished, pairs kept after a departure after a year, and on
//! SQLite the write-ahead log is checkpointed into the database file and emptied.
//! At start and then hourly it also removes what a crash can leave in the file store: bytes whose
//! row was never written (an upload stores the file first, then its row) and, in a local store,
//! half-written files.

use std::time::Duration;

use anyhow::Context;
use sea_orm::DatabaseConnection;

use crate::{
    clock::now_secs,
    file_store::{FileStore, file_id_of},
    storage,
};

pub const TEMP_FILE_TTL_SECS: i64 = 24 * 3600;

/// One sweep; answers how many temp files were removed.
pub async fn sweep(db: &DatabaseConnection, files: &FileStore, now: i64) -> anyhow::Result<usize> {
    let cutoff = now - TEMP_FILE_TTL_SECS;
    let mut removed = 0;
    loop {
        let ids = storage::files::unclaimed_before(db, cutoff, 500).await?;
        if ids.is_empty() {
            break;
        }
        // Delete the rows first (only those still unclaimed), then the bytes.
        for id in storage::files::delete_unclaimed(db, &ids).await? {
            // Its row is gone: bytes left by a failure are an orphan for the hourly sweep.
            if let Err(err) = files.remove(&id).await {
                tracing::warn!(error = ?err, "could not remove an expired temp file");
            }
            removed += 1;
        }
        if ids.len() < 500 {
            break;
        }
    }
    storage::sessions::sweep(db, now).await?;
    // Review infrastructure: finished pushes, old webhook event ids and e-mail codes.
    storage::push_outbox::sweep(db, now).await?;
    storage::line_events::sweep(db, now).await?;
    storage::email_codes::sweep(db, now).await?;
    // Chat events past their replay time (a stream away longer is told to reload).
    storage::chat_events::sweep(db, now).await?;
    // Pairs kept after a departure, past their year.
    storage::departures::sweep_pairs(db, now).await?;
    // What was deleted since the last run leaves the SQLite log too.
    if !storage::checkpoint_wal(db).await? {
        tracing::info!("the write-ahead log was busy; checkpointed at the next run");
    }
    Ok(removed)
}

/// How old an orphan must be before it goes: an upload in flight has its bytes on disk a moment
/// before its row.
pub const ORPHAN_GRACE_SECS: u64 = 3600;

/// Up to this many orphans go without question; more, and they must be a minority of the files.
const MAX_ORPHANS_WITHOUT_QUESTION: usize = 10;

/// How many keys one orphan sweep reads: a bucket is listed a page at a time (a request per
/// thousand keys, each paid for), and the next sweep goes on where this one stopped, so an hourly
/// sweep costs at most 20 list requests however many files there are.
pub const ORPHAN_SWEEP_KEYS: usize = 20_000;

/// Removes stored files that no row knows and (in a local store) half-written files, older than
/// the grace period before `now`, among the next `ORPHAN_SWEEP_KEYS` keys after `position` (the
/// last key the previous sweep read; None: from the start). Moves `position` on (back to None at
/// the end of the store) and answers how many ids and half-written files went.
pub async fn sweep_orphans(
    db: &DatabaseConnection,
    files: &FileStore,
    now: std::time::SystemTime,
    position: &mut Option<String>,
) -> anyhow::Result<usize> {
    let before = now - Duration::from_secs(ORPHAN_GRACE_SECS);
    let mut removed = 0;
    if position.is_none() {
        let store = files.clone();
        let parts = tokio::task::spawn_blocking(move || store.stale_partial_writes(before))
            .await
            .context("walking the file store")?;
        for part in parts {
            if tokio::fs::remove_file(&part).await.is_ok() {
                removed += 1;
            }
        }
    }
    let page = files
        .list_page("", position.as_deref(), ORPHAN_SWEEP_KEYS)
        .await?;
    let next = (page.len() == ORPHAN_SWEEP_KEYS)
        .then(|| page.last().map(|o| o.key.clone()))
        .flatten();
    let mut ids = std::collections::BTreeSet::new();
    for object in &page {
        if let Some(id) = file_id_of(&object.key)
            && object.modified < before
        {
            ids.insert(id.to_string());
        }
    }
    let ids: Vec<String> = ids.into_iter().collect();
    let mut orphans = Vec::new();
    for chunk in ids.chunks(500) {
        let known = storage::files::known(db, chunk).await?;
        orphans.extend(chunk.iter().filter(|id| !known.contains(*id)).cloned());
    }
    // A crash leaves a few orphans. A database that knows almost none of the stored files is the
    // wrong database for this store (a mistyped DATABASE_URL creates an empty one), and
    // "cleaning up" would delete every photo: refuse, loudly.
    if orphans.len() > MAX_ORPHANS_WITHOUT_QUESTION && orphans.len() * 2 > ids.len() {
        anyhow::bail!(
            "{} of the {} files read in {} have no row in the database: refusing to delete \
             them. Is DATABASE_URL the database of this file store?",
            orphans.len(),
            ids.len(),
            files.name(),
        );
    }
    for id in &orphans {
        files.remove(id).await?;
        removed += 1;
    }
    *position = next;
    Ok(removed)
}

/// At start: a database that names files none of which the store holds is the wrong store (a
/// new data dir, another bucket, a copy to S3 not made yet), and every photo would answer 404.
/// Checks the newest `sample` files; answers an error that says so.
pub async fn check_store_holds_files(
    db: &DatabaseConnection,
    files: &FileStore,
    sample: u64,
) -> anyhow::Result<()> {
    let named = storage::files::count(db).await?;
    if named == 0 {
        return Ok(());
    }
    let newest = storage::files::newest(db, sample).await?;
    for id in &newest {
        if files.exists(&FileStore::original(id)).await? {
            return Ok(());
        }
    }
    anyhow::bail!(
        "the database names {named} stored files but {} holds none of the newest {}: every \
         photo would answer 404. Is this the file store of DATABASE_URL? (A local store moves to \
         S3 with `kizuna-server files copy-to-s3`.)",
        files.name(),
        newest.len(),
    )
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
        let batch = storage::departures::queued_files(db, 500).await?;
        if batch.is_empty() {
            return Ok(removed);
        }
        for id in &batch {
            // A removal that fails stays queued for the next run.
            files.remove(id).await?;
            storage::departures::file_removed(db, id).await?;
            removed += 1;
        }
    }
}

/// How long after a deletion the deleted bytes must be gone from the SQLite files.
pub const PURGE_WITHIN: Duration = Duration::from_secs(60);

/// After a deletion on SQLite: checkpoints the write-ahead log into the database file and empties
/// it (`storage::checkpoint_wal`), so that neither file holds the deleted rows (`secure_delete`
/// zeroed them in the pages; the log's old frames still had them). A reader holding an older
/// snapshot makes the checkpoint wait: it is tried again every second, for
/// [`PURGE_WITHIN`]; the housekeeping run checkpoints too. Nothing to do on PostgreSQL.
pub async fn purge_deleted_bytes(db: &DatabaseConnection) {
    let started = std::time::Instant::now();
    loop {
        match storage::checkpoint_wal(db).await {
            Ok(true) => return,
            Ok(false) => {}
            Err(err) => tracing::warn!(error = ?err, "the write-ahead log was not checkpointed"),
        }
        if started.elapsed() >= PURGE_WITHIN {
            tracing::error!("the write-ahead log still holds deleted rows: a reader kept it");
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Runs `sweep` (and the removal of deleted accounts' files) every `every` until the process stops, and `sweep_orphans` at start and hourly.
/// `passes` counts the passes finished.
pub fn spawn(
    db: DatabaseConnection,
    files: FileStore,
    every: Duration,
    passes: tokio::sync::watch::Sender<u64>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        let mut last_orphan_sweep: Option<std::time::Instant> = None;
        let mut orphan_position: Option<String> = None;
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
            match crate::deletions::record_missing(&db, &files, now).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(written = n, "departures written to the deletion record"),
                Err(err) => tracing::warn!(error = ?err, "writing the deletion record failed"),
            }
            match remove_departed_files(&db, &files).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "deleted accounts' files removed"),
                Err(err) => tracing::warn!(error = ?err, "removing deleted accounts' files failed"),
            }
            if last_orphan_sweep.is_none_or(|t| t.elapsed() >= Duration::from_secs(3600)) {
                last_orphan_sweep = Some(std::time::Instant::now());
                let now = std::time::SystemTime::now();
                match sweep_orphans(&db, &files, now, &mut orphan_position).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(removed = n, "orphaned files removed"),
                    Err(err) => tracing::error!(error = ?err, "orphan cleanup failed"),
                }
                match crate::deletions::prune(&files, now_secs()).await {
                    Ok(0) => {}
                    Ok(n) => {
                        tracing::info!(pruned = n, "old entries of the deletion record pruned")
                    }
                    Err(err) => tracing::warn!(error = ?err, "pruning the deletion record failed"),
                }
            }
            passes.send_modify(|n| *n += 1);
        }
    })
}
