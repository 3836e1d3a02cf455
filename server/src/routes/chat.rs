//! Chat between matched members (APPROVED only: 403 E004 for anyone else): a match's history
//! paged backwards, sending with the client's message id (a retry, or two racing copies, store
//! one message), the read marker, and the live events stream of all the caller's chats.
//!
//! A chat exists only while its match is live (`access::chat`): someone else's match, an unknown
//! one and one ended by an unmatch, block, report or suspension all answer the same 404 E003, so
//! nothing is learnt from the difference. The operations are `usecases::chat`'s.

use std::time::Duration;

use futures_util::stream;
use kizuna_core::{
    chat::{ChatText, ClientMessageId},
    rules::{self, CHAT_STREAMS_PER_MEMBER, FieldErrors, RuleCode},
};
use poem::{Body, IntoResponse, Response};
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Header, Path, Query},
    payload::Json,
    registry::{MetaMediaType, MetaResponse, MetaResponses, MetaSchema, MetaSchemaRef, Registry},
    types::{ToJSON, Type},
};

use super::{ApiTags, State, page_size};
use crate::{
    access::Viewer,
    chat::{Subscription, What},
    error::ApiError,
    extract::{
        auth::{Session, SessionOrCookie},
        body::JsonBody,
        path_id,
    },
    storage::{
        chat,
        chat_events::{self, Kind},
        entity::chat_message,
    },
    usecases::chat::{self as chats, Sent},
};

/// One message as its reader sees it.
#[derive(Debug, Object, Clone)]
#[oai(rename_all = "camelCase")]
pub struct ChatMessage {
    /// Increasing within the match: history pages backwards by it.
    pub message_id: i64,
    /// The id the sender's client gave it.
    pub client_message_id: String,
    pub text: String,
    /// Unix seconds.
    pub sent_at: i64,
    /// The caller sent it.
    pub mine: bool,
}

impl ChatMessage {
    pub fn new(row: &chat_message::Model, reader: i64) -> ChatMessage {
        ChatMessage {
            message_id: row.id,
            client_message_id: row.client_message_id.clone(),
            text: row.text.clone(),
            sent_at: row.sent_at,
            mine: row.sender_id == reader,
        }
    }
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MessagePage {
    /// Oldest first: the newest `limit` messages before `before`.
    pub messages: Vec<ChatMessage>,
    /// Older messages exist (ask again with `before` = the first message's id).
    pub has_more: bool,
    /// The newest message id the other member has read (null: none yet).
    pub their_read_up_to: Option<i64>,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendBody {
    /// 8 to 64 characters of `A-Z a-z 0-9 _ -` (a UUID qualifies), chosen by the client once
    /// per message and sent again with every retry of it.
    pub client_message_id: String,
    /// 1 to 1000 characters after trimming; no control characters but line breaks and tabs.
    pub text: String,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadBody {
    /// The newest message id the caller has seen; the marker never moves back, nor past the
    /// match's newest message.
    pub up_to: i64,
}

/// `event: message`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MessageEvent {
    pub match_id: i64,
    /// `mine` is relative to the stream's member.
    pub message: ChatMessage,
}

/// `event: read`: the other member read up to `upTo`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReadEvent {
    pub match_id: i64,
    pub up_to: i64,
}

/// `event: ended`: the match ended (unmatch, block, report or suspension).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EndedEvent {
    pub match_id: i64,
}

#[derive(ApiResponse)]
pub enum MessagesResponse {
    /// A page of the history.
    #[oai(status = 200)]
    Ok(Json<MessagePage>),
}

#[derive(ApiResponse)]
pub enum SendResponse {
    /// Stored (and delivered to the open pages of both members).
    #[oai(status = 201)]
    Created(Json<ChatMessage>),
    /// Stored before under this client message id with the same text: nothing new.
    #[oai(status = 200)]
    Stored(Json<ChatMessage>),
}

#[derive(ApiResponse)]
pub enum ReadResponse {
    /// Done (doing it again changes nothing).
    #[oai(status = 204)]
    Done,
}

/// The events stream: `text/event-stream` with `message`, `read` and `ended` events and a
/// `: keep-alive` comment every 15 seconds.
pub struct ChatEvents(Response);

impl IntoResponse for ChatEvents {
    fn into_response(self) -> Response {
        self.0
    }
}

impl ApiResponse for ChatEvents {
    fn meta() -> MetaResponses {
        MetaResponses {
            responses: vec![MetaResponse {
                description: "Server-sent events, each with its number in the caller's events \
                              as its `id`: `event: message` (MessageEvent), `event: read` \
                              (ReadEvent), `event: ended` (EndedEvent), `event: reset` (what was \
                              missed can no longer be replayed: load the newest page again), and \
                              a `: keep-alive` comment every 15 s.",
                status: Some(200),
                status_range: None,
                content: vec![MetaMediaType {
                    content_type: "text/event-stream",
                    schema: MetaSchemaRef::Inline(Box::new(MetaSchema {
                        one_of: vec![
                            MessageEvent::schema_ref(),
                            ReadEvent::schema_ref(),
                            EndedEvent::schema_ref(),
                        ],
                        ..MetaSchema::ANY
                    })),
                }],
                headers: vec![],
            }],
        }
    }

    fn register(registry: &mut Registry) {
        MessageEvent::register(registry);
        ReadEvent::register(registry);
        EndedEvent::register(registry);
    }
}

#[derive(Default)]
pub struct ChatApi;

#[OpenApi(tag = "ApiTags::Chat")]
impl ChatApi {
    /// A page of a match's messages
    ///
    /// The newest `limit` (1 to 50, default 30) messages before `before` (a message id; none:
    /// the newest), oldest first. 404 E003 unless this is a live match of the caller.
    #[oai(path = "/matches/:matchId/messages", method = "get")]
    async fn messages(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "matchId")] match_id: Path<String>,
        /// Only messages older than this message id.
        before: Query<Option<i64>>,
        /// At most this many (`rules::CHAT_PAGE`: 1 to 50, default 30).
        limit: Query<Option<u64>>,
    ) -> Result<MessagesResponse, ApiError> {
        let limit = page_size(limit.0, rules::CHAT_PAGE, rules::CHAT_PAGE_DEFAULT)?;
        let viewer = Viewer::from(&caller.0);
        let me = viewer.approved_member()?;
        let page = chats::page(&state, &viewer, path_id(&match_id.0)?, before.0, limit).await?;
        Ok(MessagesResponse::Ok(Json(MessagePage {
            messages: page
                .messages
                .iter()
                .map(|r| ChatMessage::new(r, me))
                .collect(),
            has_more: page.has_more,
            their_read_up_to: (page.their_read_up_to > 0).then_some(page.their_read_up_to),
        })))
    }

    /// Send a message
    ///
    /// 201 with the stored message. The same `clientMessageId` again (a retry, or a second copy
    /// racing the first) stores nothing and answers 200 with the message stored first; the same
    /// id with another text is 409 E005. 422 E002 for a bad text or id, 429 E007 with
    /// `Retry-After` beyond `CHAT_MESSAGES_PER_MINUTE` (30) messages a minute, 404 E003 unless
    /// this is a live match of the caller. The other member gets a LINE push "new message from
    /// …" when no page of theirs is open, at most one per match every 10 minutes.
    #[oai(path = "/matches/:matchId/messages", method = "post")]
    async fn send(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "matchId")] match_id: Path<String>,
        body: Json<JsonBody<SendBody>>,
    ) -> Result<SendResponse, ApiError> {
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        let me = viewer.approved_member()?;
        let match_id = path_id(&match_id.0)?;

        let mut fields = FieldErrors::new();
        let client_id = ClientMessageId::parse(&body.client_message_id);
        if client_id.is_none() {
            fields.add("clientMessageId", RuleCode::Invalid);
        }
        let text = ChatText::parse(&body.text)
            .map_err(|errors| fields.merge(errors))
            .ok();
        let (Some(client_id), Some(text)) = (client_id, text) else {
            return Err(ApiError::validation("the message is not valid", &fields));
        };
        let sent = chats::send(&state, &viewer, match_id, &client_id, &text)
            .await?
            .apply(&state)
            .await;
        Ok(match sent {
            Sent::Created(row) => SendResponse::Created(Json(ChatMessage::new(&row, me))),
            Sent::Stored(row) => SendResponse::Stored(Json(ChatMessage::new(&row, me))),
        })
    }

    /// Mark messages read
    ///
    /// Moves the caller's read marker forward to `upTo` (never back, never past the newest
    /// message); the other member's open page is told. 404 E003 unless this is a live match of
    /// the caller.
    #[oai(path = "/matches/:matchId/read", method = "put")]
    async fn read(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        #[oai(name = "matchId")] match_id: Path<String>,
        body: Json<JsonBody<ReadBody>>,
    ) -> Result<ReadResponse, ApiError> {
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        viewer.approved_member()?;
        chats::mark_read(&state, &viewer, path_id(&match_id.0)?, body.up_to)
            .await?
            .apply(&state)
            .await;
        Ok(ReadResponse::Done)
    }

    /// The caller's live chat events
    ///
    /// A server-sent events stream over all the caller's matches: `message` (a new message,
    /// the caller's own included), `read` (the other member read up to a message) and `ended`
    /// (the match ended), each with its number in the caller's events as the SSE `id`. A
    /// stream that reconnects with `Last-Event-ID` (EventSource sends it by itself) first gets
    /// every event after that number, in order, none twice; when they can no longer be replayed
    /// (kept a day) it gets `reset`: load the newest page again. A `: keep-alive` comment comes
    /// every 15 s. While it is open the caller gets no LINE push about new messages.
    /// Authenticated by the bearer session or the `kizuna_token` cookie (what `EventSource`
    /// sends). At most `CHAT_STREAMS_PER_MEMBER` (5) streams per member, across every server
    /// process: one more is 429 E007 with `Retry-After` (a closed stream frees its slot).
    #[oai(path = "/chat/events", method = "get")]
    async fn events(
        &self,
        state: poem::web::Data<&State>,
        caller: SessionOrCookie,
        /// The number of the last event this client took (sent by EventSource on a reconnect).
        #[oai(name = "Last-Event-ID")]
        last_event_id: Header<Option<String>>,
    ) -> Result<ChatEvents, ApiError> {
        let me = Viewer::from(&caller.0).approved_member()?;
        // A stream whose client vanished without closing is noticed at its next keep-alive,
        // so a slot may be free by then.
        let refused = || ApiError::Throttled {
            cause: format!(
                "at most {CHAT_STREAMS_PER_MEMBER} chat event streams open at once; close one"
            ),
            retry_after: Some(state.settings.chat.keep_alive.as_secs().max(1)),
        };
        // Subscribed before the presence row and the answer: whatever is published once the
        // client sees the stream open reaches it.
        let Some(subscription) = state.chat.subscribe(me) else {
            return Err(refused());
        };
        // The cap across every process: the live streams of the member's presence rows.
        let Some(presence) = Presence::open(&state, me).await? else {
            return Err(refused());
        };
        // Read after subscribing: every event numbered after `head` reaches the subscription.
        let (head, oldest) = chat_events::bounds(&state.db, me).await?;
        let start = Start::new(last_event_id.0.as_deref(), head, oldest);
        Ok(ChatEvents(event_stream(
            (*state).clone(),
            me,
            subscription,
            presence,
            start,
        )))
    }
}

/// An open stream's presence row; dropping it (the stream closed) deletes the row.
struct Presence {
    state: State,
    stream_id: String,
}

impl Presence {
    /// None when the member already holds `CHAT_STREAMS_PER_MEMBER` live streams.
    async fn open(state: &State, member: i64) -> Result<Option<Presence>, ApiError> {
        let stream_id = uuid::Uuid::new_v4().hyphenated().to_string();
        let now = state.now();
        let ttl = state.settings.chat.presence_ttl_secs();
        let opened = chat::open_presence(
            &state.db,
            &stream_id,
            member,
            state.process,
            now,
            now + ttl,
            CHAT_STREAMS_PER_MEMBER,
        )
        .await?;
        Ok(opened.then(|| Presence {
            state: state.clone(),
            stream_id,
        }))
    }

    async fn refresh(&self) {
        let expires = self.state.now() + self.state.settings.chat.presence_ttl_secs();
        if let Err(err) = chat::refresh_presence(&self.state.db, &self.stream_id, expires).await {
            tracing::warn!(error = ?err, "chat presence not refreshed");
        }
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        let db = self.state.db.clone();
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
struct Start {
    /// The last number the client has; the stream sends what comes after.
    after: i64,
    /// Read the events after `after` from the database first.
    replay: bool,
    /// What the client missed can no longer be replayed (or it named a number it cannot
    /// have): it is told to load the newest page again.
    reset: bool,
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

/// One event in the SSE wire format, for `member`, numbered `seq`.
fn format_event(match_id: i64, what: &What, member: i64, seq: i64) -> String {
    let (kind, data) = match what {
        What::Message(message) => (
            "message",
            MessageEvent {
                match_id,
                message: ChatMessage::new(message, member),
            }
            .to_json_string(),
        ),
        What::Read { up_to } => (
            "read",
            ReadEvent {
                match_id,
                up_to: *up_to,
            }
            .to_json_string(),
        ),
        What::Ended => ("ended", EndedEvent { match_id }.to_json_string()),
    };
    format!("id: {seq}\nevent: {kind}\ndata: {data}\n\n")
}

/// A stored event as its stream sends it; a message that is gone (its sender deleted their
/// account) only moves the client's last event id on.
fn format_stored(event: &chat_events::Stored, member: i64) -> String {
    let what = match (event.kind, &event.message) {
        (Kind::Message, Some(message)) => What::Message(message.clone()),
        (Kind::Message, None) => return format!("id: {}\n\n", event.seq),
        (Kind::Read, _) => What::Read {
            up_to: event.ref_id,
        },
        (Kind::Ended, _) => What::Ended,
    };
    format_event(event.match_id, &what, member, event.seq)
}

/// The reconnection delays EventSource is told (`retry:`), in milliseconds.
const RECONNECT_MS: std::ops::RangeInclusive<u64> = 2000..=4000;

/// Events read from the database per statement while catching up.
const CATCH_UP_BATCH: u64 = 200;

struct Open {
    state: State,
    member: i64,
    subscription: Subscription,
    presence: Presence,
    tick: tokio::time::Interval,
    closing: tokio::sync::watch::Receiver<bool>,
    resyncs: tokio::sync::watch::Receiver<u64>,
    /// The number of the last event sent.
    last: i64,
    /// Blocks to send before anything else (the first one, what was read from the database).
    queued: std::collections::VecDeque<String>,
    /// A catch-up failed (the database was unreachable): try again at the next chance.
    behind: bool,
}

impl Open {
    /// Queues every event after `last` from the database. On a failure the stream goes on and
    /// tries again at its next event, resync or keep-alive: it never sends out of order.
    async fn catch_up(&mut self) {
        loop {
            match chat_events::after(&self.state.db, self.member, self.last, CATCH_UP_BATCH).await {
                Ok(events) => {
                    self.behind = false;
                    let full = events.len() as u64 == CATCH_UP_BATCH;
                    for event in &events {
                        self.queued.push_back(format_stored(event, self.member));
                        self.last = event.seq;
                    }
                    if !full {
                        return;
                    }
                }
                Err(err) => {
                    tracing::warn!(error = ?err, "chat stream: missed events not read yet");
                    self.behind = true;
                    return;
                }
            }
        }
    }
}

fn event_stream(
    state: State,
    member: i64,
    subscription: Subscription,
    presence: Presence,
    start: Start,
) -> Response {
    let keep_alive = state
        .settings
        .chat
        .keep_alive
        .max(Duration::from_millis(100));
    // Spread over time, not in step: streams opened together (every client of a process that
    // died reconnects at once) would otherwise refresh their presence rows in one burst at every
    // keep-alive and come back together after the next failure. The first keep-alive comes at a
    // random point of the first period; the reconnection delay EventSource is told varies.
    let (first_tick, retry_ms) = {
        use rand::Rng;
        let mut rng = rand::thread_rng();
        (
            keep_alive.mul_f64(rng.gen_range(0.1..=1.0)),
            rng.gen_range(RECONNECT_MS),
        )
    };
    // The reconnection delay for EventSource, the last event id, and a first chunk so that the
    // client knows at once that the stream is live.
    let mut queued = std::collections::VecDeque::new();
    queued.push_back(format!(
        "retry: {retry_ms}\nid: {}\n: connected\n\n",
        start.after
    ));
    if start.reset {
        queued.push_back("event: reset\ndata: {}\n\n".to_string());
    }
    let open = Open {
        member,
        subscription,
        presence,
        tick: tokio::time::interval_at(tokio::time::Instant::now() + first_tick, keep_alive),
        closing: state.chat.closing(),
        resyncs: state.chat.resyncs(),
        state,
        last: start.after,
        queued,
        behind: start.replay,
    };
    let events = stream::unfold(open, |mut open| async move {
        loop {
            if let Some(block) = open.queued.pop_front() {
                return Some((Ok::<_, std::io::Error>(block), open));
            }
            if *open.closing.borrow() {
                return None;
            }
            if open.behind {
                open.catch_up().await;
                if !open.queued.is_empty() {
                    continue;
                }
            }
            tokio::select! {
                _ = open.closing.changed() => return None,
                _ = open.resyncs.changed() => open.catch_up().await,
                event = open.subscription.recv() => match event {
                    Ok(event) => match event.seq_for(open.member) {
                        Some(seq) if seq <= open.last => {}
                        Some(seq) if seq == open.last + 1 => {
                            open.last = seq;
                            let text = format_event(event.match_id, &event.what, open.member, seq);
                            return Some((Ok(text), open));
                        }
                        // An earlier event has not come (another process's, still on its way,
                        // or lost with it): the database has it, in order.
                        Some(_) => open.catch_up().await,
                        None => {}
                    },
                    // Fell behind by more than the backlog: the database has what was dropped.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => open.catch_up().await,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                },
                _ = open.tick.tick() => {
                    open.presence.refresh().await;
                    return Some((Ok(": keep-alive\n\n".to_string()), open));
                }
            }
        }
    });
    Response::builder()
        .content_type("text/event-stream")
        .header("X-Accel-Buffering", "no")
        .header("Cache-Control", "no-store")
        .body(Body::from_bytes_stream(events))
}

#[cfg(test)]
mod tests {
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
}
