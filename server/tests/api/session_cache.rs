//! The session cache (`identity::session_cache`) answers a session proved before with no
//! statement (on SQLite for a second, on PostgreSQL for as long as each process hears its own
//! heartbeat, up to `SESSION_CACHE_HELD`), and never with what changed since: a member whose
//! session it holds sees on their very next call what a reviewer decided and what they changed
//! themselves (on the process that made the change at once, on another process within the
//! second), a role given or taken likewise, through the API or the CLI; a session ended by hand,
//! behind every server's back, is refused within the second (SQLite: the entry's second runs out;
//! PostgreSQL: the database's trigger announces it). And `GET /user/my-info` costs at most one
//! statement: the session's on a miss, none on a hit, and one for the review of a member with a
//! profile.

use std::time::Duration;

use kizuna_core::review::ReviewStatus;
use kizuna_server::{
    identity::{
        session::hash_token,
        session_cache::{SESSION_CACHE_HELD, SESSION_CACHE_TTL},
    },
    storage::queries,
    usecases::membership,
};
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::{
    colleagues::approve,
    helpers::{Backend, TestApp, assert_error, number, spawn_app, spawn_app_with},
    matchmaking::{ok_json, register, send},
    on_both_backends,
    review::make_reviewer,
};

async fn my_info(app: &TestApp, token: &str) -> Value {
    ok_json(app.get("/api/user/my-info", Some(token)).await).await
}

/// Asks `app` for my-info until `seen` holds, failing on an answer to a request sent more than
/// `SESSION_CACHE_TTL` after `since` (the change's answer) that still does not show it.
async fn seen_within_the_bound(
    app: &TestApp,
    token: &str,
    since: Instant,
    what: &str,
    seen: impl Fn(&Value) -> bool,
) {
    loop {
        let asked = Instant::now();
        let info = my_info(app, token).await;
        if seen(&info) {
            println!("{what}: seen {:?} after the change", asked - since);
            return;
        }
        assert!(
            asked < since + SESSION_CACHE_TTL,
            "{what}: not seen {:?} after the change: {info}",
            asked - since
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `b`'s cache holds the session of `token` now (proved by a call just made there).
async fn held(app: &TestApp, token: &str) {
    for _ in 0..5 {
        my_info(app, token).await;
        if app
            .state
            .session_ends
            .cache()
            .get(&hash_token(token))
            .is_some()
        {
            return;
        }
    }
    panic!("the session was never held in the cache");
}

/// Mei's session is held by both processes before each change, made through `a`: her next call
/// on `a` shows it, and on `b` within the second (at once when `a` is `b`).
async fn changes_reach_a_cached_session(a: &TestApp, b: &TestApp) {
    let reviewer = make_reviewer(a).await;
    let (mei, _) = register(a, 0, true).await;
    let token = mei.user.token.clone();

    // A reviewer's decision: PENDING to APPROVED.
    held(a, &token).await;
    held(b, &token).await;
    assert_eq!(my_info(b, &token).await["reviewStatus"], "PENDING");
    approve(a, &reviewer, &mei, "tsmc").await;
    let since = Instant::now();
    assert_eq!(my_info(a, &token).await["reviewStatus"], "APPROVED");
    seen_within_the_bound(b, &token, since, "the approval", |info| {
        info["reviewStatus"] == "APPROVED"
    })
    .await;

    // Her own edit of what takes effect at once (the profile's payload).
    let mut body = my_info(a, &token).await["profile"].clone();
    let radius = body["recommendDistanceKm"].as_i64().unwrap_or(30);
    body["recommendDistanceKm"] = json!(if radius == 80 { 50 } else { 80 });
    held(b, &token).await;
    ok_json(
        send(
            a,
            Method::PUT,
            "/api/user-profile/edit",
            &token,
            Some(body.clone()),
        )
        .await,
    )
    .await;
    let since = Instant::now();
    assert_eq!(
        my_info(a, &token).await["profile"]["recommendDistanceKm"],
        body["recommendDistanceKm"]
    );
    seen_within_the_bound(b, &token, since, "the edit", |info| {
        info["profile"]["recommendDistanceKm"] == body["recommendDistanceKm"]
    })
    .await;

    // Her avatar (her user row).
    held(b, &token).await;
    let r = send(
        a,
        Method::PUT,
        "/api/user-profile/avatar",
        &token,
        Some(json!({"avatar": mei.photo})),
    )
    .await;
    ok_json(r).await;
    let since = Instant::now();
    assert_eq!(my_info(a, &token).await["avatar"], mei.photo.as_str());
    seen_within_the_bound(b, &token, since, "the avatar", |info| {
        info["avatar"] == mei.photo.as_str()
    })
    .await;

    // A role given and taken.
    held(b, &token).await;
    a.mock_post("/__mock/reviewers", json!({"userId": mei.user.line_id}))
        .await;
    let since = Instant::now();
    assert_eq!(my_info(a, &token).await["roles"], json!(["REVIEWER"]));
    seen_within_the_bound(b, &token, since, "the role given", |info| {
        info["roles"] == json!(["REVIEWER"])
    })
    .await;
    held(b, &token).await;
    let r = a
        .client
        .delete(a.url("/__mock/reviewers"))
        .json(&json!({"userId": mei.user.line_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let since = Instant::now();
    assert_eq!(my_info(a, &token).await["roles"], json!([]));
    seen_within_the_bound(b, &token, since, "the role taken", |info| {
        info["roles"] == json!([])
    })
    .await;

    // A suspension ends her sessions: refused at once on `a`, within the second on `b`.
    held(b, &token).await;
    let version = number(
        a,
        &format!("SELECT version AS n FROM profiles WHERE id = {}", mei.id),
    )
    .await;
    let r = send(
        a,
        Method::POST,
        &format!("/api/review/profiles/{}/decision", mei.id),
        &reviewer.token,
        Some(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version})),
    )
    .await;
    ok_json(r).await;
    let since = Instant::now();
    assert_error(a.get("/api/user/my-info", Some(&token)).await, 401, "E001A").await;
    loop {
        let asked = Instant::now();
        let r = b.get("/api/user/my-info", Some(&token)).await;
        if r.status() == 401 {
            break;
        }
        assert!(
            asked < since + SESSION_CACHE_TTL,
            "the suspended session still answered {} on the other process {:?} after",
            r.status(),
            asked - since
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// On PostgreSQL a held session answers beyond the second while the process hears its own
/// heartbeats: read once, not once a second. What no server announces still reaches it within
/// the second, through the database's triggers: a role given and taken with the CLI (another
/// process, which no server hears), an avatar and a profile's status set by hand.
#[tokio::test]
async fn a_held_session_answers_beyond_the_second_and_hears_every_change_postgres() {
    let a = spawn_app_with(Backend::Postgres, |_| {}).await;
    let url = a.database_url.clone();
    let b = spawn_app_with(Backend::Postgres, move |s| s.database_url = Some(url)).await;
    let (mei, _) = register(&a, 0, true).await;
    let token = mei.user.token.clone();

    held(&b, &token).await;
    tokio::time::sleep(SESSION_CACHE_TTL + Duration::from_millis(500)).await;
    // Its relay keeps up (a loaded machine may delay a heartbeat past the second; the cache
    // then reads, which is not what this part is about).
    let cache = b.state.session_ends.cache();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cache.vouched_for() {
        assert!(Instant::now() < deadline, "b never heard its own heartbeat");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (auth, statements) = queries::counted(b.state.sessions.check(&token)).await;
    assert_eq!(auth.unwrap().user.line_user_id, mei.user.line_id);
    assert_eq!(
        statements, 0,
        "a session read 1.5 s ago answers from memory while heartbeats are heard"
    );
    assert!(SESSION_CACHE_HELD > SESSION_CACHE_TTL * 10);

    // A role given and taken by the CLI (on the database the servers share: `b.database_url` is
    // the scratch database b was made with, not the one it was told to use).
    let cli = crate::reviewers::Cli {
        data_dir: crate::helpers::scratch_dir(),
        url: Some(a.database_url.clone()),
    };
    held(&b, &token).await;
    cli.ok(&["add", mei.user.line_id.as_str()]);
    let since = Instant::now();
    seen_within_the_bound(&b, &token, since, "the role given by the CLI", |info| {
        info["roles"] == json!(["REVIEWER"])
    })
    .await;
    held(&b, &token).await;
    cli.ok(&["remove", mei.user.line_id.as_str()]);
    let since = Instant::now();
    seen_within_the_bound(&b, &token, since, "the role taken by the CLI", |info| {
        info["roles"] == json!([])
    })
    .await;

    // Her avatar and her profile's status, by hand.
    held(&b, &token).await;
    a.db.execute_unprepared(&format!(
        "UPDATE users SET avatar_file_id = '{}' WHERE line_user_id = '{}'",
        mei.photo, mei.user.line_id
    ))
    .await
    .unwrap();
    let since = Instant::now();
    seen_within_the_bound(&b, &token, since, "the avatar set by hand", |info| {
        info["avatar"] == mei.photo.as_str()
    })
    .await;
    held(&b, &token).await;
    a.db.execute_unprepared(&format!(
        "UPDATE profiles SET status = 'APPROVED' WHERE id = {}",
        mei.id
    ))
    .await
    .unwrap();
    let since = Instant::now();
    seen_within_the_bound(&b, &token, since, "the status set by hand", |info| {
        info["reviewStatus"] == "APPROVED"
    })
    .await;
}

/// A saturated process queues its requests for the pool's connections; its heartbeat does not
/// queue among them (it has a connection of its own), so while every pooled connection is taken
/// a member's held session still answers from memory beyond the second. Sent through the pool,
/// the heartbeat waited there, was heard too late to vouch, and every send of a saturated chat
/// read its session (server/README.md, chat).
#[tokio::test]
async fn a_held_session_answers_while_every_pooled_connection_is_taken_postgres() {
    let app = spawn_app_with(Backend::Postgres, |s| s.db_pool = Some(4)).await;
    let (mei, _) = register(&app, 0, true).await;
    let token = mei.user.token.clone();
    held(&app, &token).await;

    let pool = app.state.db.get_postgres_connection_pool();
    let mut taken = Vec::new();
    while let Ok(conn) = tokio::time::timeout(Duration::from_millis(300), pool.acquire()).await {
        taken.push(conn.unwrap());
    }
    assert_eq!(
        (pool.size(), pool.num_idle()),
        (4, 0),
        "every pooled connection is taken (the relay's listener holds one of them)"
    );
    tokio::time::sleep(SESSION_CACHE_TTL + Duration::from_millis(500)).await;
    let cache = app.state.session_ends.cache();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cache.vouched_for() {
        assert!(
            Instant::now() < deadline,
            "no heartbeat heard while the pool is taken"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (auth, statements) = queries::counted(app.state.sessions.check(&token)).await;
    assert_eq!(auth.unwrap().user.line_user_id, mei.user.line_id);
    assert_eq!(statements, 0, "answered from memory, 1.5 s after its read");
    assert_eq!(pool.num_idle(), 0, "and no pooled connection was needed");
    drop(taken);
    // The pool serves again once its connections are back (`my_info` asks for a 200).
    my_info(&app, &token).await;
}

async fn changes_reach_a_cached_session_on_one_process(backend: Backend) {
    let app = spawn_app(backend).await;
    changes_reach_a_cached_session(&app, &app).await;
}

/// Two processes on one PostgreSQL database: the changes are made through one, the member asks
/// the other.
#[tokio::test]
async fn changes_reach_a_cached_session_on_another_process_postgres() {
    let a = spawn_app_with(Backend::Postgres, |_| {}).await;
    let url = a.database_url.clone();
    let b = spawn_app_with(Backend::Postgres, move |s| s.database_url = Some(url)).await;
    changes_reach_a_cached_session(&a, &b).await;
}

/// No server announced it (a row changed by hand): the session held in memory is refused within
/// a second of the revocation. On SQLite the entry answers at most a second after the read that
/// put it there; on PostgreSQL, where it would answer for `SESSION_CACHE_HELD`, the revocation's
/// own transaction announced it (`announce_session_revoked`).
async fn an_end_made_by_hand_is_refused_within_the_second(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    held(&app, &user.token).await;
    app.db
        .execute_unprepared(&format!(
            "UPDATE sessions SET revoked_at = {} WHERE token_hash = '{}'",
            app.clock().now_secs(),
            hash_token(&user.token)
        ))
        .await
        .unwrap();
    let revoked = Instant::now();
    loop {
        let asked = Instant::now();
        let r = app.get("/api/user/my-info", Some(&user.token)).await;
        if r.status() == 401 {
            println!("refused {:?} after the revocation", asked - revoked);
            break;
        }
        assert_eq!(r.status(), 200);
        assert!(
            asked < revoked + SESSION_CACHE_TTL,
            "a revoked session still answered {:?} after its revocation",
            asked - revoked
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What `GET /user/my-info` sends to the database (`storage::queries::counted`, which counts every
/// statement, the session lookup's too): its session check (`SessionStore::check`, as the
/// extractor calls it) and, with a profile, its review (`membership::own_review`, as the route
/// calls it), for a member in each state the review reads: pending, approved with a revision
/// waiting, and suspended with an appeal.
async fn my_info_costs_at_most_one_statement(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app).await;
    let plain = app.new_user().await;
    let (mei, _) = register(&app, 0, true).await;

    let cost = |token: String| {
        let app = &app;
        async move {
            app.state.sessions.forget_cached();
            let (auth, miss) = queries::counted(app.state.sessions.check(&token)).await;
            let auth = auth.unwrap();
            let (again, hit) = queries::counted(app.state.sessions.check(&token)).await;
            again.unwrap();
            let (review, read) = queries::counted(async {
                match &auth.profile {
                    Some(p) => Some(
                        membership::own_review(
                            &app.state.db,
                            p.id,
                            ReviewStatus::parse(&p.status).unwrap(),
                        )
                        .await
                        .unwrap(),
                    ),
                    None => None,
                }
            })
            .await;
            (miss, hit, read, review)
        }
    };

    let (miss, hit, read, review) = cost(plain.token.clone()).await;
    assert_eq!(
        (miss, hit, read),
        (1, 0, 0),
        "without a profile: the session read on a miss, nothing on a hit, no review"
    );
    assert!(review.is_none());

    let (miss, hit, read, _) = cost(mei.user.token.clone()).await;
    assert_eq!((miss, hit, read), (1, 0, 1), "pending");

    // Approved, with a revision of what others see waiting for review.
    approve(&app, &reviewer, &mei, "tsmc").await;
    let mut body = my_info(&app, &mei.user.token).await["profile"].clone();
    body["aboutMe"] = json!("A revision waiting for review.");
    let saved = ok_json(
        send(
            &app,
            Method::PUT,
            "/api/user-profile/edit",
            &mei.user.token,
            Some(body),
        )
        .await,
    )
    .await;
    assert!(!saved["revision"].is_null(), "{saved}");
    let (miss, hit, read, review) = cost(mei.user.token.clone()).await;
    assert_eq!((miss, hit, read), (1, 0, 1), "approved with a revision");
    let review = review.unwrap();
    assert!(review.revision.is_some());
    assert_eq!(review.decision.unwrap().action, "APPROVE");

    // Suspended (signed in again), with an appeal.
    let version = number(
        &app,
        &format!("SELECT version AS n FROM profiles WHERE id = {}", mei.id),
    )
    .await;
    ok_json(
        send(
            &app,
            Method::POST,
            &format!("/api/review/profiles/{}/decision", mei.id),
            &reviewer.token,
            Some(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version})),
        )
        .await,
    )
    .await;
    let mut again = mei.user.clone();
    app.sign_in_again(&mut again).await;
    let (miss, hit, read, review) = cost(again.token.clone()).await;
    assert_eq!((miss, hit, read), (1, 0, 1), "suspended, before the appeal");
    assert!(review.unwrap().may_appeal);
    ok_json(
        send(
            &app,
            Method::POST,
            "/api/user/appeal",
            &again.token,
            Some(json!({"text": "Please look at my profile again."})),
        )
        .await,
    )
    .await;
    let (miss, hit, read, review) = cost(again.token.clone()).await;
    assert_eq!((miss, hit, read), (1, 0, 1), "suspended, appealed");
    let review = review.unwrap();
    assert!(review.appeal.is_some() && !review.may_appeal);
    assert_eq!(review.decision.unwrap().action, "SUSPEND");
    // And the answer over HTTP says the same.
    let info = my_info(&app, &again.token).await;
    assert_eq!(info["reviewStatus"], "SUSPENDED");
    assert_eq!(info["mayAppeal"], false);
    assert!(!info["appeal"].is_null(), "{info}");
}

/// The session carries which profile and its status, not the payload: my-info reads that with
/// its review. A profile gone behind a session the cache holds (its account left on another
/// device in that second) is answered as none, not as a stored profile that cannot be read.
async fn a_profile_gone_behind_a_held_session_is_answered_as_none(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = register(&app, 0, true).await;
    let token = mei.user.token.clone();
    assert_eq!(my_info(&app, &token).await["reviewStatus"], "PENDING");
    held(&app, &token).await;
    let before = Instant::now();
    app.db
        .execute_unprepared(&format!("DELETE FROM profiles WHERE id = {}", mei.id))
        .await
        .unwrap();
    let info = my_info(&app, &token).await;
    assert!(
        before.elapsed() < SESSION_CACHE_TTL,
        "the cache no longer held the session: the test proves nothing"
    );
    assert!(info["profile"].is_null(), "{info}");
    assert!(info["reviewStatus"].is_null(), "{info}");
    // What the route asks of the use-case, for a profile that is not there.
    let own = membership::own_review(&app.state.db, mei.id, ReviewStatus::Pending)
        .await
        .unwrap();
    assert!(own.payload.is_none());
}

on_both_backends!(
    changes_reach_a_cached_session_on_one_process,
    an_end_made_by_hand_is_refused_within_the_second,
    my_info_costs_at_most_one_statement,
    a_profile_gone_behind_a_held_session_is_answered_as_none,
);
