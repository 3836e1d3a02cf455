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
    rules::{self, FieldErrors, RuleCode},
    safety,
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
    chat::{Message, Subscription, What},
    error::ApiError,
    extract::{
        auth::{Session, SessionOrCookie},
        body::JsonBody,
        path_id,
    },
    identity::ends::EndWatch,
    rate_limit::LimitKind,
    usecases::chat::{self as chats, Missed, Presence, SendDeps, Sent, Start, StreamDeps},
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
    /// What the screening found in a message the other member sent (null: nothing, and always
    /// for the caller's own): the chat shows a caution under it.
    #[oai(nullable)]
    pub caution: Option<Caution>,
}

/// A caution under a received message.
#[derive(Debug, Object, Clone)]
#[oai(rename_all = "camelCase")]
pub struct Caution {
    /// kizuna-core `safety::Kind` codes: `OFF_PLATFORM` (contact details or a move elsewhere in
    /// a young match), `MONEY` (money, investing, crypto, fees, loans).
    pub kinds: Vec<String>,
}

impl ChatMessage {
    pub fn new(row: &Message, reader: i64) -> ChatMessage {
        let mine = row.sender_id == reader;
        ChatMessage {
            message_id: row.id,
            client_message_id: row.client_message_id.clone(),
            text: row.text.clone(),
            sent_at: row.sent_at,
            mine,
            caution: safety::caution_for(row.kinds, mine).map(|kinds| Caution {
                kinds: kinds.codes().into_iter().map(String::from).collect(),
            }),
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
        let page = chats::page(&state.db, &viewer, path_id(&match_id.0)?, before.0, limit).await?;
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
        let deps = SendDeps {
            db: &state.db,
            now: state.now(),
            process: state.process,
            limiter: state.limits.get(LimitKind::Chat),
        };
        let sent = chats::send(&deps, &viewer, match_id, &client_id, &text)
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
        chats::mark_read(
            &state.db,
            state.now(),
            &viewer,
            path_id(&match_id.0)?,
            body.up_to,
        )
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
    /// sends); the stream ends within a second when that session ends (sign-out, sign-out
    /// everywhere, suspension, deletion, or its own end), on every server process. At most `CHAT_STREAMS_PER_MEMBER` (5) streams per member, across every server
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
        // Listening for the session's end before the use-case looks it up once more: a sign-out
        // that committed after the caller's check either shows there or reaches the stream.
        let ends = state.session_ends.watch();
        let deps = StreamDeps {
            db: &state.db,
            hub: &state.chat,
            sessions: &state.sessions,
            clock: &state.settings.clock,
            process: state.process,
            presence_ttl: state.settings.chat.presence_ttl_secs(),
            // A stream whose client vanished without closing is noticed at its next keep-alive,
            // so a slot may be free by then.
            retry_after: state.settings.chat.keep_alive.as_secs(),
        };
        let opened =
            chats::open_stream(&deps, me, &caller.0.session, last_event_id.0.as_deref()).await?;
        let session = StreamSession {
            hash: caller.0.session.clone(),
            user: caller.0.user.id,
            ends_at: opened.session_ends_at,
            ends,
        };
        Ok(ChatEvents(event_stream(
            (*state).clone(),
            me,
            opened.subscription,
            opened.presence,
            session,
            opened.start,
        )))
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

/// A missed event as its stream sends it; a message that is gone (its sender deleted their
/// account) only moves the client's last event id on.
fn format_missed(event: &Missed, member: i64) -> String {
    match &event.what {
        Some(what) => format_event(event.match_id, what, member, event.seq),
        None => format!("id: {}\n\n", event.seq),
    }
}

/// The reconnection delays EventSource is told (`retry:`), in milliseconds.
const RECONNECT_MS: std::ops::RangeInclusive<u64> = 2000..=4000;

/// Events read from the database per statement while catching up.
const CATCH_UP_BATCH: u64 = 200;

/// The session a stream was opened with: the stream ends with it.
struct StreamSession {
    /// Its token hash.
    hash: String,
    user: i64,
    /// When it ends unless renewed (Unix seconds).
    ends_at: i64,
    ends: EndWatch,
}

/// When `ends_at` (Unix seconds by the application's clock) comes, as a timer's instant.
fn instant_of(state: &State, ends_at: i64) -> tokio::time::Instant {
    let left_ms = ends_at.saturating_mul(1000) - state.settings.clock.now_millis();
    tokio::time::Instant::now() + Duration::from_millis(left_ms.max(0) as u64)
}

struct Open {
    state: State,
    member: i64,
    subscription: Subscription,
    presence: Presence,
    session: StreamSession,
    /// The session's own end.
    session_end: std::pin::Pin<Box<tokio::time::Sleep>>,
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
    /// Whether the stream's session still lives, looked up in the database (announcements may
    /// have been missed); moves the timer of its end when it was renewed meanwhile. A failed
    /// look-up keeps the stream: the next keep-alive looks again.
    async fn session_lives(&mut self) -> bool {
        match self.state.sessions.live_until(&self.session.hash).await {
            Ok(Some(ends_at)) => {
                if ends_at != self.session.ends_at {
                    self.session.ends_at = ends_at;
                    let at = instant_of(&self.state, ends_at);
                    self.session_end.as_mut().reset(at);
                }
                true
            }
            Ok(None) => false,
            Err(err) => {
                tracing::warn!(error = ?err, "chat stream: the session was not looked up");
                true
            }
        }
    }

    /// The session's end came: the stream ends unless it was renewed meanwhile (when the
    /// database cannot say, it ends: the client reconnects and proves its session again).
    async fn session_end_came(&mut self) -> bool {
        match self.state.sessions.live_until(&self.session.hash).await {
            Ok(Some(ends_at)) if ends_at > self.session.ends_at => {
                self.session.ends_at = ends_at;
                let at = instant_of(&self.state, ends_at);
                self.session_end.as_mut().reset(at);
                true
            }
            _ => false,
        }
    }

    /// Queues every event after `last` from the database. On a failure the stream goes on and
    /// tries again at its next event, resync or keep-alive: it never sends out of order.
    async fn catch_up(&mut self) {
        loop {
            match chats::missed(&self.state.db, self.member, self.last, CATCH_UP_BATCH).await {
                Ok(events) => {
                    self.behind = false;
                    let full = events.len() as u64 == CATCH_UP_BATCH;
                    for event in &events {
                        self.queued.push_back(format_missed(event, self.member));
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
    session: StreamSession,
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
        session_end: Box::pin(tokio::time::sleep_until(instant_of(
            &state,
            session.ends_at,
        ))),
        session,
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
                // The session ended (announced by this process or another): nothing more.
                ended = open.session.ends.ended.recv() => match ended {
                    Ok(end) if end.covers(&open.session.hash, open.session.user) => return None,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        if !open.session_lives().await {
                            return None;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                },
                // Announcements may have been missed (the relay reconnected).
                _ = open.session.ends.rechecks.changed() => {
                    if !open.session_lives().await {
                        return None;
                    }
                }
                _ = &mut open.session_end => {
                    if !open.session_end_came().await {
                        return None;
                    }
                }
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
                    // The safety net of the announcements: the session is looked up at every
                    // keep-alive.
                    if !open.session_lives().await {
                        return None;
                    }
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
