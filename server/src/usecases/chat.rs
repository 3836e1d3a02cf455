//! Chat as matched members do it: a page of history, sending (once per client message id), the
//! read marker, and opening an events stream (its slot among the member's streams, where it
//! starts, what it missed). Who may chat in a match is `crate::access::chat`'s decision, asked
//! again inside the send's transaction so that no message lands in a match that has just ended.

use std::sync::Arc;

use anyhow::Context;
use kizuna_core::push::Push;
use kizuna_core::{
    chat::{ChatText, ClientMessageId},
    rules::{CHAT_PUSH_INTERVAL_SECS, CHAT_STREAMS_PER_MEMBER},
    safety::{self, Conversation},
};
use sea_orm::DatabaseConnection;

use super::{AfterCommit, Outcome, push_target};
use crate::{
    access::{self, Viewer},
    chat::{ChatEvent, ChatHub, Message, Subscription, What},
    clock::Clock,
    identity::SessionStore,
    line::push,
    rate_limit::RateLimiter,
    storage::{
        self, StorageError,
        chat::{self, Inserted, LiveMatch},
        chat_events::{self, Kind},
        matchmaking as store, safety as safety_store,
    },
};

/// Why a chat operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// Only approved members chat.
    #[error("only approved members take part in matchmaking")]
    NotMember,
    /// Not a live match of the caller (unknown, someone else's, or ended: all alike).
    #[error("not found")]
    NotFound,
    /// The client message id names a stored message with another text.
    #[error("this client message id was used for another text")]
    ClientIdReused,
    /// The member's message allowance is used up for now.
    #[error("too many messages; wait a moment")]
    TooManyMessages { retry_after: u64 },
    /// The member holds as many events streams as they may.
    #[error("at most {CHAT_STREAMS_PER_MEMBER} chat event streams open at once; close one")]
    TooManyStreams { retry_after: u64 },
    /// The stream's session ended before the stream opened.
    #[error("the session ended")]
    SessionEnded,
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// What a send needs besides the message.
pub struct SendDeps<'a> {
    pub db: &'a DatabaseConnection,
    pub now: i64,
    /// This process (an open page on it counts while it lives).
    pub process: i32,
    /// `CHAT_MESSAGES_PER_MINUTE` per member.
    pub limiter: &'a RateLimiter,
}

/// The caller's member id when they are an approved member.
fn member_of(viewer: &Viewer) -> Result<i64, ChatError> {
    match viewer.member {
        Some(id) if viewer.standing.approved => Ok(id),
        _ => Err(ChatError::NotMember),
    }
}

/// The live match `match_id` of the viewer.
pub async fn live(
    db: &DatabaseConnection,
    viewer: &Viewer,
    match_id: i64,
) -> Result<LiveMatch, ChatError> {
    member_of(viewer)?;
    access::chat(db, viewer, match_id)
        .await?
        .ok_or(ChatError::NotFound)
}

/// A page of a match's history.
pub struct Page {
    /// Oldest first.
    pub messages: Vec<Message>,
    pub has_more: bool,
    /// The newest message id the other member has read (0: none).
    pub their_read_up_to: i64,
}

/// The newest `limit` messages of the viewer's live match before `before`.
pub async fn page(
    db: &DatabaseConnection,
    viewer: &Viewer,
    match_id: i64,
    before: Option<i64>,
    limit: u64,
) -> Result<Page, ChatError> {
    let live = live(db, viewer, match_id).await?;
    let (messages, has_more) = chat::page(db, live.id, before, limit).await?;
    let their_read_up_to = chat::read_up_to(db, live.id, live.other).await?;
    Ok(Page {
        messages: messages.into_iter().map(Message::from).collect(),
        has_more,
        their_read_up_to,
    })
}

/// What a send came to.
#[derive(Debug)]
pub enum Sent {
    /// Stored now (and delivered to both members' open pages).
    Created(Message),
    /// Stored before under this client message id with the same text: nothing new.
    Stored(Message),
}

/// A message stored before under the same client id: the same text is a retry, another text is
/// a client bug that must not pass silently.
fn stored_before(row: Message, text: &ChatText) -> Result<Sent, ChatError> {
    if row.text == text.as_str() {
        Ok(Sent::Stored(row))
    } else {
        Err(ChatError::ClientIdReused)
    }
}

/// How long after it was stored a retried message is published again: a retry comes seconds
/// after the send whose answer was lost (its process may have died before publishing).
const REPUBLISH_WITHIN_SECS: i64 = 60;

/// Sends a message into the viewer's live match `match_id`. A retry (or a racing copy) of a
/// stored message stores nothing and is answered before the rate limit; a retry of a recent one
/// publishes its stored events again (within the member's message allowance), since the process
/// that stored it may have died before it published them (streams take each event once, by its
/// number). Who may chat is asked once, inside the transaction, with the match row locked. The
/// other member gets a LINE push when no page of theirs is open, at most one per match every
/// `CHAT_PUSH_INTERVAL_SECS`.
pub async fn send(
    deps: &SendDeps<'_>,
    viewer: &Viewer,
    match_id: i64,
    client_id: &ClientMessageId,
    text: &ChatText,
) -> Result<Outcome<Sent>, ChatError> {
    let SendDeps {
        db,
        now,
        process,
        limiter,
    } = *deps;
    let me = member_of(viewer)?;
    let allowance_key = format!("member:{me}");
    // Shared allowances (PostgreSQL) are taken by the read below, a round trip less.
    let take = limiter.take_in_statement(&allowance_key);
    let txn = storage::begin_write(db)
        .await
        .context("starting a message")?;
    // Two statements decide: the match row locked, then under that lock the ties, the
    // screening's context, the review queue, the other's presence and a message stored before
    // under this client id, read at once (with the allowance taken beside them).
    let Some((live, read)) = access::chat_locked(
        &txn,
        viewer,
        match_id,
        client_id.as_str(),
        take.as_ref(),
        process,
        now,
    )
    .await?
    else {
        return Err(ChatError::NotFound);
    };
    if let Some(row) = read.stored {
        // A retry (or a racing copy) writes nothing and is answered before the rate limit: the
        // rollback gives back the allowance the read took, before the republish below takes
        // from it again.
        txn.rollback()
            .await
            .context("giving back a retry's allowance")?;
        let sent = stored_before(Message::from(row), text)?;
        let mut after = AfterCommit::default();
        if let Sent::Stored(row) = &sent
            && row.sent_at >= now - REPUBLISH_WITHIN_SECS
            && limiter.allow(&allowance_key).await
        {
            let to = chat_events::of_message(db, row.id).await?;
            if !to.is_empty() {
                after.tell(ChatEvent {
                    match_id: live.id,
                    what: What::Message(row.clone()),
                    to,
                });
            }
        }
        return Ok(Outcome::new(sent, after));
    }
    let allowance = match &take {
        Some(take) => limiter.taken(take, read.taken),
        None => limiter
            .check_in(&txn, &allowance_key)
            .await
            .context("taking from a member's message allowance")?,
    };
    if let Err(wait) = allowance {
        return Err(ChatError::TooManyMessages {
            retry_after: wait.as_secs_f64().ceil().max(1.0) as u64,
        });
    }
    let context = read.context;
    let conversation = Conversation {
        match_age_secs: now - live.matched_at,
        sent_by_sender: context.sent_by_sender,
        sent_by_other: context.sent_by_other,
    };
    let kinds = safety::screen(text.as_str(), &conversation);
    // The writes that depend on the message being new come before it: a copy that finds it
    // stored rolls them back with its transaction.
    let review = safety::review_due(context.earlier, kinds, context.queued_before);
    if let Some(cause) = review {
        safety_store::queue(&txn, live.id, me, cause.as_str(), now).await?;
    }
    let mut after = AfterCommit::default();
    if !context.other_present
        && chat::claim_push(&txn, live.id, live.other, now, CHAT_PUSH_INTERVAL_SECS).await?
        && let Some((to, _)) = push_target(&txn, live.other, store::PushKind::Messages).await?
    {
        // It names the sender (their nickname, read when it is sent, never the text): the row
        // goes with the sender's account if they delete it.
        let what = Push::NewMessage { match_id: live.id };
        push::enqueue_push(&txn, &to, &what, Some(viewer.user_id)).await?;
        after.pushed();
    }
    // The last write: it takes the members' event numbers, whose row locks are held to the
    // commit.
    let stored = match chat::insert_message_with_events(
        &txn,
        live.id,
        me,
        client_id.as_str(),
        text.as_str(),
        kinds.bits(),
        now,
        [live.low, live.high],
    )
    .await?
    {
        Inserted::New(stored) => stored,
        Inserted::Before(row) => {
            return Ok(Outcome::only(stored_before(Message::from(row), text)?));
        }
    };
    txn.commit().await.context("committing a message")?;
    for kind in kinds.iter() {
        metrics::counter!(crate::metric_names::SAFETY_CAUTIONS, "kind" => kind.as_str())
            .increment(1);
    }
    let row = Message::from(stored.message);
    after.tell(ChatEvent {
        match_id: live.id,
        what: What::Message(row.clone()),
        to: stored.events,
    });
    Ok(Outcome::new(Sent::Created(row), after))
}

/// Moves the viewer's read marker forward to `up_to` (never back, never past the newest
/// message); the other member's open page is told when it moved. Any mark, 0 too, records that
/// the viewer opened the conversation: the match is no longer new to them.
pub async fn mark_read(
    db: &DatabaseConnection,
    now: i64,
    viewer: &Viewer,
    match_id: i64,
    up_to: i64,
) -> Result<Outcome<()>, ChatError> {
    let live = live(db, viewer, match_id).await?;
    let me = member_of(viewer)?;
    chat::mark_opened(db, live.id, me, now).await?;
    let mut after = AfterCommit::default();
    let txn = storage::begin_write(db)
        .await
        .context("starting a read mark")?;
    if let Some(up_to) = chat::mark_read(&txn, live.id, me, up_to).await? {
        super::record_chat(
            &txn,
            vec![(live.id, What::Read { up_to }, vec![live.other])],
            now,
            &mut after,
        )
        .await?;
    }
    txn.commit().await.context("committing a read mark")?;
    Ok(Outcome::new((), after))
}

// ---------------------------------------------------------------------------------------------
// Events streams

/// What opening an events stream needs.
pub struct StreamDeps<'a> {
    pub db: &'a DatabaseConnection,
    pub hub: &'a Arc<ChatHub>,
    pub sessions: &'a SessionStore,
    pub clock: &'a Clock,
    /// This process (the stream's presence row counts while it lives).
    pub process: i32,
    /// Seconds a presence row lives without a renewal.
    pub presence_ttl: i64,
    /// The wait a refused stream is told (a vanished client's slot is noticed free by then).
    pub retry_after: u64,
}

/// An opened events stream: what it listens to, its slot, its session's end and where it
/// starts.
pub struct OpenStream {
    pub subscription: Subscription,
    pub presence: Presence,
    /// When the stream's session ends unless renewed (Unix seconds).
    pub session_ends_at: i64,
    pub start: Start,
}

/// Opens an events stream for `member` with the session `session` (its token hash); the client
/// took events up to `last_event_id` (EventSource's `Last-Event-ID`) if it says so. Listen for
/// the session's end before calling: a sign-out that commits after the look-up here reaches the
/// listener.
pub async fn open_stream(
    deps: &StreamDeps<'_>,
    member: i64,
    session: &str,
    last_event_id: Option<&str>,
) -> Result<OpenStream, ChatError> {
    let refused = || {
        metrics::counter!(crate::metric_names::LIMIT_REFUSALS, "limit" => "chat-streams")
            .increment(1);
        ChatError::TooManyStreams {
            retry_after: deps.retry_after.max(1),
        }
    };
    // Subscribed before the presence row and the answer: whatever is published once the client
    // sees the stream open reaches it.
    let Some(subscription) = deps.hub.subscribe(member) else {
        return Err(refused());
    };
    // The cap across every process: the live streams of the member's presence rows.
    let Some(presence) = Presence::open(deps, member).await? else {
        return Err(refused());
    };
    let Some(session_ends_at) = deps.sessions.live_until(session).await? else {
        return Err(ChatError::SessionEnded);
    };
    // Read after subscribing: every event numbered after `head` reaches the subscription.
    let (head, oldest) = chat_events::bounds(deps.db, member).await?;
    Ok(OpenStream {
        subscription,
        presence,
        session_ends_at,
        start: Start::new(last_event_id, head, oldest),
    })
}

/// An open stream's presence row; dropping it (the stream closed) deletes the row.
pub struct Presence {
    db: DatabaseConnection,
    clock: Clock,
    ttl: i64,
    stream_id: String,
}

impl Presence {
    /// Records a stream of `member`; None when they hold `CHAT_STREAMS_PER_MEMBER` already.
    async fn open(deps: &StreamDeps<'_>, member: i64) -> Result<Option<Presence>, StorageError> {
        let stream_id = uuid::Uuid::new_v4().hyphenated().to_string();
        let now = deps.clock.now_secs();
        let opened = chat::open_presence(
            deps.db,
            &stream_id,
            member,
            deps.process,
            now,
            now + deps.presence_ttl,
            CHAT_STREAMS_PER_MEMBER,
        )
        .await?;
        Ok(opened.then(|| Presence {
            db: deps.db.clone(),
            clock: deps.clock.clone(),
            ttl: deps.presence_ttl,
            stream_id,
        }))
    }

    /// Keeps the row alive for another `ttl`; a failure is logged (the next refresh tries again).
    pub async fn refresh(&self) {
        let expires = self.clock.now_secs() + self.ttl;
        if let Err(err) = chat::refresh_presence(&self.db, &self.stream_id, expires).await {
            tracing::warn!(error = ?err, "chat presence not refreshed");
        }
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        let db = self.db.clone();
        let stream_id = std::mem::take(&mut self.stream_id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(err) = chat::close_presence(&db, &stream_id).await {
                    // The row expires by itself.
                    tracing::warn!(error = ?err, "chat presence not removed");
                }
            });
        }
    }
}

/// Where a stream starts, from the client's `Last-Event-ID` and the member's event numbers.
#[derive(Debug, PartialEq)]
pub struct Start {
    /// The last number the client has; the stream sends what comes after.
    pub after: i64,
    /// Read the events after `after` from the database first.
    pub replay: bool,
    /// What the client missed can no longer be replayed (or it named a number it cannot
    /// have): it is told to load the newest page again.
    pub reset: bool,
}

impl Start {
    fn new(last_event_id: Option<&str>, head: i64, oldest: Option<i64>) -> Start {
        let Some(sent) = last_event_id else {
            // A first open: the page loads the newest messages itself.
            return Start {
                after: head,
                replay: false,
                reset: false,
            };
        };
        match sent.trim().parse::<i64>() {
            Ok(last) if last == head => Start {
                after: head,
                replay: false,
                reset: false,
            },
            Ok(last) if (0..head).contains(&last) && oldest.is_some_and(|o| o <= last + 1) => {
                Start {
                    after: last,
                    replay: true,
                    reset: false,
                }
            }
            _ => Start {
                after: head,
                replay: false,
                reset: true,
            },
        }
    }
}

/// A stored event a stream missed.
#[derive(Debug)]
pub struct Missed {
    /// Its number in the member's events.
    pub seq: i64,
    pub match_id: i64,
    /// None: a message that is gone (its sender deleted their account); the stream only moves
    /// its client's last event id on.
    pub what: Option<What>,
}

/// Up to `limit` of `member`'s events after number `after`, in order.
pub async fn missed(
    db: &DatabaseConnection,
    member: i64,
    after: i64,
    limit: u64,
) -> Result<Vec<Missed>, ChatError> {
    let events = chat_events::after(db, member, after, limit).await?;
    Ok(events
        .into_iter()
        .map(|event| Missed {
            seq: event.seq,
            match_id: event.match_id,
            what: match event.kind {
                Kind::Message => event.message.map(|m| What::Message(Message::from(m))),
                Kind::Read => Some(What::Read {
                    up_to: event.ref_id,
                }),
                Kind::Ended => Some(What::Ended),
            },
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use kizuna_core::access::Standing;

    use super::*;

    fn start(after: i64, replay: bool, reset: bool) -> Start {
        Start {
            after,
            replay,
            reset,
        }
    }

    #[test]
    fn a_first_open_starts_after_the_newest_event() {
        assert_eq!(Start::new(None, 12, Some(3)), start(12, false, false));
        assert_eq!(Start::new(None, 0, None), start(0, false, false));
    }

    #[test]
    fn a_reconnect_replays_what_came_after_its_last_event() {
        assert_eq!(Start::new(Some("7"), 12, Some(3)), start(7, true, false));
        // The first kept event is the one right after: nothing lost.
        assert_eq!(Start::new(Some("2"), 12, Some(3)), start(2, true, false));
        assert_eq!(Start::new(Some("0"), 12, Some(1)), start(0, true, false));
        // Up to date: nothing to read.
        assert_eq!(Start::new(Some("12"), 12, Some(3)), start(12, false, false));
    }

    #[test]
    fn a_reconnect_that_can_no_longer_be_replayed_is_told_to_reload() {
        // Events 3 and later are kept; the client missed 2.
        assert_eq!(Start::new(Some("1"), 12, Some(3)), start(12, false, true));
        // Everything swept.
        assert_eq!(Start::new(Some("4"), 12, None), start(12, false, true));
        // A number the member never had, or none at all.
        assert_eq!(Start::new(Some("13"), 12, Some(3)), start(12, false, true));
        assert_eq!(Start::new(Some("-1"), 12, Some(1)), start(12, false, true));
        assert_eq!(Start::new(Some("x"), 12, Some(1)), start(12, false, true));
    }

    fn message(text: &str) -> Message {
        Message {
            id: 1,
            match_id: 7,
            sender_id: 3,
            client_message_id: "abcd1234".into(),
            text: text.into(),
            sent_at: 0,
            kinds: safety::Kinds::EMPTY,
        }
    }

    #[test]
    fn a_retry_with_the_same_text_is_the_stored_message() {
        let text = ChatText::parse("hello").unwrap();
        assert!(matches!(
            stored_before(message("hello"), &text),
            Ok(Sent::Stored(m)) if m.id == 1
        ));
    }

    #[test]
    fn a_client_id_reused_for_another_text_is_refused() {
        let text = ChatText::parse("hello again").unwrap();
        assert!(matches!(
            stored_before(message("hello"), &text),
            Err(ChatError::ClientIdReused)
        ));
    }

    #[test]
    fn only_an_approved_member_chats() {
        let viewer = |member, approved| Viewer {
            user_id: 1,
            member,
            standing: Standing {
                approved,
                reviewer: false,
            },
        };
        assert_eq!(member_of(&viewer(Some(5), true)).ok(), Some(5));
        assert!(matches!(
            member_of(&viewer(Some(5), false)),
            Err(ChatError::NotMember)
        ));
        assert!(matches!(
            member_of(&viewer(None, true)),
            Err(ChatError::NotMember)
        ));
    }
}
