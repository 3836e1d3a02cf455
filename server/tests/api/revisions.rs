//! Edit after approval (issue 21 §1) over HTTP on SQLite and PostgreSQL, one test per row of the
//! issue's table: what one looks for takes effect at once (from the next list); what others see
//! and the verification go to review as a revision that nobody else reads before a reviewer
//! approves it; the name, birthday and gender cannot be changed in the app. Also the races (two
//! reviewers, a save during review), the limits and hostile callers, and that a revision's photos
//! are never swept.

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::{
    helpers::{Backend, TestApp, User, assert_error, jpeg, spawn_app},
    matchmaking::{Member, approved, introductions, listed_ids, ok_json, register, send},
    on_both_backends,
    review::make_reviewer,
};

/// Words only a revision carries: no answer to another member may hold them before approval.
const UNAPPROVED: &str = "Unapproved words about weekend sailing trips.";

async fn my_info(app: &TestApp, m: &Member) -> Value {
    ok_json(app.get("/api/user/my-info", Some(&m.user.token)).await).await
}

/// The member's approved profile, as the edit form starts from it.
async fn form(app: &TestApp, m: &Member) -> Value {
    my_info(app, m).await["profile"].clone()
}

async fn edit(app: &TestApp, m: &Member, body: &Value) -> Response {
    send(
        app,
        Method::PUT,
        "/api/user-profile/edit",
        &m.user.token,
        Some(body.clone()),
    )
    .await
}

async fn decide(app: &TestApp, reviewer: &User, m: &Member, body: Value) -> Response {
    send(
        app,
        Method::POST,
        &format!("/api/review/profiles/{}/revision/decision", m.id),
        &reviewer.token,
        Some(body),
    )
    .await
}

async fn review_view(app: &TestApp, reviewer: &User, m: &Member) -> Value {
    ok_json(
        app.get(
            &format!("/api/review/profiles/{}", m.id),
            Some(&reviewer.token),
        )
        .await,
    )
    .await
}

async fn queue(app: &TestApp, reviewer: &User) -> Vec<Value> {
    ok_json(app.get("/api/review/queue", Some(&reviewer.token)).await).await["items"]
        .as_array()
        .unwrap()
        .clone()
}

async fn fetch(app: &TestApp, token: &str, file: &str) -> u16 {
    app.get(&format!("/api/file/fetch/{file}"), Some(token))
        .await
        .status()
        .as_u16()
}

/// Everything `viewer` reads about others: their list, the profile page of `about`, their likes
/// and matches.
async fn answers_to(app: &TestApp, viewer: &Member, about: &Member) -> String {
    let mut answers = vec![introductions(app, viewer).await];
    let page = app
        .get(
            &format!("/api/members/{}", about.id),
            Some(&viewer.user.token),
        )
        .await;
    answers.push(ok_json(page).await);
    for path in ["/api/likes", "/api/matches"] {
        answers.push(ok_json(app.get(path, Some(&viewer.user.token)).await).await);
    }
    answers
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Row 1: whom they look for, the partner conditions, the radius, the home district and
/// location and the income are written at once, with no revision; the member's next list is
/// made with them (the pool learns it as it learns a decision), today's stays as it was made.
async fn what_one_looks_for_takes_effect_at_once_from_the_next_list(backend: Backend) {
    let app = spawn_app(backend).await;
    // 01:00 in Taipei, so that the day below does not end in the middle of the test.
    let into_day =
        (app.clock().now_secs() + kizuna_core::rules::TAIPEI_UTC_OFFSET_SECS).rem_euclid(86_400);
    app.clock().advance(86_400 - into_day + 3600);
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;

    let mut body = form(&app, &mei).await;
    body["valueItem"] = json!([{"type": "HEIGHT", "from": 180, "to": 190}]);
    body["recommendDistanceKm"] = json!(80);
    body["city"] = json!("NWT");
    body["address"] = json!("Banqiao District");
    body["latitude"] = json!(25.014);
    body["longitude"] = json!(121.464);
    body["incomeRange"] = json!("INCOME_200_300");
    body["matchGender"] = json!("ANY");
    body["feedback"] = json!("An advert on the MRT");
    let saved = ok_json(edit(&app, &mei, &body).await).await;
    assert_eq!(
        saved["applied"],
        json!([
            "matchGender",
            "incomeRange",
            "city",
            "address",
            "latitude",
            "longitude",
            "recommendDistanceKm",
            "feedback",
            "valueItem"
        ]),
        "{saved}"
    );
    assert!(saved["revision"].is_null(), "{saved}");
    let info = my_info(&app, &mei).await;
    assert!(info["revision"].is_null());
    assert_eq!(info["reviewStatus"], "APPROVED");
    for field in [
        "valueItem",
        "recommendDistanceKm",
        "city",
        "address",
        "latitude",
        "longitude",
        "incomeRange",
        "matchGender",
        "feedback",
    ] {
        assert_eq!(info["profile"][field], body[field], "{field}");
    }
    // Kai (176 cm) is not in her first list made since: taller than 180 only.
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );

    // Back to no conditions: today's list stays as made, the next day's has him.
    body["valueItem"] = json!([]);
    body["matchGender"] = json!("MALE");
    let saved = ok_json(edit(&app, &mei, &body).await).await;
    assert_eq!(saved["applied"], json!(["matchGender", "valueItem"]));
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
    app.clock().advance(86_400);
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    // Nothing of it reached the reviewers.
    let reviewer = make_reviewer(&app).await;
    assert!(queue(&app, &reviewer).await.is_empty());
}

/// Row 2: photos, the nickname, the texts, tags, job, school, height and lifestyle go to review
/// as one revision. Until a reviewer approves it, others (their list, the profile page, photo
/// fetches) read only the approved version; the reviewer sees what changed; approving swaps it
/// in: others see the new photo and words, the dropped photo is no longer theirs to fetch.
async fn what_others_see_goes_to_review_and_is_shown_once_approved(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let reviewer = make_reviewer(&app).await;
    introductions(&app, &kai).await;
    let before = answers_to(&app, &kai, &mei).await;
    assert!(before.contains(&mei.photo));

    let new_photo = app.upload_ok(&mei.user.token, jpeg(80, 60)).await;
    let approved_form = form(&app, &mei).await;
    let mut body = approved_form.clone();
    body["aboutMe"] = json!(UNAPPROVED);
    body["photoNameList"] = json!([new_photo]);
    body["nickname"] = json!("Sailor Mei");
    body["height"] = json!(165);
    body["smoke"] = json!(1);
    body["mbti"] = json!("ENFP");
    body["hobbyTagIds"] = json!([301]);
    body["school"] = json!("NTHU");
    body["occupation"] = json!("Data engineer");
    let saved = ok_json(edit(&app, &mei, &body).await).await;
    assert_eq!(saved["applied"], json!([]));
    let revision = &saved["revision"];
    assert_eq!(revision["status"], "PENDING");
    assert_eq!(revision["number"], 1);
    assert_eq!(
        revision["changedFields"],
        json!([
            "nickname",
            "occupation",
            "height",
            "school",
            "smoke",
            "aboutMe",
            "hobbyTagIds",
            "mbti",
            "photoNameList"
        ])
    );
    // Her own view: the approved profile, and the revision beside it.
    let info = my_info(&app, &mei).await;
    assert_eq!(info["profile"], approved_form);
    assert_eq!(info["revision"]["profile"]["aboutMe"], UNAPPROVED);
    assert_eq!(fetch(&app, &mei.user.token, &new_photo).await, 200);

    // Others read the approved version only; the new photo is not theirs to fetch.
    let during = answers_to(&app, &kai, &mei).await;
    for unapproved in [UNAPPROVED, "Sailor Mei", "NTHU", "ENFP", new_photo.as_str()] {
        assert!(
            !during.contains(unapproved),
            "{unapproved} leaked: {during}"
        );
    }
    assert!(during.contains(&mei.photo) && during.contains("Nick0"));
    assert_eq!(fetch(&app, &kai.user.token, &new_photo).await, 404);
    let proxied = app
        .get(
            &format!("/_ipx/w_40/api/file/fetch/{new_photo}"),
            Some(&kai.user.token),
        )
        .await;
    assert_eq!(proxied.status(), 404);

    // The reviewer: a queue item for the revision, what changed, the new photo.
    let items = queue(&app, &reviewer).await;
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["profileId"], mei.id);
    assert_eq!(items[0]["revision"], 1);
    assert_eq!(items[0]["resubmission"], false);
    let view = review_view(&app, &reviewer, &mei).await;
    assert_eq!(view["revision"], 1);
    assert_eq!(view["status"], "APPROVED");
    assert_eq!(view["changedFields"], revision["changedFields"]);
    assert_eq!(view["profile"]["aboutMe"], UNAPPROVED);
    assert_eq!(view["previousProfile"], approved_form);
    assert_eq!(view["photos"], json!([new_photo]));
    assert_eq!(fetch(&app, &reviewer.token, &new_photo).await, 200);

    let decided = ok_json(
        decide(
            &app,
            &reviewer,
            &mei,
            json!({"action": "APPROVE", "revision": 1}),
        )
        .await,
    )
    .await;
    assert_eq!(decided["status"], "APPROVED");
    assert_eq!(decided["version"], view["version"].as_i64().unwrap() + 1);

    let after = answers_to(&app, &kai, &mei).await;
    assert!(
        after.contains(UNAPPROVED) && after.contains("Sailor Mei"),
        "{after}"
    );
    assert!(
        after.contains(&new_photo) && !after.contains(&mei.photo),
        "{after}"
    );
    assert_eq!(fetch(&app, &kai.user.token, &new_photo).await, 200);
    assert_eq!(fetch(&app, &kai.user.token, &mei.photo).await, 404);
    let info = my_info(&app, &mei).await;
    assert!(info["revision"].is_null(), "{info}");
    assert_eq!(info["profile"]["aboutMe"], UNAPPROVED);
    assert_eq!(info["profile"]["photoNameList"], json!([new_photo]));
    assert!(queue(&app, &reviewer).await.is_empty());
    let pushes = app.pushes().await;
    assert!(
        pushes.iter().any(|p| p
            .to_string()
            .contains("changes to your Kizuna profile have been approved")),
        "{pushes:?}"
    );
}

/// A rejected revision leaves the approved version as it was and tells the member why (the
/// reasons and note in my-info, the push); saving again opens a new one, saving the approved
/// version back withdraws it.
async fn a_rejected_revision_keeps_the_approved_version_and_says_why(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (kai, _) = approved(&app, 1, false).await;
    let reviewer = make_reviewer(&app).await;
    introductions(&app, &kai).await;
    let approved_form = form(&app, &mei).await;
    let new_photo = app.upload_ok(&mei.user.token, jpeg(80, 60)).await;
    let mut body = approved_form.clone();
    body["aboutMe"] = json!(UNAPPROVED);
    body["photoNameList"] = json!([new_photo]);
    ok_json(edit(&app, &mei, &body).await).await;

    // Neither a suspension nor a reason-less rejection is a decision on a revision.
    let r = decide(
        &app,
        &reviewer,
        &mei,
        json!({"action": "SUSPEND", "reasons": ["SPAM"], "revision": 1}),
    )
    .await;
    let err = assert_error(r, 422, "E002").await;
    assert_eq!(err["fields"]["action"], json!(["invalid_choice"]));
    let r = decide(
        &app,
        &reviewer,
        &mei,
        json!({"action": "REJECT", "revision": 1}),
    )
    .await;
    assert_error(r, 422, "E002").await;

    let decided = ok_json(
        decide(
            &app,
            &reviewer,
            &mei,
            json!({"action": "REJECT", "reasons": ["PHOTOS_UNCLEAR"], "note": "Your face, please", "revision": 1}),
        )
        .await,
    )
    .await;
    assert_eq!(decided["status"], "REJECTED");
    let info = my_info(&app, &mei).await;
    assert_eq!(info["reviewStatus"], "APPROVED");
    assert_eq!(info["profile"], approved_form);
    let revision = &info["revision"];
    assert_eq!(revision["status"], "REJECTED");
    assert_eq!(revision["reasons"], json!(["PHOTOS_UNCLEAR"]));
    assert_eq!(revision["note"], "Your face, please");
    assert_eq!(revision["profile"]["aboutMe"], UNAPPROVED);
    let during = answers_to(&app, &kai, &mei).await;
    assert!(!during.contains(UNAPPROVED) && during.contains(&mei.photo));
    assert_eq!(fetch(&app, &kai.user.token, &new_photo).await, 404);
    assert!(queue(&app, &reviewer).await.is_empty());
    let pushes = app.pushes().await;
    assert!(
        pushes.iter().any(|p| {
            let text = p.to_string();
            text.contains("were not approved") && text.contains("Your face, please")
        }),
        "{pushes:?}"
    );
    // Deciding it again is a conflict: it is decided.
    let r = decide(
        &app,
        &reviewer,
        &mei,
        json!({"action": "APPROVE", "revision": 1}),
    )
    .await;
    assert_error(r, 409, "E005").await;

    // Saved again: a new pending revision, back in the queue.
    let saved = ok_json(edit(&app, &mei, &body).await).await;
    assert_eq!(saved["revision"]["status"], "PENDING");
    assert_eq!(saved["revision"]["number"], 2);
    assert_eq!(queue(&app, &reviewer).await[0]["revision"], 2);
    // The same again keeps it (a retry), the approved version back withdraws it.
    let again = ok_json(edit(&app, &mei, &body).await).await;
    assert_eq!(again["revision"]["number"], 2);
    let back = ok_json(edit(&app, &mei, &approved_form).await).await;
    assert!(back["revision"].is_null(), "{back}");
    assert!(my_info(&app, &mei).await["revision"].is_null());
    assert!(queue(&app, &reviewer).await.is_empty());
    let r = decide(
        &app,
        &reviewer,
        &mei,
        json!({"action": "APPROVE", "revision": 2}),
    )
    .await;
    assert_error(r, 404, "E003").await;
}

/// Row 3: the verification goes to review too. A new work e-mail needs its code, as at the
/// registration; a new proof needs the reviewer's employer pick when approved, which puts the
/// employer on record anew.
async fn the_verification_goes_to_review_and_its_approval_records_the_employer(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let reviewer = make_reviewer(&app).await;
    let mut body = form(&app, &mei).await;
    body["verifyMethod"] = json!("COMPANY_EMAIL");
    body["companyEmail"] = json!("mei.new@mediatek.com");
    let r = edit(&app, &mei, &body).await;
    let err = assert_error(r, 422, "E002").await;
    assert_eq!(
        err["fields"]["companyEmail"],
        json!(["email_not_confirmed"])
    );
    assert!(my_info(&app, &mei).await["revision"].is_null());

    let proof = app.upload_ok(&mei.user.token, jpeg(40, 40)).await;
    let mut body = form(&app, &mei).await;
    body["verifyMethod"] = json!("EMPLOYEE_ID");
    body["verifyTempFileName"] = json!(proof);
    body["verifyDescription"] = json!("New team badge");
    let saved = ok_json(edit(&app, &mei, &body).await).await;
    assert_eq!(
        saved["revision"]["changedFields"],
        json!(["verifyTempFileName", "verifyDescription"])
    );
    let view = review_view(&app, &reviewer, &mei).await;
    assert_eq!(view["verification"]["fileId"], proof);
    assert_eq!(view["verification"]["description"], "New team badge");
    assert_eq!(fetch(&app, &reviewer.token, &proof).await, 200);
    let r = decide(
        &app,
        &reviewer,
        &mei,
        json!({"action": "APPROVE", "revision": 1}),
    )
    .await;
    let err = assert_error(r, 422, "E002").await;
    assert_eq!(err["fields"]["employer"], json!(["required"]));
    ok_json(
        decide(
            &app,
            &reviewer,
            &mei,
            json!({"action": "APPROVE", "revision": 1, "employer": "mediatek"}),
        )
        .await,
    )
    .await;
    let view = review_view(&app, &reviewer, &mei).await;
    assert!(view["revision"].is_null());
    assert_eq!(view["verification"]["fileId"], proof);
    assert_eq!(view["verification"]["employerOnRecord"]["id"], "mediatek");
}

/// Row 4: the name, birthday and gender a reviewer checked cannot be changed in the app: 422
/// `not_editable` on each, and nothing of the save is kept.
async fn the_name_birthday_and_gender_cannot_be_changed_in_the_app(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let approved_form = form(&app, &mei).await;
    let mut body = approved_form.clone();
    body["name"] = json!("Someone Else");
    body["birthday"] = json!("1990-01-01");
    body["gender"] = json!("MALE");
    body["aboutMe"] = json!(UNAPPROVED);
    body["recommendDistanceKm"] = json!(90);
    let err = assert_error(edit(&app, &mei, &body).await, 422, "E002").await;
    for field in ["name", "birthday", "gender"] {
        assert_eq!(err["fields"][field], json!(["not_editable"]), "{field}");
    }
    let info = my_info(&app, &mei).await;
    assert_eq!(info["profile"], approved_form);
    assert!(info["revision"].is_null());
}

/// Two reviewers deciding one revision at once make one decision (the other 409 E005); a save
/// while a reviewer looks replaces the revision: the decision on the one they saw is refused
/// (409 E005) and the newer one is in the queue.
async fn racing_reviewers_and_a_save_during_review_make_one_decision(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let first = make_reviewer(&app).await;
    let second = make_reviewer(&app).await;
    let mut body = form(&app, &mei).await;
    body["aboutMe"] = json!(UNAPPROVED);
    ok_json(edit(&app, &mei, &body).await).await;

    // A save during review: the reviewer opened revision 1, the member saved revision 2.
    assert_eq!(review_view(&app, &first, &mei).await["revision"], 1);
    body["aboutMe"] = json!("Second thoughts about what to write here.");
    ok_json(edit(&app, &mei, &body).await).await;
    let r = decide(
        &app,
        &first,
        &mei,
        json!({"action": "APPROVE", "revision": 1}),
    )
    .await;
    assert_error(r, 409, "E005").await;
    let items = queue(&app, &first).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["revision"], 2);
    assert_eq!(
        review_view(&app, &first, &mei).await["profile"]["aboutMe"],
        body["aboutMe"]
    );

    // Two reviewers at once on revision 2: one wins.
    for round in 0..3 {
        let (a, b) = tokio::join!(
            decide(
                &app,
                &first,
                &mei,
                json!({"action": "APPROVE", "revision": 2 + round})
            ),
            decide(
                &app,
                &second,
                &mei,
                json!({"action": "REJECT", "reasons": ["PROFILE_INCOMPLETE"], "revision": 2 + round})
            ),
        );
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "round {round}");
        let loser = if a.status() == 409 { a } else { b };
        assert_error(loser, 409, "E005").await;
        // The next round's revision.
        body["aboutMe"] = json!(format!("Round {round}: more words about my weekends."));
        ok_json(edit(&app, &mei, &body).await).await;
    }
    // A claim by one holds the other off.
    let r = send(
        &app,
        Method::POST,
        &format!("/api/review/profiles/{}/claim", mei.id),
        &first.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    let r = decide(
        &app,
        &second,
        &mei,
        json!({"action": "APPROVE", "revision": 5}),
    )
    .await;
    assert_error(r, 409, "E005").await;
    ok_json(
        decide(
            &app,
            &first,
            &mei,
            json!({"action": "APPROVE", "revision": 5}),
        )
        .await,
    )
    .await;
}

/// Hostile and unlucky callers: no session, a member not approved, someone else's photo, a body
/// of the wrong shape, a member deciding, a save loop (429 with Retry-After); a revision's photo
/// outlives the sweep of expired uploads.
async fn every_edit_and_decision_is_checked_and_limited(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (pending, _) = register(&app, 1, false).await;
    let body = form(&app, &mei).await;

    let r = app
        .client
        .put(app.url("/api/user-profile/edit"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let pending_form = my_info(&app, &pending).await["profile"].clone();
    assert_error(edit(&app, &pending, &pending_form).await, 403, "E004").await;
    // Someone else's photo.
    let mut theirs = body.clone();
    theirs["photoNameList"] = json!([pending.photo]);
    let err = assert_error(edit(&app, &mei, &theirs).await, 422, "E002").await;
    assert_eq!(err["fields"]["photoNameList"], json!(["unknown_file"]));
    // Another account's form.
    let mut other = body.clone();
    other["account"] = json!(pending.user.line_id);
    other["password"] = json!(pending.user.line_id);
    assert_error(edit(&app, &mei, &other).await, 403, "E004").await;
    let mut odd = body.clone();
    odd["isAdmin"] = json!(true);
    assert_error(edit(&app, &mei, &odd).await, 400, "E002").await;
    // A member is no reviewer.
    let r = decide(
        &app,
        &mei.user,
        &pending,
        json!({"action": "APPROVE", "revision": 1}),
    )
    .await;
    assert_error(r, 403, "E004").await;

    // A revision's new photo is claimed: the sweep of day-old uploads leaves it.
    let new_photo = app.upload_ok(&mei.user.token, jpeg(80, 60)).await;
    let mut revised = body.clone();
    revised["photoNameList"] = json!([new_photo]);
    ok_json(edit(&app, &mei, &revised).await).await;
    app.clock().advance(2 * 24 * 3600);
    kizuna_server::cleanup::sweep(&app.db, &app.state.files, app.clock().now_secs())
        .await
        .unwrap();
    assert_eq!(fetch(&app, &mei.user.token, &new_photo).await, 200);

    // A save loop waits.
    let mut limited = None;
    for _ in 0..=kizuna_core::rules::PROFILE_EDITS_PER_MINUTE {
        let r = edit(&app, &mei, &revised).await;
        if r.status() == 429 {
            limited = Some(r);
            break;
        }
        assert_eq!(r.status(), 200);
    }
    let r = limited.expect("the limit answers 429");
    assert!(r.headers().contains_key("retry-after"));
    assert_error(r, 429, "E007").await;
}

on_both_backends!(
    what_one_looks_for_takes_effect_at_once_from_the_next_list,
    what_others_see_goes_to_review_and_is_shown_once_approved,
    a_rejected_revision_keeps_the_approved_version_and_says_why,
    the_verification_goes_to_review_and_its_approval_records_the_employer,
    the_name_birthday_and_gender_cannot_be_changed_in_the_app,
    racing_reviewers_and_a_save_during_review_make_one_decision,
    every_edit_and_decision_is_checked_and_limited,
);
