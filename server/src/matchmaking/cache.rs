//! One pool per process ([`PoolCache`]): loaded from the database, kept up to date member by
//! member as standings change here or are announced by other processes, reloaded past its time
//! to live.

use std::{
    collections::HashSet,
    sync::Arc,
    time::{Duration, Instant},
};

use sea_orm::{DatabaseConnection, DbBackend};
use serde::{Deserialize, Serialize};
use tokio::sync::{Mutex, Notify};

use super::pool::Pool;
use crate::storage::{StorageError, match_pool};

/// Loads the pool: snapshots rebuilt where stale, then one scan.
pub async fn load(
    db: &(impl sea_orm::ConnectionTrait + sea_orm::StreamTrait),
) -> Result<Pool, StorageError> {
    match_pool::refresh_stale(db).await?;
    let mut members = Vec::new();
    match_pool::approved(db, |row| {
        if row.standing.takes_part() {
            members.push(row.to_profile()?);
        }
        Ok(())
    })
    .await?;
    Ok(Pool::new(members))
}

struct Cached {
    pool: Arc<Pool>,
    loaded: Instant,
    /// Its last change: a whole load, or members applied.
    changed: Instant,
}

/// The PostgreSQL notification channel on which a process announces the members whose standing
/// in matchmaking it changed (approved, suspended, reinstated, paused, back, deleted, edited).
pub const CHANNEL: &str = "kizuna_pool";

/// A pool announcement: the announcing process and the member ids (ids only: every process
/// reads the rows itself).
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Announced {
    o: i32,
    i: Vec<i64>,
}

/// Member ids a NOTIFY payload (at most 8000 bytes) carries; more are announced in several.
const IDS_PER_NOTIFY: usize = 500;

/// One pool per process, kept up to date member by member: whoever changes a member's standing
/// calls [`changed`] after the commit, which applies the change here (reading only that
/// member's row) and, on PostgreSQL, announces the ids to every other process (`NOTIFY
/// kizuna_pool`), whose updater applies them the same way within moments. No decision reloads
/// the whole pool. Past its time to live (`KIZUNA_POOL_TTL_SECS`, a safety net) the pool is
/// reloaded in the background while requests go on with the old one; with no pool at all (first
/// use, or [`invalidate`]d) the caller waits for the load.
///
/// [`changed`]: PoolCache::changed
/// [`invalidate`]: PoolCache::invalidate
#[derive(Clone)]
pub struct PoolCache {
    ttl: Duration,
    slot: Arc<std::sync::Mutex<Option<Cached>>>,
    /// Held while a load or a change runs: one at a time, so none is lost.
    loading: Arc<Mutex<()>>,
    /// Ids announced by other processes, not applied yet.
    pending: Arc<std::sync::Mutex<HashSet<i64>>>,
    wake: Arc<Notify>,
    /// This process in announcements.
    origin: i32,
    /// Whole loads so far (tests and logs: a decision must not cause one).
    loads: Arc<std::sync::atomic::AtomicU64>,
}

impl PoolCache {
    pub fn new(ttl: Duration, origin: i32) -> PoolCache {
        PoolCache {
            ttl,
            slot: Arc::new(std::sync::Mutex::new(None)),
            loading: Arc::new(Mutex::new(())),
            pending: Arc::default(),
            wake: Arc::new(Notify::new()),
            origin,
            loads: Arc::default(),
        }
    }

    fn current(&self) -> Option<(Arc<Pool>, bool)> {
        let slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref()
            .map(|c| (c.pool.clone(), c.loaded.elapsed() < self.ttl))
    }

    /// The current pool: a fresh one at once, a stale one at once while a reload starts in the
    /// background, none yet: loaded now.
    pub async fn get(&self, db: &DatabaseConnection) -> Result<Arc<Pool>, StorageError> {
        match self.current() {
            Some((pool, true)) => return Ok(pool),
            Some((pool, false)) => {
                if let Ok(guard) = self.loading.clone().try_lock_owned() {
                    let (db, slot, loads) = (db.clone(), self.slot.clone(), self.loads.clone());
                    tokio::spawn(async move {
                        match load_logged(&db, &loads).await {
                            Ok(pool) => store(&slot, pool, Instant::now()),
                            Err(err) => tracing::error!(error = ?err, "reloading the match pool"),
                        }
                        drop(guard);
                    });
                }
                return Ok(pool);
            }
            None => {}
        }
        let _guard = self.loading.lock().await;
        if let Some((pool, _)) = self.current() {
            return Ok(pool);
        }
        let pool = load_logged(db, &self.loads).await?;
        store(&self.slot, pool.clone(), Instant::now());
        Ok(pool)
    }

    /// The pool's members and how long ago it last changed (a load, or members applied); None
    /// before its first load.
    pub fn status(&self) -> Option<(usize, Duration)> {
        let slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map(|c| (c.pool.len(), c.changed.elapsed()))
    }

    /// How many times the whole pool was loaded by this process.
    pub fn loads(&self) -> u64 {
        self.loads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Drops the pool: the next list waits for a new one (the mock clock moved to another day).
    pub async fn invalidate(&self) {
        let _guard = self.loading.lock().await;
        *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Marks the pool stale, so the next list starts a reload in the background (the relay
    /// reconnected: announcements may have been missed meanwhile).
    pub fn expire(&self) {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cached) = slot.as_mut() {
            cached.loaded = Instant::now()
                .checked_sub(self.ttl)
                .unwrap_or(cached.loaded);
        }
    }

    /// These members' standing changed (committed): applied to this process's pool now and, on
    /// PostgreSQL, announced to every other process. A failed announcement is logged, never the
    /// caller's failure (the others catch up at their next reload).
    pub async fn changed(&self, db: &DatabaseConnection, ids: &[i64]) {
        if ids.is_empty() {
            return;
        }
        if let Err(err) = self.apply(db, ids).await {
            tracing::warn!(error = ?err, "match pool: a change was not applied; reloading");
            self.expire();
        }
        if db.get_database_backend() != DbBackend::Postgres {
            return;
        }
        for chunk in ids.chunks(IDS_PER_NOTIFY) {
            let payload = serde_json::to_string(&Announced {
                o: self.origin,
                i: chunk.to_vec(),
            })
            .unwrap_or_default();
            let notified = match_pool::announce(db, CHANNEL, &payload).await;
            if let Err(err) = notified {
                tracing::warn!(error = %err, "match pool: NOTIFY failed");
            }
        }
    }

    /// Another process's announcement (a NOTIFY payload): queued for the updater.
    pub fn announced(&self, payload: &str) -> anyhow::Result<()> {
        let announced: Announced = serde_json::from_str(payload)
            .map_err(|e| anyhow::anyhow!("a pool announcement: {e}"))?;
        if announced.o == self.origin {
            return Ok(());
        }
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(announced.i);
        self.wake.notify_one();
        Ok(())
    }

    /// Applies announced ids as they come, all that arrived meanwhile in one go.
    pub fn spawn_updater(&self, db: DatabaseConnection) -> tokio::task::JoinHandle<()> {
        let cache = self.clone();
        tokio::spawn(async move {
            loop {
                cache.wake.notified().await;
                let ids: Vec<i64> =
                    std::mem::take(&mut *cache.pending.lock().unwrap_or_else(|e| e.into_inner()))
                        .into_iter()
                        .collect();
                if ids.is_empty() {
                    continue;
                }
                if let Err(err) = cache.apply(&db, &ids).await {
                    tracing::warn!(error = ?err, "match pool: announced changes not applied; reloading");
                    cache.expire();
                }
            }
        })
    }

    /// Reads these members' rows (still APPROVED and not paused, or gone) and puts them into the
    /// pool in memory. Nothing to do before the first load, which reads everything.
    async fn apply(&self, db: &DatabaseConnection, ids: &[i64]) -> Result<(), StorageError> {
        let _guard = self.loading.lock().await;
        let Some(loaded) = self
            .slot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|c| (c.pool.clone(), c.loaded))
        else {
            return Ok(());
        };
        let started = Instant::now();
        let mut now = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(row) = match_pool::approved_one(db, *id)
                .await?
                .filter(|r| r.standing.takes_part())
            {
                now.push(row.to_profile()?);
            }
        }
        let changed: HashSet<u64> = ids.iter().map(|id| *id as u64).collect();
        let (old, loaded_at) = loaded;
        let pool = tokio::task::spawn_blocking(move || old.with_changes(&changed, now))
            .await
            .map_err(|e| anyhow::Error::new(e).context("applying pool changes"))?;
        store(&self.slot, Arc::new(pool), loaded_at);
        tracing::debug!(
            members = ids.len(),
            ms = started.elapsed().as_millis() as u64,
            "match pool: changes applied"
        );
        Ok(())
    }
}

fn store(slot: &std::sync::Mutex<Option<Cached>>, pool: Arc<Pool>, loaded: Instant) {
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(Cached {
        pool,
        loaded,
        changed: Instant::now(),
    });
}

async fn load_logged(
    db: &DatabaseConnection,
    loads: &std::sync::atomic::AtomicU64,
) -> Result<Arc<Pool>, StorageError> {
    loads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let started = Instant::now();
    let pool = Arc::new(load(db).await?);
    tracing::info!(
        members = pool.len(),
        mb = pool.bytes() / 1_000_000,
        ms = started.elapsed().as_millis() as u64,
        "match pool loaded"
    );
    Ok(pool)
}
