//! Several server processes, as on several machines behind a load balancer: two processes on one
//! PostgreSQL database, each with a data dir of its own. Each test is one row of the table of
//! "what is shared" (docs/design.md, "Several processes"): rate limits and the stream cap, the
//! match pool, chat presence after a crash, and a second process on one SQLite file.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use kizuna_server::matchmaking::Pool;
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::json;

use crate::{
    chat::{Events, client_id, matched_pair, post},
    helpers::{Api, Backend, TestApp, assert_error, scratch_dir, spawn_app, spawn_app_with},
    matchmaking::{Member, approved, ok_json, register, send},
    process::{Server, command, free_port},
    review::make_reviewer,
};

/// A second process on the first one's database, with a data dir of its own.
async fn second_process(first: &TestApp) -> TestApp {
    let url = first.database_url.clone();
    spawn_app_with(Backend::Postgres, |s| s.database_url = Some(url)).await
}

/// Two processes hand out one allowance per member between them: 30 messages a minute in all,
/// not 30 on each; a refusal on either says how long to wait. Client log lines likewise.
#[tokio::test]
async fn a_rate_limit_is_one_allowance_across_processes_postgres() {
    let a = spawn_app(Backend::Postgres).await;
    let b = second_process(&a).await;
    assert!(a.state.limits.is_shared() && b.state.limits.is_shared());
    let (mei, kai, id) = matched_pair(&a, 0).await;
    // 30 at once, then one more every two seconds: however slow the machine, no more than that
    // in all, whichever process takes them.
    let started = Instant::now();
    let mut sent = 0;
    let refused = loop {
        let through = if sent % 2 == 0 { &a } else { &b };
        let r = post(through, &mei, id, &client_id(sent), "hi").await;
        if r.status() != 201 {
            break r;
        }
        sent += 1;
        assert!(sent <= 60, "never refused");
    };
    let refills = (started.elapsed().as_secs_f64() / 2.0).floor() as usize;
    let limit = kizuna_core::rules::CHAT_MESSAGES_PER_MINUTE as usize;
    assert!(
        (limit..=limit + refills).contains(&sent),
        "{sent} in {:?}",
        started.elapsed()
    );
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_error(refused, 429, "E007").await;
    // The other member's allowance is their own, on both processes.
    ok_json(post(&b, &kai, id, &client_id(0), "hi back").await).await;

    // Log lines: 30 a minute per user, whichever process writes them.
    let started = Instant::now();
    let mut written = 0;
    for n in 0..40 {
        let through = if n % 2 == 0 { &a } else { &b };
        let r = through
            .api
            .client
            .request(Method::POST, through.api.url("/api/logger"))
            .bearer_auth(&mei.user.token)
            .json(&json!({"message": "line", "level": "info"}))
            .send()
            .await
            .unwrap();
        match r.status().as_u16() {
            204 => written += 1,
            429 => {}
            other => panic!("logger answered {other}"),
        }
    }
    let refills = (started.elapsed().as_secs_f64() / 2.0).floor() as usize;
    assert!((30..=30 + refills).contains(&written), "{written}");
}

/// SQLite serves one process: a second `kizuna-server serve` on the same file stops at start
/// and says why (the first goes on serving); once the first has stopped, another starts.
#[tokio::test]
async fn a_second_process_on_one_sqlite_file_refuses_to_start() {
    let data_dir = scratch_dir();
    let mut first = Server::start(&data_dir, None, "warn").await;
    let second = command(&data_dir, None, "warn")
        .env("KIZUNA_BIND", format!("127.0.0.1:{}", free_port()))
        .output()
        .unwrap();
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        said.contains("another kizuna-server process is serving the SQLite database")
            && said.contains("PostgreSQL"),
        "{said}"
    );
    let api = Api::new(first.base.clone());
    assert_eq!(api.get("/healthz", None).await.status(), 200);
    first.terminate();
    assert!(first.wait(Duration::from_secs(30)).await);
    let _third = Server::start(&data_dir, None, "warn").await;
    std::fs::remove_dir_all(&data_dir).ok();
}

/// Waits until `holds` is true of `app`'s match pool; answers how long that took.
async fn pool_until(app: &TestApp, what: &str, holds: impl Fn(&Pool) -> bool) -> Duration {
    let started = Instant::now();
    loop {
        let pool = app.state.pool.get(&app.state.db).await.unwrap();
        if holds(&pool) {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{what}: not in the other process's pool within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A member approved, suspended, paused, back or deleted through one process is in (or out of)
/// the other's match pool within moments, applied member by member: neither process loads its
/// whole pool again (their time to live is a day here, so only the announcements can do it).
#[tokio::test]
async fn the_match_pool_follows_every_change_on_every_process_postgres() {
    let day =
        |s: &mut kizuna_server::configuration::Settings| s.pool_ttl = Duration::from_secs(86_400);
    let a = spawn_app_with(Backend::Postgres, day).await;
    let url = a.database_url.clone();
    let b = spawn_app_with(Backend::Postgres, move |s| {
        day(s);
        s.database_url = Some(url);
    })
    .await;
    let (kai, _) = approved(&a, 1, false).await;
    let (mei, _) = register(&a, 0, true).await;
    // Both pools are loaded once: Kai is in, Mei (PENDING) is not.
    for app in [&a, &b] {
        let pool = app.state.pool.get(&app.state.db).await.unwrap();
        assert!(pool.get(kai.id as u64).is_some() && pool.get(mei.id as u64).is_none());
    }
    let loads = (a.state.pool.loads(), b.state.pool.loads());

    let reviewer = make_reviewer(&a).await;
    let decision = format!("/api/review/profiles/{}/decision", mei.id);
    let decide =
        |body: serde_json::Value| send(&a, Method::POST, &decision, &reviewer.token, Some(body));
    ok_json(decide(json!({"action": "APPROVE", "employer": "tsmc", "version": 1})).await).await;
    let took = pool_until(&b, "approved", |p| p.get(mei.id as u64).is_some()).await;
    eprintln!("approved through A, in B's pool after {took:?}");
    ok_json(decide(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": 2})).await).await;
    pool_until(&b, "suspended", |p| p.get(mei.id as u64).is_none()).await;

    // Kai pauses through B: A's pool lets him go; back, he returns.
    let pause = |paused: bool| {
        send(
            &b,
            Method::PUT,
            "/api/user/pause",
            &kai.user.token,
            Some(json!({"paused": paused})),
        )
    };
    ok_json(pause(true).await).await;
    pool_until(&a, "paused", |p| p.get(kai.id as u64).is_none()).await;
    ok_json(pause(false).await).await;
    pool_until(&a, "back", |p| p.get(kai.id as u64).is_some()).await;
    // Kai deletes his account through B.
    let r = send(
        &b,
        Method::DELETE,
        "/api/user/account",
        &kai.user.token,
        Some(json!({"lineAccessToken": null})),
    )
    .await;
    assert_eq!(r.status(), 204);
    pool_until(&a, "deleted", |p| p.get(kai.id as u64).is_none()).await;

    assert_eq!(
        (a.state.pool.loads(), b.state.pool.loads()),
        loads,
        "a change reloaded a whole pool"
    );
}

/// At most `CHAT_STREAMS_PER_MEMBER` streams per member across the processes, not on each; a
/// closed stream frees its slot on any of them.
#[tokio::test]
async fn the_stream_cap_holds_across_processes_postgres() {
    let a = spawn_app(Backend::Postgres).await;
    let b = second_process(&a).await;
    let (mei, kai, id) = matched_pair(&a, 0).await;
    let cap = kizuna_core::rules::CHAT_STREAMS_PER_MEMBER as usize;
    let mut open = Vec::new();
    for n in 0..cap {
        open.push(Events::open(if n % 2 == 0 { &a } else { &b }, &mei).await);
    }
    for app in [&a, &b] {
        assert_error(
            app.get("/api/chat/events", Some(&mei.user.token)).await,
            429,
            "E007",
        )
        .await;
    }
    let _kai = Events::open(&b, &kai).await;
    // One closes on A: a stream opens on B (once A sees the connection go).
    drop(open.remove(0));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = b.get("/api/chat/events", Some(&mei.user.token)).await;
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
    ok_json(post(&b, &kai, id, &client_id(1), "all of you?").await).await;
    for events in &mut open {
        events.expect("message").await;
    }
}

/// A stream that died with its process (kill -9) no longer counts as the member's presence: a
/// message sent a second later is pushed to them (before, the stream's row kept them "present",
/// pushless, for three keep-alive intervals, 45 s).
#[tokio::test]
async fn a_stream_that_died_with_its_process_is_not_presence_postgres() {
    let a = spawn_app(Backend::Postgres).await;
    let (mei, kai, id) = matched_pair(&a, 0).await;
    // The other process is the real binary on the same database, verifying ID tokens with A's
    // mock platform; SIGKILL leaves its rows exactly as they were.
    let dir = scratch_dir();
    let line = a.api.url("/__mock/line");
    let mut b = Server::start_with(
        &dir,
        Some(&a.database_url),
        "warn",
        &[("KIZUNA_LINE_API_BASE", &line)],
    )
    .await;
    let b_api = Api::new(b.base.clone());
    let r = b_api.get("/api/chat/events", Some(&kai.user.token)).await;
    assert_eq!(r.status(), 200);
    let mut stream = r.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("connected"));
    // While B lives, Kai is present: no push.
    ok_json(post(&a, &mei, id, &client_id(1), "are you there?").await).await;
    assert_eq!(message_pushes(&a, &kai).await, 0);

    b.child.kill().unwrap();
    b.child.wait().unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        count(&a, "SELECT COUNT(*) AS n FROM chat_presence").await,
        1,
        "the killed process's row is still there"
    );
    ok_json(post(&a, &mei, id, &client_id(2), "hello?").await).await;
    assert_eq!(message_pushes(&a, &kai).await, 1);
    drop(stream);
    std::fs::remove_dir_all(&dir).ok();
}

async fn message_pushes(app: &TestApp, to: &Member) -> i64 {
    count(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM push_outbox WHERE line_user_id = '{}' \
             AND messages LIKE '%/chat?match=%'",
            to.user.line_id
        ),
    )
    .await
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
