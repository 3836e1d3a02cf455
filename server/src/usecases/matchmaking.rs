//! Matchmaking as members do it: today's list, another member's profile, the matches list, likes
//! and passes, unmatch, block and report. Who may see or name whom is `crate::access`'s; every
//! list reads in a constant number of statements whatever its length.

use std::collections::HashMap;

use anyhow::Context;
use kizuna_core::{
    access,
    date::Date,
    like::{self, LikeComment},
    matching::PublicProfile,
    report::Report,
};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder,
};

use super::{AfterCommit, Outcome, push_target};
use crate::{
    access::Viewer,
    chat::What,
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

/// Likes a list shows, at most: the newest first. A member gets at most a few introductions a
/// day, so this is months of likes.
pub const LIKES_LISTED: u64 = 100;

/// One entry of today's list as the viewer sees it.
pub struct ListEntry {
    pub member: i64,
    pub profile: PublicProfile,
    /// The viewer's answer so far: LIKE or None (a passed member leaves the list).
    pub reaction: Option<String>,
    /// The member's like of the viewer, with its comment, if they liked them.
    pub their_like: Option<reaction::Model>,
}

/// Another member's profile as the viewer sees it, with where the two stand.
pub struct MemberPage {
    pub profile: PublicProfile,
    /// The viewer's answer to them: LIKE, PASS or None.
    pub reaction: Option<String>,
    /// Their like of the viewer, when the viewer may be shown it (`access::sees_like_from`).
    pub their_like: Option<reaction::Model>,
    /// Their live match, if they have one.
    pub match_id: Option<i64>,
}

/// A like in "Likes you sent" or "Liked you".
pub struct LikeEntry {
    pub member: i64,
    pub profile: PublicProfile,
    pub like: reaction::Model,
}

/// What a like carries when the caller sends a comment: read by kizuna-core's `LikeComment`
/// against the liked member's public profile.
pub struct CommentInput {
    pub text: String,
    pub photo_name: Option<String>,
    pub answer: Option<String>,
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
    /// The viewer has not opened the conversation yet.
    pub is_new: bool,
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
            Some((
                *id,
                PublicProfile::new(&stored.profile, stored.status, today, band),
            ))
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
    let shown_ids: Vec<i64> = list
        .into_iter()
        .filter(|id| {
            ties.get(id)
                .is_some_and(|t| access::shown_in_list(viewer.standing, t))
        })
        .collect();
    let mut reactions = store::reactions_on(&state.db, me, &shown_ids).await?;
    let mut likes = store::likes_from(&state.db, me, &shown_ids).await?;
    let mut shown = public_profiles(&state.db, me, &shown_ids, today).await?;
    Ok(TodaysList::Entries(
        shown_ids
            .into_iter()
            .filter_map(|id| {
                let their_like = likes.remove(&id).filter(|_| {
                    ties.get(&id)
                        .is_some_and(|t| access::sees_like_from(viewer.standing, t))
                });
                Some(ListEntry {
                    member: id,
                    profile: shown.remove(&id)?,
                    reaction: reactions.remove(&id).map(|r| r.kind),
                    their_like,
                })
            })
            .collect(),
    ))
}

/// The member's profile as the viewer may see it, with the viewer's answer, their like and the
/// pair's live match; 404 E003 for anyone they may not see.
pub async fn member(
    state: &AppState,
    viewer: &Viewer,
    target: i64,
) -> Result<MemberPage, ApiError> {
    let me = viewer.approved_member()?;
    let ties = crate::access::ties(&state.db, viewer, &[target])
        .await?
        .remove(&target)
        .filter(|t| access::may_see_profile(viewer.standing, t))
        .ok_or(ApiError::NotFound)?;
    let today = state.settings.clock.taipei_today();
    let profile = public_profiles(&state.db, me, &[target], today)
        .await?
        .remove(&target)
        .ok_or(ApiError::NotFound)?;
    let reaction = store::reaction_of(&state.db, me, target).await?;
    let their_like = if access::sees_like_from(viewer.standing, &ties) {
        store::likes_from(&state.db, me, &[target])
            .await?
            .remove(&target)
    } else {
        None
    };
    let match_id = if ties.live_match {
        store::pair(&state.db, me, target).await?.map(|m| m.id)
    } else {
        None
    };
    Ok(MemberPage {
        profile,
        reaction: reaction.map(|r| r.kind),
        their_like,
        match_id,
    })
}

/// "Likes you sent" (the viewer's likes not yet answered by a match) and "Liked you" (likes from
/// members already among the viewer's introductions, `access::sees_like_from`: a like makes
/// nobody visible), newest first, at most [`LIKES_LISTED`] each, in a constant number of
/// statements.
pub async fn likes(
    state: &AppState,
    viewer: &Viewer,
) -> Result<(Vec<LikeEntry>, Vec<LikeEntry>), ApiError> {
    let me = viewer.approved_member()?;
    let today = state.settings.clock.taipei_today();
    let sent = store::likes_sent(&state.db, me, LIKES_LISTED).await?;
    let received = store::likes_received(&state.db, me, LIKES_LISTED).await?;
    let mut others: Vec<i64> = sent.iter().map(|r| r.target_id).collect();
    others.extend(received.iter().map(|r| r.viewer_id));
    let ties = crate::access::ties(&state.db, viewer, &others).await?;
    let shown = public_profiles(&state.db, me, &others, today).await?;
    let entries = |rows: Vec<reaction::Model>,
                   other: fn(&reaction::Model) -> i64,
                   rule: fn(access::Standing, &access::Ties) -> bool| {
        rows.into_iter()
            .filter_map(|like| {
                let member = other(&like);
                if !ties.get(&member).is_some_and(|t| rule(viewer.standing, t)) {
                    return None;
                }
                Some(LikeEntry {
                    member,
                    profile: shown.get(&member)?.clone(),
                    like,
                })
            })
            .collect::<Vec<_>>()
    };
    let sent = entries(sent, |r| r.target_id, access::sees_own_like);
    let received = entries(received, |r| r.viewer_id, access::sees_like_from);
    Ok((sent, received))
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
    let opened = chat::opened(&state.db, &ids, me).await?;
    Ok(visible
        .into_iter()
        .filter_map(|(pair, other)| {
            Some(MatchEntry {
                member: other,
                profile: shown.remove(&other)?,
                last_message: last.remove(&pair.id),
                unread: unread.get(&pair.id).copied().unwrap_or(0),
                is_new: !opened.contains(&pair.id),
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

/// Likes an introduction, with an optional comment on one of their photos or Q&A answers
/// (422 E002 when kizuna-core's `LikeComment` refuses it): a like back makes the match, and both
/// members get a LINE push. A second like answers the same and keeps the first comment; liking
/// someone the viewer passed is 409 E005.
pub async fn like(
    state: &AppState,
    viewer: &Viewer,
    target: i64,
    comment: Option<CommentInput>,
) -> Result<Outcome<Liked>, ApiError> {
    let me = listed(state, viewer, target).await?;
    let now = state.now();
    let today = state.settings.clock.taipei_today();
    let comment = match comment {
        None => None,
        Some(input) => {
            let profile = public_profiles(&state.db, me, &[target], today)
                .await?
                .remove(&target)
                .ok_or(ApiError::NotFound)?;
            let parsed = LikeComment::parse(
                &input.text,
                input.photo_name.as_deref(),
                input.answer.as_deref(),
                &profile,
            )
            .map_err(|fields| {
                ApiError::validation("the like's comment failed validation", &fields)
            })?;
            Some(parsed)
        }
    };
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
    store::set_reaction(
        &txn,
        me,
        target,
        reaction::LIKE,
        comment.as_ref(),
        today,
        now,
    )
    .await?;
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
    store::set_reaction(&txn, me, target, reaction::PASS, None, today, state.now()).await?;
    txn.commit().await.context("committing a pass")?;
    Ok(Outcome::only(()))
}

/// Takes back a pass made within the last `rules::PASS_UNDO_SECS` (kizuna-core's
/// `like::pass_undoable`): the member is back in the list and may be liked. Without a pass
/// nothing changes; a pass older than the window is 409 E005.
pub async fn undo_pass(
    state: &AppState,
    viewer: &Viewer,
    target: i64,
) -> Result<Outcome<()>, ApiError> {
    let me = listed(state, viewer, target).await?;
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting an undo")?;
    lock_pair(&txn, me, target).await?;
    match store::reaction_of(&txn, me, target).await? {
        Some(r) if r.kind == reaction::PASS => {
            if !like::pass_undoable(r.created_at, state.now()) {
                return Err(ApiError::Conflict(
                    "the pass is too old to be taken back".into(),
                ));
            }
        }
        _ => return Ok(Outcome::only(())),
    }
    store::delete_pass(&txn, me, target).await?;
    txn.commit().await.context("committing an undo")?;
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
        super::record_chat(
            txn,
            vec![(live.id, What::Ended, vec![live.low_id, live.high_id])],
            now,
            after,
        )
        .await?;
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
    let ended: Vec<_> = store::active_matches(txn, member)
        .await?
        .into_iter()
        .map(|(live, _)| (live.id, What::Ended, vec![live.low_id, live.high_id]))
        .collect();
    store::end_all_matches(txn, member, now).await?;
    super::record_chat(txn, ended, now, after).await
}
