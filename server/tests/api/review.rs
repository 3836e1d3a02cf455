//! The review flow over HTTP: the reviewer role, the queue and a profile's review, claims,
//! decisions (with their races and pushes), a rejected member editing and resubmitting, and who
//! may see the proof of employment.

use std::time::{Duration, Instant};

use kizuna_server::storage::{
    self,
    entity::{push_outbox, review_history},
    profiles, users,
};
use reqwest::{Method, Response};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::{
    email_code::{confirm, last_code, send_ok},
    helpers::{
        Api, Backend, User, assert_error, empty_database, jpeg, profile_payload, scratch_database,
        scratch_dir, spawn_app,
    },
    process::Server,
};

/// A registered member and the files of their profile.
struct Member {
    user: User,
    photos: Vec<String>,
    verify: String,
    payload: Value,
}

async fn call(api: &Api, method: Method, path: &str, token: &str, body: Option<Value>) -> Response {
    let mut req = api.client.request(method, api.url(path)).bearer_auth(token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.unwrap()
}

pub(crate) async fn make_reviewer(api: &Api) -> User {
    let user = api.new_user().await;
    api.mock_post("/__mock/reviewers", json!({"userId": user.line_id}))
        .await;
    user
}

async fn register_in(api: &Api, locale: &str) -> Member {
    let user = api.new_user_in(locale).await;
    let photos = vec![api.upload_ok(&user.token, jpeg(64, 48)).await];
    let verify = api.upload_ok(&user.token, jpeg(48, 32)).await;
    let payload = profile_payload(&user.line_id, &photos, &verify);
    let r = api.create_profile(Some(&user.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    Member {
        user,
        photos,
        verify,
        payload,
    }
}

async fn register(api: &Api) -> Member {
    register_in(api, "en").await
}

async fn profile_id(db: &sea_orm::DatabaseConnection, line_id: &str) -> i64 {
    let user = users::find_by_line_id(db, line_id).await.unwrap().unwrap();
    profiles::find_row(db, user.id).await.unwrap().unwrap().id
}

async fn ok_json(r: Response) -> Value {
    let status = r.status();
    let text = r.text().await.unwrap();
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

async fn view(api: &Api, reviewer: &User, pid: i64) -> Value {
    ok_json(
        call(
            api,
            Method::GET,
            &format!("/api/review/profiles/{pid}"),
            &reviewer.token,
            None,
        )
        .await,
    )
    .await
}

async fn decide(api: &Api, reviewer: &User, pid: i64, body: Value) -> Response {
    call(
        api,
        Method::POST,
        &format!("/api/review/profiles/{pid}/decision"),
        &reviewer.token,
        Some(body),
    )
    .await
}

async fn claim(api: &Api, reviewer: &User, pid: i64) -> Response {
    call(
        api,
        Method::POST,
        &format!("/api/review/profiles/{pid}/claim"),
        &reviewer.token,
        None,
    )
    .await
}

async fn my_info(api: &Api, user: &User) -> Value {
    ok_json(api.get("/api/user/my-info", Some(&user.token)).await).await
}

/// The outbox rows of pushes to a LINE user.
pub(crate) async fn outbox_for(
    db: &sea_orm::DatabaseConnection,
    line_id: &str,
) -> Vec<push_outbox::Model> {
    push_outbox::Entity::find()
        .filter(push_outbox::Column::LineUserId.eq(line_id))
        .all(db)
        .await
        .unwrap()
}

/// Waits until every push to `line_id` has left `pending`; answers the rows.
async fn settled(
    db: &sea_orm::DatabaseConnection,
    line_id: &str,
    limit: Duration,
) -> Vec<push_outbox::Model> {
    let started = Instant::now();
    loop {
        let rows = outbox_for(db, line_id).await;
        if !rows.is_empty() && rows.iter().all(|r| r.status != "pending") {
            return rows;
        }
        assert!(
            started.elapsed() < limit,
            "pushes to {line_id} not settled: {rows:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn pushes_to<'a>(pushes: &'a [Value], line_id: &str) -> Vec<&'a Value> {
    pushes.iter().filter(|p| p["to"] == line_id).collect()
}

/// What a delivered push says in a notification: its Flex Message's altText.
fn push_text(push: &Value) -> &str {
    push["messages"][0]["altText"].as_str().unwrap()
}

async fn decisions(db: &sea_orm::DatabaseConnection, pid: i64) -> Vec<review_history::Model> {
    review_history::Entity::find()
        .filter(review_history::Column::ProfileId.eq(pid))
        .filter(review_history::Column::ReviewerUserId.is_not_null())
        .all(db)
        .await
        .unwrap()
}

async fn every_reviewer_call_refuses_a_member(backend: Backend) {
    let app = spawn_app(backend).await;
    let member = register(&app).await;
    let pid = profile_id(&app.db, &member.user.line_id).await;
    let reviewer = make_reviewer(&app).await;
    let decision = json!({"action": "APPROVE", "employer": "tsmc", "version": 1});
    let calls = [
        (Method::GET, "/api/review/queue".to_string(), None),
        (Method::GET, format!("/api/review/profiles/{pid}"), None),
        (
            Method::POST,
            format!("/api/review/profiles/{pid}/claim"),
            None,
        ),
        (
            Method::DELETE,
            format!("/api/review/profiles/{pid}/claim"),
            None,
        ),
        (
            Method::POST,
            format!("/api/review/profiles/{pid}/decision"),
            Some(decision.clone()),
        ),
    ];
    let before = app.snapshot().await;
    for (method, path, body) in &calls {
        let r = call(&app, method.clone(), path, &member.user.token, body.clone()).await;
        assert_error(r, 403, "E004").await;
        let mut anonymous = app.client.request(method.clone(), app.url(path));
        if let Some(body) = body {
            anonymous = anonymous.json(body);
        }
        assert_error(anonymous.send().await.unwrap(), 401, "E001").await;
    }
    assert_eq!(app.snapshot().await, before, "nothing changed");

    // The role is the server's: shown in my-info, and gone on the next call once removed.
    assert_eq!(my_info(&app, &member.user).await["roles"], json!([]));
    assert_eq!(my_info(&app, &reviewer).await["roles"], json!(["REVIEWER"]));
    assert_eq!(
        call(
            &app,
            Method::GET,
            "/api/review/queue",
            &reviewer.token,
            None
        )
        .await
        .status(),
        200
    );
    let r = app
        .client
        .delete(app.url("/__mock/reviewers"))
        .json(&json!({"userId": reviewer.line_id}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_error(
        call(
            &app,
            Method::GET,
            "/api/review/queue",
            &reviewer.token,
            None,
        )
        .await,
        403,
        "E004",
    )
    .await;
    assert_eq!(my_info(&app, &reviewer).await["roles"], json!([]));
}

async fn a_reviewer_reads_the_queue_and_approves_with_one_push(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut first = register(&app).await;
    app.clock().advance(3600);
    let second = register(&app).await;
    app.clock().advance(60);
    let reviewer = make_reviewer(&app).await;
    let (p1, p2) = (
        profile_id(&app.db, &first.user.line_id).await,
        profile_id(&app.db, &second.user.line_id).await,
    );

    let queue = ok_json(
        call(
            &app,
            Method::GET,
            "/api/review/queue",
            &reviewer.token,
            None,
        )
        .await,
    )
    .await;
    let items = queue["items"].as_array().unwrap();
    let ids: Vec<i64> = items
        .iter()
        .map(|i| i["profileId"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [p1, p2], "oldest first");
    assert!(items[0]["waitedSecs"].as_i64().unwrap() >= 3660, "{queue}");
    assert!(items[1]["waitedSecs"].as_i64().unwrap() >= 60, "{queue}");
    assert_eq!(items[0]["resubmission"], false);
    assert_eq!(items[0]["claim"], Value::Null);
    // The queue answers without private fields.
    assert!(items[0].get("name").is_none() && items[0].get("companyEmail").is_none());

    let seen = view(&app, &reviewer, p1).await;
    assert_eq!(seen["status"], "PENDING");
    assert_eq!(seen["profile"]["name"], "Lin Mei-Ling");
    assert_eq!(seen["photos"], json!(first.photos));
    assert_eq!(seen["verification"]["method"], "EMPLOYEE_ID");
    assert_eq!(seen["verification"]["fileId"], first.verify.as_str());
    assert_eq!(seen["verification"]["companyEmail"], "mei@tsmc.com");
    assert_eq!(seen["verification"]["employer"]["name"], "TSMC");
    assert_eq!(seen["verification"]["emailConfirmed"], false);
    assert_eq!(
        seen["verification"]["reviewLink"],
        "https://www.linkedin.com/in/mei"
    );
    assert_eq!(seen["verification"]["description"], "Team lead");
    assert_eq!(seen["history"].as_array().unwrap().len(), 1);
    assert_eq!(seen["changedFields"], json!([]));
    assert_error(
        call(
            &app,
            Method::GET,
            "/api/review/profiles/999999",
            &reviewer.token,
            None,
        )
        .await,
        404,
        "E003",
    )
    .await;

    let claimed = ok_json(claim(&app, &reviewer, p1).await).await;
    let version = claimed["version"].as_i64().unwrap();
    assert_eq!(
        claimed["expiresAt"].as_i64().unwrap() - claimed["claimedAt"].as_i64().unwrap(),
        15 * 60
    );
    let decided = ok_json(
        decide(
            &app,
            &reviewer,
            p1,
            json!({"action": "APPROVE", "employer": "tsmc", "version": version}),
        )
        .await,
    )
    .await;
    assert_eq!(decided["status"], "APPROVED");
    assert_eq!(decided["version"], version + 1);

    // Deciding again on what was seen: a conflict, never a second decision.
    assert_error(
        decide(
            &app,
            &reviewer,
            p1,
            json!({"action": "REJECT", "reasons": ["PHOTOS_UNCLEAR"], "version": version}),
        )
        .await,
        409,
        "E005",
    )
    .await;
    // On the new version, APPROVE is no transition from APPROVED.
    assert_error(
        decide(
            &app,
            &reviewer,
            p1,
            json!({"action": "APPROVE", "employer": "tsmc", "version": version + 1}),
        )
        .await,
        409,
        "E005",
    )
    .await;
    // Not a decision: 422 with the fields, nothing written.
    for (body, field) in [
        (json!({"action": "REJECT", "version": 1}), "reasons"),
        (
            json!({"action": "APPROVE", "employer": "tsmc", "reasons": ["SCAM"], "version": 1}),
            "reasons",
        ),
        (
            json!({"action": "REJECT", "reasons": ["OTHER"], "version": 1}),
            "note",
        ),
    ] {
        let refused = assert_error(decide(&app, &reviewer, p2, body).await, 422, "E002").await;
        assert!(refused["fields"].get(field).is_some(), "{refused}");
    }
    assert_error(
        decide(
            &app,
            &reviewer,
            p2,
            json!({"action": "RESUBMIT", "version": 1}),
        )
        .await,
        400,
        "E002",
    )
    .await;
    assert!(decisions(&app.db, p2).await.is_empty());

    let rows = settled(&app.db, &first.user.line_id, Duration::from_secs(10)).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].status, "delivered");
    let pushes = app.pushes().await;
    let mine = pushes_to(&pushes, &first.user.line_id);
    assert_eq!(mine.len(), 1, "{pushes:?}");
    assert!(push_text(mine[0]).contains("approved"), "{}", mine[0]);

    let info = my_info(&app, &first.user).await;
    assert_eq!(info["reviewStatus"], "APPROVED");
    assert_eq!(info["reviewDecision"]["action"], "APPROVE");
    // The member never learns who decided.
    assert!(!info.to_string().contains(&reviewer.line_id));
    let history = view(&app, &reviewer, p1).await["history"].clone();
    let last = history.as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["action"].as_str(), last["toStatus"].as_str()),
        (Some("APPROVE"), Some("APPROVED"))
    );
    assert_eq!(last["reviewer"], "Test user");

    // Nobody reviews themselves: a reviewer with a profile of their own.
    let own = register(&app).await;
    app.mock_post("/__mock/reviewers", json!({"userId": own.user.line_id}))
        .await;
    let own_pid = profile_id(&app.db, &own.user.line_id).await;
    assert_error(claim(&app, &own.user, own_pid).await, 403, "E004").await;
    assert_error(
        decide(
            &app,
            &own.user,
            own_pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": 1}),
        )
        .await,
        403,
        "E004",
    )
    .await;
    assert!(decisions(&app.db, own_pid).await.is_empty());

    // Approved members leave the queue.
    let queue = ok_json(
        call(
            &app,
            Method::GET,
            "/api/review/queue",
            &reviewer.token,
            None,
        )
        .await,
    )
    .await;
    assert_eq!(queue["items"].as_array().unwrap().len(), 2);

    // An approved member is suspended with a reason, then reinstated; each is pushed.
    let suspend = json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version + 1});
    let suspended = ok_json(decide(&app, &reviewer, p1, suspend).await).await;
    assert_eq!(suspended["status"], "SUSPENDED");
    // The suspension ended their sessions: they sign in again to read why.
    app.sign_in_again(&mut first.user).await;
    let info = my_info(&app, &first.user).await;
    assert_eq!(info["reviewStatus"], "SUSPENDED");
    assert_eq!(info["reviewDecision"]["reasons"], json!(["SCAM"]));
    let reinstate = json!({"action": "REINSTATE", "version": version + 2});
    let reinstated = ok_json(decide(&app, &reviewer, p1, reinstate).await).await;
    assert_eq!(reinstated["status"], "APPROVED");
    let rows = settled(&app.db, &first.user.line_id, Duration::from_secs(10)).await;
    assert_eq!(rows.len(), 3);
    let pushes = app.pushes().await;
    let texts: Vec<&str> = pushes_to(&pushes, &first.user.line_id)
        .into_iter()
        .map(push_text)
        .collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.contains("suspended") && t.contains("Scam")),
        "{texts:?}"
    );
    // A pending profile cannot be suspended (it would skip review when reinstated).
    let suspend = json!({"action": "SUSPEND", "reasons": ["SPAM"], "version": 1});
    assert_error(decide(&app, &reviewer, p2, suspend).await, 409, "E005").await;
}

async fn two_reviewers_racing_on_one_profile_make_one_decision(backend: Backend) {
    let app = spawn_app(backend).await;
    let (ana, bo) = (make_reviewer(&app).await, make_reviewer(&app).await);
    for _ in 0..3 {
        let member = register(&app).await;
        let pid = profile_id(&app.db, &member.user.line_id).await;
        let approve = json!({"action": "APPROVE", "employer": "tsmc", "version": 1});
        let reject = json!({"action": "REJECT", "reasons": ["PHOTOS_UNCLEAR"], "version": 1});
        let (a, b) = tokio::join!(
            decide(&app, &ana, pid, approve),
            decide(&app, &bo, pid, reject)
        );
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort();
        assert_eq!(statuses, [200, 409]);
        let loser = if a.status() == 409 { a } else { b };
        assert_error(loser, 409, "E005").await;
        assert_eq!(decisions(&app.db, pid).await.len(), 1);
        assert_eq!(outbox_for(&app.db, &member.user.line_id).await.len(), 1);
    }

    // Claims race the same way; the holder decides, the other gets 409 until it lapses.
    let member = register(&app).await;
    let pid = profile_id(&app.db, &member.user.line_id).await;
    let (a, b) = tokio::join!(claim(&app, &ana, pid), claim(&app, &bo, pid));
    let mut statuses = [a.status().as_u16(), b.status().as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409]);
    let (holder, other) = if a.status() == 200 {
        (&ana, &bo)
    } else {
        (&bo, &ana)
    };
    let seen = view(&app, other, pid).await;
    assert_eq!(seen["claim"]["mine"], false);
    assert_error(
        decide(
            &app,
            other,
            pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": 1}),
        )
        .await,
        409,
        "E005",
    )
    .await;
    assert_error(
        call(
            &app,
            Method::DELETE,
            &format!("/api/review/profiles/{pid}/claim"),
            &other.token,
            None,
        )
        .await,
        409,
        "E005",
    )
    .await;
    // An abandoned claim lapses after 15 minutes: then the other may take it.
    app.clock().advance(15 * 60 + 1);
    assert_eq!(claim(&app, other, pid).await.status(), 200);
    assert_error(claim(&app, holder, pid).await, 409, "E005").await;
    let r = call(
        &app,
        Method::DELETE,
        &format!("/api/review/profiles/{pid}/claim"),
        &other.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 204);
    assert_eq!(claim(&app, holder, pid).await.status(), 200);
    assert_eq!(
        decide(
            &app,
            holder,
            pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": 1})
        )
        .await
        .status(),
        200
    );
    assert_eq!(decisions(&app.db, pid).await.len(), 1);
}

async fn a_rejected_member_edits_and_resubmits(backend: Backend) {
    let app = spawn_app(backend).await;
    let member = register_in(&app, "ja").await;
    let reviewer = make_reviewer(&app).await;
    let pid = profile_id(&app.db, &member.user.line_id).await;

    // Only a rejected profile can be edited.
    let mut edited = member.payload.clone();
    edited["aboutMe"] = json!("I enjoy weekend hikes, coffee and long train rides.");
    assert_error(
        call(
            &app,
            Method::PUT,
            "/api/user-profile",
            &member.user.token,
            Some(edited.clone()),
        )
        .await,
        403,
        "E004",
    )
    .await;

    let rejected = json!({
        "action": "REJECT", "reasons": ["PHOTOS_UNCLEAR", "OTHER"],
        "note": "Please add a photo in daylight.", "version": 1,
    });
    assert_eq!(decide(&app, &reviewer, pid, rejected).await.status(), 200);
    let info = my_info(&app, &member.user).await;
    assert_eq!(info["reviewStatus"], "REJECTED");
    assert_eq!(
        info["reviewDecision"]["reasons"],
        json!(["PHOTOS_UNCLEAR", "OTHER"])
    );
    assert_eq!(
        info["reviewDecision"]["note"],
        "Please add a photo in daylight."
    );
    let status = ok_json(
        app.get(
            &format!("/api/user/review-status/{}", member.user.line_id),
            Some(&member.user.token),
        )
        .await,
    )
    .await;
    assert_eq!(status["status"], "REJECTED");
    assert_eq!(status["reasons"], json!(["PHOTOS_UNCLEAR", "OTHER"]));
    assert_eq!(status["note"], "Please add a photo in daylight.");

    // The push speaks her language, with the reasons as the app labels them.
    let rows = settled(&app.db, &member.user.line_id, Duration::from_secs(10)).await;
    assert_eq!(rows.len(), 1);
    let pushes = app.pushes().await;
    let text = push_text(pushes_to(&pushes, &member.user.line_id)[0]).to_string();
    let ja: Value = serde_json::from_str(include_str!("../../../core/data/texts/ja.json")).unwrap();
    assert!(
        text.contains(ja["review.reject.PHOTOS_UNCLEAR"].as_str().unwrap()),
        "{text}"
    );
    assert!(text.contains("Please add a photo in daylight."), "{text}");

    // Someone else's upload is no photo of hers.
    let stranger = app.new_user().await;
    let foreign = app.upload_ok(&stranger.token, jpeg(32, 32)).await;
    let mut stolen = edited.clone();
    stolen["photoNameList"] = json!([foreign]);
    let before = app.snapshot().await;
    let refused = assert_error(
        call(
            &app,
            Method::PUT,
            "/api/user-profile",
            &member.user.token,
            Some(stolen),
        )
        .await,
        422,
        "E002",
    )
    .await;
    assert_eq!(refused["fields"]["photoNameList"], json!(["unknown_file"]));
    assert_eq!(app.snapshot().await, before);

    // A new photo first, the old one kept; the proof of employment stays the same file.
    let new_photo = app.upload_ok(&member.user.token, jpeg(80, 60)).await;
    edited["photoNameList"] = json!([new_photo, member.photos[0]]);
    let r = call(
        &app,
        Method::PUT,
        "/api/user-profile",
        &member.user.token,
        Some(edited.clone()),
    )
    .await;
    let answer = ok_json(r).await;
    assert_eq!(answer["status"], "PENDING");
    assert_eq!(answer["photos"], json!([new_photo, member.photos[0]]));
    // A retry after a lost answer: the same result, nothing written twice.
    let before = app.snapshot().await;
    let again = ok_json(
        call(
            &app,
            Method::PUT,
            "/api/user-profile",
            &member.user.token,
            Some(edited.clone()),
        )
        .await,
    )
    .await;
    assert_eq!(again, answer);
    assert_eq!(app.snapshot().await, before);
    // Pending again: no further edits.
    let mut other = edited.clone();
    other["nickname"] = json!("Meimei");
    assert_error(
        call(
            &app,
            Method::PUT,
            "/api/user-profile",
            &member.user.token,
            Some(other),
        )
        .await,
        403,
        "E004",
    )
    .await;

    let info = my_info(&app, &member.user).await;
    assert_eq!(info["reviewStatus"], "PENDING");
    assert_eq!(info["reviewDecision"], Value::Null);
    assert_eq!(info["profile"]["aboutMe"], edited["aboutMe"]);

    // The reviewer sees a resubmission and what changed.
    let queue = ok_json(
        call(
            &app,
            Method::GET,
            "/api/review/queue",
            &reviewer.token,
            None,
        )
        .await,
    )
    .await;
    assert_eq!(queue["items"][0]["resubmission"], true);
    assert_eq!(queue["items"][0]["submission"], 2);
    let seen = view(&app, &reviewer, pid).await;
    assert_eq!(seen["resubmission"], true);
    assert_eq!(seen["changedFields"], json!(["aboutMe", "photoNameList"]));
    assert_eq!(
        seen["previousProfile"]["aboutMe"],
        member.payload["aboutMe"]
    );
    assert_eq!(seen["photos"], json!([new_photo, member.photos[0]]));
    assert_eq!(seen["verification"]["fileId"], member.verify.as_str());
    let actions: Vec<Value> = seen["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["action"].clone())
        .collect();
    assert_eq!(actions, [Value::Null, json!("REJECT"), json!("RESUBMIT")]);
    // Its version moved: a decision on the rejected one's version is a conflict.
    assert_error(
        decide(
            &app,
            &reviewer,
            pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": 2}),
        )
        .await,
        409,
        "E005",
    )
    .await;
    let version = seen["version"].as_i64().unwrap();
    assert_eq!(
        decide(
            &app,
            &reviewer,
            pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": version})
        )
        .await
        .status(),
        200
    );

    // Without a profile there is nothing to edit.
    let newcomer = app.new_user().await;
    let photo = app.upload_ok(&newcomer.token, jpeg(32, 32)).await;
    let verify = app.upload_ok(&newcomer.token, jpeg(32, 32)).await;
    assert_error(
        call(
            &app,
            Method::PUT,
            "/api/user-profile",
            &newcomer.token,
            Some(profile_payload(&newcomer.line_id, &[photo], &verify)),
        )
        .await,
        404,
        "E003",
    )
    .await;
}

async fn a_work_email_must_be_confirmed_by_its_code(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    let photo = app.upload_ok(&user.token, jpeg(64, 48)).await;
    let verify = app.upload_ok(&user.token, jpeg(48, 32)).await;
    let mut payload = profile_payload(&user.line_id, &[photo], &verify);
    payload["verifyMethod"] = json!("COMPANY_EMAIL");
    payload["companyEmail"] = json!("mei.lin@tsmc.com");
    let before = app.snapshot().await;
    let refused = assert_error(
        app.create_profile(Some(&user.id_token), &payload).await,
        422,
        "E002",
    )
    .await;
    assert_eq!(
        refused["fields"]["companyEmail"],
        json!(["email_not_confirmed"])
    );
    assert_eq!(app.snapshot().await, before);

    send_ok(&app, &user.token, "mei.lin@tsmc.com").await;
    let code = last_code(&app, "mei.lin@tsmc.com").await;
    assert_eq!(
        confirm(&app, &user.token, "mei.lin@tsmc.com", &code)
            .await
            .status(),
        200
    );
    let r = app.create_profile(Some(&user.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());

    let reviewer = make_reviewer(&app).await;
    let pid = profile_id(&app.db, &user.line_id).await;
    let seen = view(&app, &reviewer, pid).await;
    assert_eq!(seen["verification"]["method"], "COMPANY_EMAIL");
    assert_eq!(seen["verification"]["emailConfirmed"], true);
    assert_eq!(seen["verification"]["employer"]["id"], "tsmc");

    // Rejected, she changes to an address she never confirmed: refused until she does.
    let reject = json!({"action": "REJECT", "reasons": ["EMPLOYER_NOT_SUPPORTED"], "version": 1});
    assert_eq!(decide(&app, &reviewer, pid, reject).await.status(), 200);
    // A confirmation counts for 24 hours: a day later the same address needs a new code.
    app.clock().advance(24 * 3600 + 1);
    let refused = assert_error(
        call(
            &app,
            Method::PUT,
            "/api/user-profile",
            &user.token,
            Some(payload.clone()),
        )
        .await,
        422,
        "E002",
    )
    .await;
    assert_eq!(
        refused["fields"]["companyEmail"],
        json!(["email_not_confirmed"])
    );
    payload["companyEmail"] = json!("mei.lin@mail.tsmc.com");
    let refused = assert_error(
        call(
            &app,
            Method::PUT,
            "/api/user-profile",
            &user.token,
            Some(payload.clone()),
        )
        .await,
        422,
        "E002",
    )
    .await;
    assert_eq!(
        refused["fields"]["companyEmail"],
        json!(["email_not_confirmed"])
    );
    send_ok(&app, &user.token, "mei.lin@mail.tsmc.com").await;
    let code = last_code(&app, "mei.lin@mail.tsmc.com").await;
    assert_eq!(
        confirm(&app, &user.token, "mei.lin@mail.tsmc.com", &code)
            .await
            .status(),
        200
    );
    let r = call(
        &app,
        Method::PUT,
        "/api/user-profile",
        &user.token,
        Some(payload.clone()),
    )
    .await;
    assert_eq!(ok_json(r).await["status"], "PENDING");
    let seen = view(&app, &reviewer, pid).await;
    assert_eq!(seen["changedFields"], json!(["companyEmail"]));
    assert_eq!(seen["verification"]["emailConfirmed"], true);
}

/// The platform fails three pushes, then takes the fourth: the decision's push is on it once.
async fn a_failing_platform_still_gets_the_decision_pushed_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let member = register(&app).await;
    let reviewer = make_reviewer(&app).await;
    let pid = profile_id(&app.db, &member.user.line_id).await;
    app.mock_post(
        "/__mock/line/push-failures",
        json!({"count": 3, "status": 500}),
    )
    .await;
    assert_eq!(
        decide(
            &app,
            &reviewer,
            pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": 1})
        )
        .await
        .status(),
        200
    );
    let rows = settled(&app.db, &member.user.line_id, Duration::from_secs(15)).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].status.as_str(), rows[0].attempts),
        ("delivered", 4)
    );
    assert_eq!(
        pushes_to(&app.pushes().await, &member.user.line_id).len(),
        1
    );
}

/// An unfollow, then a forged follow (bad signature) and a replayed old follow: neither undoes
/// the unfollow, and the decision pushes nothing.
async fn no_push_reaches_a_member_who_unfollowed(backend: Backend) {
    let app = spawn_app(backend).await;
    let member = register(&app).await;
    let reviewer = make_reviewer(&app).await;
    let pid = profile_id(&app.db, &member.user.line_id).await;
    let follow = app
        .mock_post(
            "/__mock/line/webhook-events",
            json!({"type": "follow", "userId": member.user.line_id}),
        )
        .await;
    let unfollow = app
        .mock_post(
            "/__mock/line/webhook-events",
            json!({"type": "unfollow", "userId": member.user.line_id}),
        )
        .await;
    assert_eq!(unfollow["answer"]["applied"], 1, "{unfollow}");
    let webhook = |body: String, signature: String| {
        app.client
            .post(app.url("/api/line/webhook"))
            .header("content-type", "application/json")
            .header("x-line-signature", signature)
            .body(body)
            .send()
    };
    // The follow's body re-signed by someone without the secret.
    let forged = follow["body"].as_str().unwrap().replace(
        follow["webhookEventId"].as_str().unwrap(),
        "01FORGEDEVENT0000000000000",
    );
    let r = webhook(forged, follow["signature"].as_str().unwrap().to_string())
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = webhook(
        follow["body"].as_str().unwrap().to_string(),
        follow["signature"].as_str().unwrap().to_string(),
    )
    .await
    .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["duplicates"], 1);

    let seen = view(&app, &reviewer, pid).await;
    assert_eq!(seen["member"]["friend"], false);
    assert_eq!(
        decide(
            &app,
            &reviewer,
            pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": 1})
        )
        .await
        .status(),
        200
    );
    let rows = settled(&app.db, &member.user.line_id, Duration::from_secs(10)).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, "unfollowed");
    assert!(pushes_to(&app.pushes().await, &member.user.line_id).is_empty());
}

/// The proof of employment: its owner and reviewers see it; no other member, by any URL.
async fn the_verification_file_is_refused_to_other_members_by_every_url(backend: Backend) {
    let app = spawn_app(backend).await;
    let member = register(&app).await;
    let other = register(&app).await;
    let reviewer = make_reviewer(&app).await;
    let id = &member.verify;
    let shapes = [
        format!("/api/file/fetch/{id}"),
        format!("/_ipx/_/api/file/fetch/{id}"),
        format!("/_ipx/w_100/api/file/fetch/{id}"),
        format!("/_ipx/w_10,f_webp/api/file/fetch/{id}"),
        format!("/_ipx/s_10x10,fit_contain,f_png/api/file/fetch/{id}"),
    ];
    for shape in &shapes {
        for token in [&member.user.token, &reviewer.token] {
            let bearer = app.get(shape, Some(token)).await;
            assert_eq!(bearer.status(), 200, "{shape}");
            let cookie = app
                .client
                .get(app.url(shape))
                .header("cookie", format!("kizuna_token={token}"))
                .send()
                .await
                .unwrap();
            assert_eq!(cookie.status(), 200, "{shape}");
        }
        assert_error(app.get(shape, Some(&other.user.token)).await, 404, "E003").await;
        let cookie = app
            .client
            .get(app.url(shape))
            .header("cookie", format!("kizuna_token={}", other.user.token))
            .send()
            .await
            .unwrap();
        assert_error(cookie, 404, "E003").await;
        assert_error(app.get(shape, None).await, 401, "E001").await;
    }
    // Photos are no different for another member today (not introduced, not matched).
    let photo = &member.photos[0];
    assert_error(
        app.get(&format!("/api/file/fetch/{photo}"), Some(&other.user.token))
            .await,
        404,
        "E003",
    )
    .await;
    assert_eq!(
        app.get(
            &format!("/_ipx/w_50/api/file/fetch/{photo}"),
            Some(&reviewer.token)
        )
        .await
        .status(),
        200
    );
}

/// The real binary, SIGKILLed after a decision committed and while its push's answer is still
/// out: after the restart the push is on the platform exactly once.
async fn a_decision_is_pushed_once_across_a_crash(backend: Backend) {
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

    // Users, ID tokens and pushes live on the platform's mock; the reviewers list on the server.
    let mut api = Api::new(server.base.clone());
    let member = {
        let user = platform_api.new_user().await;
        let on_server = api.login_raw(Some(&user.id_token), &user.line_id).await;
        let token = ok_json(on_server).await["token"]
            .as_str()
            .unwrap()
            .to_string();
        User { token, ..user }
    };
    let photo = api.upload_ok(&member.token, jpeg(64, 48)).await;
    let verify = api.upload_ok(&member.token, jpeg(48, 32)).await;
    let payload = profile_payload(&member.line_id, &[photo], &verify);
    assert_eq!(
        api.create_profile(Some(&member.id_token), &payload)
            .await
            .status(),
        200
    );
    let reviewer = {
        let user = platform_api.new_user().await;
        let token =
            ok_json(api.login_raw(Some(&user.id_token), &user.line_id).await).await["token"]
                .as_str()
                .unwrap()
                .to_string();
        api.mock_post("/__mock/reviewers", json!({"userId": user.line_id}))
            .await;
        User { token, ..user }
    };
    let pid = profile_id(&db, &member.line_id).await;

    // The platform takes the push and holds its answer: the server dies waiting for it.
    platform_api
        .mock_post(
            "/__mock/line/push-delay",
            json!({"count": 1, "delayMs": 60000}),
        )
        .await;
    assert_eq!(
        decide(
            &api,
            &reviewer,
            pid,
            json!({"action": "APPROVE", "employer": "tsmc", "version": 1})
        )
        .await
        .status(),
        200
    );
    let started = Instant::now();
    while pushes_to(&platform_api.pushes().await, &member.line_id).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{}",
            server.log_text()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert_eq!(outbox_for(&db, &member.line_id).await[0].status, "pending");

    let restarted = Server::start_with(&data_dir, Some(&url), "info", &env).await;
    api = Api::new(restarted.base.clone());
    // The killed worker's lease (20 s) runs out before the push is sent again.
    let rows = settled(&db, &member.line_id, Duration::from_secs(45)).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].status.as_str(), rows[0].attempts),
        ("delivered", 2),
        "re-sent once and answered 409: {}",
        restarted.log_text()
    );
    assert_eq!(
        pushes_to(&platform_api.pushes().await, &member.line_id).len(),
        1
    );
    assert_eq!(my_info(&api, &member).await["reviewStatus"], "APPROVED");
    db.close().await.ok();
    drop(restarted);
    drop(platform);
    std::fs::remove_dir_all(&data_dir).ok();
    std::fs::remove_dir_all(&platform_dir).ok();
}

async fn the_code_catalogues_are_served(backend: Backend) {
    let app = spawn_app(backend).await;
    let codes = ok_json(app.get("/api/catalogue/codes", None).await).await;
    let reject: Vec<&str> = codes["reject"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    assert!(reject.contains(&"PHOTOS_UNCLEAR"), "{codes}");
    assert_eq!(codes["reject"][0]["key"], "review.reject.PHOTOS_UNCLEAR");
    assert_eq!(codes["reject"][0]["fields"], json!(["photoNameList"]));
    assert!(!codes["suspend"].as_array().unwrap().is_empty());
    assert_eq!(codes["distanceBands"].as_array().unwrap().len(), 4);
}

/// A database from before the review flow: its profiles get their registration as submission 1
/// and version 1 when the migration runs, and the review sees them as first submissions.
async fn profiles_from_before_the_review_flow_are_migrated(backend: Backend) {
    use sea_orm::ConnectionTrait;
    use sea_orm_migration::MigratorTrait;
    let data_dir = scratch_dir();
    let (url, _db) = empty_database(backend).await;
    let url = url.unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let db = storage::connect(&url, None).await.unwrap();
    storage::migration::Migrator::up(&db, Some(2))
        .await
        .unwrap();
    for sql in [
        "INSERT INTO users (line_user_id, display_name, created_at) \
         VALUES ('U0123456789abcdef0123456789abcdef', 'Early', 1000)",
        "INSERT INTO profiles (user_id, status, submission_hash, payload, nickname, created_at, \
         updated_at) SELECT id, 'PENDING', 'h', '{\"nickname\":\"Early\"}', 'Early', 1000, 1000 \
         FROM users",
    ] {
        db.execute_unprepared(sql).await.unwrap();
    }
    storage::migration::Migrator::up(&db, None).await.unwrap();
    let row = kizuna_server::storage::entity::profile::Entity::find()
        .one(&db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.version, 1);
    let submissions = kizuna_server::storage::entity::profile_submission::Entity::find()
        .all(&db)
        .await
        .unwrap();
    assert_eq!(submissions.len(), 1);
    assert_eq!(
        (
            submissions[0].profile_id,
            submissions[0].number,
            submissions[0].payload.as_str(),
            submissions[0].submitted_at
        ),
        (row.id, 1, "{\"nickname\":\"Early\"}", 1000)
    );
    let queue = storage::review::queue(&db, 10, 2000).await.unwrap();
    assert_eq!(queue.len(), 1);
    assert_eq!((queue[0].submission, queue[0].version), (1, 1));
    // And down again, for an operator who rolls back (the later migrations first).
    let after_review_infra = storage::migration::Migrator::migrations().len() as u32 - 2;
    storage::migration::Migrator::down(&db, Some(after_review_infra))
        .await
        .unwrap();
    assert!(
        db.execute_unprepared("SELECT version FROM profiles")
            .await
            .is_err()
    );
    db.close().await.ok();
    std::fs::remove_dir_all(&data_dir).ok();
}

crate::on_both_backends!(
    profiles_from_before_the_review_flow_are_migrated,
    every_reviewer_call_refuses_a_member,
    a_reviewer_reads_the_queue_and_approves_with_one_push,
    two_reviewers_racing_on_one_profile_make_one_decision,
    a_rejected_member_edits_and_resubmits,
    a_work_email_must_be_confirmed_by_its_code,
    a_failing_platform_still_gets_the_decision_pushed_once,
    no_push_reaches_a_member_who_unfollowed,
    the_verification_file_is_refused_to_other_members_by_every_url,
    a_decision_is_pushed_once_across_a_crash,
    the_code_catalogues_are_served,
);
