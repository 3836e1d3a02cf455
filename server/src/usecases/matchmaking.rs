//! Matchmaking as members do it: today's list, another member's profile, the matches list, likes
//! and passes, unmatch, block and report. Who may see or name whom is `crate::access`'s; every
//! list reads in a constant number of statements whatever its length.

use std::collections::HashMap;

use anyhow::Context;
use kizuna_core::push::Push;
use kizuna_core::rules::FieldErrors;
use kizuna_core::{
    access, conversation,
    date::Date,
    like::{self, LikeComment},
    matching::PublicProfile,
    report::Report,
};
use sea_orm::{ConnectionTrait, DatabaseConnection, DatabaseTransaction};

use super::{AfterCommit, Outcome, push_target};
use crate::{
    access::Viewer,
    chat::What,
    line::push,
    matchmaking::{self, PoolCache},
    storage::{
        self, StorageError, chat,
        entity::{pair_match, reaction},
        matchmaking as store, members, profiles,
    },
};

/// Why a matchmaking use-case did not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum MatchmakingError {
    /// Only APPROVED members take part in matchmaking.
    #[error("only approved members take part in matchmaking")]
    NotApproved,
    /// Nobody the viewer may see or name (or no match of theirs).
    #[error("not found")]
    NotFound,
    /// kizuna-core's `LikeComment` refused the like's comment.
    #[error("the like's comment failed validation")]
    InvalidComment { fields: FieldErrors },
    /// A like of someone the viewer passed.
    #[error("you passed this introduction")]
    PassedAlready,
    /// A pass on someone the viewer liked.
    #[error("you liked this introduction")]
    LikedAlready,
    /// The pass is older than `rules::PASS_UNDO_SECS`.
    #[error("the pass is too old to be taken back")]
    PassTooOld,
    /// The viewer's report of this member is still open.
    #[error("you already reported this member; the reviewers have it")]
    ReportedAlready,
    /// kizuna-core's `conversation::like_held_for_replies`: these many conversations wait on the
    /// viewer's reply; a new like waits until they reply to or end some.
    #[error("{0} conversations wait on your reply: reply to or end them first")]
    YourTurn(usize),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl From<anyhow::Error> for MatchmakingError {
    fn from(err: anyhow::Error) -> Self {
        MatchmakingError::Storage(StorageError::Db(err))
    }
}

type Result<T, E = MatchmakingError> = std::result::Result<T, E>;

/// The viewer's profile id when they are an APPROVED member.
fn approved(viewer: &Viewer) -> Result<i64> {
    match viewer.member {
        Some(id) if viewer.standing.approved => Ok(id),
        _ => Err(MatchmakingError::NotApproved),
    }
}

/// The Asia/Taipei day of a Unix time.
fn day_of(now: i64) -> Result<Date> {
    Ok(Date::taipei_day(now).context("a representable date")?)
}

/// Likes a list shows, at most: the newest first. A member gets at most a few introductions a
/// day, so this is months of likes.
pub const LIKES_LISTED: u64 = 100;

/// A like as its receiver or sender sees it: when, and its comment on one of the liked member's
/// photos or Q&A answers.
pub struct LikeSeen {
    pub liked_at: i64,
    pub comment: Option<String>,
    pub photo_name: Option<String>,
    /// DATING_QUESTION, DAILY_LIFE or SURPRISE_POINT.
    pub answer: Option<String>,
}

impl LikeSeen {
    fn of(like: reaction::Model) -> LikeSeen {
        LikeSeen {
            liked_at: like.created_at,
            comment: like.comment,
            photo_name: like.comment_photo,
            answer: like.comment_answer,
        }
    }
}

/// One entry of today's list as the viewer sees it.
pub struct ListEntry {
    pub member: i64,
    pub profile: PublicProfile,
    /// The viewer's answer so far: LIKE or None (a passed member leaves the list).
    pub reaction: Option<String>,
    /// The member's like of the viewer, with its comment, if they liked them.
    pub their_like: Option<LikeSeen>,
    /// What the card offers (kizuna-core's `access::card_offer`).
    pub offer: access::CardOffer,
    /// The pair's live match when the card offers the chat.
    pub match_id: Option<i64>,
}

/// Another member's profile as the viewer sees it, with where the two stand.
pub struct MemberPage {
    pub profile: PublicProfile,
    /// The viewer's answer to them: LIKE, PASS or None.
    pub reaction: Option<String>,
    /// Their like of the viewer, when the viewer may be shown it (`access::sees_like_from`).
    pub their_like: Option<LikeSeen>,
    /// Their live match, if they have one.
    pub match_id: Option<i64>,
}

/// A like in "Likes you sent" or "Liked you".
pub struct LikeEntry {
    pub member: i64,
    pub profile: PublicProfile,
    pub like: LikeSeen,
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
    Entries {
        list: Vec<ListEntry>,
        /// The cards still waiting for a Like or Pass (kizuna-core's `access::left_today`).
        left: u32,
    },
    /// Paused since (Unix seconds): no list until they resume.
    Paused { since: i64 },
}

/// One active match as the viewer sees it.
pub struct MatchEntry {
    pub match_id: i64,
    /// Unix seconds.
    pub matched_at: i64,
    pub member: i64,
    pub profile: PublicProfile,
    pub last_message: Option<LastMessage>,
    /// Messages from the other member after the viewer's read marker.
    pub unread: u32,
    /// The viewer has not opened the conversation yet.
    pub is_new: bool,
    /// The conversation waits on the viewer's reply (kizuna-core's
    /// `conversation::waits_on_reply`).
    pub your_turn: bool,
}

/// A match of the viewer's that expired because nobody wrote, as their matches list shows it.
pub struct ExpiredMatch {
    pub match_id: i64,
    /// Unix seconds.
    pub matched_at: i64,
    /// Unix seconds.
    pub expired_at: i64,
    /// The other member's nickname: nothing more of them.
    pub nickname: String,
}

/// A conversation's newest message.
pub struct LastMessage {
    pub text: String,
    pub sent_at: i64,
    /// The viewer sent it.
    pub mine: bool,
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
pub async fn todays_list(
    db: &DatabaseConnection,
    pool: &PoolCache,
    viewer: &Viewer,
    now: i64,
) -> Result<TodaysList> {
    let me = approved(viewer)?;
    let today = day_of(now)?;
    store::touch_active(db, viewer.user_id, now).await?;
    if let Some(since) = crate::storage::pauses::paused_since(db, me).await? {
        return Ok(TodaysList::Paused { since });
    }
    let list = matchmaking::todays_list(db, pool, me, today, now)
        .await?
        .ok_or(MatchmakingError::NotApproved)?;
    let ties = crate::access::ties(db, viewer, &list).await?;
    let shown_ids: Vec<i64> = list
        .into_iter()
        .filter(|id| {
            ties.get(id)
                .is_some_and(|t| access::shown_in_list(viewer.standing, t))
        })
        .collect();
    let mut reactions = store::reactions_on(db, me, &shown_ids).await?;
    let mut likes = store::likes_from(db, me, &shown_ids).await?;
    let mut shown = public_profiles(db, me, &shown_ids, today).await?;
    // One statement for the matches of the whole list (a member has few live matches).
    let live: HashMap<i64, i64> = if shown_ids
        .iter()
        .any(|id| ties.get(id).is_some_and(|t| t.live_match))
    {
        store::active_matches(db, me)
            .await?
            .into_iter()
            .map(|(pair, other)| (other, pair.id))
            .collect()
    } else {
        HashMap::new()
    };
    let list: Vec<ListEntry> = shown_ids
        .into_iter()
        .filter_map(|id| {
            let tie = ties.get(&id)?;
            let their_like = likes
                .remove(&id)
                .filter(|_| access::sees_like_from(viewer.standing, tie))
                .map(LikeSeen::of);
            let reaction = reactions.remove(&id).map(|r| r.kind);
            let offer = access::card_offer(
                viewer.standing,
                tie,
                reaction.as_deref() == Some(reaction::LIKE),
            );
            Some(ListEntry {
                member: id,
                profile: shown.remove(&id)?,
                reaction,
                their_like,
                offer,
                match_id: (offer == access::CardOffer::Chat)
                    .then(|| live.get(&id).copied())
                    .flatten(),
            })
        })
        .collect();
    let left = access::left_today(list.iter().map(|e| e.offer));
    Ok(TodaysList::Entries { list, left })
}

/// The main photo of the first card of today's list, as [`todays_list`] has it (made now when the
/// daily job has not made it yet: the app asks for the list a moment later anyway): the page a
/// returning member opens shows it in its frame before any script. None when the list is empty,
/// the member is paused or the first card has no photo.
pub async fn first_card_photo(
    db: &DatabaseConnection,
    pool: &PoolCache,
    viewer: &Viewer,
    now: i64,
) -> Result<Option<String>> {
    Ok(match todays_list(db, pool, viewer, now).await? {
        TodaysList::Entries { list, .. } => list
            .into_iter()
            .next()
            .and_then(|entry| entry.profile.photo_name_list.into_iter().next()),
        TodaysList::Paused { .. } => None,
    })
}

/// The member's profile as the viewer may see it, with the viewer's answer, their like and the
/// pair's live match; 404 E003 for anyone they may not see.
pub async fn member(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    target: i64,
    now: i64,
) -> Result<MemberPage> {
    let me = approved(viewer)?;
    let ties = crate::access::ties(db, viewer, &[target])
        .await?
        .remove(&target)
        .filter(|t| access::may_see_profile(viewer.standing, t))
        .ok_or(MatchmakingError::NotFound)?;
    let today = day_of(now)?;
    let profile = public_profiles(db, me, &[target], today)
        .await?
        .remove(&target)
        .ok_or(MatchmakingError::NotFound)?;
    let reaction = store::reaction_of(db, me, target).await?;
    let their_like = if access::sees_like_from(viewer.standing, &ties) {
        store::likes_from(db, me, &[target]).await?.remove(&target)
    } else {
        None
    };
    let match_id = if ties.live_match {
        store::pair(db, me, target).await?.map(|m| m.id)
    } else {
        None
    };
    Ok(MemberPage {
        profile,
        reaction: reaction.map(|r| r.kind),
        their_like: their_like.map(LikeSeen::of),
        match_id,
    })
}

/// "Likes you sent" (the viewer's likes not yet answered by a match) and "Liked you" (likes from
/// members already among the viewer's introductions, `access::sees_like_from`: a like makes
/// nobody visible), newest first, at most [`LIKES_LISTED`] each, in a constant number of
/// statements.
pub async fn likes(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    now: i64,
) -> Result<(Vec<LikeEntry>, Vec<LikeEntry>)> {
    let me = approved(viewer)?;
    let today = day_of(now)?;
    let sent = store::likes_sent(db, me, LIKES_LISTED).await?;
    let received = store::likes_received(db, me, LIKES_LISTED).await?;
    let mut others: Vec<i64> = sent.iter().map(|r| r.target_id).collect();
    others.extend(received.iter().map(|r| r.viewer_id));
    let ties = crate::access::ties(db, viewer, &others).await?;
    let shown = public_profiles(db, me, &others, today).await?;
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
                    like: LikeSeen::of(like),
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
pub async fn matches(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    now: i64,
) -> Result<Vec<MatchEntry>> {
    let me = approved(viewer)?;
    let today = day_of(now)?;
    let active = store::active_matches(db, me).await?;
    let others: Vec<i64> = active.iter().map(|(_, other)| *other).collect();
    let ties = crate::access::ties(db, viewer, &others).await?;
    let visible: Vec<(pair_match::Model, i64)> = active
        .into_iter()
        .filter(|(_, other)| {
            ties.get(other)
                .is_some_and(|t| access::may_see_profile(viewer.standing, t))
        })
        .collect();
    let ids: Vec<i64> = visible.iter().map(|(m, _)| m.id).collect();
    let members: Vec<i64> = visible.iter().map(|(_, other)| *other).collect();
    let mut shown = public_profiles(db, me, &members, today).await?;
    let mut last = chat::last_messages(db, &ids).await?;
    let turns = waiting_on(&last, me, now);
    let unread = chat::unread_counts(db, &ids, me).await?;
    let opened = chat::opened(db, &ids, me).await?;
    Ok(visible
        .into_iter()
        .filter_map(|(pair, other)| {
            Some(MatchEntry {
                match_id: pair.id,
                matched_at: pair.created_at,
                member: other,
                profile: shown.remove(&other)?,
                last_message: last.remove(&pair.id).map(|m| LastMessage {
                    text: m.text,
                    sent_at: m.sent_at,
                    mine: m.sender_id == me,
                }),
                unread: unread.get(&pair.id).copied().unwrap_or(0),
                is_new: !opened.contains(&pair.id),
                your_turn: turns.contains(&pair.id),
            })
        })
        .collect())
}

/// The live matches of `last` (each match's newest message) that wait on `me`'s reply at `now`.
fn waiting_on(
    last: &HashMap<i64, crate::storage::entity::chat_message::Model>,
    me: i64,
    now: i64,
) -> std::collections::HashSet<i64> {
    last.iter()
        .filter(|(_, m)| {
            conversation::waits_on_reply(
                Some(conversation::LastWord {
                    mine: m.sender_id == me,
                    sent_at: m.sent_at,
                }),
                now,
            )
        })
        .map(|(id, _)| *id)
        .collect()
}

/// The viewer's live matches, among those their matches list shows, whose conversation waits on
/// their reply: two statements however many matches there are.
async fn your_turn(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    me: i64,
    now: i64,
) -> Result<std::collections::HashSet<i64>> {
    let active = store::active_matches(db, me).await?;
    let others: Vec<i64> = active.iter().map(|(_, other)| *other).collect();
    let ties = crate::access::ties(db, viewer, &others).await?;
    let ids: Vec<i64> = active
        .iter()
        .filter(|(_, other)| {
            ties.get(other)
                .is_some_and(|t| access::may_see_profile(viewer.standing, t))
        })
        .map(|(m, _)| m.id)
        .collect();
    let last = chat::last_messages(db, &ids).await?;
    Ok(waiting_on(&last, me, now))
}

/// The viewer's matches that expired because nobody wrote, newest first, for
/// `rules::EXPIRED_MATCH_SHOWN_DAYS` after (kizuna-core's `conversation::expired_match_listed`):
/// by the other member's nickname only.
pub async fn expired_matches(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    now: i64,
) -> Result<Vec<ExpiredMatch>> {
    let me = approved(viewer)?;
    let today = day_of(now)?;
    let since = now - kizuna_core::rules::EXPIRED_MATCH_SHOWN_DAYS * 86_400;
    let expired = store::expired_matches(db, me, since).await?;
    let others: Vec<i64> = expired.iter().map(|(_, other)| *other).collect();
    let ties = crate::access::ties(db, viewer, &others).await?;
    let listed: Vec<(pair_match::Model, i64)> = expired
        .into_iter()
        .filter(|(m, other)| {
            ties.get(other).is_some_and(|t| {
                conversation::expired_match_listed(
                    viewer.standing,
                    t,
                    m.ended_at.unwrap_or(now),
                    now,
                )
            })
        })
        .collect();
    let members: Vec<i64> = listed.iter().map(|(_, other)| *other).collect();
    let mut shown = public_profiles(db, me, &members, today).await?;
    Ok(listed
        .into_iter()
        .filter_map(|(m, other)| {
            Some(ExpiredMatch {
                match_id: m.id,
                matched_at: m.created_at,
                expired_at: m.ended_at?,
                nickname: shown.remove(&other)?.nickname,
            })
        })
        .collect())
}

/// The target must stand in the viewer's list (404 E003 otherwise).
async fn listed(db: &impl ConnectionTrait, viewer: &Viewer, target: i64) -> Result<i64> {
    let me = approved(viewer)?;
    if !crate::access::stands_in_list(db, viewer, target).await? {
        return Err(MatchmakingError::NotFound);
    }
    Ok(me)
}

/// Likes an introduction, with an optional comment on one of their photos or Q&A answers
/// (422 E002 when kizuna-core's `LikeComment` refuses it): a like back makes the match, and both
/// members get a LINE push. A second like answers the same and keeps the first comment; liking
/// someone the viewer passed is 409 E005.
pub async fn like(
    db: &DatabaseConnection,
    viewer: &Viewer,
    target: i64,
    comment: Option<CommentInput>,
    now: i64,
) -> Result<Outcome<Liked>> {
    let me = listed(db, viewer, target).await?;
    let today = day_of(now)?;
    let comment = match comment {
        None => None,
        Some(input) => {
            let profile = public_profiles(db, me, &[target], today)
                .await?
                .remove(&target)
                .ok_or(MatchmakingError::NotFound)?;
            let parsed = LikeComment::parse(
                &input.text,
                input.photo_name.as_deref(),
                input.answer.as_deref(),
                &profile,
            )
            .map_err(|fields| MatchmakingError::InvalidComment { fields })?;
            Some(parsed)
        }
    };
    let txn = storage::begin_write(db).await.context("starting a like")?;
    members::lock_pair(&txn, me, target).await?;
    match store::reaction_of(&txn, me, target).await? {
        Some(r) if r.kind == reaction::PASS => return Err(MatchmakingError::PassedAlready),
        Some(_) => {
            let pair = store::pair(&txn, me, target).await?;
            return Ok(Outcome::only(Liked {
                match_id: pair.map(|m| m.id),
            }));
        }
        None => {}
    }
    // Only a new like waits for the viewer's replies: a repeat answers as before.
    let waiting = your_turn(&txn, viewer, me, now).await?.len();
    if conversation::like_held_for_replies(waiting) {
        return Err(MatchmakingError::YourTurn(waiting));
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
        for (member, other) in [(me, target), (target, me)] {
            if let Some((to, _)) = push_target(&txn, member, store::PushKind::Matches).await? {
                // It leads to a chat with the other member: the row goes with their account.
                let about = store::member(&txn, other).await?.map(|p| p.user_id);
                let what = Push::NewMatch { match_id: id };
                push::enqueue_push(&txn, &to, &what, about).await?;
                after.pushed();
            }
        }
    }
    txn.commit().await.context("committing a like")?;
    Ok(Outcome::new(Liked { match_id }, after))
}

/// What a pass route asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassStep {
    /// Pass an introduction: not introduced again for 30 days. A second pass changes nothing;
    /// passing someone the viewer liked is 409 E005.
    Make,
    /// Take back a pass made within the last `rules::PASS_UNDO_SECS` (kizuna-core's
    /// `like::pass_undoable`): the member is back in the list and may be liked. Without a pass
    /// nothing changes; a pass older than the window is 409 E005.
    TakeBack,
}

/// What a pass step writes given the viewer's reaction on the member so far (its kind and when
/// it was made): None when nothing changes.
fn pass_write(step: PassStep, existing: Option<(&str, i64)>, now: i64) -> Result<Option<PassStep>> {
    match (step, existing) {
        (PassStep::Make, Some((reaction::LIKE, _))) => Err(MatchmakingError::LikedAlready),
        (PassStep::Make, Some(_)) => Ok(None),
        (PassStep::Make, None) => Ok(Some(PassStep::Make)),
        (PassStep::TakeBack, Some((reaction::PASS, made))) => {
            if like::pass_undoable(made, now) {
                Ok(Some(PassStep::TakeBack))
            } else {
                Err(MatchmakingError::PassTooOld)
            }
        }
        (PassStep::TakeBack, _) => Ok(None),
    }
}

/// Makes or takes back a pass on one of the viewer's introductions, under the pair's lock.
pub async fn pass(
    db: &DatabaseConnection,
    viewer: &Viewer,
    target: i64,
    step: PassStep,
    now: i64,
) -> Result<Outcome<()>> {
    let me = listed(db, viewer, target).await?;
    let txn = storage::begin_write(db).await.context("starting a pass")?;
    members::lock_pair(&txn, me, target).await?;
    let existing = store::reaction_of(&txn, me, target).await?;
    let existing = existing.as_ref().map(|r| (r.kind.as_str(), r.created_at));
    match pass_write(step, existing, now)? {
        None => return Ok(Outcome::only(())),
        Some(PassStep::Make) => {
            let today = day_of(now)?;
            store::set_reaction(&txn, me, target, reaction::PASS, None, today, now).await?;
        }
        Some(PassStep::TakeBack) => store::delete_pass(&txn, me, target).await?,
    }
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
    db: &DatabaseConnection,
    viewer: &Viewer,
    match_id: i64,
    now: i64,
) -> Result<Outcome<()>> {
    let me = approved(viewer)?;
    let found = store::match_of(db, me, match_id)
        .await?
        .ok_or(MatchmakingError::NotFound)?;
    let other = if found.low_id == me {
        found.high_id
    } else {
        found.low_id
    };
    let txn = storage::begin_write(db)
        .await
        .context("starting an unmatch")?;
    let mut after = AfterCommit::default();
    end_relation(&txn, me, other, now, &mut after).await?;
    txn.commit().await.context("committing an unmatch")?;
    Ok(Outcome::new((), after))
}

/// The member the viewer names must be one they may name (404 E003 otherwise).
async fn nameable(db: &impl ConnectionTrait, viewer: &Viewer, target: i64) -> Result<i64> {
    let me = approved(viewer)?;
    if !crate::access::may_name(db, viewer, target).await? {
        return Err(MatchmakingError::NotFound);
    }
    Ok(me)
}

/// Blocks a member: both disappear from each other at once and their match ends. Blocking again
/// changes nothing.
pub async fn block(
    db: &DatabaseConnection,
    viewer: &Viewer,
    target: i64,
    now: i64,
) -> Result<Outcome<()>> {
    let me = nameable(db, viewer, target).await?;
    let txn = storage::begin_write(db).await.context("starting a block")?;
    let mut after = AfterCommit::default();
    store::insert_block(&txn, me, target, now).await?;
    end_relation(&txn, me, target, now, &mut after).await?;
    txn.commit().await.context("committing a block")?;
    Ok(Outcome::new((), after))
}

/// Reports a member for the reviewers' queue, which blocks them too; answers the report's id. A
/// second report of the same member while the first is open is 409 E005.
pub async fn report(
    db: &DatabaseConnection,
    viewer: &Viewer,
    target: i64,
    report: &Report,
    now: i64,
) -> Result<Outcome<i64>> {
    let me = nameable(db, viewer, target).await?;
    let txn = storage::begin_write(db)
        .await
        .context("starting a report")?;
    if store::open_report(&txn, me, target).await?.is_some() {
        return Err(MatchmakingError::ReportedAlready);
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

/// The viewer's push settings, one switch per kind (on unless switched off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushSettings {
    pub introductions: bool,
    pub matches: bool,
    pub messages: bool,
}

/// The push settings to change; `None` leaves a kind as it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct PushChange {
    pub introductions: Option<bool>,
    pub matches: Option<bool>,
    pub messages: Option<bool>,
}

/// The user's push settings.
pub async fn push_settings(
    db: &impl ConnectionTrait,
    user_id: i64,
) -> Result<PushSettings, StorageError> {
    Ok(PushSettings {
        introductions: store::push_wanted(db, user_id, store::PushKind::Introductions).await?,
        matches: store::push_wanted(db, user_id, store::PushKind::Matches).await?,
        messages: store::push_wanted(db, user_id, store::PushKind::Messages).await?,
    })
}

/// Switches the kinds named in `change` and answers the settings as they now are.
pub async fn change_push_settings(
    db: &impl ConnectionTrait,
    user_id: i64,
    change: PushChange,
) -> Result<PushSettings, StorageError> {
    for (kind, on) in [
        (store::PushKind::Introductions, change.introductions),
        (store::PushKind::Matches, change.matches),
        (store::PushKind::Messages, change.messages),
    ] {
        if let Some(on) = on {
            store::set_push_wanted(db, user_id, kind, on).await?;
        }
    }
    push_settings(db, user_id).await
}

/// Since when the viewer takes a break (Unix seconds), if they do.
pub async fn paused_since(db: &impl ConnectionTrait, viewer: &Viewer) -> Result<Option<i64>> {
    let me = approved(viewer)?;
    Ok(storage::pauses::paused_since(db, me).await?)
}

/// The viewer's colleagues switch, and whether review put an employer on record for them.
pub async fn colleagues_switch(db: &impl ConnectionTrait, viewer: &Viewer) -> Result<(bool, bool)> {
    let me = approved(viewer)?;
    let (hides, employer) = storage::colleagues::own(db, me).await?;
    Ok((hides, employer.is_some()))
}

/// A notice that someone the viewer was matched with was removed, as the viewer reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovalNotice {
    /// The ended match (its chat page shows the notice too).
    pub match_id: i64,
    /// The removed member's nickname, which the viewer knew; None once they left Kizuna.
    pub nickname: Option<String>,
    pub created_at: i64,
}

/// The viewer's removal notices they have not dismissed, newest first.
pub async fn removal_notices(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
) -> Result<Vec<RemovalNotice>> {
    let me = approved(viewer)?;
    Ok(storage::removal_notices::open_of(db, me)
        .await?
        .into_iter()
        .map(|n| RemovalNotice {
            match_id: n.match_id,
            nickname: n.nickname,
            created_at: n.created_at,
        })
        .collect())
}

/// Dismisses the viewer's notice about `match_id` for good (again is fine); NotFound when they
/// have none about it.
pub async fn dismiss_removal_notice(
    db: &impl ConnectionTrait,
    now: i64,
    viewer: &Viewer,
    match_id: i64,
) -> Result<()> {
    let me = approved(viewer)?;
    storage::removal_notices::dismiss(db, me, match_id, now)
        .await?
        .ok_or(MatchmakingError::NotFound)
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

#[cfg(test)]
mod tests {
    use kizuna_core::access::Standing;

    use super::*;

    const NOW: i64 = 1_795_471_200;

    fn viewer_of(approved: bool) -> Viewer {
        Viewer {
            user_id: 1,
            member: Some(1),
            standing: Standing {
                approved,
                reviewer: false,
            },
        }
    }

    /// A fresh SQLite database through the migrations, as a server opens it.
    async fn database() -> DatabaseConnection {
        let path = std::env::temp_dir().join(format!(
            "kizuna-matchmaking-{}/kizuna.db",
            uuid::Uuid::new_v4().simple()
        ));
        let db = storage::connect(&format!("sqlite://{}?mode=rwc", path.display()), Some(2))
            .await
            .unwrap();
        storage::migrate(&db).await.unwrap();
        db
    }

    #[test]
    fn a_pass_is_made_once_and_never_over_a_like() {
        assert_eq!(
            pass_write(PassStep::Make, None, NOW).unwrap(),
            Some(PassStep::Make)
        );
        assert_eq!(
            pass_write(PassStep::Make, Some((reaction::PASS, NOW - 5)), NOW).unwrap(),
            None
        );
        assert!(matches!(
            pass_write(PassStep::Make, Some((reaction::LIKE, NOW - 5)), NOW),
            Err(MatchmakingError::LikedAlready)
        ));
    }

    #[test]
    fn a_pass_is_taken_back_only_while_it_is_fresh() {
        let window = kizuna_core::rules::PASS_UNDO_SECS;
        assert_eq!(
            pass_write(PassStep::TakeBack, Some((reaction::PASS, NOW - 1)), NOW).unwrap(),
            Some(PassStep::TakeBack)
        );
        assert!(matches!(
            pass_write(
                PassStep::TakeBack,
                Some((reaction::PASS, NOW - window - 1)),
                NOW
            ),
            Err(MatchmakingError::PassTooOld)
        ));
        // Nothing to take back: no pass, or a like.
        assert_eq!(pass_write(PassStep::TakeBack, None, NOW).unwrap(), None);
        assert_eq!(
            pass_write(PassStep::TakeBack, Some((reaction::LIKE, NOW - 1)), NOW).unwrap(),
            None
        );
    }

    #[tokio::test]
    async fn only_approved_members_take_part() {
        let db = database().await;
        let pool = PoolCache::new(std::time::Duration::from_secs(60), 1);
        let outsider = viewer_of(false);
        assert!(matches!(
            todays_list(&db, &pool, &outsider, NOW).await,
            Err(MatchmakingError::NotApproved)
        ));
        assert!(matches!(
            likes(&db, &outsider, NOW).await,
            Err(MatchmakingError::NotApproved)
        ));
        assert!(matches!(
            pass(&db, &outsider, 2, PassStep::Make, NOW).await,
            Err(MatchmakingError::NotApproved)
        ));
        let no_profile = Viewer {
            member: None,
            ..viewer_of(true)
        };
        assert!(matches!(
            matches(&db, &no_profile, NOW).await,
            Err(MatchmakingError::NotApproved)
        ));
    }

    #[tokio::test]
    async fn someone_the_member_may_not_name_is_not_found() {
        let db = database().await;
        let me = viewer_of(true);
        assert!(matches!(
            unmatch(&db, &me, 42, NOW).await,
            Err(MatchmakingError::NotFound)
        ));
        assert!(matches!(
            block(&db, &me, 2, NOW).await,
            Err(MatchmakingError::NotFound)
        ));
        assert!(matches!(
            pass(&db, &me, 2, PassStep::Make, NOW).await,
            Err(MatchmakingError::NotFound)
        ));
        assert!(matches!(
            member_page(&db, &me, 2).await,
            Err(MatchmakingError::NotFound)
        ));
    }

    async fn member_page(
        db: &DatabaseConnection,
        viewer: &Viewer,
        target: i64,
    ) -> Result<MemberPage> {
        super::member(db, viewer, target, NOW).await
    }
}
