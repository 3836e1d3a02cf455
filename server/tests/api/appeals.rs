//! A second look at a suspension over HTTP: the suspended member signs in again and appeals once
//! from their own account; a reviewer other than the one who suspended answers it (upheld or
//! reinstated); the member is pushed the answer in their language; the history keeps it. Abuse,
//! strangers, bad input and races change nothing they should not.

use std::time::{Duration, Instant};

use kizuna_server::storage::{entity::push_outbox, profiles, users};
use reqwest::{Method, Response};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::{
    helpers::{Api, Backend, TestApp, User, assert_error, jpeg, profile_payload, spawn_app},
    review::make_reviewer,
};

async fn call(api: &Api, method: Method, path: &str, token: &str, body: Option<Value>) -> Response {
    let mut req = api.client.request(method, api.url(path)).bearer_auth(token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.unwrap()
}

async fn json_of(r: Response, status: u16) -> Value {
    let got = r.status();
    let text = r.text().await.unwrap();
    assert_eq!(got, status, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// A member in `locale` approved and then suspended for SCAM by `suspender`, signed in again
/// (the suspension ended their sessions); answers them and their profile id.
async fn suspended_member(app: &TestApp, suspender: &User, locale: &str) -> (User, i64) {
    let mut user = app.new_user_in(locale).await;
    let photos = vec![app.upload_ok(&user.token, jpeg(64, 48)).await];
    let verify = app.upload_ok(&user.token, jpeg(48, 32)).await;
    let payload = profile_payload(&user.line_id, &photos, &verify);
    let r = app.create_profile(Some(&user.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let row = users::find_by_line_id(&app.db, &user.line_id)
        .await
        .unwrap()
        .unwrap();
    let pid = profiles::find_row(&app.db, row.id)
        .await
        .unwrap()
        .unwrap()
        .id;
    for decision in [
        json!({"action": "APPROVE", "employer": "tsmc", "version": 1}),
        json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": 2}),
    ] {
        let r = call(
            app,
            Method::POST,
            &format!("/api/review/profiles/{pid}/decision"),
            &suspender.token,
            Some(decision),
        )
        .await;
        json_of(r, 200).await;
    }
    app.sign_in_again(&mut user).await;
    (user, pid)
}

async fn my_info(app: &TestApp, user: &User) -> Value {
    json_of(app.get("/api/user/my-info", Some(&user.token)).await, 200).await
}

async fn appeal(app: &TestApp, user: &User, body: Value) -> Response {
    call(
        app,
        Method::POST,
        "/api/user/appeal",
        &user.token,
        Some(body),
    )
    .await
}

async fn queue(app: &TestApp, reviewer: &User) -> Value {
    json_of(
        call(
            app,
            Method::GET,
            "/api/review/appeals",
            &reviewer.token,
            None,
        )
        .await,
        200,
    )
    .await
}

async fn answer(app: &TestApp, reviewer: &User, appeal_id: i64, body: Value) -> Response {
    call(
        app,
        Method::POST,
        &format!("/api/review/appeals/{appeal_id}/decision"),
        &reviewer.token,
        Some(body),
    )
    .await
}

async fn appeal_id(app: &TestApp, pid: i64) -> i64 {
    let row = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!("SELECT id FROM appeals WHERE profile_id = {pid}"),
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "id").unwrap()
}

async fn count(app: &TestApp, query: &str) -> i64 {
    let row = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            query.to_string(),
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get_by_index::<i64>(0).unwrap()
}

/// The texts (altText) of every push LINE accepted for `line_id`, once all `expected` rows left
/// the outbox.
async fn delivered(app: &TestApp, line_id: &str, expected: usize) -> Vec<String> {
    let started = Instant::now();
    loop {
        let rows = push_outbox::Entity::find()
            .filter(push_outbox::Column::LineUserId.eq(line_id))
            .all(&app.db)
            .await
            .unwrap();
        if rows.len() >= expected && rows.iter().all(|r| r.status != "pending") {
            assert_eq!(rows.len(), expected, "{rows:?}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "pushes not settled: {rows:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.pushes()
        .await
        .iter()
        .filter(|p| p["to"] == line_id)
        .map(|p| p["messages"][0]["altText"].as_str().unwrap().to_string())
        .collect()
}

async fn a_second_reviewer_reinstates_a_suspended_member_who_appealed(backend: Backend) {
    let app = spawn_app(backend).await;
    let (ana, bo) = (make_reviewer(&app).await, make_reviewer(&app).await);
    let (mei, pid) = suspended_member(&app, &ana, "ja").await;

    // Signed in again, she reads the statement of reasons and may appeal.
    let info = my_info(&app, &mei).await;
    assert_eq!(info["reviewStatus"], "SUSPENDED");
    assert_eq!(info["reviewDecision"]["action"], "SUSPEND");
    assert_eq!(info["reviewDecision"]["reasons"], json!(["SCAM"]));
    assert_eq!(info["mayAppeal"], true);
    assert_eq!(info["appeal"], Value::Null);

    let sent = json_of(
        appeal(
            &app,
            &mei,
            json!({"text": "  My account was used by someone else.  "}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(sent["status"], "PENDING");
    assert_eq!(sent["text"], "My account was used by someone else.");
    let info = my_info(&app, &mei).await;
    assert_eq!(info["mayAppeal"], false);
    assert_eq!(info["appeal"]["status"], "PENDING");
    assert_eq!(info["reviewDecision"]["action"], "SUSPEND");

    // Once per suspension.
    let before = app.snapshot().await;
    assert_error(
        appeal(&app, &mei, json!({"text": "Again"})).await,
        409,
        "E005",
    )
    .await;
    assert_eq!(app.snapshot().await, before);

    // The suspending reviewer neither sees it nor may answer it.
    assert_eq!(queue(&app, &ana).await["items"], json!([]));
    let id = appeal_id(&app, pid).await;
    assert_error(
        answer(&app, &ana, id, json!({"outcome": "REINSTATED"})).await,
        403,
        "E004",
    )
    .await;
    assert_eq!(app.snapshot().await, before);

    // Another reviewer does: its own kind of item, with how long it has waited.
    let seen = queue(&app, &bo).await;
    let items = seen["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let item = &items[0];
    assert_eq!(item["appealId"], id);
    assert_eq!(item["profileId"], pid);
    assert_eq!(item["text"], "My account was used by someone else.");
    assert_eq!(item["reasons"], json!(["SCAM"]));
    assert!(item["waitedSecs"].as_i64().unwrap() >= 0);
    // Nothing private of the member rides on it (name, birthday, e-mail, income, address...).
    let mut keys: Vec<&str> = item
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "appealId",
            "nickname",
            "profileId",
            "reasons",
            "submittedAt",
            "suspendedAt",
            "suspensionNote",
            "text",
            "waitedSecs"
        ]
    );

    let answered = json_of(
        answer(
            &app,
            &bo,
            id,
            json!({"outcome": "REINSTATED", "note": "Thank you for explaining."}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(answered["status"], "REINSTATED");
    let info = my_info(&app, &mei).await;
    assert_eq!(info["reviewStatus"], "APPROVED");
    assert_eq!(info["reviewDecision"]["action"], "REINSTATE");
    assert_eq!(info["appeal"]["status"], "REINSTATED");
    assert_eq!(info["appeal"]["note"], "Thank you for explaining.");
    assert_eq!(info["mayAppeal"], false);
    // Answered once: a second answer is a conflict, and the queue is empty.
    assert_error(
        answer(&app, &bo, id, json!({"outcome": "UPHELD"})).await,
        409,
        "E005",
    )
    .await;
    assert_eq!(queue(&app, &bo).await["items"], json!([]));
    // The history keeps it: the reinstatement by the second reviewer.
    let history = json_of(
        call(
            &app,
            Method::GET,
            &format!("/api/review/profiles/{pid}"),
            &bo.token,
            None,
        )
        .await,
        200,
    )
    .await["history"]
        .clone();
    let last = history.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["action"], "REINSTATE");
    assert_eq!(last["note"], "Thank you for explaining.");
    // Pushed in her language: approval, suspension, then the appeal's answer.
    let texts = delivered(&app, &mei.line_id, 3).await;
    assert!(
        texts
            .iter()
            .any(|t| t.contains("申し立ての結果：アカウントを復元しました")),
        "{texts:?}"
    );
    // She is a member again: the service answers her.
    assert_eq!(
        app.get("/api/introductions", Some(&mei.token))
            .await
            .status(),
        200
    );
}

async fn an_appeal_upheld_keeps_the_suspension_and_its_statement(backend: Backend) {
    let app = spawn_app(backend).await;
    let (ana, bo) = (make_reviewer(&app).await, make_reviewer(&app).await);
    let (kai, pid) = suspended_member(&app, &ana, "en").await;
    json_of(
        appeal(&app, &kai, json!({"text": "Please look again."})).await,
        201,
    )
    .await;
    let id = appeal_id(&app, pid).await;
    let answered = json_of(
        answer(
            &app,
            &bo,
            id,
            json!({"outcome": "UPHELD", "note": "We read the messages again."}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(answered["status"], "UPHELD");
    let info = my_info(&app, &kai).await;
    assert_eq!(info["reviewStatus"], "SUSPENDED");
    // The statement of reasons still names the suspension and its rule.
    assert_eq!(info["reviewDecision"]["action"], "SUSPEND");
    assert_eq!(info["reviewDecision"]["reasons"], json!(["SCAM"]));
    assert_eq!(info["appeal"]["status"], "UPHELD");
    assert_eq!(info["appeal"]["note"], "We read the messages again.");
    assert_eq!(info["mayAppeal"], false);
    assert_error(
        appeal(&app, &kai, json!({"text": "And again"})).await,
        409,
        "E005",
    )
    .await;
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) FROM review_history WHERE profile_id = {pid} \
                 AND action = 'UPHOLD' AND to_status = 'SUSPENDED'"
            )
        )
        .await,
        1
    );
    let texts = delivered(&app, &kai.line_id, 3).await;
    assert!(
        texts
            .iter()
            .any(|t| t.contains("Your appeal: the suspension stands")),
        "{texts:?}"
    );
    // Still suspended: nothing but the own account.
    assert_error(
        app.get("/api/introductions", Some(&kai.token)).await,
        403,
        "E004",
    )
    .await;
    // Her copy of her data carries what she wrote and how it was answered, not the reviewer's.
    let asked = call(
        &app,
        Method::POST,
        "/api/user/data-export",
        &kai.token,
        None,
    )
    .await;
    let link = json_of(asked, 202).await["downloadUrl"]
        .as_str()
        .unwrap()
        .to_string();
    let started = Instant::now();
    while json_of(
        app.get("/api/user/data-export", Some(&kai.token)).await,
        200,
    )
    .await["status"]
        != "READY"
    {
        assert!(started.elapsed() < Duration::from_secs(10), "no copy");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let entries = crate::export::download(&app, &link).await;
    let data: Value =
        serde_json::from_slice(&entries.iter().find(|(n, _)| n == "data.json").unwrap().1).unwrap();
    assert_eq!(data["appeals"][0]["text"], "Please look again.");
    assert_eq!(data["appeals"][0]["status"], "UPHELD");
    assert!(
        !String::from_utf8_lossy(&entries.iter().find(|(n, _)| n == "data.json").unwrap().1)
            .contains("We read the messages again.")
    );
    // Leaving takes the appeal (her words) with the profile.
    let r = call(
        &app,
        Method::DELETE,
        "/api/user/account",
        &kai.token,
        Some(json!({"lineAccessToken": null})),
    )
    .await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    assert_eq!(count(&app, "SELECT COUNT(*) FROM appeals").await, 0);
}

async fn strangers_members_and_bad_input_change_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    let ana = make_reviewer(&app).await;
    let (mei, pid) = suspended_member(&app, &ana, "en").await;
    let other = app.new_user().await;
    let before = app.snapshot().await;

    // No session.
    for (method, path) in [
        (Method::POST, "/api/user/appeal".to_string()),
        (Method::GET, "/api/review/appeals".to_string()),
        (Method::POST, "/api/review/appeals/1/decision".to_string()),
    ] {
        let r = app
            .client
            .request(method, app.url(&path))
            .json(&json!({"text": "x", "outcome": "UPHELD"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{path}");
    }
    // Bad texts: blank, missing, too long, unknown fields, not JSON.
    let long = "字".repeat(kizuna_core::rules::APPEAL_TEXT.max as usize + 1);
    for (body, field, code) in [
        (json!({"text": "  "}), "text", "required"),
        (json!({}), "text", "required"),
        (json!({"text": long}), "text", "too_long"),
    ] {
        let refused = assert_error(appeal(&app, &mei, body).await, 422, "E002").await;
        assert_eq!(refused["fields"][field], json!([code]));
    }
    let r = appeal(&app, &mei, json!({"text": "ok", "reviewer": 1})).await;
    assert_eq!(r.status(), 400);
    assert_eq!(app.snapshot().await, before);

    // A member who is not suspended has nothing to appeal; a member is no reviewer.
    assert_error(
        appeal(&app, &other, json!({"text": "Let me in"})).await,
        403,
        "E004",
    )
    .await;
    assert_error(
        call(&app, Method::GET, "/api/review/appeals", &other.token, None).await,
        403,
        "E004",
    )
    .await;
    assert_eq!(app.snapshot().await, before);

    json_of(
        appeal(&app, &mei, json!({"text": "Please look again."})).await,
        201,
    )
    .await;
    let id = appeal_id(&app, pid).await;
    let bo = make_reviewer(&app).await;
    let before = app.snapshot().await;
    // The member cannot answer her own appeal: she is no reviewer.
    assert_error(
        answer(&app, &mei, id, json!({"outcome": "REINSTATED"})).await,
        403,
        "E004",
    )
    .await;
    for (body, field, code) in [
        (json!({"outcome": "PENDING"}), "outcome", "invalid_choice"),
        (json!({"outcome": " "}), "outcome", "required"),
        (
            json!({"outcome": "UPHELD", "note": "n".repeat(501)}),
            "note",
            "too_long",
        ),
    ] {
        let refused = assert_error(answer(&app, &bo, id, body).await, 422, "E002").await;
        assert_eq!(refused["fields"][field], json!([code]));
    }
    assert_error(
        answer(&app, &bo, id + 1000, json!({"outcome": "UPHELD"})).await,
        404,
        "E003",
    )
    .await;
    assert_eq!(app.snapshot().await, before);
}

async fn racing_appeals_make_one_and_racing_answers_make_one(backend: Backend) {
    let app = spawn_app(backend).await;
    let ana = make_reviewer(&app).await;
    let (bo, cy) = (make_reviewer(&app).await, make_reviewer(&app).await);
    for round in 0..3 {
        let (mei, pid) = suspended_member(&app, &ana, "en").await;
        let (a, b) = tokio::join!(
            appeal(&app, &mei, json!({"text": format!("first {round}")})),
            appeal(&app, &mei, json!({"text": format!("second {round}")}))
        );
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 409]);
        let loser = if a.status() == 409 { a } else { b };
        assert_error(loser, 409, "E005").await;
        assert_eq!(
            count(
                &app,
                &format!("SELECT COUNT(*) FROM appeals WHERE profile_id = {pid}")
            )
            .await,
            1
        );

        let id = appeal_id(&app, pid).await;
        let (a, b) = tokio::join!(
            answer(&app, &bo, id, json!({"outcome": "REINSTATED"})),
            answer(&app, &cy, id, json!({"outcome": "UPHELD"}))
        );
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409]);
        let loser = if a.status() == 409 { a } else { b };
        assert_error(loser, 409, "E005").await;
        // One answer: one history row after the suspension, one push for it.
        assert_eq!(
            count(
                &app,
                &format!(
                    "SELECT COUNT(*) FROM review_history WHERE profile_id = {pid} \
                     AND action IN ('UPHOLD', 'REINSTATE')"
                )
            )
            .await,
            1
        );
        assert_eq!(delivered(&app, &mei.line_id, 3).await.len(), 3);
    }
}

async fn a_member_hammering_the_appeal_is_throttled_and_nothing_is_stored(backend: Backend) {
    let app = spawn_app(backend).await;
    let ana = make_reviewer(&app).await;
    let (mei, _) = suspended_member(&app, &ana, "en").await;
    let before = app.snapshot().await;
    let allowed = kizuna_core::rules::SWITCH_CHANGES_PER_MINUTE;
    for _ in 0..allowed {
        assert_error(appeal(&app, &mei, json!({"text": " "})).await, 422, "E002").await;
    }
    let r = appeal(&app, &mei, json!({"text": "Please look again."})).await;
    assert!(r.headers().contains_key("retry-after"), "{:?}", r.headers());
    assert_error(r, 429, "E007").await;
    assert_eq!(app.snapshot().await, before);
}

crate::on_both_backends!(
    a_member_hammering_the_appeal_is_throttled_and_nothing_is_stored,
    a_second_reviewer_reinstates_a_suspended_member_who_appealed,
    an_appeal_upheld_keeps_the_suspension_and_its_statement,
    strangers_members_and_bad_input_change_nothing,
    racing_appeals_make_one_and_racing_answers_make_one,
);
