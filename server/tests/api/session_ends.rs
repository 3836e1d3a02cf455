//! A signed-out phone hears nothing: when a session ends, by whichever route (sign-out,
//! sign-out everywhere, a suspension, a deleted account, or its own end 30 days after the login),
//! every open events stream of that session has ended within a second, on every process: a
//! stream open on process B ends when the session is ended through process A (two processes on
//! one PostgreSQL database), and on SQLite's one process. The streams of the member's other
//! sessions (when they go on) and of other members are untouched. An announcement lost while the
//! relay reconnects is made up for: the stream looks its session up again when the relay
//! reconnects, and at every keep-alive. Requests too: a session that both processes hold in
//! their session cache (`identity::session_cache`) is refused at once on the process that ended
//! it and within the second on the other.
//!
//! The apps here keep a minute between keep-alives, so that only the announcement (or the
//! session's own timer) can end a stream within the second; the safety net has its own test.

use std::time::Duration;

use kizuna_server::{
    configuration::Settings,
    identity::session::{SESSION_MAX_AGE_SECS, hash_token},
};
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::json;
use tokio::time::Instant;

use crate::{
    chat::{Events, client_id, matched_pair, post},
    helpers::{Backend, TestApp, assert_error, spawn_app_with},
    matchmaking::{ok_json, send},
    on_both_backends,
    review::make_reviewer,
};

/// The promise: every stream of an ended session has ended this long after the answer that
/// ended it.
const WITHIN: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    SignOut,
    SignOutEverywhere,
    Suspension,
    Deletion,
    /// 30 days after the login, however often it was used.
    OwnEnd,
}

const EVERY_WAY: [How; 5] = [
    How::SignOut,
    How::SignOutEverywhere,
    How::Suspension,
    How::Deletion,
    How::OwnEnd,
];

/// Keep-alives a minute apart: nothing but the announcement can end a stream within a second.
fn quiet(s: &mut Settings) {
    s.chat.keep_alive = Duration::from_secs(60);
}

async fn execute(app: &TestApp, sql: String) {
    app.db.execute_unprepared(&sql).await.unwrap();
}

async fn version_of(app: &TestApp, profile: i64) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!("SELECT version FROM profiles WHERE id = {profile}"),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "version")
        .unwrap()
}

/// For each way a session ends: Mei's phone keeps a stream open on `b` (its session is the one
/// that ends), her laptop another (a second session) and Kai, her match, his own; the session is
/// ended through `a`. The phone's stream has ended a second later; the laptop's too when all her
/// sessions ended, else it goes on; Kai's goes on.
async fn every_stream_of_an_ended_session_ends_within_a_second(a: &TestApp, b: &TestApp) {
    let reviewer = make_reviewer(a).await;
    for (n, how) in EVERY_WAY.into_iter().enumerate() {
        let (mei, kai, match_id) = matched_pair(a, 2 * n).await;
        let phone = mei.user.token.clone();
        let mut laptop = mei.user.clone();
        a.sign_in_again(&mut laptop).await;
        let mut own_end = None;
        if how == How::OwnEnd {
            // The phone signed in 30 days ago less 3 s: its session ends 3 s from now.
            let now = a.clock().now_secs();
            let ends_at = now + 3;
            execute(
                a,
                format!(
                    "UPDATE sessions SET created_at = {} WHERE token_hash = '{}'",
                    ends_at - SESSION_MAX_AGE_SECS,
                    hash_token(&phone)
                ),
            )
            .await;
            // Changed behind the servers' backs: what they hold of the session is forgotten.
            a.state.sessions.forget_cached();
            b.state.sessions.forget_cached();
            let left_ms = ends_at * 1000 - a.clock().now_millis();
            own_end = Some(Instant::now() + Duration::from_millis(left_ms as u64));
        }
        let mut phone_stream = Events::open_with(b, &phone, None).await;
        let mut laptop_stream = Events::open_with(b, &laptop.token, None).await;
        let mut kai_stream = Events::open(b, &kai).await;
        // Both processes hold the phone's and the laptop's sessions in their caches.
        for app in [a, b] {
            for token in [&phone, &laptop.token] {
                assert_eq!(
                    app.get("/api/user/my-info", Some(token)).await.status(),
                    200
                );
            }
        }

        let ended = match how {
            How::SignOut => {
                let r = send(a, Method::POST, "/api/user/logout", &phone, None).await;
                assert_eq!(r.status(), 204);
                Instant::now()
            }
            // The phone is lost: the laptop signs out everywhere.
            How::SignOutEverywhere => {
                let r = send(a, Method::POST, "/api/user/logout-all", &laptop.token, None).await;
                assert_eq!(r.status(), 204);
                Instant::now()
            }
            How::Suspension => {
                let version = version_of(a, mei.id).await;
                let r = send(
                    a,
                    Method::POST,
                    &format!("/api/review/profiles/{}/decision", mei.id),
                    &reviewer.token,
                    Some(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version})),
                )
                .await;
                assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
                Instant::now()
            }
            How::Deletion => {
                let r = send(
                    a,
                    Method::DELETE,
                    "/api/user/account",
                    &laptop.token,
                    Some(json!({"lineAccessToken": null})),
                )
                .await;
                assert_eq!(r.status(), 204);
                Instant::now()
            }
            How::OwnEnd => {
                let end = own_end.unwrap();
                // Not before its time: the stream is open half a second before the end.
                assert!(
                    !phone_stream.ends_by(end - Duration::from_millis(500)).await,
                    "the phone's stream ended before its session did"
                );
                end
            }
        };
        let code = if how == How::OwnEnd { "E001B" } else { "E001A" };
        if how != How::OwnEnd {
            // The process that ended it refuses it at once.
            assert_error(a.get("/api/user/my-info", Some(&phone)).await, 401, code).await;
        }
        let ended_by = phone_stream.ends_by(ended + WITHIN).await;
        println!(
            "{how:?}: the phone's stream (on the process the session was not ended through, when there are two) ended {:?} after the session",
            Instant::now().saturating_duration_since(ended)
        );
        assert!(
            ended_by,
            "{how:?}: the phone's stream was still open a second after its session ended"
        );
        assert_error(a.get("/api/user/my-info", Some(&phone)).await, 401, code).await;
        // The other process refuses it within the second, whatever it held.
        assert!(
            refused_by(b, &phone, ended + WITHIN).await,
            "{how:?}: the phone's session still answered on the other process a second after \
             it ended"
        );

        let all_sessions = !matches!(how, How::SignOut | How::OwnEnd);
        if all_sessions {
            assert!(
                refused_by(b, &laptop.token, ended + WITHIN).await,
                "{how:?}: the laptop's session still answered a second after it ended"
            );
            assert!(
                laptop_stream.ends_by(ended + WITHIN).await,
                "{how:?}: the laptop's stream was still open a second after its session ended"
            );
        } else {
            // The laptop's session lives, on both processes.
            for app in [a, b] {
                assert_eq!(
                    app.get("/api/user/my-info", Some(&laptop.token))
                        .await
                        .status(),
                    200
                );
            }
            // Its stream goes on and hears the next message.
            ok_json(post(a, &kai, match_id, &client_id(1), "still there?").await).await;
            assert_eq!(
                laptop_stream.expect("message").await["message"]["text"],
                "still there?"
            );
            assert_eq!(
                kai_stream.expect("message").await["message"]["text"],
                "still there?"
            );
        }
        // Another member's stream is untouched.
        assert!(
            !kai_stream
                .ends_by(Instant::now() + Duration::from_millis(200))
                .await,
            "{how:?}: Kai's stream ended"
        );
    }
}

/// Asks `app` for my-info with `token` until it is refused: true when that came before `by`
/// (every answer before it a 200).
async fn refused_by(app: &TestApp, token: &str, by: Instant) -> bool {
    loop {
        let asked = Instant::now();
        let r = app.get("/api/user/my-info", Some(token)).await;
        if r.status() == 401 {
            return true;
        }
        assert_eq!(r.status(), 200);
        if asked >= by {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Two processes on one PostgreSQL database: the session is ended through one, the streams are
/// open on the other.
#[tokio::test]
async fn every_stream_of_an_ended_session_ends_within_a_second_on_another_process_postgres() {
    let a = spawn_app_with(Backend::Postgres, quiet).await;
    let url = a.database_url.clone();
    let b = spawn_app_with(Backend::Postgres, move |s| {
        quiet(s);
        s.database_url = Some(url);
    })
    .await;
    every_stream_of_an_ended_session_ends_within_a_second(&a, &b).await;
}

/// SQLite's one process.
#[tokio::test]
async fn every_stream_of_an_ended_session_ends_within_a_second_sqlite() {
    let app = spawn_app_with(Backend::Sqlite, quiet).await;
    every_stream_of_an_ended_session_ends_within_a_second(&app, &app).await;
}

/// Ends a session behind every process's back: as if its announcement were lost. On PostgreSQL
/// the database's own announcement (its trigger) is switched off for the change, as a logical
/// replica applies changes.
async fn revoke_unannounced(app: &TestApp, token: &str) {
    let revoke = format!(
        "UPDATE sessions SET revoked_at = {} WHERE token_hash = '{}'",
        app.clock().now_secs(),
        hash_token(token)
    );
    let sql = match app.db.get_database_backend() {
        sea_orm::DbBackend::Postgres => {
            format!("BEGIN; SET LOCAL session_replication_role = replica; {revoke}; COMMIT")
        }
        _ => revoke,
    };
    execute(app, sql).await;
}

/// The safety net: a stream whose session ended without a word (a lost announcement) looks it up
/// at its next keep-alive (every second in tests) and ends.
async fn a_stream_whose_end_went_unannounced_ends_at_its_next_keep_alive(backend: Backend) {
    let app = spawn_app_with(backend, |_| {}).await;
    let (mei, _, _) = matched_pair(&app, 0).await;
    let mut stream = Events::open(&app, &mei).await;
    revoke_unannounced(&app, &mei.user.token).await;
    let keep_alive = app.state.settings.chat.keep_alive;
    assert!(
        stream.ends_by(Instant::now() + keep_alive + WITHIN).await,
        "still open a keep-alive and a second after its session ended"
    );
}

/// On PostgreSQL the announcements travel on the relay's LISTEN connection; while it reconnects
/// they are lost. Once it has reconnected, every stream looks its session up again: a stream
/// whose session ended meanwhile ends, long before its next keep-alive (a minute away here).
#[tokio::test]
async fn a_stream_looks_its_session_up_again_when_the_relay_reconnects_postgres() {
    let a = spawn_app_with(Backend::Postgres, quiet).await;
    let url = a.database_url.clone();
    let b = spawn_app_with(Backend::Postgres, move |s| {
        quiet(s);
        s.database_url = Some(url);
    })
    .await;
    let (mei, _, _) = matched_pair(&a, 0).await;
    let mut stream = Events::open(&b, &mei).await;
    revoke_unannounced(&a, &mei.user.token).await;
    // Nothing was announced: the stream cannot know yet.
    assert!(
        !stream
            .ends_by(Instant::now() + Duration::from_millis(1500))
            .await,
        "the stream ended without an announcement or a reconnect"
    );
    // Every relay's connection is cut; each reconnects and LISTENs again.
    execute(
        &a,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND query LIKE 'LISTEN%' \
         AND pid <> pg_backend_pid()"
            .to_string(),
    )
    .await;
    assert!(
        stream
            .ends_by(Instant::now() + Duration::from_secs(5))
            .await,
        "the stream did not look its session up after the relay reconnected"
    );
}

on_both_backends!(a_stream_whose_end_went_unannounced_ends_at_its_next_keep_alive);
