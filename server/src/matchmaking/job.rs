//! The daily job: everyone's list for one Asia/Taipei day under the fairness cap, then one
//! morning push per member with new introductions (unless they turned it off).
//!
//! Members are served in the core's `job_order_key` order (a different order each day, so
//! nobody is always last when popular candidates reach their cap). The candidate scans run on
//! every core, a chunk of members at a time; the picks then run one member after another with
//! one `AppearanceCounter` for the whole run, down each member's whole ranking (the core's
//! window of nearest eligible candidates), exactly as a list made on demand picks.

use std::{collections::HashMap, time::Instant};

use anyhow::Context;
use kizuna_core::push::Push;
use kizuna_core::{
    date::Date,
    line::LineUserId,
    matching::{self, AppearanceCounter, DailyPick, Ranked, Relation},
};
use sea_orm::DatabaseConnection;

use super::{Pool, all_relations, cache, rank};
use crate::{
    line::push,
    storage::{self, StorageError, matchmaking as store},
};

/// Members per chunk: scanned in parallel, then picked and stored in one transaction.
const CHUNK: usize = 2000;

/// What a run did, with its timings.
#[derive(Debug, Default, Clone)]
pub struct JobReport {
    pub members: usize,
    pub lists: usize,
    pub introductions: usize,
    pub pushes: usize,
    pub load_secs: f64,
    pub pick_secs: f64,
    pub push_secs: f64,
    pub pool_bytes: usize,
}

/// Makes every APPROVED member's list of `day` that does not exist yet, and enqueues the
/// morning pushes. Safe to run again (and from two processes): a list is made once, a push is
/// enqueued once.
pub async fn run(
    db: &DatabaseConnection,
    day: Date,
    now: i64,
    liff_id: &str,
) -> Result<JobReport, StorageError> {
    let started = Instant::now();
    let pool = cache::load(db).await?;
    let relations = all_relations(db, day).await?;
    let mut liked: HashMap<u64, Vec<u64>> = HashMap::new();
    for ((viewer, candidate), relation) in &relations {
        if relation.candidate_liked {
            liked.entry(*viewer).or_default().push(*candidate);
        }
    }
    let mut counter = AppearanceCounter::from_counts(store::all_appearances(db, day).await?);
    let done: std::collections::HashSet<i64> =
        store::listed_on(db, day).await?.into_iter().collect();
    let mut order: Vec<usize> = (0..pool.len())
        .filter(|i| !done.contains(&(pool.members()[*i].id() as i64)))
        .collect();
    order.sort_by_key(|i| matching::job_order_key(day, pool.members()[*i].id()));
    let mut report = JobReport {
        members: pool.len(),
        pool_bytes: pool.bytes(),
        load_secs: started.elapsed().as_secs_f64(),
        ..JobReport::default()
    };

    let picking = Instant::now();
    for chunk in order.chunks(CHUNK) {
        let ranked = scan_chunk(&pool, &relations, &liked, chunk, day);
        let mut lists = Vec::with_capacity(chunk.len());
        for (i, best) in chunk.iter().zip(ranked) {
            let viewer = &pool.members()[*i];
            let picks = DailyPick::from_ranking(&best, &mut counter);
            let ids: Vec<i64> = picks.as_slice().iter().map(|id| *id as i64).collect();
            report.introductions += ids.len();
            lists.push((viewer.id() as i64, ids));
        }
        let txn = storage::begin_write(db).await.map_err(anyhow::Error::new)?;
        let fresh = store::insert_lists(&txn, day, &lists, now).await?;
        txn.commit().await.map_err(anyhow::Error::new)?;
        report.lists += fresh;
    }
    report.pick_secs = picking.elapsed().as_secs_f64();

    let pushing = Instant::now();
    report.pushes = enqueue_pushes(db, day, now, liff_id).await?;
    report.push_secs = pushing.elapsed().as_secs_f64();
    metrics::histogram!(crate::metric_names::JOB_DURATION).record(started.elapsed().as_secs_f64());
    metrics::gauge!(crate::metric_names::JOB_MEMBERS).set(report.members as f64);
    Ok(report)
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

/// Enqueues one push per member whose list of the day kizuna-core's `Push::morning` says is
/// due; each push commits with its `pushed_at` mark.
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
    for part in due.chunks(500) {
        let txn = storage::begin_write(db).await.map_err(anyhow::Error::new)?;
        let pushes: Vec<(LineUserId, Push)> = part
            .iter()
            .map(|(to, what, _)| (to.clone(), what.clone()))
            .collect();
        let marked: Vec<i64> = part.iter().map(|(_, _, viewer)| *viewer).collect();
        push::enqueue_many(&txn, &pushes)
            .await
            .context("enqueueing the morning pushes")?;
        store::mark_pushed(&txn, day, &marked, now).await?;
        txn.commit().await.map_err(anyhow::Error::new)?;
        sent += marked.len();
    }
    Ok(sent)
}
