//! "We met", on SQLite and PostgreSQL: a member is asked a few days after both members of a live
//! match wrote (never before, never when only one wrote), in the app and by one push however many
//! runs of the job race; the answer is stored once and is the member's alone (the other member's
//! every answer reads the same before and after it, and only the answering member's data copy
//! holds it); bad input, strangers, members not approved, the rate limit; the answers' weight in
//! the pool, the funnel and a departure. And the usual review time from seeded and real first
//! decisions, with its too-little-data case, its callers and its limit.

use kizuna_core::rules::{REVIEW_TIME_MIN_DECISIONS, WE_MET_ASK_AFTER_DAYS};
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    chat::{matched_pair, post},
    export::{download, ready_copy},
    helpers::{Backend, TestApp, assert_error, number, reviewer, spawn_app},
    matchmaking::{Member, approved, ok_json, register, secrets_of, send},
    on_both_backends,
};

const DAY: i64 = 86_400;

async fn questions(app: &TestApp, m: &Member) -> Value {
    ok_json(app.get("/api/we-met", Some(&m.user.token)).await).await
}

async fn answer(app: &TestApp, m: &Member, match_id: i64, body: Value) -> reqwest::Response {
    send(
        app,
        Method::POST,
        &format!("/api/we-met/{match_id}"),
        &m.user.token,
        Some(body),
    )
    .await
}

async fn we_met_pushes(app: &TestApp, to: &Member) -> i64 {
    number(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM push_outbox WHERE kind = 'we_met' AND line_user_id = '{}'",
            to.user.line_id
        ),
    )
    .await
}

async fn run_job(app: &TestApp) -> usize {
    kizuna_server::we_met::run_once(&app.state).await.unwrap()
}

/// Mei and Kai matched and both wrote; the clock moved until the question is due.
async fn due_pair(app: &TestApp) -> (Member, Member, i64) {
    let (mut mei, mut kai, match_id) = matched_pair(app, 0).await;
    ok_json(post(app, &mei, match_id, "client-0001", "hello Kai").await).await;
    ok_json(post(app, &kai, match_id, "client-0002", "hello Mei").await).await;
    app.clock().advance(WE_MET_ASK_AFTER_DAYS * DAY);
    app.sign_in_again(&mut mei.user).await;
    app.sign_in_again(&mut kai.user).await;
    (mei, kai, match_id)
}

async fn asked_after_both_wrote_and_the_days_passed_once_by_push(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mut mei, mut kai, match_id) = matched_pair(&app, 0).await;
    let (mut bo, _) = approved(&app, 2, false).await;
    ok_json(post(&app, &mei, match_id, "client-0001", "hello Kai").await).await;
    // Only Mei wrote: nobody is asked, however long it has been.
    app.clock().advance((WE_MET_ASK_AFTER_DAYS + 1) * DAY);
    for m in [&mut mei, &mut kai, &mut bo] {
        app.sign_in_again(&mut m.user).await;
    }
    assert_eq!(questions(&app, &mei).await, json!([]));
    assert_eq!(questions(&app, &kai).await, json!([]));
    assert_eq!(run_job(&app).await, 0);
    let r = answer(&app, &mei, match_id, json!({"met": false})).await;
    assert_error(r, 409, "E005").await;

    // Kai answers now: the days count from his first message, the later one.
    ok_json(post(&app, &kai, match_id, "client-0002", "hello Mei").await).await;
    app.clock().advance(WE_MET_ASK_AFTER_DAYS * DAY - 60);
    assert_eq!(questions(&app, &mei).await, json!([]));
    assert_eq!(run_job(&app).await, 0);
    app.clock().advance(60);
    assert_eq!(
        questions(&app, &mei).await,
        json!([{"matchId": match_id, "memberId": kai.id, "nickname": "Nick1"}])
    );
    assert_eq!(
        questions(&app, &kai).await,
        json!([{"matchId": match_id, "memberId": mei.id, "nickname": "Nick0"}])
    );
    // A stranger is asked nothing and may answer nothing.
    assert_eq!(questions(&app, &bo).await, json!([]));
    let r = answer(&app, &bo, match_id, json!({"met": false})).await;
    assert_error(r, 404, "E003").await;

    // Two runs at once, one through a pool of its own as a second process would have: each
    // member is pushed exactly once.
    let second = kizuna_server::storage::connect(&app.database_url, Some(2))
        .await
        .unwrap();
    let now = app.clock().now_secs();
    let (a, b) = tokio::join!(
        kizuna_server::usecases::we_met::ask_due(&app.db, now),
        kizuna_server::usecases::we_met::ask_due(&second, now),
    );
    let (a, b) = (a.unwrap().0, b.unwrap().0);
    assert_eq!(a + b, 2, "{a} + {b}");
    assert_eq!(run_job(&app).await, 0);
    assert_eq!(we_met_pushes(&app, &mei).await, 1);
    assert_eq!(we_met_pushes(&app, &kai).await, 1);
    assert_eq!(we_met_pushes(&app, &bo).await, 0);
    // The push is the kind and the match; the nickname is read when it is sent.
    let subject = number(
        &app,
        &format!(
            "SELECT COUNT(*) AS n FROM push_outbox WHERE kind = 'we_met' \
             AND subject = '{{\"push\":\"we_met\",\"match_id\":{match_id}}}'"
        ),
    )
    .await;
    assert_eq!(subject, 2);
    // Still unanswered: the question stays in the app.
    assert_eq!(questions(&app, &mei).await.as_array().unwrap().len(), 1);
}

/// Every answer Kai reads about Mei and their match, to compare before and after her answer.
async fn kais_views(app: &TestApp, kai: &Member, mei: &Member, match_id: i64) -> Vec<Value> {
    let mut out = Vec::new();
    for path in [
        "/api/matches".to_string(),
        format!("/api/members/{}", mei.id),
        format!("/api/matches/{match_id}/messages"),
        "/api/we-met".to_string(),
        "/api/introductions".to_string(),
        "/api/likes".to_string(),
        "/api/removal-notices".to_string(),
    ] {
        out.push(ok_json(app.get(&path, Some(&kai.user.token)).await).await);
    }
    out
}

async fn an_answer_is_stored_once_and_the_other_member_never_learns_it(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, match_id) = due_pair(&app).await;
    let before = kais_views(&app, &kai, &mei, match_id).await;
    // The question names the other member by nickname, nothing private of theirs.
    let asked = questions(&app, &mei).await.to_string();
    let his = secrets_of(1, false);
    for secret in [his.name, his.address, his.email, his.birthday.to_string()] {
        assert!(!asked.contains(&secret), "{secret} in {asked}");
    }

    let r = answer(&app, &mei, match_id, json!({"met": true, "seeAgain": true})).await;
    assert_eq!(r.status(), 204, "{}", r.text().await.unwrap());
    // The same again changes nothing; another answer is refused and the first stands.
    let r = answer(&app, &mei, match_id, json!({"met": true, "seeAgain": true})).await;
    assert_eq!(r.status(), 204);
    let r = answer(&app, &mei, match_id, json!({"met": false})).await;
    assert_error(r, 409, "E005").await;
    assert_eq!(questions(&app, &mei).await, json!([]));

    // Kai reads exactly what he read before, and is still asked his own question.
    let after = kais_views(&app, &kai, &mei, match_id).await;
    assert_eq!(before, after);
    assert_eq!(
        questions(&app, &kai).await,
        json!([{"matchId": match_id, "memberId": mei.id, "nickname": "Nick0"}])
    );

    // Only Mei's copy holds her answer; Kai's holds none about him.
    let mine: Value = serde_json::from_slice(
        &download(&app, &ready_copy(&app, &mei).await)
            .await
            .into_iter()
            .find(|(n, _)| n == "data.json")
            .unwrap()
            .1,
    )
    .unwrap();
    let answers = mine["weMet"].as_array().unwrap();
    assert_eq!(answers.len(), 1, "{mine}");
    assert_eq!(answers[0]["matchId"], match_id);
    assert_eq!(
        answers[0]["with"],
        json!({"memberId": kai.id, "nickname": "Nick1"})
    );
    assert_eq!(
        (&answers[0]["met"], &answers[0]["seeAgain"]),
        (&json!(true), &json!(true))
    );
    let his: Value = serde_json::from_slice(
        &download(&app, &ready_copy(&app, &kai).await)
            .await
            .into_iter()
            .find(|(n, _)| n == "data.json")
            .unwrap()
            .1,
    )
    .unwrap();
    assert_eq!(his["weMet"], json!([]), "{his}");

    // Kai answers "not met": stored as his, still private.
    let r = answer(&app, &kai, match_id, json!({"met": false})).await;
    assert_eq!(r.status(), 204);
    assert_eq!(questions(&app, &kai).await, json!([]));

    // The pick's weight: Kai counts one member who wants to see him again, Mei none.
    let mut pool = Vec::new();
    kizuna_server::storage::match_pool::approved(&app.db, |row| {
        pool.push(row);
        Ok(())
    })
    .await
    .unwrap();
    let seen = |id: i64| {
        pool.iter()
            .find(|r| r.row.profile_id == id)
            .unwrap()
            .seen_again
    };
    assert_eq!((seen(kai.id), seen(mei.id)), (1, 0));

    // The funnel of today: one "we met" (Mei's), one "want to see again".
    let today = app.clock().taipei_today();
    let stages = kizuna_server::storage::funnel::stages(&app.db, today, today)
        .await
        .unwrap();
    assert_eq!((stages.we_met, stages.see_again), (1, 1), "{stages:?}");

    // The answers go with the match when either member leaves.
    let r = send(
        &app,
        Method::DELETE,
        "/api/user/account",
        &kai.user.token,
        Some(json!({"lineAccessToken": null})),
    )
    .await;
    assert!(r.status().is_success());
    assert_eq!(number(&app, "SELECT COUNT(*) AS n FROM we_met").await, 0);
}

async fn bad_input_strangers_and_the_rate_limit_are_refused(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, match_id) = due_pair(&app).await;
    let path = format!("/api/we-met/{match_id}");

    let r = answer(&app, &mei, match_id, json!({"met": true})).await;
    let body = assert_error(r, 422, "E002").await;
    assert_eq!(body["fields"]["seeAgain"], json!(["required"]));
    let r = answer(
        &app,
        &mei,
        match_id,
        json!({"met": false, "seeAgain": true}),
    )
    .await;
    let body = assert_error(r, 422, "E002").await;
    assert_eq!(body["fields"]["seeAgain"], json!(["invalid"]));
    let r = answer(&app, &mei, match_id, json!({"met": "yes"})).await;
    assert_error(r, 400, "E002").await;
    let r = answer(&app, &mei, match_id, json!({"met": false, "where": "cafe"})).await;
    assert_error(r, 400, "E002").await;
    let r = send(
        &app,
        Method::POST,
        "/api/we-met/abc",
        &mei.user.token,
        Some(json!({"met": false})),
    )
    .await;
    assert!(r.status().is_client_error());
    let r = answer(&app, &mei, match_id + 1000, json!({"met": false})).await;
    assert_error(r, 404, "E003").await;
    // Without a session.
    let r = app.client.get(app.url("/api/we-met")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let r = app
        .client
        .post(app.url(&path))
        .json(&json!({"met": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // A member not approved takes no part.
    let (pending, _) = register(&app, 4, true).await;
    let r = app.get("/api/we-met", Some(&pending.user.token)).await;
    assert_error(r, 403, "E004").await;
    let r = answer(&app, &pending, match_id, json!({"met": false})).await;
    assert_error(r, 403, "E004").await;
    // Nothing was stored by any of it.
    assert_eq!(number(&app, "SELECT COUNT(*) AS n FROM we_met").await, 0);

    // A member hammering the answer is held back with Retry-After.
    let mut throttled = None;
    for _ in 0..40 {
        let r = answer(
            &app,
            &kai,
            match_id,
            json!({"met": true, "seeAgain": false}),
        )
        .await;
        if r.status() == 429 {
            throttled = Some(r);
            break;
        }
    }
    let r = throttled.expect("429 within 40 answers");
    assert!(r.headers().contains_key("retry-after"));
    assert_error(r, 429, "E007").await;

    // An ended match is asked about no more, and answers are refused.
    let r = send(
        &app,
        Method::DELETE,
        &format!("/api/matches/{match_id}"),
        &mei.user.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 204);
    assert_eq!(questions(&app, &mei).await, json!([]));
    let r = answer(&app, &mei, match_id, json!({"met": false})).await;
    assert_error(r, 404, "E003").await;
}

async fn review_time(app: &TestApp, token: &str) -> Value {
    ok_json(app.get("/api/review-time", Some(token)).await).await
}

/// Seeds a wait: the profile became PENDING at `from` and was decided `waited` seconds later.
async fn seed_wait(app: &TestApp, profile: i64, from: i64, waited: i64) {
    for (from_status, to_status, action, at) in [
        ("REJECTED", "PENDING", "RESUBMIT", from),
        ("PENDING", "REJECTED", "REJECT", from + waited),
    ] {
        app.db
            .execute_raw(sea_orm::Statement::from_string(
                app.db.get_database_backend(),
                format!(
                    "INSERT INTO review_history (profile_id, from_status, to_status, actor, \
                     created_at, action) VALUES ({profile}, '{from_status}', '{to_status}', \
                     'reviewer', {at}, '{action}')"
                ),
            ))
            .await
            .unwrap();
    }
}

async fn the_usual_review_time_comes_from_the_last_weeks_first_decisions(backend: Backend) {
    let app = spawn_app(backend).await;
    let (waiting, _) = register(&app, 0, true).await;
    let (seeded, _) = register(&app, 1, true).await;
    let now = app.clock().now_secs();
    const HOUR: i64 = 3600;
    // Nine waits of 1 to 9 hours in the last six days, and a long one eight days ago (outside).
    for i in 1..=9 {
        seed_wait(&app, seeded.id, now - 6 * DAY + i * 10 * HOUR, i * HOUR).await;
    }
    seed_wait(&app, seeded.id, now - 9 * DAY, 30 * HOUR).await;
    let body = review_time(&app, &waiting.user.token).await;
    assert_eq!(
        body,
        json!({"decisions": 9, "windowDays": 7, "usual": null, "minDecisions": REVIEW_TIME_MIN_DECISIONS})
    );

    // A real first decision 10 hours after the submission makes ten: figures now.
    let (mut sue, _) = register(&app, 2, true).await;
    app.clock().advance(10 * HOUR);
    let reviewer = reviewer(&app).await;
    let r = send(
        &app,
        Method::POST,
        &format!("/api/review/profiles/{}/decision", sue.id),
        &reviewer,
        Some(json!({"action": "APPROVE", "employer": "tsmc", "version": 1})),
    )
    .await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    app.sign_in_again(&mut sue.user).await;
    let body = review_time(&app, &sue.user.token).await;
    assert_eq!(body["decisions"], 10, "{body}");
    // Nearest rank of ten waits (1 h … 9 h, ~10 h): the 5th and the 9th.
    assert_eq!(
        body["usual"],
        json!({"medianSecs": 5 * HOUR, "p90Secs": 9 * HOUR}),
        "{body}"
    );

    // Without a session: 401. Hammering: 429 with Retry-After, nothing else refused.
    let r = app
        .client
        .get(app.url("/api/review-time"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let mut throttled = None;
    for _ in 0..40 {
        let r = app.get("/api/review-time", Some(&waiting.user.token)).await;
        if r.status() == 429 {
            throttled = Some(r);
            break;
        }
        assert_eq!(r.status(), 200);
    }
    let r = throttled.expect("429 within 40 look-ups");
    assert!(r.headers().contains_key("retry-after"));
    assert_error(r, 429, "E007").await;
}

on_both_backends!(
    asked_after_both_wrote_and_the_days_passed_once_by_push,
    an_answer_is_stored_once_and_the_other_member_never_learns_it,
    bad_input_strangers_and_the_rate_limit_are_refused,
    the_usual_review_time_comes_from_the_last_weeks_first_decisions,
);
