//! The approved members in memory, grouped by (gender, wanted gender), and the cache that keeps
//! one copy per process.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use kizuna_core::{Gender, MatchGender, matching::MatchProfile, review::ReviewStatus};
use sea_orm::DatabaseConnection;
use tokio::sync::Mutex;

use crate::storage::{
    StorageError,
    match_pool::{self, active_day},
};

const GENDERS: [Gender; 3] = [Gender::Male, Gender::Female, Gender::NonBinary];
const WANTS: [MatchGender; 3] = [MatchGender::Male, MatchGender::Female, MatchGender::Any];

/// Rows of slack around a radius window.
const ROW_MARGIN: i32 = 2;

fn group_of(gender: Gender, wants: MatchGender) -> usize {
    let g = GENDERS.iter().position(|x| *x == gender).unwrap_or(0);
    let w = WANTS.iter().position(|x| *x == wants).unwrap_or(0);
    g * WANTS.len() + w
}

/// Every APPROVED member as the core's compact profile, stored group after group so that a
/// viewer scans only the groups whose gender they want and who want theirs; within a group by
/// grid row, so that a viewer with a radius scans only the rows it can reach (a row is about
/// 1 km of latitude, so rows further than the radius are further in any direction).
pub struct Pool {
    members: Vec<MatchProfile>,
    groups: [std::ops::Range<usize>; 9],
}

impl Pool {
    pub fn new(mut members: Vec<MatchProfile>) -> Pool {
        members.sort_by_key(|m| {
            (
                group_of(m.gender(), m.match_gender()),
                m.home().row(),
                m.id(),
            )
        });
        let mut groups: [std::ops::Range<usize>; 9] = Default::default();
        let mut start = 0;
        for (index, group) in groups.iter_mut().enumerate() {
            let end = start
                + members[start..]
                    .iter()
                    .take_while(|m| group_of(m.gender(), m.match_gender()) == index)
                    .count();
            *group = start..end;
            start = end;
        }
        Pool { members, groups }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn members(&self) -> &[MatchProfile] {
        &self.members
    }

    /// The members of the groups that could match `viewer` both ways, within the rows their
    /// radius reaches (the core still checks every clause of each).
    pub fn candidates_for<'a>(
        &'a self,
        viewer: &MatchProfile,
    ) -> impl Iterator<Item = &'a MatchProfile> + 'a {
        let (my_gender, my_wants) = (viewer.gender(), viewer.match_gender());
        let row = viewer.home().row();
        // One spare row each way: a cell's centre may sit nearer than its row index says.
        let reach = match viewer.recommend_distance_km() {
            0 => None,
            km => Some((row - km as i32 - ROW_MARGIN, row + km as i32 + ROW_MARGIN)),
        };
        GENDERS
            .iter()
            .flat_map(|g| WANTS.iter().map(move |w| (*g, *w)))
            .filter(move |(g, w)| {
                kizuna_core::matching::accepts_gender(my_wants, *g)
                    && kizuna_core::matching::accepts_gender(*w, my_gender)
            })
            .flat_map(move |(g, w)| {
                let group = &self.members[self.groups[group_of(g, w)].clone()];
                let slice = match reach {
                    None => group,
                    Some((low, high)) => {
                        let start = group.partition_point(|m| m.home().row() < low);
                        let end = group.partition_point(|m| m.home().row() <= high);
                        &group[start..end]
                    }
                };
                slice.iter()
            })
    }

    /// Bytes the pool's profiles take.
    pub fn bytes(&self) -> usize {
        self.members.capacity() * std::mem::size_of::<MatchProfile>()
    }
}

/// Loads the pool: snapshots rebuilt where stale, then one scan.
pub async fn load(db: &impl sea_orm::ConnectionTrait) -> Result<Pool, StorageError> {
    match_pool::refresh_stale(db).await?;
    let rows = match_pool::approved(db).await?;
    let mut members = Vec::with_capacity(rows.len());
    for row in &rows {
        members.push(match_pool::to_profile(
            &row.row,
            ReviewStatus::Approved,
            active_day(row.last_active_at),
        )?);
    }
    Ok(Pool::new(members))
}

struct Cached {
    pool: Arc<Pool>,
    loaded: Instant,
}

/// One pool per process. Past its time to live the pool is reloaded in the background while
/// requests go on with the old one (at a million members a load takes seconds; the picks are
/// checked against the database anyway); with no pool at all (first use, or [`invalidate`]d)
/// the caller waits for the load.
///
/// [`invalidate`]: PoolCache::invalidate
pub struct PoolCache {
    ttl: Duration,
    slot: Arc<std::sync::Mutex<Option<Cached>>>,
    /// Held while a load runs: one load at a time.
    loading: Arc<Mutex<()>>,
}

impl PoolCache {
    pub fn new(ttl: Duration) -> PoolCache {
        PoolCache {
            ttl,
            slot: Arc::new(std::sync::Mutex::new(None)),
            loading: Arc::new(Mutex::new(())),
        }
    }

    /// From `KIZUNA_POOL_TTL_SECS` (default 60).
    pub fn from_env() -> PoolCache {
        let secs = std::env::var("KIZUNA_POOL_TTL_SECS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(60);
        PoolCache::new(Duration::from_secs(secs))
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
                    let (db, slot) = (db.clone(), self.slot.clone());
                    tokio::spawn(async move {
                        match load_logged(&db).await {
                            Ok(pool) => store(&slot, pool),
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
        let pool = load_logged(db).await?;
        store(&self.slot, pool.clone());
        Ok(pool)
    }

    /// Drops the pool: the next list waits for a new one (a profile was approved, suspended
    /// or edited, and this process should see it at once).
    pub async fn invalidate(&self) {
        let _guard = self.loading.lock().await;
        *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

fn store(slot: &std::sync::Mutex<Option<Cached>>, pool: Arc<Pool>) {
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(Cached {
        pool,
        loaded: Instant::now(),
    });
}

async fn load_logged(db: &DatabaseConnection) -> Result<Arc<Pool>, StorageError> {
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
