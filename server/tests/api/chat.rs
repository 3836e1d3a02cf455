//! Chat over HTTP on SQLite and PostgreSQL: only the pair of a live match reads and writes its
//! chat; a retried (or racing) message is stored once; text and client ids are checked at their
//! limits; history pages backwards exactly once; the read marker only moves forward; the rate
//! limit; unmatch, block, report and suspension end the chat for both; the events stream
//! (also across two server processes on one PostgreSQL database); the "new message" push only
//! without an open page, at most one per match every 10 minutes; and the conversation in the
//! reviewers' report queue.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::{Method, Response};
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    helpers::{Backend, TestApp, assert_error, spawn_app, spawn_app_with},
    matchmaking::{Member, approved, introductions, like, ok_json, register, send},
    on_both_backends,
};

/// Two approved members who matched: Mei (profile "Nick0") and Kai ("Nick1"), and the match id.
pub(crate) async fn matched_pair(app: &TestApp, n: usize) -> (Member, Member, i64) {
    let (mei, _) = approved(app, n, true).await;
    let (kai, _) = approved(app, n + 1, false).await;
    matched(app, &mei, &kai).await;
    let id = match_of(app, &mei, &kai).await;
    (mei, kai, id)
}

pub(crate) async fn matched(app: &TestApp, a: &Member, b: &Member) {
    introductions(app, a).await;
    introductions(app, b).await;
    ok_json(like(app, a, b.id).await).await;
    let liked = ok_json(like(app, b, a.id).await).await;
    assert_eq!(liked["matched"], true, "{liked}");
}

pub(crate) async fn match_of(app: &TestApp, a: &Member, b: &Member) -> i64 {
    let list = ok_json(app.get("/api/matches", Some(&a.user.token)).await).await;
    list.as_array()
        .unwrap()
        .iter()
        .find(|m| m["member"]["memberId"] == b.id)
        .unwrap_or_else(|| panic!("no match with {}: {list}", b.id))["matchId"]
        .as_i64()
        .unwrap()
}

pub(crate) async fn post(
    app: &TestApp,
    m: &Member,
    match_id: i64,
    id: &str,
    text: &str,
) -> Response {
    send(
        app,
        Method::POST,
        &format!("/api/matches/{match_id}/messages"),
        &m.user.token,
        Some(json!({"clientMessageId": id, "text": text})),
    )
    .await
}

pub(crate) async fn history(app: &TestApp, m: &Member, match_id: i64, query: &str) -> Response {
    app.get(
        &format!("/api/matches/{match_id}/messages{query}"),
        Some(&m.user.token),
    )
    .await
}

async fn read(app: &TestApp, m: &Member, match_id: i64, up_to: i64) -> Response {
    send(
        app,
        Method::PUT,
        &format!("/api/matches/{match_id}/read"),
        &m.user.token,
        Some(json!({"upTo": up_to})),
    )
    .await
}

pub(crate) fn client_id(n: usize) -> String {
    format!("msg-{n:08}")
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            sql.to_string(),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap()
}

/// An open `GET /api/chat/events` stream, read event by event.
pub(crate) struct Events {
    body: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<Vec<u8>>> + Send>>,
    buffer: String,
    /// Comment lines seen so far (`: keep-alive`).
    pub comments: Vec<String>,
    /// The last `id:` seen (what EventSource would send as `Last-Event-ID`).
    pub last_id: Option<String>,
}

impl Events {
    /// Opens the stream and waits for its first chunk: from then on every event reaches it.
    pub(crate) async fn open(app: &TestApp, m: &Member) -> Events {
        Events::open_after(app, m, None).await
    }

    /// Opens the stream as EventSource reconnects: with the last event id it took.
    pub(crate) async fn open_after(app: &TestApp, m: &Member, last_id: Option<&str>) -> Events {
        Events::open_with(app, &m.user.token, last_id).await
    }

    /// Opens the stream with a session token (one of the member's devices).
    pub(crate) async fn open_with(app: &TestApp, token: &str, last_id: Option<&str>) -> Events {
        let mut req = app
            .client
            .get(app.url("/api/chat/events"))
            .bearer_auth(token);
        if let Some(id) = last_id {
            req = req.header("Last-Event-ID", id);
        }
        let r = req.send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "text/event-stream");
        let mut events = Events {
            body: Box::pin(r.bytes_stream().map(|chunk| chunk.map(|b| b.to_vec()))),
            buffer: String::new(),
            comments: Vec::new(),
            last_id: None,
        };
        events
            .next_block(Duration::from_secs(5))
            .await
            .expect("the stream opens");
        assert!(events.comments.iter().any(|c| c == "connected"));
        events
    }

    /// The next blank-line-terminated block (None: nothing within `wait`).
    async fn next_block(&mut self, wait: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                for line in block.lines() {
                    if let Some(comment) = line.strip_prefix(':') {
                        self.comments.push(comment.trim().to_string());
                    } else if let Some(id) = line.strip_prefix("id: ") {
                        self.last_id = Some(id.to_string());
                    }
                }
                return Some(block);
            }
            let chunk = tokio::time::timeout_at(deadline, self.body.next())
                .await
                .ok()??;
            self.buffer
                .push_str(std::str::from_utf8(&chunk.expect("the stream stays up")).unwrap());
        }
    }

    /// The next event (comments skipped): its kind and data. None: none within `wait`.
    pub(crate) async fn next(&mut self, wait: Duration) -> Option<(String, Value)> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let block = self.next_block(left).await?;
            let mut kind = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(k) = line.strip_prefix("event: ") {
                    kind = Some(k.to_string());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = Some(serde_json::from_str::<Value>(d).unwrap());
                }
            }
            if let (Some(kind), Some(data)) = (kind, data) {
                return Some((kind, data));
            }
        }
    }

    /// Reads whatever still comes until the server ends the stream: true when it ended before
    /// `deadline`, false when it was still open then.
    pub(crate) async fn ends_by(&mut self, deadline: tokio::time::Instant) -> bool {
        loop {
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Err(_) => return false,
                Ok(None) => return true,
                Ok(Some(chunk)) => {
                    let chunk = chunk.expect("the stream ends cleanly, not cut off");
                    self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
                }
            }
        }
    }

    /// The next event, which must be `kind` and numbered right after the last one taken: each
    /// of a member's events is numbered and the stream sends them in order, so nothing came
    /// between (what a test asserts instead of waiting to see nothing come).
    pub(crate) async fn expect_next(&mut self, kind: &str) -> Value {
        let last: i64 = self.last_id.as_deref().unwrap().parse().unwrap();
        let data = self.expect(kind).await;
        assert_eq!(
            self.last_id,
            Some((last + 1).to_string()),
            "{kind} came after another event"
        );
        data
    }

    pub(crate) async fn expect(&mut self, kind: &str) -> Value {
        let (got, data) = self
            .next(Duration::from_secs(10))
            .await
            .unwrap_or_else(|| panic!("no {kind} event"));
        assert_eq!(got, kind, "{data}");
        data
    }
}

async fn only_the_pair_of_a_live_match_reads_and_writes_its_chat(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let (lin, bo, other) = matched_pair(&app, 2).await;
    let (pending, _) = register(&app, 4, true).await;

    let r = post(&app, &mei, id, &client_id(1), "  Hi Kai!  ").await;
    assert_eq!(r.status(), 201);
    let sent = ok_json(r).await;
    assert_eq!(sent["text"], "Hi Kai!");
    assert_eq!(sent["mine"], true);
    assert_eq!(sent["clientMessageId"], client_id(1));
    let page = ok_json(history(&app, &kai, id, "").await).await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 1);
    assert_eq!(page["messages"][0]["messageId"], sent["messageId"]);
    assert_eq!(page["messages"][0]["mine"], false);
    assert_eq!(page["hasMore"], false);

    let before = app.snapshot().await;
    // Another pair, in either direction; unknown and malformed ids: the same E003.
    for (who, match_id) in [(&lin, id), (&bo, id), (&mei, other), (&kai, other)] {
        assert_error(history(&app, who, match_id, "").await, 404, "E003").await;
        assert_error(
            post(&app, who, match_id, &client_id(9), "hello").await,
            404,
            "E003",
        )
        .await;
        assert_error(read(&app, who, match_id, 1).await, 404, "E003").await;
    }
    for path in [
        "/api/matches/abc/messages",
        "/api/matches/0/messages",
        "/api/matches/99999999/messages",
    ] {
        assert_error(app.get(path, Some(&mei.user.token)).await, 404, "E003").await;
    }
    // Not approved: E004 everywhere; no session: E001.
    assert_error(history(&app, &pending, id, "").await, 403, "E004").await;
    assert_error(
        post(&app, &pending, id, &client_id(9), "hello").await,
        403,
        "E004",
    )
    .await;
    assert_error(
        app.get("/api/chat/events", Some(&pending.user.token)).await,
        403,
        "E004",
    )
    .await;
    assert_error(app.get("/api/chat/events", None).await, 401, "E001").await;
    assert_error(
        app.get(&format!("/api/matches/{id}/messages"), None).await,
        401,
        "E001",
    )
    .await;
    assert_eq!(app.snapshot().await, before);
}

async fn a_retried_or_racing_message_is_stored_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let first = ok_json(post(&app, &mei, id, &client_id(1), "Hello").await).await;
    // The answer was lost; the client sends again: the stored message, 200, nothing new.
    let r = post(&app, &mei, id, &client_id(1), "Hello").await;
    assert_eq!(r.status(), 200);
    assert_eq!(ok_json(r).await, first);
    // The same id with another text is a client bug.
    assert_error(
        post(&app, &mei, id, &client_id(1), "Hello?").await,
        409,
        "E005",
    )
    .await;
    // The other member may use the same client id: ids are the sender's own.
    assert_eq!(
        post(&app, &kai, id, &client_id(1), "Hi").await.status(),
        201
    );

    // Eight copies at once: one is stored (201), the others answer it (200).
    let racing = client_id(2);
    let copies = (0..8).map(|_| post(&app, &mei, id, &racing, "Racing"));
    let answers = futures_util::future::join_all(copies).await;
    let mut created = 0;
    let mut ids = Vec::new();
    for r in answers {
        match r.status().as_u16() {
            201 => created += 1,
            200 => {}
            other => panic!("{other}: {}", r.text().await.unwrap()),
        }
        ids.push(ok_json(r).await["messageId"].as_i64().unwrap());
    }
    assert_eq!(created, 1);
    ids.dedup();
    assert_eq!(ids.len(), 1);
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM chat_messages").await,
        3
    );
    let page = ok_json(history(&app, &kai, id, "").await).await;
    let texts: Vec<&str> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["Hello", "Hi", "Racing"]);
}

async fn text_and_client_ids_are_checked_at_their_limits(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _kai, id) = matched_pair(&app, 0).await;
    for (n, text) in [
        (1, "a".to_string()),
        (2, "字".repeat(1000)),
        (3, "line one\nline two\ttab".into()),
    ] {
        let r = post(&app, &mei, id, &client_id(n), &text).await;
        assert_eq!(r.status(), 201, "{}", text.chars().count());
        assert_eq!(ok_json(r).await["text"], text.as_str());
    }
    let before = app.snapshot().await;
    for (text, rule) in [
        ("".to_string(), "required"),
        ("  \n\t ".to_string(), "required"),
        ("字".repeat(1001), "too_long"),
        ("a\u{0}b".to_string(), "control_chars"),
        ("red \u{1b}[31m".to_string(), "control_chars"),
        ("del\u{7f}".to_string(), "control_chars"),
    ] {
        let err = assert_error(
            post(&app, &mei, id, &client_id(10), &text).await,
            422,
            "E002",
        )
        .await;
        assert_eq!(err["fields"]["text"], json!([rule]), "{text:?}: {err}");
    }
    for bad in [
        "short12",
        "has space1",
        "dots.are.bad",
        "ünïcödé-id",
        &"a".repeat(65),
        "",
    ] {
        let err = assert_error(post(&app, &mei, id, bad, "fine").await, 422, "E002").await;
        assert_eq!(
            err["fields"]["clientMessageId"],
            json!(["invalid"]),
            "{bad:?}: {err}"
        );
    }
    // Both wrong: both reported.
    let err = assert_error(post(&app, &mei, id, "x", "").await, 422, "E002").await;
    assert!(err["fields"]["text"].is_array() && err["fields"]["clientMessageId"].is_array());
    // Wrong shapes: 400.
    for body in [
        json!({"clientMessageId": client_id(11), "text": 5}),
        json!({"clientMessageId": 12345678, "text": "x"}),
        json!({"clientMessageId": client_id(11)}),
        json!({"clientMessageId": client_id(11), "text": "x", "extra": 1}),
        json!(["x"]),
    ] {
        let r = send(
            &app,
            Method::POST,
            &format!("/api/matches/{id}/messages"),
            &mei.user.token,
            Some(body),
        )
        .await;
        assert_error(r, 400, "E002").await;
    }
    for body in [json!({"upTo": "1"}), json!({}), json!({"upTo": 1, "x": 2})] {
        let r = send(
            &app,
            Method::PUT,
            &format!("/api/matches/{id}/read"),
            &mei.user.token,
            Some(body),
        )
        .await;
        assert_error(r, 400, "E002").await;
    }
    for query in ["?limit=0", "?limit=51", "?limit=x", "?before=x"] {
        assert_error(history(&app, &mei, id, query).await, 400, "E002").await;
    }
    assert_eq!(app.snapshot().await, before);
}

async fn history_pages_backwards_every_message_exactly_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let mut sent = Vec::new();
    for n in 0..50 {
        let who = if n % 2 == 1 { &kai } else { &mei };
        let m = ok_json(post(&app, who, id, &client_id(n), &format!("message {n}")).await).await;
        sent.push(m["messageId"].as_i64().unwrap());
    }
    assert!(
        sent.windows(2).all(|w| w[0] < w[1]),
        "ids increase: {sent:?}"
    );
    // The newest page by default: 30.
    let newest = ok_json(history(&app, &mei, id, "").await).await;
    assert_eq!(newest["messages"].as_array().unwrap().len(), 30);
    assert_eq!(newest["hasMore"], true);
    assert_eq!(newest["messages"][29]["messageId"], sent[49]);
    // Pages of 7 from the newest back: every message once, in order.
    let mut seen: Vec<i64> = Vec::new();
    let mut query = "?limit=7".to_string();
    let mut pages = 0;
    loop {
        let page = ok_json(history(&app, &kai, id, &query).await).await;
        let ids: Vec<i64> = page["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["messageId"].as_i64().unwrap())
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "oldest first: {ids:?}");
        pages += 1;
        let mut all = ids.clone();
        all.extend(&seen);
        seen = all;
        if page["hasMore"] == false {
            break;
        }
        query = format!("?limit=7&before={}", ids[0]);
    }
    assert_eq!(pages, 8);
    assert_eq!(seen, sent);
    let texts =
        ok_json(history(&app, &kai, id, &format!("?limit=2&before={}", sent[2])).await).await;
    assert_eq!(texts["messages"][0]["text"], "message 0");
    // Message 0 is Mei's, 1 is Kai's: `mine` is the reader's view.
    assert_eq!(texts["messages"][0]["mine"], false);
    assert_eq!(texts["messages"][1]["mine"], true);
    assert_eq!(texts["hasMore"], false);
    // Before the first message: nothing.
    let empty = ok_json(history(&app, &kai, id, &format!("?before={}", sent[0])).await).await;
    assert_eq!(empty["messages"], json!([]));
    assert_eq!(empty["hasMore"], false);
}

async fn the_read_marker_only_moves_forward(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["lastMessage"], Value::Null);
    assert_eq!(matches[0]["unread"], 0);
    let mut ids = Vec::new();
    for n in 0..3 {
        let m = ok_json(post(&app, &kai, id, &client_id(n), &format!("k{n}")).await).await;
        ids.push(m["messageId"].as_i64().unwrap());
    }
    ok_json(post(&app, &mei, id, &client_id(9), "mine").await).await;
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["unread"], 3, "my own message is never unread");
    assert_eq!(matches[0]["lastMessage"]["text"], "mine");
    assert_eq!(matches[0]["lastMessage"]["mine"], true);
    assert!(matches[0]["lastMessage"]["sentAt"].as_i64().unwrap() > 0);
    let theirs = ok_json(app.get("/api/matches", Some(&kai.user.token)).await).await;
    assert_eq!(theirs[0]["lastMessage"]["mine"], false);
    assert_eq!(theirs[0]["unread"], 1);
    assert_eq!(
        ok_json(history(&app, &kai, id, "").await).await["theirReadUpTo"],
        Value::Null
    );

    assert_eq!(read(&app, &mei, id, ids[1]).await.status(), 204);
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["unread"], 1);
    assert_eq!(
        ok_json(history(&app, &kai, id, "").await).await["theirReadUpTo"],
        ids[1]
    );
    // Back: nothing moves.
    for back in [ids[0], 0, -5] {
        assert_eq!(read(&app, &mei, id, back).await.status(), 204);
        assert_eq!(
            ok_json(history(&app, &kai, id, "").await).await["theirReadUpTo"],
            ids[1]
        );
    }
    // Past the newest message: up to the newest only.
    assert_eq!(read(&app, &mei, id, i64::MAX).await.status(), 204);
    let newest =
        ok_json(history(&app, &mei, id, "").await).await["messages"][3]["messageId"].clone();
    assert_eq!(
        ok_json(history(&app, &kai, id, "").await).await["theirReadUpTo"],
        newest
    );
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["unread"], 0);
    // A message that arrives later is unread again.
    ok_json(post(&app, &kai, id, &client_id(5), "later").await).await;
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["unread"], 1);
}

async fn a_member_sends_at_most_thirty_messages_a_minute(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    // 30 at once, then one more every two seconds: however slow the machine, no more than that.
    let started = Instant::now();
    let mut sent = 0;
    let r = loop {
        let r = post(&app, &mei, id, &client_id(sent), "hi").await;
        if r.status() != 201 {
            break r;
        }
        sent += 1;
        assert!(sent <= 60, "never refused");
    };
    let refills = (started.elapsed().as_secs_f64() / 2.0).floor() as usize;
    assert!(
        (30..=30 + refills).contains(&sent),
        "{sent} in {:?}",
        started.elapsed()
    );
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_error(r, 429, "E007").await;
    // A retry of a stored message is still answered; the other member is not limited.
    assert_eq!(
        post(&app, &mei, id, &client_id(3), "hi").await.status(),
        200
    );
    assert_eq!(
        post(&app, &kai, id, &client_id(0), "hi back")
            .await
            .status(),
        201
    );
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM chat_messages").await,
        sent as i64 + 1
    );
}

async fn a_member_holds_at_most_five_event_streams_and_a_closed_one_frees_its_slot(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let cap = kizuna_core::rules::CHAT_STREAMS_PER_MEMBER as usize;
    assert_eq!(cap, 5);
    let mut open = Vec::new();
    for _ in 0..cap {
        open.push(Events::open(&app, &mei).await);
    }
    let r = app.get("/api/chat/events", Some(&mei.user.token)).await;
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_error(r, 429, "E007").await;
    // The refused stream left no presence row behind; the other member is not limited.
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM chat_presence").await,
        cap as i64
    );
    let _kai_events = Events::open(&app, &kai).await;

    // Closing one frees its slot (once the server sees the connection go).
    drop(open.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = app.get("/api/chat/events", Some(&mei.user.token)).await;
        if r.status() == 200 {
            break;
        }
        assert_error(r, 429, "E007").await;
        assert!(
            Instant::now() < deadline,
            "the closed stream's slot stays taken"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The streams still open go on working.
    ok_json(post(&app, &kai, id, &client_id(1), "still there?").await).await;
    for events in &mut open {
        events.expect("message").await;
    }
}

async fn unmatch_block_report_and_suspension_end_the_chat_for_both(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": reviewer.line_id}))
        .await;
    for (n, how) in [(0, "unmatch"), (2, "block"), (4, "report"), (6, "suspend")] {
        let (mei, mut kai, id) = matched_pair(&app, n).await;
        ok_json(post(&app, &mei, id, &client_id(1), "hello").await).await;
        let mut mei_events = Events::open(&app, &mei).await;
        let mut kai_events = Events::open(&app, &kai).await;
        let r = match how {
            "unmatch" => {
                send(
                    &app,
                    Method::DELETE,
                    &format!("/api/matches/{id}"),
                    &kai.user.token,
                    None,
                )
                .await
            }
            "block" => {
                send(
                    &app,
                    Method::POST,
                    "/api/blocks",
                    &kai.user.token,
                    Some(json!({"memberId": mei.id})),
                )
                .await
            }
            "report" => {
                send(
                    &app,
                    Method::POST,
                    "/api/reports",
                    &kai.user.token,
                    Some(json!({"memberId": mei.id, "reasons": ["SPAM"]})),
                )
                .await
            }
            _ => {
                let version = count(
                    &app,
                    &format!("SELECT version AS n FROM profiles WHERE id = {}", kai.id),
                )
                .await;
                send(
                    &app,
                    Method::POST,
                    &format!("/api/review/profiles/{}/decision", kai.id),
                    &reviewer.token,
                    Some(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version})),
                )
                .await
            }
        };
        assert!(
            r.status().is_success(),
            "{how}: {}",
            r.text().await.unwrap()
        );
        assert_eq!(
            mei_events.expect("ended").await,
            json!({"matchId": id}),
            "{how}"
        );
        if how == "suspend" {
            // The suspension ended Kai's sessions, and his stream with them: it carries nothing
            // more, not even the end of the match.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
            assert!(kai_events.ends_by(deadline).await, "Kai's stream went on");
        } else {
            assert_eq!(
                kai_events.expect("ended").await,
                json!({"matchId": id}),
                "{how}"
            );
        }
        if how == "suspend" {
            // The suspension ended Kai's sessions; signed in again, chat is still closed to him.
            app.sign_in_again(&mut kai.user).await;
        }
        for who in [&mei, &kai] {
            let r = history(&app, who, id, "").await;
            if how == "suspend" && who.id == kai.id {
                // A suspended member is out of matchmaking altogether.
                assert_error(r, 403, "E004").await;
                continue;
            }
            assert_error(r, 404, "E003").await;
            assert_error(
                post(&app, who, id, &client_id(2), "still there?").await,
                404,
                "E003",
            )
            .await;
            assert_error(read(&app, who, id, 1).await, 404, "E003").await;
            // Even the stored message cannot be retried into an ended chat.
            assert_error(
                post(&app, who, id, &client_id(1), "hello").await,
                404,
                "E003",
            )
            .await;
        }
    }
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM chat_messages").await,
        4
    );
}

async fn the_events_stream_brings_messages_and_reads_live(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let (lin, bo, other) = matched_pair(&app, 2).await;
    let mut mei_events = Events::open(&app, &mei).await;
    let mut kai_events = Events::open(&app, &kai).await;
    let mut lin_events = Events::open(&app, &lin).await;

    let sent = ok_json(post(&app, &mei, id, &client_id(1), "Hi Kai").await).await;
    let got = kai_events.expect("message").await;
    assert_eq!(got["matchId"], id);
    assert_eq!(got["message"]["messageId"], sent["messageId"]);
    assert_eq!(got["message"]["text"], "Hi Kai");
    assert_eq!(got["message"]["mine"], false);
    // The sender's own page (another tab) gets it too, as hers.
    let own = mei_events.expect("message").await;
    assert_eq!(own["message"]["mine"], true);
    // A retry delivers nothing new.
    assert_eq!(
        post(&app, &mei, id, &client_id(1), "Hi Kai").await.status(),
        200
    );

    read(&app, &kai, id, sent["messageId"].as_i64().unwrap()).await;
    assert_eq!(
        mei_events.expect("read").await,
        json!({"matchId": id, "upTo": sent["messageId"]})
    );
    // Reading the same again tells nobody anything.
    read(&app, &kai, id, sent["messageId"].as_i64().unwrap()).await;

    // Another pair's chat never reaches these streams, and theirs never reaches Lin's.
    ok_json(post(&app, &bo, other, &client_id(1), "Hi Lin").await).await;
    assert_eq!(
        lin_events.expect("message").await["message"]["text"],
        "Hi Lin"
    );
    ok_json(post(&app, &bo, other, &client_id(2), "fence").await).await;
    assert_eq!(
        lin_events.expect_next("message").await["message"]["text"],
        "fence"
    );
    // Keep-alive comments keep coming (every second in tests) and carry nothing else.
    let start = Instant::now();
    while !kai_events.comments.iter().any(|c| c == "keep-alive") {
        assert!(
            kai_events.next(Duration::from_secs(3)).await.is_none(),
            "no event expected"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
    }
    // Neither the retry, the second read nor the other pair's chat told Mei anything.
    ok_json(post(&app, &kai, id, &client_id(2), "fence").await).await;
    assert_eq!(
        mei_events.expect_next("message").await["message"]["text"],
        "fence"
    );
}

/// Two server processes on one PostgreSQL database: a stream open on one gets what is posted
/// through the other, and the presence it keeps stops the push there too. The second reaches the
/// database through its Unix socket, as a process on the database's own machine may
/// (docs/design.md, `DATABASE_URL`): its sends, its LISTEN and its sessions work the same.
async fn a_message_posted_on_one_process_reaches_a_stream_on_another() {
    let first = spawn_app(Backend::Postgres).await;
    let socket_dir = first
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            sea_orm::DatabaseBackend::Postgres,
            "SELECT split_part(current_setting('unix_socket_directories'), ',', 1) AS dir",
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<String>("", "dir")
        .unwrap();
    let url = first.database_url.replace("@127.0.0.1:", "@localhost:")
        + &format!("?host={}", socket_dir.trim());
    assert!(url.contains("?host=/"), "{url}");
    let second = spawn_app_with(Backend::Postgres, |s| s.database_url = Some(url)).await;
    // Every other connection to the database is TCP (the first process's, this test's): the
    // second's, on the socket, have no client address.
    assert!(
        count(
            &first,
            "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() \
             AND backend_type = 'client backend' AND client_addr IS NULL"
        )
        .await
            > 0
    );
    let (mei, kai, id) = matched_pair(&first, 0).await;
    let mut kai_events = Events::open(&first, &kai).await;
    let mut mei_events = Events::open(&second, &mei).await;

    let sent =
        ok_json(post(&second, &mei, id, &client_id(1), "from the other process").await).await;
    let got = kai_events.expect("message").await;
    assert_eq!(got["message"]["messageId"], sent["messageId"]);
    assert_eq!(got["message"]["text"], "from the other process");
    assert_eq!(got["message"]["mine"], false);
    // The sender's stream on the sending process gets it once (not again through the relay).
    assert_eq!(mei_events.expect("message").await["message"]["mine"], true);

    // Announcements reach a process in the order they were made: a copy through the relay
    // would come before this read.
    read(&first, &kai, id, sent["messageId"].as_i64().unwrap()).await;
    assert_eq!(
        mei_events.expect_next("read").await["upTo"],
        sent["messageId"]
    );

    // Kai's page is open on the first process: the second sent no push.
    assert_eq!(
        count(
            &first,
            "SELECT COUNT(*) AS n FROM push_outbox WHERE kind = 'message'"
        )
        .await,
        0
    );

    let r = send(
        &second,
        Method::DELETE,
        &format!("/api/matches/{id}"),
        &mei.user.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 204);
    assert_eq!(kai_events.expect("ended").await, json!({"matchId": id}));
    assert_error(history(&first, &kai, id, "").await, 404, "E003").await;
}

#[tokio::test]
async fn a_message_posted_on_one_process_reaches_a_stream_on_another_postgres() {
    a_message_posted_on_one_process_reaches_a_stream_on_another().await;
}

/// The stored "new message" pushes to a member: what each is (kizuna-core's `push::Push`).
async fn chat_pushes(app: &TestApp, to: &Member) -> Vec<String> {
    let rows = app
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!(
                "SELECT subject FROM push_outbox WHERE line_user_id = '{}' AND kind = 'message' \
                 ORDER BY id",
                to.user.line_id
            ),
        ))
        .await
        .unwrap();
    rows.iter()
        .map(|r| r.try_get::<String>("", "subject").unwrap())
        .collect()
}

async fn a_message_push_only_without_an_open_page_and_once_in_ten_minutes(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    // Kai reads the app in Japanese.
    app.db
        .execute_unprepared(&format!(
            "UPDATE users SET locale = 'ja' WHERE line_user_id = '{}'",
            kai.user.line_id
        ))
        .await
        .unwrap();
    let baseline = chat_pushes(&app, &kai).await.len();

    // His page is open: no push.
    let kai_events = Events::open(&app, &kai).await;
    ok_json(post(&app, &mei, id, &client_id(1), "are you there?").await).await;
    assert_eq!(chat_pushes(&app, &kai).await.len(), baseline);

    // Closed (the row goes with the stream): one push for several messages.
    drop(kai_events);
    let deadline = Instant::now() + Duration::from_secs(10);
    while count(&app, "SELECT COUNT(*) AS n FROM chat_presence").await > 0 {
        assert!(
            Instant::now() < deadline,
            "the closed stream's presence stays"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for n in 2..5 {
        ok_json(post(&app, &mei, id, &client_id(n), "hello?").await).await;
    }
    let pushes = chat_pushes(&app, &kai).await;
    assert_eq!(pushes.len(), baseline + 1, "{pushes:?}");
    // Stored as what it is: the match, nothing of the text (the sender is its about_user_id).
    let stored = pushes.last().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(stored).unwrap(),
        json!({"push": "new_message", "match_id": id})
    );
    // The sender is never pushed about her own messages.
    assert!(chat_pushes(&app, &mei).await.is_empty());

    // Nine minutes later: still none; after ten: the next one.
    app.clock().advance(9 * 60);
    ok_json(post(&app, &mei, id, &client_id(5), "hello again").await).await;
    assert_eq!(chat_pushes(&app, &kai).await.len(), baseline + 1);
    app.clock().advance(60);
    ok_json(post(&app, &mei, id, &client_id(6), "and again").await).await;
    assert_eq!(chat_pushes(&app, &kai).await.len(), baseline + 2);
    // A stream that died without closing (its process crashed) stops counting once expired.
    app.db
        .execute_unprepared(&format!(
            "INSERT INTO chat_presence (stream_id, member_id, expires_at) VALUES ('dead', {}, {})",
            kai.id,
            app.clock().now_secs() + 5
        ))
        .await
        .unwrap();
    app.clock().advance(10 * 60);
    ok_json(post(&app, &mei, id, &client_id(7), "now?").await).await;
    assert_eq!(chat_pushes(&app, &kai).await.len(), baseline + 3);
    // And it is delivered through the outbox to LINE.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let delivered = app.pushes().await;
        let to_kai: Vec<String> = delivered
            .iter()
            .filter(|p| p["to"] == kai.user.line_id.as_str() && p.to_string().contains("Nick0"))
            .map(|p| p["messages"].to_string())
            .collect();
        if to_kai.len() == 3 {
            // Rendered in his language when sent: who wrote and a link to the chat, never what.
            for sent in &to_kai {
                assert!(sent.contains("Nick0 さんから新しいメッセージ"), "{sent}");
                assert!(
                    sent.contains(&format!("/chat?match={id}&via=message")),
                    "{sent}"
                );
                for text in [
                    "are you there?",
                    "hello?",
                    "hello again",
                    "and again",
                    "now?",
                ] {
                    assert!(
                        !sent.contains(text),
                        "the push never carries the message: {sent}"
                    );
                }
            }
            break;
        }
        assert!(Instant::now() < deadline, "{delivered:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn set_pushes(app: &TestApp, m: &Member, body: Value) -> Response {
    send(
        app,
        Method::PUT,
        "/api/user/notifications",
        &m.user.token,
        Some(body),
    )
    .await
}

/// The pushes to a member that are not about a chat message (here: the match push).
async fn other_pushes(app: &TestApp, to: &Member) -> usize {
    let rows = app
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!(
                "SELECT kind FROM push_outbox WHERE line_user_id = '{}'",
                to.user.line_id
            ),
        ))
        .await
        .unwrap();
    rows.iter()
        .map(|r| r.try_get::<Option<String>>("", "kind").unwrap())
        .filter(|kind| kind.as_deref() != Some("message"))
        .count()
}

/// Each push kind switched off on its own: Kai turns off match pushes, Mei
/// message pushes; the others still come.
async fn each_push_kind_can_be_switched_off_on_its_own(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let settings = ok_json(set_pushes(&app, &kai, json!({"matches": false})).await).await;
    assert_eq!(
        settings,
        json!({"introductions": true, "matches": false, "messages": true})
    );
    let settings = ok_json(set_pushes(&app, &mei, json!({"messages": false})).await).await;
    assert_eq!(
        settings,
        json!({"introductions": true, "matches": true, "messages": false})
    );
    assert_eq!(
        ok_json(
            app.get("/api/user/notifications", Some(&mei.user.token))
                .await
        )
        .await,
        settings
    );
    let before = (
        other_pushes(&app, &mei).await,
        other_pushes(&app, &kai).await,
    );
    introductions(&app, &mei).await;
    introductions(&app, &kai).await;
    ok_json(like(&app, &mei, kai.id).await).await;
    let liked = ok_json(like(&app, &kai, mei.id).await).await;
    let id = liked["matchId"].as_i64().unwrap();
    assert_eq!(other_pushes(&app, &mei).await, before.0 + 1, "Mei is told");
    assert_eq!(
        other_pushes(&app, &kai).await,
        before.1,
        "Kai switched it off"
    );

    // Messages while away: Kai is pushed, Mei is not.
    ok_json(post(&app, &mei, id, &client_id(1), "hi Kai").await).await;
    ok_json(post(&app, &kai, id, &client_id(2), "hi Mei").await).await;
    assert_eq!(chat_pushes(&app, &kai).await.len(), 1);
    assert!(chat_pushes(&app, &mei).await.is_empty());

    // Unknown or wrongly typed fields are refused and change nothing.
    for bad in [json!({"matches": "no"}), json!({"calls": false})] {
        assert_eq!(
            set_pushes(&app, &kai, bad.clone()).await.status(),
            400,
            "{bad}"
        );
    }
    assert_eq!(
        ok_json(
            app.get("/api/user/notifications", Some(&kai.user.token))
                .await
        )
        .await,
        json!({"introductions": true, "matches": false, "messages": true})
    );
}

async fn a_reviewer_sees_the_reported_pairs_conversation(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let (lin, _) = approved(&app, 2, true).await;
    introductions(&app, &lin).await;
    for n in 0..55 {
        let who = if n % 2 == 0 { &kai } else { &mei };
        // 28 and 27 messages: each within the 30 a minute.
        ok_json(post(&app, who, id, &client_id(n), &format!("line {n}")).await).await;
    }
    let r = send(
        &app,
        Method::POST,
        "/api/reports",
        &mei.user.token,
        Some(json!({"memberId": kai.id, "reasons": ["HARASSMENT"], "text": "rude"})),
    )
    .await;
    ok_json(r).await;
    // Lin reports Kai too: they never matched, so no conversation.
    let r = send(
        &app,
        Method::POST,
        "/api/reports",
        &lin.user.token,
        Some(json!({"memberId": kai.id, "reasons": ["SPAM"]})),
    )
    .await;
    ok_json(r).await;
    let reviewer = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": reviewer.line_id}))
        .await;
    let queue = ok_json(app.get("/api/review/reports", Some(&reviewer.token)).await).await;
    let items = queue["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    let conversation = items[0]["conversation"].as_array().unwrap();
    assert_eq!(conversation.len(), 50, "the last 50");
    assert_eq!(conversation[0]["text"], "line 5");
    // Odd lines are Mei's (the reporter), even ones Kai's.
    assert_eq!(conversation[0]["from"], "reporter");
    assert_eq!(conversation[1]["from"], "reported");
    assert_eq!(conversation[49]["text"], "line 54");
    assert!(conversation[0]["sentAt"].as_i64().unwrap() > 0);
    assert_eq!(items[1]["conversation"], json!([]));
    // Members never reach it.
    for m in [&mei, &kai, &lin] {
        assert_error(
            app.get("/api/review/reports", Some(&m.user.token)).await,
            403,
            "E004",
        )
        .await;
    }
}

/// A stream that reconnects with the last event id it took (as EventSource does) gets every event
/// it missed, messages, a read mark and the end of the match, in order and none twice, then goes
/// on live; one that names events no longer kept, or never had, is told to reload.
async fn a_reconnecting_stream_gets_what_it_missed_in_order_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let mut events = Events::open(&app, &kai).await;
    ok_json(post(&app, &mei, id, &client_id(1), "one").await).await;
    assert_eq!(events.expect("message").await["message"]["text"], "one");
    let seen: i64 = events.last_id.clone().unwrap().parse().unwrap();
    drop(events);

    // While Kai's page is away.
    ok_json(post(&app, &mei, id, &client_id(2), "two").await).await;
    ok_json(post(&app, &mei, id, &client_id(3), "three").await).await;
    let mine = ok_json(post(&app, &kai, id, &client_id(4), "mine").await).await;
    let mine_id = mine["messageId"].as_i64().unwrap();
    assert_eq!(read(&app, &mei, id, mine_id).await.status(), 204);

    let mut back = Events::open_after(&app, &kai, Some(&seen.to_string())).await;
    let mut ids = Vec::new();
    for text in ["two", "three", "mine"] {
        let got = back.expect("message").await;
        assert_eq!(got["message"]["text"], text);
        assert_eq!(got["message"]["mine"], text == "mine");
        ids.push(back.last_id.clone().unwrap().parse::<i64>().unwrap());
    }
    assert_eq!(
        back.expect("read").await,
        json!({"matchId": id, "upTo": mine_id})
    );
    ids.push(back.last_id.clone().unwrap().parse::<i64>().unwrap());
    assert_eq!(ids, (seen + 1..=seen + 4).collect::<Vec<_>>());
    // Then live, numbered on: nothing twice.
    ok_json(post(&app, &mei, id, &client_id(5), "four").await).await;
    assert_eq!(back.expect_next("message").await["message"]["text"], "four");
    assert_eq!(back.last_id.clone().unwrap(), (seen + 5).to_string());

    // Away again while the match ends.
    let seen = back.last_id.clone().unwrap();
    drop(back);
    let r = send(
        &app,
        Method::DELETE,
        &format!("/api/matches/{id}"),
        &mei.user.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 204);
    let mut again = Events::open_after(&app, &kai, Some(&seen)).await;
    assert_eq!(again.expect("ended").await, json!({"matchId": id}));
    drop(again);

    // Events past their replay time are gone: a client that missed some reloads.
    app.db
        .execute_unprepared("DELETE FROM chat_events")
        .await
        .unwrap();
    let mut late = Events::open_after(&app, &kai, Some(&seen)).await;
    late.expect("reset").await;
    // A number the member never had is no better.
    let mut odd = Events::open_after(&app, &kai, Some("999999")).await;
    odd.expect("reset").await;
}

/// A message that a dying process stored (with its events) but never published reaches the open
/// streams when its sender retries: the retry answers the stored message and publishes it again,
/// and a stream takes each event once.
async fn a_retry_of_a_message_stored_but_never_published_reaches_the_open_streams(
    backend: Backend,
) {
    use kizuna_server::storage::{
        self,
        chat_events::{self, Kind, NewEvent},
    };
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let mut kai_events = Events::open(&app, &kai).await;
    let now = app.state.now();
    let text = "stored, never told";
    // What the process committed before it died, written here the way it writes it.
    let txn = storage::begin_write(&app.db).await.unwrap();
    let (row, created) =
        storage::chat::insert_message(&txn, id, mei.id, &client_id(1), text, 0, now)
            .await
            .unwrap();
    assert!(created);
    let event = |member| NewEvent {
        member,
        kind: Kind::Message,
        match_id: id,
        ref_id: row.id,
    };
    chat_events::record(
        &txn,
        &[event(mei.id.min(kai.id)), event(mei.id.max(kai.id))],
        now,
    )
    .await
    .unwrap();
    txn.commit().await.unwrap();

    // Nobody told the stream: the retry's publication is what brings the message (one the
    // stream had taken already would not come again).
    let r = post(&app, &mei, id, &client_id(1), text).await;
    assert_eq!(r.status(), 200);
    let got = kai_events.expect("message").await;
    assert_eq!(got["message"]["messageId"], row.id);
    assert_eq!(got["message"]["text"], text);
    // Another retry answers the same and shows nothing twice.
    assert_eq!(
        post(&app, &mei, id, &client_id(1), text).await.status(),
        200
    );
    ok_json(post(&app, &kai, id, &client_id(2), "fence").await).await;
    assert_eq!(
        kai_events.expect_next("message").await["message"]["text"],
        "fence"
    );
}

on_both_backends!(
    only_the_pair_of_a_live_match_reads_and_writes_its_chat,
    a_retried_or_racing_message_is_stored_once,
    text_and_client_ids_are_checked_at_their_limits,
    history_pages_backwards_every_message_exactly_once,
    the_read_marker_only_moves_forward,
    a_member_sends_at_most_thirty_messages_a_minute,
    a_member_holds_at_most_five_event_streams_and_a_closed_one_frees_its_slot,
    unmatch_block_report_and_suspension_end_the_chat_for_both,
    the_events_stream_brings_messages_and_reads_live,
    a_message_push_only_without_an_open_page_and_once_in_ten_minutes,
    a_reviewer_sees_the_reported_pairs_conversation,
    each_push_kind_can_be_switched_off_on_its_own,
    a_reconnecting_stream_gets_what_it_missed_in_order_once,
    a_retry_of_a_message_stored_but_never_published_reaches_the_open_streams,
);
