//! The matchmaking engine: the pool of approved members held in memory as kizuna-core
//! `MatchProfile`s, one member's list for today computed on demand, and the daily job that makes
//! everyone's list under the fairness cap and enqueues the morning pushes.
//!
//! Design (docs/design.md, "Matchmaking"): the candidate scan is the core's allocation-free
//! two-way check over compact profiles (128 bytes each, about 128 MB for a million members),
//! grouped by (gender, wanted gender) so a member only scans the groups that could accept them,
//! and walked nearest first through a spatial index until the core's window of eligible
//! candidates is full: a list costs about the same at a million members as at a thousand.
//! Everything the scan reads comes from `match_pool` in one query; relations (blocks, reports,
//! likes, passes, matches, open introductions) come from the database, for one member on demand
//! or for everyone once per job. The in-memory pool follows every change of a member's standing
//! member by member, announced between processes (`cache::PoolCache::changed`), and is reloaded
//! whole only after `KIZUNA_POOL_TTL_SECS` (3600 by default, a safety net); the picks are checked
//! against the database before they are stored, so a member who is no longer APPROVED is never
//! introduced.

pub mod cache;
pub mod job;
pub mod pool;
pub mod quiet;
pub mod schedule;

use std::collections::HashMap;

use kizuna_core::{
    date::Date,
    matching::{self, AppearanceCounter, DailyPick, MatchProfile, Ranked, Relation},
};
use sea_orm::ConnectionTrait;

pub use cache::PoolCache;
pub use pool::Pool;

use crate::storage::{
    self, StorageError, match_pool,
    matchmaking::{self as store, RelationRows},
};

/// What the rows say between each ordered pair of members, as the core's [`Relation`]: one
/// entry per ordered pair (both directions of the symmetric ones), for a list made on demand
/// and the daily job alike.
pub fn relation_book(rows: &RelationRows) -> HashMap<(u64, u64), Relation> {
    let mut book: HashMap<(u64, u64), Relation> = HashMap::new();
    fn both(book: &mut HashMap<(u64, u64), Relation>, a: i64, b: i64, set: &dyn Fn(&mut Relation)) {
        set(book.entry((a as u64, b as u64)).or_default());
        set(book.entry((b as u64, a as u64)).or_default());
    }
    for (a, b) in &rows.blocks {
        both(&mut book, *a, *b, &|r| r.blocked = true);
    }
    for (a, b) in &rows.reports {
        both(&mut book, *a, *b, &|r| r.reported = true);
    }
    for (a, b) in &rows.matches {
        both(&mut book, *a, *b, &|r| r.matched = true);
    }
    for (viewer, target, like, day) in &rows.reactions {
        if *like {
            book.entry((*viewer as u64, *target as u64))
                .or_default()
                .viewer_liked = true;
            book.entry((*target as u64, *viewer as u64))
                .or_default()
                .candidate_liked = true;
        } else if let Some(day) = day {
            both(&mut book, *viewer, *target, &|r| {
                r.last_pass = r.last_pass.max(Some(*day))
            });
        }
    }
    for (viewer, target) in &rows.pending {
        book.entry((*viewer as u64, *target as u64))
            .or_default()
            .pending_introduction = true;
    }
    for (low, high, departed_at) in &rows.former_pairs {
        let day = Date::taipei_day(*departed_at);
        both(&mut book, *low, *high, &|r| {
            r.former_pair = r.former_pair.max(day)
        });
    }
    book
}

/// Everything between `viewer` and the members they have a relation with, from the viewer's
/// side, by the other member.
pub async fn relations_of(
    db: &impl ConnectionTrait,
    viewer: i64,
    today: Date,
) -> Result<HashMap<u64, Relation>, StorageError> {
    let rows = store::relation_rows(db, Some(viewer), today).await?;
    Ok(relation_book(&rows)
        .into_iter()
        .filter(|((from, _), _)| *from == viewer as u64)
        .map(|((_, other), relation)| (other, relation))
        .collect())
}

/// Every relation that keeps two members apart or changes a score, for the daily job.
pub async fn all_relations(
    db: &impl ConnectionTrait,
    today: Date,
) -> Result<HashMap<(u64, u64), Relation>, StorageError> {
    Ok(relation_book(&store::relation_rows(db, None, today).await?))
}

/// `viewer`'s ranking in `pool`, best first: the core's [`matching::rank_nearest`] over the
/// pool's nearest-first walk (at most [`kizuna_core::rules::CANDIDATE_WINDOW`] eligible
/// candidates) and the members in `liked_viewer`, the same for the daily job and a list made on
/// demand.
pub fn rank(
    viewer: &MatchProfile,
    pool: &Pool,
    liked_viewer: &[u64],
    relation_of: impl FnMut(u64) -> Relation,
    today: Date,
    scratch: &mut Vec<Ranked>,
) {
    matching::rank_nearest(
        viewer,
        pool.nearest(viewer, today),
        liked_viewer.iter().filter_map(|id| pool.get(*id)),
        relation_of,
        today,
        scratch,
    );
}

/// A member's list for today: the stored one, or a new one made now (and stored, so asking
/// again answers the same). None when the member is not APPROVED or is paused.
pub async fn todays_list(
    db: &sea_orm::DatabaseConnection,
    cache: &PoolCache,
    viewer_id: i64,
    today: Date,
    now: i64,
) -> Result<Option<Vec<i64>>, StorageError> {
    if let Some(list) = store::list_of_day(db, viewer_id, today).await? {
        return Ok(Some(list));
    }
    let Some(me) = match_pool::approved_one(db, viewer_id)
        .await?
        .filter(|r| r.standing.takes_part())
    else {
        return Ok(None);
    };
    let viewer = me.to_profile()?;
    let pool = cache.get(db).await?;
    let relations = relations_of(db, viewer_id, today).await?;
    // The scan is CPU work (a window of two-way checks over the pool): off the async threads.
    let ranked = tokio::task::spawn_blocking(move || {
        let relation_of = |id: u64| relations.get(&id).copied().unwrap_or(Relation::NONE);
        let liked_me: Vec<u64> = relations
            .iter()
            .filter(|(_, r)| r.candidate_liked)
            .map(|(id, _)| *id)
            .collect();
        let mut ranked = Vec::new();
        rank(&viewer, &pool, &liked_me, relation_of, today, &mut ranked);
        ranked
    })
    .await
    .map_err(|e| anyhow::Error::new(e).context("ranking candidates"))?;
    let picks = pick_checked(db, &ranked, viewer.workplace(), today).await?;

    let txn = storage::begin_write(db).await.map_err(anyhow::Error::new)?;
    let fresh = store::insert_lists(&txn, today, &[(viewer_id, picks.clone())], now).await?;
    txn.commit().await.map_err(anyhow::Error::new)?;
    if fresh == 1 {
        Ok(Some(picks))
    } else {
        // Another request made the list first: answer that one.
        Ok(store::list_of_day(db, viewer_id, today).await?)
    }
}

/// The core's [`DailyPick`] over the ranking, a round at a time, with the round's appearance
/// counts and each candidate's standing (review status, pause, workplace) read from the
/// database and judged by the core's [`matching::may_be_picked`]: the in-memory pool may be
/// stale (another process's switch), the list never is.
async fn pick_checked(
    db: &impl ConnectionTrait,
    ranked: &[Ranked],
    mine: matching::Workplace,
    today: Date,
) -> Result<Vec<i64>, StorageError> {
    let mut pick = DailyPick::new();
    for round in DailyPick::rounds(ranked) {
        if pick.is_full() {
            break;
        }
        let ids: Vec<i64> = round.iter().map(|r| r.candidate as i64).collect();
        let standings: HashMap<i64, matching::PoolStanding> =
            match_pool::standings(db, &ids).await?.into_iter().collect();
        let mut counter =
            AppearanceCounter::from_counts(store::appearances(db, today, &ids).await?);
        pick.offer(
            ids.iter()
                .filter(|id| {
                    standings
                        .get(id)
                        .is_some_and(|s| matching::may_be_picked(mine, s))
                })
                .map(|id| *id as u64),
            &mut counter,
        );
    }
    Ok(pick
        .picks()
        .as_slice()
        .iter()
        .map(|id| *id as i64)
        .collect())
}

/// The distance band between two members, from their pool snapshots (grid cells only).
pub async fn bands(
    db: &impl ConnectionTrait,
    viewer: i64,
    others: &[i64],
) -> Result<HashMap<i64, kizuna_core::geo::DistanceBand>, StorageError> {
    let mut ids = others.to_vec();
    ids.push(viewer);
    let cells = match_pool::home_cells(db, &ids).await?;
    let mut out = HashMap::new();
    if let Some(home) = cells.get(&viewer) {
        for other in others {
            if let Some(there) = cells.get(other) {
                out.insert(
                    *other,
                    kizuna_core::geo::DistanceBand::between(*home, *there),
                );
            }
        }
    }
    Ok(out)
}
