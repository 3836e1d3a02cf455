//! The approved members in memory, grouped by (gender, wanted gender) and indexed by place, and
//! the cache that keeps one copy per process.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use kizuna_core::{
    Gender, MatchGender,
    date::Date,
    geo::GridPoint,
    matching::{self, MatchProfile},
    review::ReviewStatus,
    rules,
};
use sea_orm::DatabaseConnection;
use tokio::sync::Mutex;

use crate::storage::{
    StorageError,
    match_pool::{self, active_day},
};

const GENDERS: [Gender; 3] = [Gender::Male, Gender::Female, Gender::NonBinary];
const WANTS: [MatchGender; 3] = [MatchGender::Male, MatchGender::Female, MatchGender::Any];

/// Grid cells per side of a bucket of the spatial index: buckets of about 4 km x 4 km.
const BUCKET_CELLS: i32 = 4;

fn group_of(gender: Gender, wants: MatchGender) -> usize {
    let g = GENDERS.iter().position(|x| *x == gender).unwrap_or(0);
    let w = WANTS.iter().position(|x| *x == wants).unwrap_or(0);
    g * WANTS.len() + w
}

/// The bucket of a home cell: rows of the grid, and columns of 1/111 degree of longitude
/// (the grid's own columns narrow with latitude, so their indices drift apart between rows;
/// plain degrees keep a bucket's neighbours its neighbours on the map).
fn bucket_of(home: GridPoint) -> (i32, i32) {
    let x = (home.centre().longitude * rules::GRID_STEPS_PER_DEGREE).floor() as i32;
    (
        home.row().div_euclid(BUCKET_CELLS),
        x.div_euclid(BUCKET_CELLS),
    )
}

/// The bucket offset of position `k` (0..8r) on the square ring `r` buckets away.
fn ring_step(r: i32, k: i32) -> (i32, i32) {
    let side = 2 * r;
    match k / side {
        0 => (-r, -r + k),
        1 => (-r + (k - side), r),
        2 => (r, r - (k - 2 * side)),
        _ => (r - (k - 3 * side), -r),
    }
}

/// One (gender, wanted gender) group: its members sorted by bucket then id, and the buckets by
/// row then column, with each bucket row's span for a direct look-up.
#[derive(Default)]
struct Group {
    start: usize,
    /// (bucket column, first member, end) per bucket, bucket rows one after another.
    buckets: Vec<(i32, u32, u32)>,
    /// Per bucket row from `first_row`: its span in `buckets`.
    rows: Vec<(u32, u32)>,
    first_row: i32,
    cols: (i32, i32),
}

impl Group {
    fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    /// The members of a bucket, as a range of the pool.
    fn bucket(&self, row: i32, col: i32) -> Option<std::ops::Range<usize>> {
        let index = usize::try_from(row - self.first_row).ok()?;
        let (from, to) = *self.rows.get(index)?;
        let row = &self.buckets[from as usize..to as usize];
        let at = row.binary_search_by_key(&col, |b| b.0).ok()?;
        let (_, first, end) = row[at];
        Some(self.start + first as usize..self.start + end as usize)
    }

    /// The farthest ring from `(row, col)` that still holds a bucket of this group.
    fn last_ring(&self, (row, col): (i32, i32)) -> i32 {
        let last_row = self.first_row + self.rows.len() as i32 - 1;
        [
            row - self.first_row,
            last_row - row,
            col - self.cols.0,
            self.cols.1 - col,
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
        .max(0)
    }
}

/// Every APPROVED member as the core's compact profile, in nine (gender, wanted gender) groups
/// so that a viewer scans only the groups whose gender they want and who want theirs; each
/// group indexed by buckets of about 4 km so that a viewer's candidates come nearest first,
/// ring after ring of buckets, and the scan stops after [`rules::CANDIDATE_WINDOW`] eligible
/// ones (or at the radius). Deterministic: the order depends only on the pool, the viewer and
/// the day.
pub struct Pool {
    members: Vec<MatchProfile>,
    groups: [Group; 9],
    /// (member id, index in `members`), by id.
    by_id: Vec<(u64, u32)>,
}

impl Pool {
    pub fn new(members: Vec<MatchProfile>) -> Pool {
        let mut keyed: Vec<(usize, (i32, i32), MatchProfile)> = members
            .into_iter()
            .map(|m| {
                (
                    group_of(m.gender(), m.match_gender()),
                    bucket_of(m.home()),
                    m,
                )
            })
            .collect();
        keyed.sort_unstable_by_key(|(group, bucket, m)| (*group, *bucket, m.id()));
        let mut groups: [Group; 9] = Default::default();
        let mut at = 0;
        for (index, group) in groups.iter_mut().enumerate() {
            group.start = at;
            let members = keyed[at..].partition_point(|(g, _, _)| *g == index);
            let slice = &keyed[at..at + members];
            let mut i = 0;
            while i < slice.len() {
                let bucket = slice[i].1;
                let end = i + slice[i..].partition_point(|(_, b, _)| *b == bucket);
                group.buckets.push((bucket.1, i as u32, end as u32));
                i = end;
            }
            if let (Some(first), Some(last)) = (slice.first(), slice.last()) {
                group.first_row = first.1.0;
                let mut rows = vec![(0u32, 0u32); (last.1.0 - first.1.0 + 1) as usize];
                let mut cols = (i32::MAX, i32::MIN);
                let mut b = 0;
                for (r, span) in rows.iter_mut().enumerate() {
                    let row = group.first_row + r as i32;
                    let from = b;
                    while b < group.buckets.len() && slice[group.buckets[b].1 as usize].1.0 == row {
                        cols = (
                            cols.0.min(group.buckets[b].0),
                            cols.1.max(group.buckets[b].0),
                        );
                        b += 1;
                    }
                    *span = (from as u32, b as u32);
                }
                group.rows = rows;
                group.cols = cols;
            }
            at += members;
        }
        let members: Vec<MatchProfile> = keyed.into_iter().map(|(_, _, m)| m).collect();
        let mut by_id: Vec<(u64, u32)> = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id(), i as u32))
            .collect();
        by_id.sort_unstable();
        Pool {
            members,
            groups,
            by_id,
        }
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

    /// The member with this id, if APPROVED when the pool was loaded.
    pub fn get(&self, id: u64) -> Option<&MatchProfile> {
        let at = self.by_id.binary_search_by_key(&id, |(id, _)| *id).ok()?;
        Some(&self.members[self.by_id[at].1 as usize])
    }

    /// The members of the groups that could match `viewer` both ways, nearest first: rings of
    /// buckets around the viewer's, out to their radius (or the farthest member when they take
    /// anyone). Within a ring the walk starts at a place of its own per (day, viewer), and so
    /// within a bucket: members in the same ring are about as near, and each viewer meets a
    /// different part of a crowded bucket first. The core checks every clause of each.
    pub fn nearest<'a>(
        &'a self,
        viewer: &MatchProfile,
        day: Date,
    ) -> impl Iterator<Item = &'a MatchProfile> + 'a {
        let (my_gender, my_wants) = (viewer.gender(), viewer.match_gender());
        // At most six groups accept the viewer back; an array of them is `Copy` for the closures.
        let mut groups: [Option<&Group>; 9] = [None; 9];
        for (index, (g, w)) in GENDERS
            .iter()
            .flat_map(|g| WANTS.iter().map(move |w| (*g, *w)))
            .enumerate()
        {
            let group = &self.groups[index];
            if matching::accepts_gender(my_wants, g)
                && matching::accepts_gender(w, my_gender)
                && !group.is_empty()
            {
                groups[index] = Some(group);
            }
        }
        let home = viewer.home();
        let centre = bucket_of(home);
        let farthest = groups
            .iter()
            .flatten()
            .map(|g| g.last_ring(centre))
            .max()
            .unwrap_or(0);
        let last_ring = match viewer.recommend_distance_km() {
            0 => farthest,
            km => farthest.min(radius_rings(home, km)),
        };
        let id = viewer.id();
        let seed = matching::tie_break(day, id, u64::MAX);
        (0..=last_ring).flat_map(move |r| {
            let (positions, offset) = if r == 0 {
                (1, 0)
            } else {
                (8 * r, (seed % (8 * r) as u64) as i32)
            };
            (0..positions).flat_map(move |k| {
                let (dr, dc) = if r == 0 {
                    (0, 0)
                } else {
                    ring_step(r, (k + offset) % positions)
                };
                let (row, col) = (centre.0 + dr, centre.1 + dc);
                groups
                    .into_iter()
                    .flatten()
                    .filter_map(move |g| g.bucket(row, col))
                    .flat_map(move |range| {
                        let members = &self.members[range];
                        let key = ((row as u32 as u64) << 32) | col as u32 as u64;
                        let turn =
                            (matching::tie_break(day, id, key) % members.len() as u64) as usize;
                        members[turn..].iter().chain(members[..turn].iter())
                    })
            })
        })
    }

    /// Bytes the pool takes: the profiles and the index.
    pub fn bytes(&self) -> usize {
        self.members.capacity() * std::mem::size_of::<MatchProfile>()
            + self
                .groups
                .iter()
                .map(|g| g.buckets.capacity() * 12 + g.rows.capacity() * 8)
                .sum::<usize>()
            + self.by_id.capacity() * std::mem::size_of::<(u64, u32)>()
    }
}

/// Rings of buckets that can hold someone within `km` of `home`: rows are 1 km of latitude,
/// bucket columns 1/111 degree of longitude, which is narrower by cos(latitude) (taken at the
/// farthest latitude the radius reaches), plus a bucket of slack for where in its bucket each
/// one sits.
fn radius_rings(home: GridPoint, km: u32) -> i32 {
    let km = f64::from(km);
    let latitude = home.centre().latitude.abs() + km / 111.0 + 1.0;
    let narrowing = latitude.min(89.0).to_radians().cos().max(0.01);
    let cells = (km + 2.0) / narrowing;
    (cells / f64::from(BUCKET_CELLS)).ceil() as i32 + 1
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
