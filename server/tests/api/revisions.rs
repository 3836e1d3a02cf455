//! Edit after approval over HTTP on SQLite and PostgreSQL, one test per row of the
//! issue's table: what one looks for takes effect at once (from the next list); what others see
//! and the verification go to review as a revision that nobody else reads before a reviewer
//! approves it; the name, birthday and gender cannot be changed in the app. Also the races (two
//! reviewers, a save during review), the limits and hostile callers, and that a revision's photos
//! are never swept.

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::{
    colleagues::{approve, confirm_work_email},
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

/// Saves the member's form with `changes` (fields of row 1 only): nothing goes to review; answers
/// the fields that took effect at once.
async fn change(app: &TestApp, m: &Member, changes: Value) -> Value {
    let mut body = form(app, m).await;
    for (field, value) in changes.as_object().unwrap() {
        body[field] = value.clone();
    }
    let saved = ok_json(edit(app, m, &body).await).await;
    assert!(saved["revision"].is_null(), "{saved}");
    saved["applied"].clone()
}

/// Whether `other` is in `viewer`'s list of the day (made on the first look).
async fn lists(app: &TestApp, viewer: &Member, other: &Member) -> bool {
    listed_ids(&introductions(app, viewer).await).contains(&other.id)
}

/// Kaohsiung (about 300 km from the Taipei of `register`'s members).
fn in_kaohsiung() -> Value {
    json!({"city": "KHH", "address": "Lingya District", "latitude": 22.6273, "longitude": 120.3014})
}

/// Row 1, one field at a time: the radius, the income, whom one looks for and the home location
/// each change the member's next list (the one made today stays as it was), and the lists of the
/// others follow through the two-way check: a member whose own rule kept her out (his radius, his
/// income condition, her gender) has her from his next list, and one whose radius she moved out
/// of does not until she moves back.
async fn each_thing_one_looks_for_changes_the_next_lists_both_ways(backend: Backend) {
    let app = spawn_app(backend).await;
    // 01:00 in Taipei, so that no day ends in the middle of the test.
    let into_day =
        (app.clock().now_secs() + kizuna_core::rules::TAIPEI_UTC_OFFSET_SECS).rem_euclid(86_400);
    app.clock().advance(86_400 - into_day + 3600);
    let next_day = || app.clock().advance(86_400);
    // Mei: Taipei, within 30 km, men, INCOME_150_200, no partner conditions.
    let (mei, _) = approved(&app, 0, true).await;
    // Far lives in Kaohsiung and takes anyone anywhere: only her radius keeps them apart.
    let (far, _) = approved(&app, 1, false).await;
    let mut far_away = in_kaohsiung();
    far_away["recommendDistanceKm"] = json!(0);
    change(&app, &far, far_away).await;
    // Ren, in Taipei, looks for an income of 2,000,000 TWD a year or more.
    let (ren, _) = approved(&app, 2, false).await;
    change(
        &app,
        &ren,
        json!({"valueItem": [{"type": "INCOME", "from": 200}]}),
    )
    .await;
    // Lin, a woman in Taipei, looks for anyone: only Mei's "men" keeps them apart.
    let (lin, _) = approved(&app, 3, true).await;
    change(&app, &lin, json!({"matchGender": "ANY"})).await;
    // Wu lives in Kaohsiung and looks within 30 km.
    let (wu, _) = approved(&app, 4, false).await;
    change(&app, &wu, in_kaohsiung()).await;
    // Tao and Bo live in Taipei and look within 30 km: Tao's list is made while she lives
    // there, Bo's first one once she moved away.
    let (tao, _) = approved(&app, 5, false).await;
    let (bo, _) = approved(&app, 6, false).await;

    // Day 0: none of the four is in her list, nor she in theirs; Tao has her.
    for other in [&far, &ren, &lin, &wu] {
        assert!(!lists(&app, &mei, other).await, "{}", other.id);
        assert!(!lists(&app, other, &mei).await, "{}", other.id);
    }
    assert!(lists(&app, &tao, &mei).await);
    let today = listed_ids(&introductions(&app, &mei).await);

    // The radius: anywhere. Today's list stays; from the next one Far and she meet.
    let applied = change(&app, &mei, json!({"recommendDistanceKm": 0})).await;
    assert_eq!(applied, json!(["recommendDistanceKm"]));
    assert_eq!(listed_ids(&introductions(&app, &mei).await), today);
    assert!(
        !lists(&app, &far, &mei).await,
        "his list of today stays too"
    );
    next_day();
    assert!(lists(&app, &mei, &far).await);
    assert!(lists(&app, &far, &mei).await);
    for other in [&ren, &lin] {
        assert!(!lists(&app, &mei, other).await, "{}", other.id);
        assert!(!lists(&app, other, &mei).await, "{}", other.id);
    }
    // Her radius is not his: Wu's 30 km still keep her out.
    assert!(!lists(&app, &mei, &wu).await);
    assert!(!lists(&app, &wu, &mei).await);

    // The income: now within Ren's condition, so his next list has her and hers has him.
    let applied = change(&app, &mei, json!({"incomeRange": "INCOME_200_300"})).await;
    assert_eq!(applied, json!(["incomeRange"]));
    assert!(!lists(&app, &ren, &mei).await);
    next_day();
    assert!(lists(&app, &ren, &mei).await);
    assert!(lists(&app, &mei, &ren).await);
    assert!(!lists(&app, &mei, &lin).await);
    assert!(!lists(&app, &lin, &mei).await);

    // Whom she looks for: anyone. Lin and she meet from their next lists.
    let applied = change(&app, &mei, json!({"matchGender": "ANY"})).await;
    assert_eq!(applied, json!(["matchGender"]));
    assert!(!lists(&app, &lin, &mei).await);
    next_day();
    assert!(lists(&app, &mei, &lin).await);
    assert!(lists(&app, &lin, &mei).await);
    assert!(!lists(&app, &wu, &mei).await);

    // Her home: Kaohsiung. Wu's 30 km now reach her; Bo's, in Taipei, no longer do.
    let applied = change(&app, &mei, in_kaohsiung()).await;
    assert_eq!(applied, json!(["city", "address", "latitude", "longitude"]));
    assert!(!lists(&app, &wu, &mei).await);
    next_day();
    assert!(lists(&app, &wu, &mei).await);
    assert!(lists(&app, &mei, &wu).await);
    assert!(!lists(&app, &bo, &mei).await, "beyond his 30 km");
    // Back in Taipei: Bo has her from his next list.
    let mut taipei = form(&app, &tao).await;
    let home: serde_json::Map<String, Value> = ["city", "address", "latitude", "longitude"]
        .into_iter()
        .map(|field| (field.to_string(), taipei[field].take()))
        .collect();
    change(&app, &mei, Value::Object(home)).await;
    next_day();
    assert!(lists(&app, &bo, &mei).await);
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
        pushes
            .iter()
            .any(|p| p.to_string().contains("Your changes are approved")),
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

/// Row 3 end to end with a new work e-mail: refused until its code is confirmed, then saved as a
/// revision (others' lists as before meanwhile); the reviewer sees it confirmed with its
/// catalogue employer and approves without a pick (one naming another employer is `mismatch`).
/// The e-mail's employer goes on record, and with the colleagues switch on (the default) the
/// member of the new employer leaves her list at once, while the one of her old employer is
/// introduced from the next list.
async fn a_new_work_email_moves_the_employer_on_record_and_the_colleagues(backend: Backend) {
    let app = spawn_app(backend).await;
    let reviewer = make_reviewer(&app).await;
    let (mei, _) = register(&app, 0, true).await;
    let (kai, _) = register(&app, 1, false).await;
    let (bo, _) = register(&app, 2, false).await;
    approve(&app, &reviewer, &mei, "mediatek").await;
    approve(&app, &reviewer, &kai, "tsmc").await;
    approve(&app, &reviewer, &bo, "mediatek").await;
    // At MediaTek: Bo is her colleague, Kai is introduced.
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    assert!(!listed_ids(&introductions(&app, &bo).await).contains(&mei.id));

    let email = "mei.lin@tsmc.com";
    let mut body = form(&app, &mei).await;
    body["verifyMethod"] = json!("COMPANY_EMAIL");
    body["companyEmail"] = json!(email);
    let err = assert_error(edit(&app, &mei, &body).await, 422, "E002").await;
    assert_eq!(
        err["fields"]["companyEmail"],
        json!(["email_not_confirmed"])
    );
    confirm_work_email(&app, &mei.user, email).await;
    let saved = ok_json(edit(&app, &mei, &body).await).await;
    assert_eq!(saved["revision"]["status"], "PENDING");
    assert_eq!(
        saved["revision"]["changedFields"],
        json!(["verifyMethod", "companyEmail"])
    );
    // Until it is approved nothing changes for anyone.
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![kai.id]);
    let view = review_view(&app, &reviewer, &mei).await;
    let verification = &view["verification"];
    assert_eq!(verification["method"], "COMPANY_EMAIL");
    assert_eq!(verification["companyEmail"], email);
    assert_eq!(verification["emailConfirmed"], true);
    assert_eq!(verification["employer"]["id"], "tsmc");
    assert_eq!(verification["employerOnRecord"]["id"], "mediatek");

    let r = decide(
        &app,
        &reviewer,
        &mei,
        json!({"action": "APPROVE", "revision": 1, "employer": "mediatek"}),
    )
    .await;
    let err = assert_error(r, 422, "E002").await;
    assert_eq!(err["fields"]["employer"], json!(["mismatch"]));
    // Nothing recorded: the revision waits, the approved verification and employer stand.
    let unchanged = review_view(&app, &reviewer, &mei).await;
    assert_eq!(unchanged["revision"], 1);
    assert_eq!(unchanged["version"], view["version"]);
    assert_eq!(unchanged["previousProfile"]["verifyMethod"], "EMPLOYEE_ID");
    assert_eq!(
        unchanged["verification"]["employerOnRecord"]["id"],
        "mediatek"
    );
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
    let view = review_view(&app, &reviewer, &mei).await;
    assert!(view["revision"].is_null());
    assert_eq!(view["verification"]["method"], "COMPANY_EMAIL");
    assert_eq!(view["verification"]["companyEmail"], email);
    assert_eq!(view["verification"]["employerOnRecord"]["id"], "tsmc");

    // Kai is her colleague now: gone from her list at once, and she from his, profiles too.
    assert_eq!(
        listed_ids(&introductions(&app, &mei).await),
        Vec::<i64>::new()
    );
    assert!(!listed_ids(&introductions(&app, &kai).await).contains(&mei.id));
    for (viewer, other) in [(&mei, &kai), (&kai, &mei)] {
        let page = app
            .get(
                &format!("/api/members/{}", other.id),
                Some(&viewer.user.token),
            )
            .await;
        assert_error(page, 404, "E003").await;
    }
    // Bo no longer is: they meet from their next lists.
    app.clock().advance(24 * 3600);
    assert_eq!(listed_ids(&introductions(&app, &mei).await), vec![bo.id]);
    assert!(listed_ids(&introductions(&app, &bo).await).contains(&mei.id));
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

/// A real race, many rounds: each round a member saves their form while one reviewer approves and
/// another rejects the revision that was pending, all three sent at once. Every round ends one of
/// the ways the design allows and no other: the save is never lost (always the one pending
/// revision, one number on); at most one decision wins and it is applied to the revision the
/// reviewers saw, never to the save's (an approval shows that revision's words, a rejection and
/// a save that came first change nothing others see); every other decision is 409 E005; one push
/// per decision made.
async fn a_save_racing_two_decisions_ends_one_consistent_way_each_round(backend: Backend) {
    // Members race at once; each saves once to start and once a round, within the edit limit.
    const MEMBERS: usize = 3;
    const ROUNDS: usize = kizuna_core::rules::PROFILE_EDITS_PER_MINUTE as usize - 1;
    let app = spawn_app(backend).await;
    let approver = make_reviewer(&app).await;
    let rejecter = make_reviewer(&app).await;
    let mut members = Vec::new();
    for n in 0..MEMBERS {
        members.push(approved(&app, n, n % 2 == 0).await.0);
    }
    let outcomes = futures_util::future::join_all(
        members
            .iter()
            .enumerate()
            .map(|(n, m)| race_rounds(&app, &approver, &rejecter, m, n, ROUNDS)),
    )
    .await;
    let mut total = [0; 3];
    for (m, counts) in members.iter().zip(&outcomes) {
        for (sum, count) in total.iter_mut().zip(counts) {
            *sum += count;
        }
        // One push per decision made, none for a refused one.
        let pushes = crate::review::outbox_for(&app.db, &m.user.line_id).await;
        assert_eq!(pushes.len(), counts[0] + counts[1], "{counts:?}");
    }
    eprintln!(
        "{backend:?}: {} approved, {} rejected, {} saved first",
        total[0], total[1], total[2]
    );
    assert_eq!(total.iter().sum::<usize>(), MEMBERS * ROUNDS);
}

/// `rounds` rounds of a save racing an approval and a rejection for member `m` (number `n`);
/// answers how many rounds the approval, the rejection and the save won.
async fn race_rounds(
    app: &TestApp,
    approver: &User,
    rejecter: &User,
    m: &Member,
    n: usize,
    rounds: usize,
) -> [usize; 3] {
    let words =
        |round: usize| format!("Member {n}, round {round}: words saved while reviewers decide.");
    let mut body = form(app, m).await;
    let mut shown = body["aboutMe"].clone();
    body["aboutMe"] = json!(words(0));
    let saved = ok_json(edit(app, m, &body).await).await;
    let mut pending = saved["revision"]["number"].as_i64().unwrap();
    let mut pending_words = words(0);
    let mut version = review_view(app, approver, m).await["version"]
        .as_i64()
        .unwrap();
    let mut won = [0; 3];
    for round in 1..=rounds {
        body["aboutMe"] = json!(words(round));
        let (saved, approved, rejected) = tokio::join!(
            edit(app, m, &body),
            decide(
                app,
                approver,
                m,
                json!({"action": "APPROVE", "revision": pending})
            ),
            decide(
                app,
                rejecter,
                m,
                json!({"action": "REJECT", "reasons": ["PROFILE_INCOMPLETE"], "revision": pending})
            ),
        );
        // The save is never refused nor lost: it is the pending revision, one number on.
        let saved = ok_json(saved).await;
        let revision = &saved["revision"];
        assert_eq!(revision["status"], "PENDING", "round {round}: {saved}");
        assert_eq!(revision["number"], pending + 1, "round {round}: {saved}");
        assert_eq!(revision["profile"]["aboutMe"], words(round));
        // At most one decision; every other one is a conflict.
        let mut winner = None;
        for (action, r) in [("APPROVED", approved), ("REJECTED", rejected)] {
            if r.status() == 200 {
                assert!(winner.is_none(), "round {round}: two decisions");
                let decided = ok_json(r).await;
                assert_eq!(decided["status"], action, "round {round}");
                winner = Some(action);
            } else {
                assert_error(r, 409, "E005").await;
            }
        }
        // What others see: the revision the reviewers saw once approved, nothing new otherwise.
        match winner {
            Some("APPROVED") => {
                shown = json!(pending_words);
                version += 1;
                won[0] += 1;
            }
            Some(_) => won[1] += 1,
            None => won[2] += 1,
        }
        let info = my_info(app, m).await;
        assert_eq!(info["profile"]["aboutMe"], shown, "round {round}");
        assert_eq!(info["revision"]["number"], pending + 1, "round {round}");
        assert_eq!(info["revision"]["status"], "PENDING", "round {round}");
        assert_eq!(info["revision"]["profile"]["aboutMe"], words(round));
        let view = review_view(app, approver, m).await;
        assert_eq!(view["version"], version, "round {round}");
        assert_eq!(view["revision"], pending + 1, "round {round}");
        assert_eq!(view["previousProfile"]["aboutMe"], shown, "round {round}");
        let queued: Vec<Value> = queue(app, approver)
            .await
            .into_iter()
            .filter(|item| item["profileId"] == m.id)
            .collect();
        assert_eq!(queued.len(), 1, "round {round}");
        assert_eq!(queued[0]["revision"], pending + 1, "round {round}");
        pending += 1;
        pending_words = words(round);
    }
    won
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
    each_thing_one_looks_for_changes_the_next_lists_both_ways,
    a_new_work_email_moves_the_employer_on_record_and_the_colleagues,
    a_save_racing_two_decisions_ends_one_consistent_way_each_round,
);
