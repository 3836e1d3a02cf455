//! Matches that never started close gently, and "Your turn", over HTTP on SQLite and PostgreSQL:
//! a match where nobody writes gets one reminder push to each member on day 3 and closes as
//! expired on day 7 (the clock moved, the job run as a process runs it); it is then listed for
//! both as expired, by nickname only, and its chat is closed; a match with a message never
//! expires; two runs racing (two connection pools, as two processes) remind each match once; a
//! message racing the expiry either keeps the match or is refused, never both; and a like is held
//! while five conversations wait on the member's reply.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    chat::{Events, client_id, match_of, matched, matched_pair, post},
    helpers::{Backend, TestApp, assert_error, number, spawn_app},
    matchmaking::{
        Member, Secrets, approved, introductions, like, listed_ids, ok_json, register, send,
    },
    on_both_backends,
};

const DAY: i64 = 86_400;

/// A fresh session after the clock moved a week or more (a session lasts 7 days from its last
/// use), as the web app signs in again.
async fn fresh(app: &TestApp, members: &mut [&mut Member]) {
    for m in members.iter_mut() {
        app.sign_in_again(&mut m.user).await;
    }
}

/// One run of the job, as a process's timer runs it (the mock platform's trigger).
async fn run_job(app: &TestApp) -> Value {
    app.mock_post("/__mock/quiet-matches", json!({})).await
}

async fn reminders_to(app: &TestApp, m: &Member) -> Vec<String> {
    use sea_orm::ConnectionTrait;
    let rows = app
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!(
                "SELECT subject FROM push_outbox WHERE line_user_id = '{}' AND kind = 'reminder' \
                 ORDER BY id",
                m.user.line_id
            ),
        ))
        .await
        .unwrap();
    rows.iter()
        .map(|r| r.try_get::<String>("", "subject").unwrap())
        .collect()
}

async fn matches_of(app: &TestApp, m: &Member) -> Vec<Value> {
    ok_json(app.get("/api/matches", Some(&m.user.token)).await)
        .await
        .as_array()
        .unwrap()
        .clone()
}

async fn expired_of(app: &TestApp, m: &Member) -> Vec<Value> {
    ok_json(app.get("/api/expired-matches", Some(&m.user.token)).await)
        .await
        .as_array()
        .unwrap()
        .clone()
}

/// Waits until LINE (the mock) received a push to `m` containing every one of `texts`.
async fn delivered_to(app: &TestApp, m: &Member, texts: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let pushes = app.pushes().await;
        if let Some(found) = pushes
            .iter()
            .filter(|p| p["to"] == m.user.line_id.as_str())
            .map(|p| p["messages"].to_string())
            .find(|s| texts.iter().all(|t| s.contains(t)))
        {
            return found;
        }
        assert!(Instant::now() < deadline, "{texts:?} not in {pushes:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn a_silent_match_is_reminded_once_on_day_three_and_expires_on_day_seven(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mut mei, kai, id) = matched_pair(&app, 0).await;
    // Before day 3: nothing.
    app.clock().advance(3 * DAY - 60);
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    assert!(reminders_to(&app, &mei).await.is_empty());

    // Day 3: one reminder to each, naming the other, opening the chat; again: none.
    app.clock().advance(60);
    assert_eq!(run_job(&app).await, json!({"reminded": 1, "expired": 0}));
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    app.clock().advance(DAY);
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    for m in [&mei, &kai] {
        let stored = reminders_to(&app, m).await;
        assert_eq!(stored.len(), 1, "{stored:?}");
        assert_eq!(
            serde_json::from_str::<Value>(&stored[0]).unwrap(),
            json!({"push": "quiet_match", "match_id": id})
        );
    }
    let to_mei = delivered_to(&app, &mei, &["Say hello to Nick1"]).await;
    assert!(
        to_mei.contains(&format!("/chat?match={id}&via=reminder")),
        "{to_mei}"
    );
    delivered_to(&app, &kai, &["Say hello to Nick0"]).await;
    // Still live meanwhile.
    assert_eq!(matches_of(&app, &mei).await.len(), 1);

    // Day 7: expired for both, an open chat page is told, the chat is closed.
    let mut events = Events::open(&app, &kai).await;
    app.clock().advance(3 * DAY - 61);
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    app.clock().advance(61);
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 1}));
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    events.expect("ended").await;
    let expired_at = app.clock().now_secs();
    for (m, other) in [(&mei, "Nick1"), (&kai, "Nick0")] {
        assert!(matches_of(&app, m).await.is_empty());
        let listed = expired_of(&app, m).await;
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0]["matchId"], id);
        assert_eq!(listed[0]["nickname"], other);
        let at = listed[0]["expiredAt"].as_i64().unwrap();
        assert!((expired_at - 5..=expired_at).contains(&at), "{at}");
        assert_error(
            post(&app, m, id, &client_id(1), "hello?").await,
            404,
            "E003",
        )
        .await;
    }
    assert_eq!(
        number(
            &app,
            &format!("SELECT COUNT(*) AS n FROM matches WHERE id = {id} AND ended_reason = 'EXPIRED' AND ended_by IS NULL")
        )
        .await,
        1
    );
    // Listed for 14 days after, then no longer.
    app.clock().advance(14 * DAY - 60);
    fresh(&app, &mut [&mut mei]).await;
    assert_eq!(expired_of(&app, &mei).await.len(), 1);
    app.clock().advance(60);
    assert!(expired_of(&app, &mei).await.is_empty());
    // Nothing is reminded or expired twice later on.
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    assert_eq!(reminders_to(&app, &kai).await.len(), 1);
}

async fn a_match_with_any_message_is_never_reminded_nor_expired(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mut mei, mut kai, id) = matched_pair(&app, 0).await;
    ok_json(post(&app, &kai, id, &client_id(1), "hi!").await).await;
    for _ in 0..4 {
        app.clock().advance(10 * DAY);
        assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    }
    fresh(&app, &mut [&mut mei, &mut kai]).await;
    for m in [&mei, &kai] {
        assert_eq!(matches_of(&app, m).await.len(), 1);
        assert!(expired_of(&app, m).await.is_empty());
        assert!(reminders_to(&app, m).await.is_empty());
    }
    // A reminded match that gets a message before day 7 stays too.
    let (ann, mut ben, other) = matched_pair(&app, 2).await;
    app.clock().advance(3 * DAY);
    assert_eq!(run_job(&app).await, json!({"reminded": 1, "expired": 0}));
    ok_json(post(&app, &ann, other, &client_id(2), "sorry, busy week").await).await;
    app.clock().advance(30 * DAY);
    assert_eq!(run_job(&app).await, json!({"reminded": 0, "expired": 0}));
    fresh(&app, &mut [&mut ben]).await;
    assert_eq!(matches_of(&app, &ben).await.len(), 1);
}

async fn two_runs_racing_remind_and_expire_each_match_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut pairs = Vec::new();
    for n in 0..3 {
        pairs.push(matched_pair(&app, 2 * n).await);
    }
    app.clock().advance(3 * DAY);
    let now = app.clock().now_secs();
    // Two processes (the server's own pool and the test's) and the server's trigger, at the
    // same instant, twice over: three reminders in all.
    let mut reminded = 0;
    for _ in 0..2 {
        let (a, b, c) = tokio::join!(
            kizuna_server::usecases::quiet::close_quiet_matches(&app.db, now),
            kizuna_server::usecases::quiet::close_quiet_matches(&app.state.db, now),
            run_job(&app),
        );
        let (a, b) = (
            a.unwrap().apply(&app.state).await,
            b.unwrap().apply(&app.state).await,
        );
        reminded += a.reminded + b.reminded + c["reminded"].as_u64().unwrap() as u32;
    }
    assert_eq!(reminded, 3);
    for (mei, kai, id) in &pairs {
        for m in [mei, kai] {
            assert_eq!(reminders_to(&app, m).await.len(), 1, "match {id}");
        }
    }
    assert_eq!(
        number(
            &app,
            "SELECT COUNT(*) AS n FROM matches WHERE reminded_at IS NOT NULL"
        )
        .await,
        3
    );
    // Day 7: both racing expire each match once, each member's stream told once.
    app.clock().advance(4 * DAY);
    let now = app.clock().now_secs();
    let (a, b) = tokio::join!(
        kizuna_server::usecases::quiet::close_quiet_matches(&app.db, now),
        kizuna_server::usecases::quiet::close_quiet_matches(&app.state.db, now),
    );
    let (a, b) = (
        a.unwrap().apply(&app.state).await,
        b.unwrap().apply(&app.state).await,
    );
    assert_eq!(a.expired + b.expired, 3, "{a:?} {b:?}");
    assert_eq!(
        number(
            &app,
            // kind 3: ended (storage::chat_events).
            "SELECT COUNT(*) AS n FROM chat_events WHERE kind = 3"
        )
        .await,
        6
    );
}

async fn a_message_racing_the_expiry_keeps_the_match_or_is_refused_never_both(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut pairs = Vec::new();
    for n in 0..4 {
        pairs.push(matched_pair(&app, 2 * n).await);
    }
    app.clock().advance(7 * DAY);
    for (mei, kai, _) in pairs.iter_mut() {
        fresh(&app, &mut [mei, kai]).await;
    }
    let ids: Vec<String> = (0..pairs.len()).map(client_id).collect();
    let sends = pairs
        .iter()
        .zip(&ids)
        .map(|((mei, _, id), client)| post(&app, mei, *id, client, "just in time?"));
    let (sent, run) = tokio::join!(futures_util::future::join_all(sends), run_job(&app));
    let mut expired = 0;
    for ((_, kai, id), answer) in pairs.iter().zip(sent) {
        let status = answer.status().as_u16();
        let live = matches_of(&app, kai)
            .await
            .iter()
            .any(|m| m["matchId"] == *id);
        let messages = number(
            &app,
            &format!("SELECT COUNT(*) AS n FROM chat_messages WHERE match_id = {id}"),
        )
        .await;
        match status {
            201 | 200 => assert!(live && messages == 1, "match {id}: stored and kept"),
            404 => {
                assert!(
                    !live && messages == 0,
                    "match {id}: expired, nothing stored"
                );
                expired += 1;
            }
            other => panic!("match {id}: {other}"),
        }
    }
    assert_eq!(run["expired"].as_u64().unwrap(), expired, "{run}");
}

/// Mei with five matches whose other member wrote last: answers the five men and the man she has
/// not liked yet.
async fn five_waiting_on_mei(app: &TestApp) -> (Member, Vec<Member>, Member) {
    let (mei, _) = approved(app, 0, true).await;
    let mut men = Vec::new();
    for n in 1..=6 {
        men.push(approved(app, n, false).await.0);
    }
    let listed = listed_ids(&introductions(app, &mei).await);
    assert_eq!(listed.len(), 5, "{listed:?}");
    let (matched_men, rest): (Vec<Member>, Vec<Member>) =
        men.into_iter().partition(|m| listed.contains(&m.id));
    let sixth = rest.into_iter().next().unwrap();
    for (n, man) in matched_men.iter().enumerate() {
        matched(app, man, &mei).await;
        let id = match_of(app, &mei, man).await;
        ok_json(post(app, man, id, &client_id(n), "how was your weekend?").await).await;
    }
    (mei, matched_men, sixth)
}

async fn a_like_waits_while_five_conversations_wait_on_the_members_reply(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, men, sixth) = five_waiting_on_mei(&app).await;
    // Under a day: not her turn yet.
    app.clock().advance(DAY - 60);
    assert!(
        matches_of(&app, &mei)
            .await
            .iter()
            .all(|m| m["yourTurn"] == false)
    );
    app.clock().advance(60);
    let listed = matches_of(&app, &mei).await;
    assert_eq!(
        listed.iter().filter(|m| m["yourTurn"] == true).count(),
        5,
        "{listed:?}"
    );
    // Nobody waits on the men: they wrote last.
    assert!(
        matches_of(&app, &men[0])
            .await
            .iter()
            .all(|m| m["yourTurn"] == false)
    );
    // The sixth man is in her list of the new day; her like is held, nothing stored.
    assert!(listed_ids(&introductions(&app, &mei).await).contains(&sixth.id));
    let held = assert_error(like(&app, &mei, sixth.id).await, 409, "E005").await;
    assert_eq!(held["fields"], json!({"yourTurn": ["too_many"]}), "{held}");
    assert!(
        !held.to_string().contains("Nick"),
        "it names nobody: {held}"
    );
    assert_eq!(
        number(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM reactions WHERE viewer_id = {} AND target_id = {}",
                mei.id, sixth.id
            )
        )
        .await,
        0
    );
    // Racing likes are held alike.
    let (a, b) = tokio::join!(like(&app, &mei, sixth.id), like(&app, &mei, sixth.id));
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (409, 409));

    // She replies to one: four wait, and the like goes through.
    let first = match_of(&app, &mei, &men[0]).await;
    ok_json(post(&app, &mei, first, &client_id(100), "lovely, thanks!").await).await;
    ok_json(like(&app, &mei, sixth.id).await).await;

    // Once the pile is back at five (another man answered her and waits a day), ending one
    // (unmatch) is the other way out; a repeat like is never held.
    ok_json(post(&app, &men[0], first, &client_id(101), "great!").await).await;
    app.clock().advance(DAY);
    ok_json(like(&app, &mei, sixth.id).await).await;
    let r = send(
        &app,
        Method::DELETE,
        &format!("/api/matches/{first}"),
        &mei.user.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 204);
    let waiting = matches_of(&app, &mei)
        .await
        .iter()
        .filter(|m| m["yourTurn"] == true)
        .count();
    assert_eq!(waiting, 4);
}

async fn strangers_and_unapproved_members_get_nothing_and_no_answer_names_more_than_the_nickname(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    // No session, a bad token: nothing.
    assert_error(app.get("/api/expired-matches", None).await, 401, "E001").await;
    assert_error(
        app.get("/api/expired-matches", Some("not-a-token")).await,
        401,
        "E001A",
    )
    .await;
    let r = app
        .client
        .post(app.url("/api/introductions/1/like"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // A member not approved: 403 E004.
    let (pending, _) = register(&app, 9, true).await;
    assert_error(
        app.get("/api/expired-matches", Some(&pending.user.token))
            .await,
        403,
        "E004",
    )
    .await;

    // Privacy: an expired match lists the other by nickname only.
    let (mut mei, mut kai, id) = matched_pair(&app, 0).await;
    let secrets: [Secrets; 2] = [
        crate::matchmaking::secrets_of(0, true),
        crate::matchmaking::secrets_of(1, false),
    ];
    app.clock().advance(7 * DAY);
    run_job(&app).await;
    fresh(&app, &mut [&mut mei, &mut kai]).await;
    for m in [&mei, &kai] {
        let answer = ok_json(app.get("/api/expired-matches", Some(&m.user.token)).await).await;
        let entry = answer[0].as_object().unwrap();
        let mut keys: Vec<&str> = entry.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["expiredAt", "matchId", "matchedAt", "nickname"]);
        assert_eq!(entry["matchId"], id);
        let text = answer.to_string();
        for s in &secrets {
            let (lat, lon) = (s.latitude.to_string(), s.longitude.to_string());
            for private in [
                s.name.as_str(),
                s.birthday,
                s.address.as_str(),
                s.email.as_str(),
                s.income,
                s.employer,
                lat.as_str(),
                lon.as_str(),
            ] {
                assert!(!text.contains(private), "{private} in {text}");
            }
        }
    }
    // Blocked since: no longer listed to either.
    let r = send(
        &app,
        Method::POST,
        "/api/blocks",
        &mei.user.token,
        Some(json!({"memberId": kai.id})),
    )
    .await;
    assert_eq!(r.status().as_u16() / 100, 2, "{:?}", r.text().await);
    assert!(expired_of(&app, &mei).await.is_empty());
    assert!(expired_of(&app, &kai).await.is_empty());
}

async fn the_funnel_counts_expired_matches(backend: Backend) {
    let app = spawn_app(backend).await;
    let day = app.state.settings.clock.taipei_today();
    matched_pair(&app, 0).await;
    let (ann, _, talked) = matched_pair(&app, 2).await;
    ok_json(post(&app, &ann, talked, &client_id(1), "hello").await).await;
    app.clock().advance(7 * DAY);
    run_job(&app).await;
    let stages = kizuna_server::storage::funnel::stages(&app.db, day, day)
        .await
        .unwrap();
    assert_eq!((stages.matches, stages.expired), (2, 1), "{stages:?}");
    assert!(
        stages
            .table("t")
            .contains("expired, nobody wrote            1  50.0% of matches"),
        "{}",
        stages.table("t")
    );
}

on_both_backends!(
    a_silent_match_is_reminded_once_on_day_three_and_expires_on_day_seven,
    a_match_with_any_message_is_never_reminded_nor_expired,
    two_runs_racing_remind_and_expire_each_match_once,
    a_message_racing_the_expiry_keeps_the_match_or_is_refused_never_both,
    a_like_waits_while_five_conversations_wait_on_the_members_reply,
    strangers_and_unapproved_members_get_nothing_and_no_answer_names_more_than_the_nickname,
    the_funnel_counts_expired_matches,
);
