//! LINE pushes through the outbox: retries, the retry key, unfollowed members, pushes about a
//! match that ended while they waited, refusal and expiry, the wake-up, several servers on one
//! database, the member's language, and a server killed between the commit and the delivery.

use std::time::{Duration, Instant};

use kizuna_core::{
    line::LineUserId,
    push::{Push, alt_text},
};
use kizuna_server::{
    line::push::{self, Message},
    locale::Locale,
    storage::{self, entity::push_outbox::Model as Row, locale::locale_of_line_user},
};
use reqwest::Method;
use sea_orm::TransactionTrait;
use serde_json::{Value, json};

use crate::{
    chat::{client_id, match_of, matched, post},
    helpers::{
        Api, Backend, TestApp, line_user_id, number, scratch_database, scratch_dir, spawn_app,
        spawn_app_with,
    },
    matchmaking::{approved, ok_json, send as send_as},
    process::Server,
};

/// Enqueues a push stored by kind (commit, then wake the worker).
async fn enqueue_push(app: &TestApp, to: &LineUserId, what: &Push, about: Option<i64>) -> String {
    let txn = app.state.db.begin().await.unwrap();
    let key = push::enqueue_push(&txn, to, what, about).await.unwrap();
    txn.commit().await.unwrap();
    app.state.push.wake();
    key.to_string()
}

fn member() -> LineUserId {
    LineUserId::parse(&line_user_id()).unwrap()
}

/// Enqueues a one-text push the way a decision will (commit, then wake the worker).
async fn send(app: &TestApp, to: &LineUserId, text: &str) -> String {
    app.state
        .push
        .send(&app.state.db, to, &[Message::text(text)])
        .await
        .unwrap()
        .to_string()
}

async fn row(db: &sea_orm::DatabaseConnection, key: &str) -> Row {
    storage::push_outbox::by_retry_key(db, key)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("no outbox row {key}"))
}

/// Waits until the row has left `pending`; answers it.
async fn finished(db: &sea_orm::DatabaseConnection, key: &str, limit: Duration) -> Row {
    let started = Instant::now();
    loop {
        let row = row(db, key).await;
        if row.status != "pending" {
            return row;
        }
        assert!(
            started.elapsed() < limit,
            "push {key} still pending after {limit:?}: {row:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn recorded_for<'a>(pushes: &'a [Value], to: &LineUserId) -> Vec<&'a Value> {
    pushes.iter().filter(|p| p["to"] == to.as_str()).collect()
}

async fn a_failing_platform_is_retried_and_the_push_recorded_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let to = member();
    app.mock_post(
        "/__mock/line/push-failures",
        json!({"count": 3, "status": 500}),
    )
    .await;
    let key = send(&app, &to, "approved").await;
    let done = finished(&app.db, &key, Duration::from_secs(10)).await;
    assert_eq!(done.status, "delivered");
    assert_eq!(done.attempts, 4, "three 500s, then accepted");
    let pushes = app.pushes().await;
    let mine = recorded_for(&pushes, &to);
    assert_eq!(mine.len(), 1, "{pushes:?}");
    assert_eq!(mine[0]["retryKey"], key.as_str());
    assert_eq!(
        mine[0]["messages"],
        json!([{"type": "text", "text": "approved"}])
    );

    // LINE's rate limit (429) is retried the same way.
    app.mock_post(
        "/__mock/line/push-failures",
        json!({"count": 2, "status": 429}),
    )
    .await;
    let key = send(&app, &to, "again").await;
    let done = finished(&app.db, &key, Duration::from_secs(10)).await;
    assert_eq!((done.status.as_str(), done.attempts), ("delivered", 3));
    assert_eq!(recorded_for(&app.pushes().await, &to).len(), 2);
}

async fn a_replayed_retry_key_is_one_push(backend: Backend) {
    let app = spawn_app(backend).await;
    let to = member();

    // The mock platform itself, like LINE: a key is accepted once.
    let key = uuid::Uuid::new_v4().to_string();
    let post = |key: &str| {
        app.client
            .post(app.url("/__mock/line/v2/bot/message/push"))
            .bearer_auth(kizuna_server::configuration::MOCK_CHANNEL_ACCESS_TOKEN)
            .header("X-Line-Retry-Key", key)
            .json(&json!({"to": to.as_str(), "messages": [{"type": "text", "text": "hi"}]}))
            .send()
    };
    assert_eq!(post(&key).await.unwrap().status(), 200);
    let replay = post(&key).await.unwrap();
    assert_eq!(replay.status(), 409);
    assert_eq!(replay.headers()["x-line-accepted-request-id"], key.as_str());
    assert_eq!(post("not-a-uuid").await.unwrap().status(), 400);
    assert_eq!(recorded_for(&app.pushes().await, &to).len(), 1);

    // End to end: the platform takes the push but its answer comes after the worker's time-out
    // (2 s in tests); the worker sends again with the same key, gets 409, and counts it
    // delivered.
    let other = member();
    app.mock_post(
        "/__mock/line/push-delay",
        json!({"count": 1, "delayMs": 3500}),
    )
    .await;
    let key = send(&app, &other, "approved").await;
    let done = finished(&app.db, &key, Duration::from_secs(15)).await;
    assert_eq!(done.status, "delivered");
    assert_eq!(done.attempts, 2, "a time-out, then 409: {done:?}");
    assert_eq!(done.last_error.as_deref(), Some("timed out"));
    assert_eq!(recorded_for(&app.pushes().await, &other).len(), 1);
}

async fn an_unfollowed_member_is_not_pushed(backend: Backend) {
    let app = spawn_app(backend).await;
    let to = member();
    app.mock_user(to.as_str(), true).await;
    let sent = app
        .mock_post(
            "/__mock/line/webhook-events",
            json!({"type": "unfollow", "userId": to.as_str()}),
        )
        .await;
    assert_eq!(sent["status"], 200, "{sent}");
    let key = send(&app, &to, "approved").await;
    let done = finished(&app.db, &key, Duration::from_secs(10)).await;
    assert_eq!(done.status, "unfollowed", "not counted as delivered");
    assert_eq!(done.attempts, 1);
    assert!(recorded_for(&app.pushes().await, &to).is_empty());

    // Following again: the next push goes out.
    app.mock_post(
        "/__mock/line/webhook-events",
        json!({"type": "follow", "userId": to.as_str()}),
    )
    .await;
    let key = send(&app, &to, "matched").await;
    assert_eq!(
        finished(&app.db, &key, Duration::from_secs(10))
            .await
            .status,
        "delivered"
    );
    assert_eq!(recorded_for(&app.pushes().await, &to).len(), 1);
}

async fn refused_pushes_fail_and_failing_ones_expire(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.push.give_up_after = Duration::from_millis(1500);
    })
    .await;
    let to = member();
    // A 4xx other than 409/429: LINE will never take it.
    app.mock_post(
        "/__mock/line/push-failures",
        json!({"count": 1, "status": 400}),
    )
    .await;
    let key = send(&app, &to, "approved").await;
    let done = finished(&app.db, &key, Duration::from_secs(10)).await;
    assert_eq!((done.status.as_str(), done.attempts), ("failed", 1));
    assert!(
        done.last_error.as_deref().unwrap().starts_with("HTTP 400"),
        "{done:?}"
    );

    // A platform that keeps failing: given up when its time is up, never delivered.
    app.mock_post(
        "/__mock/line/push-failures",
        json!({"count": 100000, "status": 503}),
    )
    .await;
    let key = send(&app, &to, "approved").await;
    let done = finished(&app.db, &key, Duration::from_secs(10)).await;
    assert_eq!(done.status, "expired");
    // It ends either on LINE's last 503 (the next try would fall after its time) or, when the
    // worker reaches the due retry only after its time (a loaded machine), unattempted; either way
    // it was tried and refused first (a refused try is what schedules a retry), never delivered.
    let last = done.last_error.as_deref().unwrap();
    if last == "not attempted in time" {
        assert!(
            done.attempts > 1,
            "a refused try, then the late claim: {done:?}"
        );
    } else {
        assert!(last.starts_with("HTTP 503"), "{done:?}");
        assert!(done.attempts > 1, "{done:?}");
    }
    assert!(recorded_for(&app.pushes().await, &to).is_empty());
}

async fn a_commit_wakes_the_worker_and_polling_finds_the_rest(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.push.poll_every = Duration::from_secs(3600);
    })
    .await;
    // The worker passed its first look at the (empty) outbox and waits for its hour.
    assert!(app.state.push.idle().await > Duration::from_secs(60));
    let to = member();
    let key = send(&app, &to, "woken").await;
    assert_eq!(
        finished(&app.db, &key, Duration::from_secs(5)).await.status,
        "delivered"
    );

    // Written without a wake-up (as another process would): found only when the worker looks,
    // which it does not do for an hour once it waits.
    assert!(app.state.push.idle().await > Duration::from_secs(60));
    let txn = app.db.begin().await.unwrap();
    let quiet = push::enqueue(&txn, &to, &[Message::text("quiet")])
        .await
        .unwrap()
        .to_string();
    txn.commit().await.unwrap();
    assert_eq!(row(&app.db, &quiet).await.status, "pending");
    app.state.push.wake();
    assert_eq!(
        finished(&app.db, &quiet, Duration::from_secs(5))
            .await
            .status,
        "delivered"
    );
    assert_eq!(recorded_for(&app.pushes().await, &to).len(), 2);
}

/// Several processes share a PostgreSQL database (a second one on a SQLite file refuses to start:
/// `several::a_second_process_on_one_sqlite_file_refuses_to_start`).
#[tokio::test]
async fn two_servers_on_one_database_send_each_push_once_postgres() {
    let backend = Backend::Postgres;
    let first = spawn_app(backend).await;
    let url = first.database_url.clone();
    let second = spawn_app_with(backend, |s| s.database_url = Some(url)).await;
    let to = member();
    // Written in one transaction, then left to both workers' polling.
    let txn = first.db.begin().await.unwrap();
    let mut keys = Vec::new();
    for i in 0..40 {
        keys.push(
            push::enqueue(&txn, &to, &[Message::text(format!("push {i}"))])
                .await
                .unwrap()
                .to_string(),
        );
    }
    txn.commit().await.unwrap();
    for key in &keys {
        let done = finished(&first.db, key, Duration::from_secs(20)).await;
        assert_eq!(
            (done.status.as_str(), done.attempts),
            ("delivered", 1),
            "claimed once: {done:?}"
        );
    }
    // Each server pushes to its own mock platform: together, every key exactly once.
    let mut recorded: Vec<String> = [first.pushes().await, second.pushes().await]
        .concat()
        .iter()
        .map(|p| p["retryKey"].as_str().unwrap().to_string())
        .collect();
    recorded.sort();
    let mut expected = keys.clone();
    expected.sort();
    assert_eq!(recorded, expected);
}

async fn pushes_speak_the_members_language(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user_in("ja").await;
    let to = LineUserId::parse(&user.line_id).unwrap();
    let locale = locale_of_line_user(&app.db, to.as_str()).await.unwrap();
    assert_eq!(locale, Locale::Ja);
    // A later login without the header keeps it; one in another language changes it.
    let r = app.login_raw(Some(&user.id_token), &user.line_id).await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        locale_of_line_user(&app.db, to.as_str()).await.unwrap(),
        Locale::Ja
    );

    let key = enqueue_push(&app, &to, &Push::Approved, None).await;
    finished(&app.db, &key, Duration::from_secs(10)).await;
    let pushes = app.pushes().await;
    let mine = recorded_for(&pushes, &to);
    assert_eq!(
        mine[0]["messages"][0]["altText"],
        alt_text(&Push::Approved, Locale::Ja, None).as_str()
    );

    let fresh = app.new_user_in("zh-Hant-TW, en;q=0.5").await;
    assert_eq!(
        locale_of_line_user(&app.db, &fresh.line_id).await.unwrap(),
        Locale::ZhTw
    );
    // Someone who never logged in (or sent no language) reads English.
    assert_eq!(
        locale_of_line_user(&app.db, &line_user_id()).await.unwrap(),
        Locale::En
    );
    let plain = app.new_user().await;
    assert_eq!(
        locale_of_line_user(&app.db, &plain.line_id).await.unwrap(),
        Locale::En
    );
}

/// The real binary, SIGKILLed between commits and deliveries; its pushes go to a mock platform
/// in a second process that outlives it. A push the platform took but whose answer never came
/// back, and a push committed but never attempted: after the restart each is on the platform
/// exactly once.
async fn a_killed_server_neither_loses_nor_doubles_a_push(backend: Backend) {
    let platform_dir = scratch_dir();
    let platform = Server::start(&platform_dir, None, "warn").await;
    let platform_api = Api::new(platform.base.clone());
    let line_base = format!("{}/__mock/line", platform.base);

    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let url = url.unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let env = [("KIZUNA_LINE_API_BASE", line_base.as_str())];
    let mut server = Server::start_with(&data_dir, Some(&url), "info", &env).await;
    let db = storage::connect(&url, None).await.unwrap();
    let to = member();

    // The platform takes the first push and holds its answer for a long while.
    platform_api
        .mock_post(
            "/__mock/line/push-delay",
            json!({"count": 1, "delayMs": 60000}),
        )
        .await;
    let enqueue = |text: &'static str| {
        let db = db.clone();
        let to = to.clone();
        async move {
            let txn = db.begin().await.unwrap();
            let key = push::enqueue(&txn, &to, &[Message::text(text)])
                .await
                .unwrap();
            txn.commit().await.unwrap();
            key.to_string()
        }
    };
    let taken = enqueue("taken, answer lost").await;
    let started = Instant::now();
    while recorded_for(&platform_api.pushes().await, &to).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{}",
            server.log_text()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The server's worker waits on that answer; this one is committed and never attempted.
    let committed = enqueue("committed, never sent").await;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert_eq!(row(&db, &taken).await.status, "pending");
    let untouched = row(&db, &committed).await;
    assert_eq!(
        (untouched.status.as_str(), untouched.attempts),
        ("pending", 0)
    );

    let restarted = Server::start_with(&data_dir, Some(&url), "info", &env).await;
    // The lease of the killed worker (20 s) has to run out before the first is sent again.
    let limit = Duration::from_secs(45);
    let first = finished(&db, &taken, limit).await;
    let second = finished(&db, &committed, limit).await;
    assert_eq!(
        (first.status.as_str(), first.attempts),
        ("delivered", 2),
        "re-sent once, answered 409: {first:?}\n{}",
        restarted.log_text()
    );
    assert_eq!((second.status.as_str(), second.attempts), ("delivered", 1));
    let pushes = platform_api.pushes().await;
    let mut keys: Vec<&str> = recorded_for(&pushes, &to)
        .iter()
        .map(|p| p["retryKey"].as_str().unwrap())
        .collect();
    keys.sort();
    let mut expected = vec![taken.as_str(), committed.as_str()];
    expected.sort();
    assert_eq!(keys, expected, "each exactly once");
    db.close().await.ok();
    drop(restarted);
    drop(platform);
    std::fs::remove_dir_all(&data_dir).ok();
    std::fs::remove_dir_all(&platform_dir).ok();
}

/// The outbox rows about `match_id` (stored by kind: its subject names the match).
async fn rows_about_match(app: &TestApp, match_id: i64) -> Vec<Row> {
    use sea_orm::EntityTrait;
    storage::entity::push_outbox::Entity::find()
        .all(&app.db)
        .await
        .unwrap()
        .into_iter()
        .filter(|row| {
            row.subject.as_deref().is_some_and(|subject| {
                serde_json::from_str::<Value>(subject).unwrap()["match_id"] == match_id
            })
        })
        .collect()
}

/// Waits until no row of the outbox is pending.
async fn outbox_settled(app: &TestApp, limit: Duration) {
    let started = Instant::now();
    while number(
        app,
        "SELECT COUNT(*) AS n FROM push_outbox WHERE status = 'pending'",
    )
    .await
        > 0
    {
        assert!(
            started.elapsed() < limit,
            "pushes still pending after {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_push_about_a_match_that_ended_while_it_waited_is_withdrawn(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (ren, _) = approved(&app, 2, false).await;
    outbox_settled(&app, Duration::from_secs(10)).await;
    // LINE is down: every push waits in the outbox for its next attempt.
    app.mock_post(
        "/__mock/line/push-failures",
        json!({"count": 1_000_000, "status": 503}),
    )
    .await;
    matched(&app, &mei, &kai).await;
    matched(&app, &mei, &ren).await;
    let ended = match_of(&app, &mei, &kai).await;
    let live = match_of(&app, &mei, &ren).await;
    // Kai has no page open: Mei's message is pushed to him.
    ok_json(post(&app, &mei, ended, &client_id(1), "hello Kai").await).await;
    ok_json(post(&app, &mei, live, &client_id(2), "hello Ren").await).await;
    let waiting = rows_about_match(&app, ended).await;
    let kinds: Vec<&str> = waiting.iter().filter_map(|r| r.kind.as_deref()).collect();
    assert!(
        kinds.contains(&"match") && kinds.contains(&"message"),
        "the match's and the message's pushes wait: {waiting:?}"
    );
    assert!(waiting.iter().all(|r| r.status == "pending"), "{waiting:?}");
    // Tried and refused at least once while the match lived.
    let started = Instant::now();
    while !rows_about_match(&app, ended)
        .await
        .iter()
        .all(|r| r.attempts >= 1)
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never attempted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Kai ends the match; then LINE takes pushes again.
    let unmatched = send_as(
        &app,
        Method::DELETE,
        &format!("/api/matches/{ended}"),
        &kai.user.token,
        None,
    )
    .await;
    assert_eq!(unmatched.status(), 204);
    // A worker that found the match alive just before the end may already be asking LINE; that
    // push cannot be stopped (push.rs, deliver). LINE stays down until each waiting row's next
    // attempt has seen the end, so the one in flight fails and is withdrawn on its retry.
    let started = Instant::now();
    while rows_about_match(&app, ended)
        .await
        .iter()
        .any(|r| r.status == "pending")
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never withdrawn: {:?}",
            rows_about_match(&app, ended).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.mock_post(
        "/__mock/line/push-failures",
        json!({"count": 0, "status": 503}),
    )
    .await;
    outbox_settled(&app, Duration::from_secs(10)).await;

    // What was about the ended match is withdrawn, sent to nobody.
    let withdrawn = rows_about_match(&app, ended).await;
    assert_eq!(withdrawn.len(), waiting.len(), "{withdrawn:?}");
    for row in &withdrawn {
        assert_eq!(row.status, "withdrawn", "{row:?}");
        assert_eq!(
            row.last_error.as_deref(),
            Some("the match ended"),
            "{row:?}"
        );
        assert!(row.finished_at.is_some(), "{row:?}");
    }
    let pushes = app.pushes().await;
    let link = format!("/chat?match={ended}&");
    assert!(
        !pushes.iter().any(|p| p.to_string().contains(&link)),
        "a push led to the ended match: {pushes:?}"
    );
    assert!(
        !pushes.iter().any(|p| p["to"] == kai.user.line_id.as_str()),
        "{pushes:?}"
    );
    // The live match's pushes went out once LINE came back: to Ren, its match and Mei's message.
    let delivered = rows_about_match(&app, live).await;
    assert!(!delivered.is_empty());
    assert!(
        delivered.iter().all(|r| r.status == "delivered"),
        "{delivered:?}"
    );
    let to_ren: Vec<String> = pushes
        .iter()
        .filter(|p| p["to"] == ren.user.line_id.as_str())
        .map(|p| p.to_string())
        .collect();
    assert_eq!(to_ren.len(), 2, "{to_ren:?}");
    assert!(
        to_ren
            .iter()
            .all(|p| p.contains(&format!("/chat?match={live}&"))),
        "{to_ren:?}"
    );
}

crate::on_both_backends!(
    a_push_about_a_match_that_ended_while_it_waited_is_withdrawn,
    a_failing_platform_is_retried_and_the_push_recorded_once,
    a_replayed_retry_key_is_one_push,
    an_unfollowed_member_is_not_pushed,
    refused_pushes_fail_and_failing_ones_expire,
    a_commit_wakes_the_worker_and_polling_finds_the_rest,
    pushes_speak_the_members_language,
    a_killed_server_neither_loses_nor_doubles_a_push,
);
