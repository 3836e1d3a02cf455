//! Sessions that end: signing out of one device or of all, the 30-day absolute lifetime beside
//! the 7-day sliding one, a suspension that signs the member out and leaves them only their own
//! account, and ended sessions forgotten after a day. SQLite and PostgreSQL.

use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    helpers::{Backend, TestApp, User, assert_error, jpeg, spawn_app},
    matchmaking::{approved, ok_json, send},
    on_both_backends,
};

const DAY: i64 = 24 * 3600;

async fn my_info(app: &TestApp, token: &str) -> reqwest::Response {
    app.get("/api/user/my-info", Some(token)).await
}

/// A second session of the same user (another device).
async fn second_session(app: &TestApp, user: &User) -> String {
    let r = app.login_raw(Some(&user.id_token), &user.line_id).await;
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn post(app: &TestApp, path: &str, token: &str) -> reqwest::Response {
    send(app, Method::POST, path, token, None).await
}

async fn signing_out_ends_this_session_only(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    let other_device = second_session(&app, &user).await;

    let r = post(&app, "/api/user/logout", &user.token).await;
    assert_eq!(r.status(), 204);
    assert!(
        r.headers().get("authorization").is_none(),
        "a signed-out answer hands no token back"
    );
    assert_error(my_info(&app, &user.token).await, 401, "E001A").await;
    assert_error(
        post(&app, "/api/user/logout", &user.token).await,
        401,
        "E001A",
    )
    .await;
    assert_eq!(my_info(&app, &other_device).await.status(), 200);
    // Without a session at all.
    let r = app
        .client
        .post(app.url("/api/user/logout"))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
}

async fn signing_out_everywhere_ends_every_session(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    let other_device = second_session(&app, &user).await;
    let stranger = app.new_user().await;

    let r = post(&app, "/api/user/logout-all", &other_device).await;
    assert_eq!(r.status(), 204);
    assert_error(my_info(&app, &user.token).await, 401, "E001A").await;
    assert_error(my_info(&app, &other_device).await, 401, "E001A").await;
    assert_eq!(my_info(&app, &stranger.token).await.status(), 200);
    // Signing in again works at once.
    let fresh = second_session(&app, &user).await;
    assert_eq!(my_info(&app, &fresh).await.status(), 200);
}

async fn a_session_ends_thirty_days_after_login_however_often_it_is_used(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    // Used every six days: each use slides the week on, up to the 30th day.
    for _ in 0..4 {
        app.clock().advance(6 * DAY);
        assert_eq!(my_info(&app, &user.token).await.status(), 200);
    }
    app.clock().advance(5 * DAY);
    assert_eq!(my_info(&app, &user.token).await.status(), 200, "day 29");
    app.clock().advance(DAY);
    assert_error(my_info(&app, &user.token).await, 401, "E001B").await;
}

async fn a_suspension_signs_the_member_out_and_leaves_only_their_own_account(backend: Backend) {
    let app = spawn_app(backend).await;
    let (kai, _) = approved(&app, 1, false).await;
    let reviewer = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": reviewer.line_id}))
        .await;
    let file = ok_json(
        app.get(
            &format!("/api/review/profiles/{}", kai.id),
            Some(&reviewer.token),
        )
        .await,
    )
    .await;
    let version = file["version"].as_i64().unwrap();
    let r = send(
        &app,
        Method::POST,
        &format!("/api/review/profiles/{}/decision", kai.id),
        &reviewer.token,
        Some(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version})),
    )
    .await;
    assert_eq!(ok_json(r).await["status"], "SUSPENDED");

    // Every session ended with the decision.
    assert_error(my_info(&app, &kai.user.token).await, 401, "E001A").await;

    // Signing in again: their own account, with the reasons, and nothing else.
    let token = second_session(&app, &kai.user).await;
    let info = ok_json(my_info(&app, &token).await).await;
    assert_eq!(info["reviewStatus"], "SUSPENDED");
    assert_eq!(info["reviewDecision"]["reasons"], json!(["SCAM"]), "{info}");
    let status = app
        .get(
            &format!("/api/user/review-status/{}", kai.user.line_id),
            Some(&token),
        )
        .await;
    assert_eq!(status.status(), 200);
    let refused = [
        (Method::GET, "/api/introductions".to_string(), None),
        (Method::GET, "/api/matches".to_string(), None),
        (Method::GET, "/api/user/notifications".to_string(), None),
        (Method::GET, "/api/chat/events".to_string(), None),
        (
            Method::PUT,
            "/api/user-profile/avatar".to_string(),
            Some(json!({"avatar": kai.photo})),
        ),
        (
            Method::POST,
            "/api/verification/email-code".to_string(),
            Some(json!({"email": "kai@tsmc.com"})),
        ),
        (
            Method::POST,
            "/api/blocks".to_string(),
            Some(json!({"memberId": 1})),
        ),
    ];
    for (method, path, body) in refused {
        let r = send(&app, method.clone(), &path, &token, body).await;
        let cause = assert_error(r, 403, "E004").await;
        assert!(
            cause["cause"].as_str().unwrap().contains("suspended"),
            "{method} {path}: {cause}"
        );
    }
    // Their own photos stay theirs to see (their profile shows them); nobody else's.
    for path in [
        format!("/api/file/fetch/{}", kai.photo),
        format!("/_ipx/w_40/api/file/fetch/{}", kai.photo),
    ] {
        assert_eq!(app.get(&path, Some(&token)).await.status(), 200, "{path}");
    }
    let upload = app.upload(&token, jpeg(16, 16), "a.jpg").await;
    assert_error(upload, 403, "E004").await;
    assert_eq!(post(&app, "/api/user/logout", &token).await.status(), 204);
}

async fn count_sessions(app: &TestApp) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            "SELECT COUNT(*) AS n FROM sessions",
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap()
}

async fn ended_sessions_are_forgotten_after_a_day(backend: Backend) {
    let app = spawn_app(backend).await;
    let signed_out = app.new_user().await;
    let live = app.new_user().await;
    assert_eq!(
        post(&app, "/api/user/logout", &signed_out.token)
            .await
            .status(),
        204
    );
    let now = app.clock().now_secs();
    assert_eq!(count_sessions(&app).await, 2);
    kizuna_server::storage::sessions::sweep(&app.db, now + DAY / 2)
        .await
        .unwrap();
    assert_eq!(count_sessions(&app).await, 2, "kept for a day");
    kizuna_server::storage::sessions::sweep(&app.db, now + DAY + 1)
        .await
        .unwrap();
    assert_eq!(count_sessions(&app).await, 1);
    assert_eq!(my_info(&app, &live.token).await.status(), 200);
}

/// Every login makes a session: one LINE user gets `LOGINS_PER_MINUTE_PER_USER` a minute, one
/// client address `LOGINS_PER_MINUTE_PER_ADDRESS` (refused attempts count too); others go on.
async fn logins_are_limited_per_line_user_and_per_address(backend: Backend) {
    use kizuna_core::rules::{LOGINS_PER_MINUTE_PER_ADDRESS, LOGINS_PER_MINUTE_PER_USER};
    let app = crate::helpers::spawn_app_with(backend, |s| {
        s.trusted_proxy_header = Some("x-forwarded-for".parse().unwrap());
    })
    .await;
    let login = |user: &User, from: &'static str| {
        app.client
            .post(app.url("/api/user/login"))
            .header("x-line-id-token", user.id_token.clone())
            .header("x-forwarded-for", from)
            .json(&json!({"account": user.line_id, "password": user.line_id}))
            .send()
    };
    let mei = app.new_user().await;
    let kai = app.new_user().await;
    let before = app.snapshot().await.count("sessions");
    let started = std::time::Instant::now();
    let mut made = 0;
    let mut first_refusal = None;
    for _ in 0..=LOGINS_PER_MINUTE_PER_ADDRESS {
        let r = login(&mei, "203.0.113.7").await.unwrap();
        match r.status().as_u16() {
            200 => made += 1,
            429 => {
                if first_refusal.is_none() {
                    assert!(r.headers().contains_key("retry-after"));
                    first_refusal = Some(assert_error(r, 429, "E007").await);
                }
            }
            other => panic!("login answered {other}"),
        }
    }
    // Her first login (new_user) counted; one comes back every 6 s meanwhile.
    let refills = (started.elapsed().as_secs_f64() / 6.0).ceil() as u32;
    let allowed = LOGINS_PER_MINUTE_PER_USER - 1;
    assert!(
        (allowed..=allowed + refills).contains(&made),
        "{made} logins of one user"
    );
    assert!(first_refusal.is_some());
    assert_eq!(
        app.snapshot().await.count("sessions"),
        before + made as usize,
        "a refusal makes no session"
    );
    // The address has used its allowance: another member behind it waits too, elsewhere not.
    // It refills two a second, which a loaded machine's logins one after another can outpace, so
    // Kai comes in beside a burst of Mei's attempts (a refused attempt counts on the address too):
    // the burst takes whatever came back meanwhile. Kai tries at most 8 times, within his own 9.
    let mut refused = None;
    for _ in 0..8 {
        let burst = futures_util::future::join_all((0..20).map(|_| login(&mei, "203.0.113.7")));
        let (burst, r) = tokio::join!(burst, login(&kai, "203.0.113.7"));
        for b in burst {
            assert!(
                matches!(b.unwrap().status().as_u16(), 200 | 429),
                "a login in the burst answered neither"
            );
        }
        let r = r.unwrap();
        if r.status() == 429 {
            refused = Some(assert_error(r, 429, "E007").await);
            break;
        }
        assert_eq!(r.status(), 200);
    }
    let refused = refused.expect("the address's allowance held");
    assert!(
        refused["cause"]
            .as_str()
            .unwrap()
            .contains("from this address"),
        "{refused}"
    );
    let r = login(&kai, "203.0.113.8").await.unwrap();
    assert_eq!(r.status(), 200);
}

on_both_backends!(
    logins_are_limited_per_line_user_and_per_address,
    signing_out_ends_this_session_only,
    signing_out_everywhere_ends_every_session,
    a_session_ends_thirty_days_after_login_however_often_it_is_used,
    a_suspension_signs_the_member_out_and_leaves_only_their_own_account,
    ended_sessions_are_forgotten_after_a_day,
);
