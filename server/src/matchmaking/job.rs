//! The daily job: everyone's list for one Asia/Taipei day under the fairness cap, each stored
//! with its morning push (unless the member turned it off).
//!
//! Members are served in the core's `job_order_key` order (a different order each day, so
//! nobody is always last when popular candidates reach their cap). The candidate scans run on
//! every core, a chunk of members at a time; the picks then run one member after another with
//! one `AppearanceCounter` for the whole run, down each member's whole ranking (the core's
//! window of nearest eligible candidates), exactly as a list made on demand picks. Scanning and
//! picking (CPU, on a blocking thread) run ahead of storing (the database) by a few chunks: a
//! bounded channel between them, so the database works while the next chunk is ranked, and
//! memory holds at most those few chunks' picks. On PostgreSQL two chunks are stored at once, each
//! in its own transaction on its own connection: a session's statements use one core, and the
//! chunks' viewers are disjoint, so the two never wait on each other's rows.

use std::{
    collections::{HashMap, HashSet},
    time::{Duration, Instant},
};

use anyhow::Context;
use futures_util::StreamExt;
use kizuna_core::push::Push;
use kizuna_core::{
    date::Date,
    line::LineUserId,
    matching::{self, AppearanceCounter, DailyPick, Ranked, Relation},
};
use sea_orm::{DatabaseConnection, DbBackend};

use super::{Pool, all_relations, cache, rank};
use crate::{
    line::push,
    storage::{self, StorageError, matchmaking as store},
};

/// Members per chunk: scanned in parallel, then picked, then stored with their morning pushes in
/// one transaction.
const CHUNK: usize = 2000;

/// Chunks picked and waiting to be stored: enough that the scan never waits for a slow commit,
/// few enough to hold in memory (a chunk's picks are about 100 KB).
const CHUNKS_AHEAD: usize = 4;

/// Chunks stored at once on PostgreSQL (SQLite has one writer at a time: there, one). At 1M
/// members the storing, one chunk at a time, was 212 s of a 220 s run while the scan used 52 s.
const WRITERS: usize = 2;

/// What a run did, with its timings.
#[derive(Debug, Default, Clone)]
pub struct JobReport {
    pub members: usize,
    pub lists: usize,
    pub introductions: usize,
    pub pushes: usize,
    /// The pool, the relations and the day's lists so far, read.
    pub load_secs: f64,
    /// Scanning, picking and storing every list with its push, overlapped: wall time.
    pub lists_secs: f64,
    /// Of which the candidate scans (on every core).
    pub scan_secs: f64,
    /// Of which the picks.
    pub pick_secs: f64,
    /// Of which the database: push settings read, lists and pushes written and committed (summed
    /// over the chunks, so with two writers it can exceed the wall time).
    pub store_secs: f64,
    /// The morning pushes of the day's lists not made by this run (lists made on demand).
    pub push_secs: f64,
    pub pool_bytes: usize,
}

/// One chunk's lists, as the picks made them: (member, picks best first).
type Lists = Vec<(i64, Vec<i64>)>;

/// Makes every APPROVED member's list of `day` that does not exist yet, each with its morning
/// push, and enqueues the morning pushes of the day's other lists. Safe to run again (and from
/// two processes): a list is made once, a push is enqueued once.
pub async fn run(
    db: &DatabaseConnection,
    day: Date,
    now: i64,
    liff_id: &str,
) -> Result<JobReport, StorageError> {
    let started = Instant::now();
    let pool = cache::load(db).await?;
    let relations = all_relations(db, day).await?;
    let counter = AppearanceCounter::from_counts(store::all_appearances(db, day).await?);
    let done: HashSet<i64> = store::listed_on(db, day).await?.into_iter().collect();
    let mut order: Vec<usize> = (0..pool.len())
        .filter(|i| !done.contains(&(pool.members()[*i].id() as i64)))
        .collect();
    drop(done);
    order.sort_by_key(|i| matching::job_order_key(day, pool.members()[*i].id()));
    let mut report = JobReport {
        members: pool.len(),
        pool_bytes: pool.bytes(),
        load_secs: started.elapsed().as_secs_f64(),
        ..JobReport::default()
    };

    let listing = Instant::now();
    let (chunks, mut picked) = tokio::sync::mpsc::channel::<Lists>(CHUNKS_AHEAD);
    // Dropping `picked` (an error while storing) ends the picker at its next chunk.
    let picker = tokio::task::spawn_blocking(move || {
        pick_all(&pool, &relations, counter, &order, day, |lists| {
            chunks.blocking_send(lists).is_ok()
        })
    });
    let writers = if db.get_database_backend() == DbBackend::Postgres {
        WRITERS
    } else {
        1
    };
    let mut stored = futures_util::stream::poll_fn(|cx| picked.poll_recv(cx))
        .map(|lists| async move {
            let storing = Instant::now();
            let (fresh, pushes) = store_chunk(db, day, now, &lists).await?;
            Ok::<_, StorageError>((fresh, pushes, storing.elapsed().as_secs_f64()))
        })
        .buffer_unordered(writers);
    // An error returns at once: the other chunk's transaction is dropped (rolled back) and, with
    // `picked` dropped, the picker stops at its next chunk.
    while let Some(chunk) = stored.next().await {
        let (fresh, pushes, secs) = chunk?;
        report.store_secs += secs;
        report.lists += fresh;
        report.pushes += pushes;
    }
    drop(stored);
    let picks = picker
        .await
        .map_err(|e| anyhow::Error::new(e).context("picking the lists"))?;
    report.introductions = picks.introductions;
    report.scan_secs = picks.scan.as_secs_f64();
    report.pick_secs = picks.pick.as_secs_f64();
    report.lists_secs = listing.elapsed().as_secs_f64();

    let pushing = Instant::now();
    report.pushes += enqueue_pushes(db, day, now, liff_id).await?;
    report.push_secs = pushing.elapsed().as_secs_f64();
    metrics::histogram!(crate::metric_names::JOB_DURATION).record(started.elapsed().as_secs_f64());
    metrics::gauge!(crate::metric_names::JOB_MEMBERS).set(report.members as f64);
    Ok(report)
}

/// What the picker did, and its time.
#[derive(Default)]
struct Picked {
    introductions: usize,
    scan: Duration,
    pick: Duration,
}

/// Ranks and picks the lists of the members at `order` in the pool, a chunk at a time, handing
/// each chunk's lists to `send` (false: stop, nobody stores them any more). Pure CPU: the core's
/// ranking and `DailyPick`, one counter down the whole order.
fn pick_all(
    pool: &Pool,
    relations: &HashMap<(u64, u64), Relation>,
    mut counter: AppearanceCounter,
    order: &[usize],
    day: Date,
    mut send: impl FnMut(Lists) -> bool,
) -> Picked {
    let mut liked: HashMap<u64, Vec<u64>> = HashMap::new();
    for ((viewer, candidate), relation) in relations {
        if relation.candidate_liked {
            liked.entry(*viewer).or_default().push(*candidate);
        }
    }
    let mut done = Picked::default();
    for chunk in order.chunks(CHUNK) {
        let scanning = Instant::now();
        let ranked = scan_chunk(pool, relations, &liked, chunk, day);
        let picking = Instant::now();
        done.scan += picking - scanning;
        let mut lists = Vec::with_capacity(chunk.len());
        for (i, best) in chunk.iter().zip(ranked) {
            let viewer = &pool.members()[*i];
            let picks = DailyPick::from_ranking(&best, &mut counter);
            let ids: Vec<i64> = picks.as_slice().iter().map(|id| *id as i64).collect();
            done.introductions += ids.len();
            lists.push((viewer.id() as i64, ids));
        }
        done.pick += picking.elapsed();
        if !send(lists) {
            break;
        }
    }
    done
}

/// Stores one chunk's lists, each with its morning push when kizuna-core's `Push::morning` says
/// it is due, in one transaction: a list and its push commit together or not at all, and a list
/// another request or process made first keeps its own (and gets no second push). Answers the
/// lists and pushes written.
async fn store_chunk(
    db: &DatabaseConnection,
    day: Date,
    now: i64,
    lists: &[(i64, Vec<i64>)],
) -> Result<(usize, usize), StorageError> {
    let viewers: Vec<i64> = lists.iter().map(|(viewer, _)| *viewer).collect();
    let settings: HashMap<i64, store::PushSetting> = store::push_settings(db, &viewers)
        .await?
        .into_iter()
        .map(|s| (s.viewer, s))
        .collect();
    let due: HashMap<i64, (LineUserId, Push)> = lists
        .iter()
        .filter_map(|(viewer, picks)| {
            let setting = settings.get(viewer)?;
            let what = Push::morning(picks.len() as u32, setting.wants_push, false)?;
            Some((*viewer, (LineUserId::parse(&setting.line_user_id)?, what)))
        })
        .collect();
    let pushed: HashSet<i64> = due.keys().copied().collect();
    let txn = storage::begin_write(db).await.map_err(anyhow::Error::new)?;
    let fresh = store::insert_lists_pushed(&txn, day, lists, &pushed, now).await?;
    let pushes: Vec<(LineUserId, Push)> = fresh
        .iter()
        .filter_map(|viewer| due.get(viewer).cloned())
        .collect();
    push::enqueue_many(&txn, &pushes)
        .await
        .context("enqueueing the morning pushes")?;
    txn.commit().await.map_err(anyhow::Error::new)?;
    Ok((fresh.len(), pushes.len()))
}

fn relation_in(book: &HashMap<(u64, u64), Relation>, viewer: u64, candidate: u64) -> Relation {
    book.get(&(viewer, candidate))
        .copied()
        .unwrap_or(Relation::NONE)
}

/// The ranking of each member of the chunk, scanned on every core.
fn scan_chunk(
    pool: &Pool,
    relations: &HashMap<(u64, u64), Relation>,
    liked: &HashMap<u64, Vec<u64>>,
    chunk: &[usize],
    day: Date,
) -> Vec<Vec<Ranked>> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16);
    let per_thread = chunk.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunk
            .chunks(per_thread)
            .map(|part| {
                scope.spawn(move || {
                    let mut scratch = Vec::new();
                    part.iter()
                        .map(|i| {
                            let viewer = &pool.members()[*i];
                            rank(
                                viewer,
                                pool,
                                liked.get(&viewer.id()).map_or(&[][..], Vec::as_slice),
                                |c| relation_in(relations, viewer.id(), c),
                                day,
                                &mut scratch,
                            );
                            scratch.clone()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a scan thread does not panic"))
            .collect()
    })
}

/// Enqueues the morning push of each of the day's lists not pushed yet (lists made on demand
/// before the run: the run's own are stored with theirs) whose push kizuna-core's `Push::morning`
/// says is due; each batch of pushes commits with its `pushed_at` marks.
async fn enqueue_pushes(
    db: &DatabaseConnection,
    day: Date,
    now: i64,
    liff_id: &str,
) -> Result<usize, StorageError> {
    let due: Vec<(LineUserId, Push, i64)> = store::lists_for_push(db, day)
        .await?
        .into_iter()
        .filter_map(|list| {
            let what = Push::morning(
                list.picked.max(0) as u32,
                list.wants_push,
                list.pushed_at.is_some(),
            )?;
            Some((LineUserId::parse(&list.line_user_id)?, what, list.viewer))
        })
        .collect();
    let _ = liff_id; // the worker renders the links when it sends
    let mut sent = 0;
    for part in due.chunks(CHUNK) {
        let txn = storage::begin_write(db).await.map_err(anyhow::Error::new)?;
        let viewers: Vec<i64> = part.iter().map(|(_, _, viewer)| *viewer).collect();
        let marked: HashSet<i64> = store::mark_pushed(&txn, day, &viewers, now)
            .await?
            .into_iter()
            .collect();
        // Only the lists this call marked: another run may have pushed the others meanwhile.
        let pushes: Vec<(LineUserId, Push)> = part
            .iter()
            .filter(|(_, _, viewer)| marked.contains(viewer))
            .map(|(to, what, _)| (to.clone(), what.clone()))
            .collect();
        push::enqueue_many(&txn, &pushes)
            .await
            .context("enqueueing the morning pushes")?;
        txn.commit().await.map_err(anyhow::Error::new)?;
        sent += pushes.len();
    }
    Ok(sent)
}
