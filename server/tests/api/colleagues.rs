//! Hide me from colleagues: an approval puts the employer on record (the reviewer
//! picks it for an employee-ID photo), members of one employer are never introduced nor shown to
//! each other when either asked (on by default), a match made before goes on, both switched off
//! lets them meet, and the console sets the employer of members approved without one. SQLite and
//! PostgreSQL.

use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    email_code::{confirm, last_code, send_ok},
    helpers::{
        Backend, TestApp, assert_error, assert_switch_only_for_approved, set_switch, spawn_app,
    },
    matchmaking::{
        Member, approved, introductions, like, listed_ids, ok_json, register, register_user, send,
    },
    on_both_backends,
    review::make_reviewer,
};

/// A reviewer approves the member's PENDING profile through the console's API.
pub(crate) async fn approve(
    app: &TestApp,
    reviewer: &crate::helpers::User,
    m: &Member,
    employer: &str,
) {
    ok_json(
        send(
            app,
            Method::POST,
            &format!("/api/review/profiles/{}/decision", m.id),
            &reviewer.token,
            Some(json!({"action": "APPROVE", "employer": employer, "version": 1})),
        )
        .await,
    )
    .await;
}

async fn set_hides(app: &TestApp, m: &Member, hides: bool) -> Value {
    set_switch(app, m, "/api/user/colleagues", "hideColleagues", hides).await
}

/// Tomorrow (Asia/Taipei): a new list is made from the switches as they are now.
fn next_day(app: &TestApp) {
    app.clock().advance(24 * 3600);
}

async fn colleagues_meet_only_when_both_switched_it_off(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app).await;
    let (mei, _) = register(&app, 0, true).await;
    let (kai, _) = register(&app, 1, false).await;
    let (bo, _) = register(&app, 2, false).await;
    approve(&app, &reviewer, &mei, "tsmc").await;
    approve(&app, &reviewer, &kai, "tsmc").await;
    approve(&app, &reviewer, &bo, "mediatek").await;

    // On by default: Kai, at Mei's employer, is not introduced; Bo, at another, is.
    let own = ok_json(app.get("/api/user/colleagues", Some(&mei.user.token)).await).await;
    assert_eq!(
        own,
        json!({"hideColleagues": true, "employerOnRecord": true})
    );
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![bo.id]);
    assert_eq!(
        listed_ids(&introductions(&app, &kai).await),
        Vec::<i64>::new()
    );
    assert_error(
        app.get(&format!("/api/members/{}", kai.id), Some(&mei.user.token))
            .await,
        404,
        "E003",
    )
    .await;

    // Mei switches it off; Kai still asks: still apart, both ways.
    assert_eq!(set_hides(&app, &mei, false).await["hideColleagues"], false);
    next_day(&app);
    assert!(!listed_ids(&introductions(&app, &mei).await).contains(&kai.id));
    assert!(!listed_ids(&introductions(&app, &kai).await).contains(&mei.id));

    // Both off: from their next lists they meet.
    set_hides(&app, &kai, false).await;
    next_day(&app);
    assert!(listed_ids(&introductions(&app, &mei).await).contains(&kai.id));
    assert!(listed_ids(&introductions(&app, &kai).await).contains(&mei.id));
    ok_json(like(&app, &mei, kai.id).await).await;
    let liked = ok_json(like(&app, &kai, mei.id).await).await;
    assert!(liked["matchId"].as_i64().is_some(), "{liked}");

    // Kai switches it on again: the match goes on (ending it would tell Mei where he works).
    set_hides(&app, &kai, true).await;
    let matches = ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await;
    assert_eq!(matches[0]["member"]["memberId"], kai.id);
    assert_eq!(
        app.get(&format!("/api/members/{}", kai.id), Some(&mei.user.token))
            .await
            .status(),
        200
    );
}

async fn switching_it_on_drops_a_colleague_from_todays_list_at_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app).await;
    let (mei, _) = register(&app, 0, true).await;
    let (kai, _) = register(&app, 1, false).await;
    approve(&app, &reviewer, &mei, "tsmc").await;
    approve(&app, &reviewer, &kai, "tsmc").await;
    set_hides(&app, &mei, false).await;
    set_hides(&app, &kai, false).await;
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    assert_eq!(listed_ids(&introductions(&app, &kai).await), vec![mei.id]);

    // Kai asks: Mei's card of him goes today, and hers from his list, profiles and photos too.
    set_hides(&app, &kai, true).await;
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
    assert_eq!(
        listed_ids(&introductions(&app, &kai).await),
        Vec::<i64>::new()
    );
    for (viewer, other) in [(&mei, &kai), (&kai, &mei)] {
        for path in [
            format!("/api/members/{}", other.id),
            format!("/api/file/fetch/{}", other.photo),
        ] {
            assert_error(app.get(&path, Some(&viewer.user.token)).await, 404, "E003").await;
        }
        assert_error(like(&app, viewer, other.id).await, 404, "E003").await;
    }
}

async fn an_approval_puts_the_employer_on_record_and_the_proof_needs_a_pick(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app).await;
    let (mei, _) = register(&app, 0, true).await;
    let path = format!("/api/review/profiles/{}/decision", mei.id);
    let decide = |body: Value| send(&app, Method::POST, &path, &reviewer.token, Some(body));
    // An employee-ID photo: the reviewer must say where the member works, from the catalogue.
    let r = decide(json!({"action": "APPROVE", "version": 1})).await;
    let body = assert_error(r, 422, "E002").await;
    assert_eq!(body["fields"]["employer"], json!(["required"]), "{body}");
    let r = decide(json!({"action": "APPROVE", "employer": "acme", "version": 1})).await;
    let body = assert_error(r, 422, "E002").await;
    assert_eq!(
        body["fields"]["employer"],
        json!(["unknown_employer"]),
        "{body}"
    );
    // Nothing was recorded by the refusals.
    ok_json(decide(json!({"action": "APPROVE", "employer": "mediatek", "version": 1})).await).await;
    let missing = ok_json(
        app.get("/api/review/employers/missing", Some(&reviewer.token))
            .await,
    )
    .await;
    assert_eq!(missing["members"], json!([]));
    // The console shows what is on record.
    let view = ok_json(
        app.get(
            &format!("/api/review/profiles/{}", mei.id),
            Some(&reviewer.token),
        )
        .await,
    )
    .await;
    assert_eq!(view["verification"]["employerOnRecord"]["id"], "mediatek");
    // The member sees that an employer is on record, never which (nor does anyone else).
    let own = ok_json(app.get("/api/user/colleagues", Some(&mei.user.token)).await).await;
    assert_eq!(own["employerOnRecord"], true);
    let text = own.to_string();
    assert!(
        !text.contains("mediatek") && !text.contains("MediaTek"),
        "{text}"
    );
}

/// Confirms `email` for the signed-in `user` with the code the mock outbox received.
pub(crate) async fn confirm_work_email(app: &TestApp, user: &crate::helpers::User, email: &str) {
    send_ok(app, &user.token, email).await;
    let code = last_code(app, email).await;
    let r = confirm(app, &user.token, email, &code).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
}

/// A work e-mail confirmed by its code needs no pick from the reviewer: approving the
/// registration without one puts the e-mail's catalogue employer on record (a pick naming
/// another is `mismatch`, and records nothing), and its colleagues are kept apart from then on.
async fn a_work_email_registration_is_approved_without_a_pick(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app).await;
    let user = app.new_user().await;
    confirm_work_email(&app, &user, "mei.lin@tsmc.com").await;
    let (mei, _) = register_user(&app.api, &app, user, 0, true, |body| {
        body["verifyMethod"] = json!("COMPANY_EMAIL");
        body["companyEmail"] = json!("mei.lin@tsmc.com");
    })
    .await;
    let (kai, _) = register(&app, 1, false).await;
    let (bo, _) = register(&app, 2, false).await;
    approve(&app, &reviewer, &kai, "tsmc").await;
    approve(&app, &reviewer, &bo, "mediatek").await;

    let path = format!("/api/review/profiles/{}/decision", mei.id);
    let view_path = format!("/api/review/profiles/{}", mei.id);
    let r = send(
        &app,
        Method::POST,
        &path,
        &reviewer.token,
        Some(json!({"action": "APPROVE", "employer": "mediatek", "version": 1})),
    )
    .await;
    let body = assert_error(r, 422, "E002").await;
    assert_eq!(body["fields"]["employer"], json!(["mismatch"]), "{body}");
    // Nothing recorded: still PENDING, no employer.
    let view = ok_json(app.get(&view_path, Some(&reviewer.token)).await).await;
    assert_eq!(view["status"], "PENDING");
    assert!(view["verification"]["employerOnRecord"].is_null(), "{view}");
    let decided = ok_json(
        send(
            &app,
            Method::POST,
            &path,
            &reviewer.token,
            Some(json!({"action": "APPROVE", "version": 1})),
        )
        .await,
    )
    .await;
    assert_eq!(decided["status"], "APPROVED");
    let view = ok_json(app.get(&view_path, Some(&reviewer.token)).await).await;
    assert_eq!(view["verification"]["employer"]["id"], "tsmc");
    assert_eq!(view["verification"]["employerOnRecord"]["id"], "tsmc");
    let own = ok_json(app.get("/api/user/colleagues", Some(&mei.user.token)).await).await;
    assert_eq!(own["employerOnRecord"], true);
    let missing = ok_json(
        app.get("/api/review/employers/missing", Some(&reviewer.token))
            .await,
    )
    .await;
    assert_eq!(missing["members"], json!([]));
    // Kai, approved at TSMC too, is kept apart; Bo, at MediaTek, is introduced.
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![bo.id]);
    assert!(!listed_ids(&introductions(&app, &kai).await).contains(&mei.id));
}

async fn the_console_sets_the_employer_of_members_approved_without_one(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app).await;
    // Approved before review picked employers: none on record, so no colleagues.
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let (pending, _) = register(&app, 2, true).await;
    let own = ok_json(app.get("/api/user/colleagues", Some(&mei.user.token)).await).await;
    assert_eq!(
        own,
        json!({"hideColleagues": true, "employerOnRecord": false})
    );
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);

    let missing = ok_json(
        app.get("/api/review/employers/missing", Some(&reviewer.token))
            .await,
    )
    .await;
    let ids: Vec<i64> = missing["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["profileId"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![mei.id, kai.id], "{missing}");
    assert_eq!(missing["members"][0]["nickname"], "Nick0");

    let put = |token: Option<String>, id: i64, body: Value| {
        let mut req = app
            .client
            .put(app.url(&format!("/api/review/profiles/{id}/employer")))
            .json(&body);
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        req.send()
    };
    let reviewer_token = Some(reviewer.token.clone());
    // A stranger, a member (even about themselves), an unknown employer, a pending profile.
    assert_error(
        put(None, mei.id, json!({"employer": "tsmc"}))
            .await
            .unwrap(),
        401,
        "E001",
    )
    .await;
    assert_error(
        put(
            Some(mei.user.token.clone()),
            mei.id,
            json!({"employer": "tsmc"}),
        )
        .await
        .unwrap(),
        403,
        "E004",
    )
    .await;
    assert_error(
        app.get("/api/review/employers/missing", Some(&kai.user.token))
            .await,
        403,
        "E004",
    )
    .await;
    let body = assert_error(
        put(reviewer_token.clone(), mei.id, json!({"employer": "acme"}))
            .await
            .unwrap(),
        422,
        "E002",
    )
    .await;
    assert_eq!(body["fields"]["employer"], json!(["unknown_employer"]));
    assert_error(
        put(
            reviewer_token.clone(),
            pending.id,
            json!({"employer": "tsmc"}),
        )
        .await
        .unwrap(),
        404,
        "E003",
    )
    .await;
    assert_eq!(
        put(
            reviewer_token.clone(),
            mei.id,
            json!({"employer": "tsmc", "x": 1})
        )
        .await
        .unwrap()
        .status(),
        400
    );

    for m in [&mei, &kai] {
        let set = ok_json(
            put(reviewer_token.clone(), m.id, json!({"employer": "tsmc"}))
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(set, json!({"id": "tsmc", "name": set["name"]}));
    }
    let missing = ok_json(
        app.get("/api/review/employers/missing", Some(&reviewer.token))
            .await,
    )
    .await;
    assert_eq!(missing["members"], json!([]));
    // Colleagues now: Kai leaves Mei's list at once.
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
}

async fn only_an_approved_member_has_the_switch(backend: Backend) {
    let app = spawn_app(backend).await;
    let mei = assert_switch_only_for_approved(
        &app,
        "/api/user/colleagues",
        "hideColleagues",
        ("employer", json!("tsmc")),
    )
    .await;
    let own = ok_json(app.get("/api/user/colleagues", Some(&mei.user.token)).await).await;
    assert_eq!(own["hideColleagues"], true);
    // A script flipping the switch in a loop is held back (each change tells every pool).
    let mut answers = Vec::new();
    for n in 0..=kizuna_core::rules::SWITCH_CHANGES_PER_MINUTE {
        let r = send(
            &app,
            Method::PUT,
            "/api/user/colleagues",
            &mei.user.token,
            Some(json!({"hideColleagues": n % 2 == 0})),
        )
        .await;
        answers.push(r.status().as_u16());
        if r.status() == 429 {
            assert!(r.headers().contains_key("retry-after"));
            assert_error(r, 429, "E007").await;
            break;
        }
    }
    assert_eq!(answers.last(), Some(&429), "{answers:?}");
}

/// A database from before employers were recorded: the migration puts the catalogue employer of
/// the confirmed work e-mail on record for approved (and suspended) members; the others are left
/// for a reviewer (the console's list).
async fn members_approved_before_get_the_employer_of_their_work_email(backend: Backend) {
    use kizuna_server::storage::{self, migration::Migrator};
    use sea_orm::ConnectionTrait;
    use sea_orm_migration::MigratorTrait;
    let data_dir = crate::helpers::scratch_dir();
    let (url, _db) = crate::helpers::empty_database(backend).await;
    let url = url.unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let db = storage::connect(&url, None).await.unwrap();
    let before = Migrator::migrations()
        .iter()
        .position(|m| m.name() == "m20261128_000001_colleagues")
        .unwrap() as u32;
    Migrator::up(&db, Some(before)).await.unwrap();
    let members = [
        ("APPROVED", "COMPANY_EMAIL", Some("mei@mail.tsmc.com")),
        ("SUSPENDED", "COMPANY_EMAIL", Some("kai@mediatek.com")),
        ("APPROVED", "EMPLOYEE_ID", Some("bo@tsmc.com")),
        ("PENDING", "COMPANY_EMAIL", Some("ren@tsmc.com")),
        ("REJECTED", "COMPANY_EMAIL", Some("jun@tsmc.com")),
        ("APPROVED", "REVIEW_LINK", None),
    ];
    for (n, (status, method, email)) in members.iter().enumerate() {
        let email = email.map_or("NULL".to_string(), |e| format!("'{e}'"));
        for sql in [
            format!(
                "INSERT INTO users (line_user_id, display_name, created_at) \
                 VALUES ('U0123456789abcdef0123456789abcde{n}', 'M{n}', 1000)"
            ),
            format!(
                "INSERT INTO profiles (user_id, status, submission_hash, payload, nickname, \
                 verify_method, company_email, created_at, updated_at) \
                 SELECT id, '{status}', 'h', '{{}}', 'M{n}', '{method}', {email}, 1000, 1000 \
                 FROM users WHERE display_name = 'M{n}'"
            ),
        ] {
            db.execute_unprepared(&sql).await.unwrap();
        }
    }
    Migrator::up(&db, None).await.unwrap();
    let rows = db
        .query_all_raw(sea_orm::Statement::from_string(
            db.get_database_backend(),
            "SELECT nickname, employer_id, hide_colleagues FROM profiles ORDER BY nickname",
        ))
        .await
        .unwrap();
    let got: Vec<(String, Option<String>, bool)> = rows
        .iter()
        .map(|r| {
            (
                r.try_get("", "nickname").unwrap(),
                r.try_get("", "employer_id").unwrap(),
                r.try_get("", "hide_colleagues").unwrap(),
            )
        })
        .collect();
    let expected = [
        ("M0", Some("tsmc")),
        ("M1", Some("mediatek")),
        ("M2", None),
        ("M3", None),
        ("M4", None),
        ("M5", None),
    ];
    assert_eq!(
        got,
        expected
            .iter()
            .map(|(n, e)| (n.to_string(), e.map(str::to_string), true))
            .collect::<Vec<_>>()
    );
    // The console lists the approved and suspended ones still without an employer.
    let missing: Vec<Option<String>> = storage::colleagues::without_employer(&db)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, nickname)| nickname)
        .collect();
    assert_eq!(
        missing,
        vec![Some("M2".to_string()), Some("M5".to_string())]
    );
    db.close().await.ok();
    std::fs::remove_dir_all(&data_dir).ok();
}

on_both_backends!(
    members_approved_before_get_the_employer_of_their_work_email,
    colleagues_meet_only_when_both_switched_it_off,
    switching_it_on_drops_a_colleague_from_todays_list_at_once,
    an_approval_puts_the_employer_on_record_and_the_proof_needs_a_pick,
    the_console_sets_the_employer_of_members_approved_without_one,
    only_an_approved_member_has_the_switch,
    a_work_email_registration_is_approved_without_a_pick,
);
