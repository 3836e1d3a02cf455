//! Matchmaking as members do it: today's list, another member's profile, the matches list, likes
//! and passes, unmatch, block and report. Who may see or name whom is `crate::access`'s; every
//! list reads in a constant number of statements whatever its length.

use std::collections::HashMap;

use anyhow::Context;
use kizuna_core::{access, date::Date, matching::PublicProfile, report::Report};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder,
};

use super::{AfterCommit, Outcome, push_target};
use crate::{
    access::Viewer,
    error::ApiError,
    line::{
        messages::{PushText, liff_url, push_messages},
        push,
    },
    matchmaking,
    state::AppState,
    storage::{
        self, StorageError, chat,
        entity::{chat_message, pair_match, profile, reaction},
        matchmaking as store, profiles,
    },
};

/// One entry of today's list as the viewer sees it.
pub struct ListEntry {
    pub member: i64,
    pub profile: PublicProfile,
    /// The viewer's answer so far: LIKE, PASS or None.
    pub reaction: Option<String>,
}

/// What /today shows: the day's introductions, or that the member is taking a break.
pub enum TodaysList {
    Entries(Vec<ListEntry>),
    /// Paused since (Unix seconds): no list until they resume.
    Paused {
        since: i64,
    },
}

/// One active match as the viewer sees it.
pub struct MatchEntry {
    pub pair: pair_match::Model,
    pub member: i64,
    pub profile: PublicProfile,
    pub last_message: Option<chat_message::Model>,
    /// Messages from the other member after the viewer's read marker.
    pub unread: u32,
}

/// What a like came to.
pub struct Liked {
    pub match_id: Option<i64>,
}

/// What the viewer may be shown of each of `members` that has a readable profile (kizuna-core's
/// `PublicProfile`), in a constant number of statements.
async fn public_profiles(
    db: &impl ConnectionTrait,
    viewer: i64,
    members: &[i64],
    today: Date,
) -> Result<HashMap<i64, PublicProfile>, StorageError> {
    let stored = profiles::load_many(db, members).await?;
    let bands = matchmaking::bands(db, viewer, members).await?;
    Ok(stored
        .iter()
        .filter_map(|(id, stored)| {
            let band = bands.get(id).copied()?;
            Some((*id, PublicProfile::new(&stored.profile, today, band)))
        })
        .collect())
}

/// Today's list (made now when the daily job has not made it yet), best first, without the
/// members who no longer stand in it. A paused member gets none: `Err(Paused)` is not an error
/// to them, so it is answered as [`TodaysList::Paused`].
pub async fn todays_list(state: &AppState, viewer: &Viewer) -> Result<TodaysList, ApiError> {
    let me = viewer.approved_member()?;
    let now = state.now();
    let today = state.settings.clock.taipei_today();
    store::touch_active(&state.db, viewer.user_id, now).await?;
    if let Some(since) = crate::storage::pauses::paused_since(&state.db, me).await? {
        return Ok(TodaysList::Paused { since });
    }
    let list = matchmaking::todays_list(&state.db, &state.pool, me, today, now)
        .await?
        .ok_or_else(|| {
            ApiError::Forbidden("only approved members take part in matchmaking".into())
        })?;
    let ties = crate::access::ties(&state.db, viewer, &list).await?;
    let standing: Vec<i64> = list
        .into_iter()
        .filter(|id| {
            ties.get(id)
                .is_some_and(|t| access::stands_in_list(viewer.standing, t))
        })
        .collect();
    let mut reactions = store::reactions_on(&state.db, me, &standing).await?;
    let mut shown = public_profiles(&state.db, me, &standing, today).await?;
    Ok(TodaysList::Entries(
        standing
            .into_iter()
            .filter_map(|id| {
                Some(ListEntry {
                    member: id,
                    profile: shown.remove(&id)?,
                    reaction: reactions.remove(&id).map(|r| r.kind),
                })
            })
            .collect(),
    ))
}

/// The member's profile as the viewer may see it; 404 E003 for anyone they may not see.
pub async fn member(
    state: &AppState,
    viewer: &Viewer,
    target: i64,
) -> Result<PublicProfile, ApiError> {
    let me = viewer.approved_member()?;
    if !crate::access::may_see_profile(&state.db, viewer, target).await? {
        return Err(ApiError::NotFound);
    }
    let today = state.settings.clock.taipei_today();
    public_profiles(&state.db, me, &[target], today)
        .await?
        .remove(&target)
        .ok_or(ApiError::NotFound)
}

/// The viewer's active matches, newest first, with the conversation's newest message and the
/// unread count: a constant number of statements however many matches there are.
pub async fn matches(state: &AppState, viewer: &Viewer) -> Result<Vec<MatchEntry>, ApiError> {
    let me = viewer.approved_member()?;
    let today = state.settings.clock.taipei_today();
    let active = store::active_matches(&state.db, me).await?;
    let others: Vec<i64> = active.iter().map(|(_, other)| *other).collect();
    let ties = crate::access::ties(&state.db, viewer, &others).await?;
    let visible: Vec<(pair_match::Model, i64)> = active
        .into_iter()
        .filter(|(_, other)| {
            ties.get(other)
                .is_some_and(|t| access::may_see_profile(viewer.standing, t))
        })
        .collect();
    let ids: Vec<i64> = visible.iter().map(|(m, _)| m.id).collect();
    let members: Vec<i64> = visible.iter().map(|(_, other)| *other).collect();
    let mut shown = public_profiles(&state.db, me, &members, today).await?;
    let mut last = chat::last_messages(&state.db, &ids).await?;
    let unread = chat::unread_counts(&state.db, &ids, me).await?;
    Ok(visible
        .into_iter()
        .filter_map(|(pair, other)| {
            Some(MatchEntry {
                member: other,
                profile: shown.remove(&other)?,
                last_message: last.remove(&pair.id),
                unread: unread.get(&pair.id).copied().unwrap_or(0),
                pair,
            })
        })
        .collect())
}

/// Holds both members' rows until the transaction ends, lower id first: two likes of the same
/// pair run one after the other, so the second sees the first and exactly one match is made.
async fn lock_pair(txn: &DatabaseTransaction, a: i64, b: i64) -> Result<(), StorageError> {
    use sea_orm::QuerySelect;
    profile::Entity::find()
        .filter(profile::Column::Id.is_in([a, b]))
        .order_by_asc(profile::Column::Id)
        .lock_exclusive()
        .all(txn)
        .await
        .context("locking two members")?;
    Ok(())
}

/// The target must stand in the viewer's list (404 E003 otherwise).
async fn listed(state: &AppState, viewer: &Viewer, target: i64) -> Result<i64, ApiError> {
    let me = viewer.approved_member()?;
    if !crate::access::stands_in_list(&state.db, viewer, target).await? {
        return Err(ApiError::NotFound);
    }
    Ok(me)
}

/// Likes an introduction: a like back makes the match, and both members get a LINE push. A
/// second like answers the same; liking someone the viewer passed is 409 E005.
pub async fn like(
    state: &AppState,
    viewer: &Viewer,
    target: i64,
) -> Result<Outcome<Liked>, ApiError> {
    let me = listed(state, viewer, target).await?;
    let now = state.now();
    let today = state.settings.clock.taipei_today();
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting a like")?;
    lock_pair(&txn, me, target).await?;
    match store::reaction_of(&txn, me, target).await? {
        Some(r) if r.kind == reaction::PASS => {
            return Err(ApiError::Conflict("you passed this introduction".into()));
        }
        Some(_) => {
            let pair = store::pair(&txn, me, target).await?;
            return Ok(Outcome::only(Liked {
                match_id: pair.map(|m| m.id),
            }));
        }
        None => {}
    }
    store::set_reaction(&txn, me, target, reaction::LIKE, today, now).await?;
    let liked_back = store::reaction_of(&txn, target, me)
        .await?
        .is_some_and(|r| r.kind == reaction::LIKE);
    let mut after = AfterCommit::default();
    let mut match_id = None;
    if liked_back && let Some(id) = store::create_match(&txn, me, target, now).await? {
        match_id = Some(id);
        let url = liff_url(&state.settings.line.liff_id);
        for member in [me, target] {
            if let Some((to, locale)) = push_target(&txn, member, store::PushKind::Matches).await? {
                let messages = push_messages(locale, &PushText::NewMatch, Some(&url));
                push::enqueue(&txn, &to, &messages).await?;
                after.pushed();
            }
        }
    }
    txn.commit().await.context("committing a like")?;
    Ok(Outcome::new(Liked { match_id }, after))
}

/// Passes an introduction: not introduced again for 30 days. A second pass changes nothing;
/// passing someone the viewer liked is 409 E005.
pub async fn pass(state: &AppState, viewer: &Viewer, target: i64) -> Result<Outcome<()>, ApiError> {
    let me = listed(state, viewer, target).await?;
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting a pass")?;
    lock_pair(&txn, me, target).await?;
    match store::reaction_of(&txn, me, target).await? {
        Some(r) if r.kind == reaction::LIKE => {
            return Err(ApiError::Conflict("you liked this introduction".into()));
        }
        Some(_) => return Ok(Outcome::only(())),
        None => {}
    }
    let today = state.settings.clock.taipei_today();
    store::set_reaction(&txn, me, target, reaction::PASS, today, state.now()).await?;
    txn.commit().await.context("committing a pass")?;
    Ok(Outcome::only(()))
}

/// Ends the pair's live match, if there is one, inside the caller's transaction: unmatch, block
/// and report all end a relation this way, and both members' chats are told after the commit.
async fn end_relation(
    txn: &DatabaseTransaction,
    me: i64,
    other: i64,
    now: i64,
    after: &mut AfterCommit,
) -> Result<(), StorageError> {
    if let Some(live) = store::pair(txn, me, other)
        .await?
        .filter(|m| m.ended_at.is_none())
    {
        store::end_match(txn, me, other, me, now).await?;
        after.ended(&live);
    }
    Ok(())
}

/// Ends one of the viewer's matches for both members; again changes nothing. 404 E003 for
/// someone else's match or an unknown one.
pub async fn unmatch(
    state: &AppState,
    viewer: &Viewer,
    match_id: i64,
) -> Result<Outcome<()>, ApiError> {
    let me = viewer.approved_member()?;
    let found = store::match_of(&state.db, me, match_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let other = if found.low_id == me {
        found.high_id
    } else {
        found.low_id
    };
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting an unmatch")?;
    let mut after = AfterCommit::default();
    end_relation(&txn, me, other, state.now(), &mut after).await?;
    txn.commit().await.context("committing an unmatch")?;
    Ok(Outcome::new((), after))
}

/// The member the viewer names must be one they may name (404 E003 otherwise).
async fn nameable(state: &AppState, viewer: &Viewer, target: i64) -> Result<i64, ApiError> {
    let me = viewer.approved_member()?;
    if !crate::access::may_name(&state.db, viewer, target).await? {
        return Err(ApiError::NotFound);
    }
    Ok(me)
}

/// Blocks a member: both disappear from each other at once and their match ends. Blocking again
/// changes nothing.
pub async fn block(
    state: &AppState,
    viewer: &Viewer,
    target: i64,
) -> Result<Outcome<()>, ApiError> {
    let me = nameable(state, viewer, target).await?;
    let now = state.now();
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting a block")?;
    let mut after = AfterCommit::default();
    store::insert_block(&txn, me, target, now).await?;
    end_relation(&txn, me, target, now, &mut after).await?;
    txn.commit().await.context("committing a block")?;
    Ok(Outcome::new((), after))
}

/// Reports a member for the reviewers' queue, which blocks them too; answers the report's id. A
/// second report of the same member while the first is open is 409 E005.
pub async fn report(
    state: &AppState,
    viewer: &Viewer,
    target: i64,
    report: &Report,
) -> Result<Outcome<i64>, ApiError> {
    let me = nameable(state, viewer, target).await?;
    let now = state.now();
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting a report")?;
    if store::open_report(&txn, me, target).await?.is_some() {
        return Err(ApiError::Conflict(
            "you already reported this member; the reviewers have it".into(),
        ));
    }
    let reasons: Vec<&str> = report.reasons.iter().map(|r| r.code()).collect();
    let id = store::insert_report(
        &txn,
        me,
        target,
        &reasons,
        report.text.as_deref().unwrap_or_default(),
        now,
    )
    .await?;
    let mut after = AfterCommit::default();
    store::insert_block(&txn, me, target, now).await?;
    end_relation(&txn, me, target, now, &mut after).await?;
    txn.commit().await.context("committing a report")?;
    tracing::info!(report = id, "member report stored");
    Ok(Outcome::new(id, after))
}

/// Ends every live match of a suspended member inside the decision's transaction; both members
/// of each are told after the commit.
pub(crate) async fn end_all_relations(
    txn: &DatabaseTransaction,
    member: i64,
    now: i64,
    after: &mut AfterCommit,
) -> Result<(), StorageError> {
    for (live, _) in store::active_matches(txn, member).await? {
        after.ended(&live);
    }
    store::end_all_matches(txn, member, now).await?;
    Ok(())
}
