//! Registration and avatar rules beyond the main walk.

use serde_json::{Value, json};

use crate::helpers::{
    Backend, assert_error, assert_files_unknown, jpeg, line_user_id, profile_payload, spawn_app,
};

async fn a_refused_registration_leaves_no_trace_even_for_a_first_time_user(backend: Backend) {
    let app = spawn_app(backend).await;
    // A verified LINE user who never logged in (so never uploaded anything).
    let line_id = line_user_id();
    app.mock_user(&line_id, true).await;
    let id_token = app.id_token(&line_id).await;
    let before = app.snapshot().await;
    let payload = profile_payload(
        &line_id,
        &["0123456789abcdef0123456789abcdef".to_string()],
        "fedcba9876543210fedcba9876543210",
    );
    assert_files_unknown(app.create_profile(Some(&id_token), &payload).await).await;
    assert_eq!(app.snapshot().await, before, "not even a user row");
}

async fn the_avatar_is_never_the_proof_of_employment_and_an_early_avatar_can_be_a_photo(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let photo = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let employee_id = app.upload_ok(&u.token, jpeg(64, 40)).await;

    // Chosen as the avatar while registering, then submitted as a photo: both hold.
    assert_eq!(app.set_avatar(&u.token, &photo).await.status(), 200);
    let mut payload = profile_payload(&u.line_id, std::slice::from_ref(&photo), &employee_id);
    payload["verifyMethod"] = json!("EMPLOYEE_ID");
    let r = app.create_profile(Some(&u.id_token), &payload).await;
    let status = r.status();
    let created: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["photos"], json!([photo]));

    // The verification file is for the owner and reviewers only: never the avatar.
    let before = app.snapshot().await;
    assert_error(app.set_avatar(&u.token, &employee_id).await, 403, "E004").await;
    assert_eq!(app.snapshot().await, before);
    let info: Value = app
        .get("/api/user/my-info", Some(&u.token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info["avatar"], photo.as_str());
}

/// The typed mapping of a registration to its row, both ways: every field of a complete payload
/// lands in its own column (checked against the wire names, so two swapped columns cannot hide
/// behind a consistent read), and the row reads back into the very `ValidProfile` that was
/// submitted.
async fn a_complete_profile_is_stored_field_by_field_and_reads_back_equal(backend: Backend) {
    use kizuna_server::storage::{entity::profile, profiles, users};
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let photos = vec![
        app.upload_ok(&u.token, jpeg(64, 48)).await,
        app.upload_ok(&u.token, jpeg(48, 64)).await,
    ];
    let employee_id = app.upload_ok(&u.token, jpeg(40, 40)).await;
    let mut payload = profile_payload(&u.line_id, &photos, &employee_id);
    payload["verifyMethod"] = json!("EMPLOYEE_ID");
    payload["companyEmail"] = json!("Mei.Lin@TSMC.com");
    payload["valueItem"] = json!([
        {"type": "HEIGHT", "from": 170, "to": 190},
        {"type": "AGE", "from": 28, "to": 0},
        {"type": "INCOME", "from": 0, "to": 300},
        {"type": "EDUCATION", "value": "BACHELOR"},
        {"type": "MARRIAGE_RECORD", "value": 0},
        {"type": "HAS_CHILDREN", "value": 1},
        {"type": "SMOKE", "value": 1},
        {"type": "TATTOO", "value": "HIDDEN"},
        {"type": "DRINK", "value": 2}
    ]);
    let r = app.create_profile(Some(&u.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);

    let expected = kizuna_core::profile::UserProfileCreate::from_json(payload.clone())
        .unwrap()
        .parse(kizuna_server::clock::today())
        .unwrap();
    let user = users::find_by_line_id(&app.db, &u.line_id)
        .await
        .unwrap()
        .unwrap();
    let stored = profiles::load(&app.db, &user).await.unwrap().unwrap();
    assert_eq!(stored.profile, expected);
    assert_eq!(stored.status.as_str(), "PENDING");
    assert_eq!(
        stored.profile.verification.employer_id.as_deref(),
        Some("tsmc")
    );

    let row = profile::Entity::find()
        .filter(profile::Column::UserId.eq(user.id))
        .one(&app.db)
        .await
        .unwrap()
        .unwrap();
    let wire = |field: &str| match &payload[field] {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    };
    let columns: [(&str, Option<String>); 33] = [
        ("nickname", row.nickname.clone()),
        ("name", row.name.clone()),
        ("gender", row.gender.clone()),
        ("matchGender", row.match_gender.clone()),
        ("birthday", row.birthday.clone()),
        ("height", row.height.map(|v| v.to_string())),
        ("occupationType", row.occupation_type.clone()),
        ("occupation", row.occupation.clone()),
        ("achievement", row.achievement.clone()),
        ("incomeRange", row.income_range.clone()),
        ("school", row.school.clone()),
        ("education", row.education.clone()),
        ("marriageRecord", row.marriage_record.clone()),
        ("hasChildren", row.has_children.clone()),
        ("smoke", row.smoke.clone()),
        ("tattoo", row.tattoo.clone()),
        ("drink", row.drink.clone()),
        ("mbti", row.mbti.clone()),
        ("aboutMe", row.about_me.clone()),
        ("datingQuestion", row.dating_question.clone()),
        ("dailyLife", row.daily_life.clone()),
        ("surprisePoint", row.surprise_point.clone()),
        ("city", row.city.clone()),
        ("address", row.address.clone()),
        ("latitude", row.latitude.map(|v| v.to_string())),
        ("longitude", row.longitude.map(|v| v.to_string())),
        (
            "recommendDistanceKm",
            row.recommend_distance_km.map(|v| v.to_string()),
        ),
        ("feedback", row.feedback.clone()),
        ("verifyMethod", row.verify_method.clone()),
        ("reviewLink", row.review_link.clone()),
        ("verifyTempFileName", row.verify_file_id.clone()),
        ("verifyDescription", row.verify_description.clone()),
        // Normalised: the address is stored lower-cased.
        (
            "companyEmail",
            row.company_email
                .clone()
                .map(|e| e.replace("mei.lin@tsmc.com", "Mei.Lin@TSMC.com")),
        ),
    ];
    for (field, column) in columns {
        assert!(column.is_some(), "{field}: nothing stored");
        assert_eq!(column, wire(field), "{field}");
    }
    assert_eq!(row.company_email.as_deref(), Some("mei.lin@tsmc.com"));
    // The echo of my-info is the normalised payload.
    let stored_payload: Value = serde_json::from_str(&row.payload).unwrap();
    assert_eq!(
        stored_payload,
        serde_json::to_value(expected.to_payload()).unwrap()
    );
}

crate::on_both_backends!(
    a_complete_profile_is_stored_field_by_field_and_reads_back_equal,
    a_refused_registration_leaves_no_trace_even_for_a_first_time_user,
    the_avatar_is_never_the_proof_of_employment_and_an_early_avatar_can_be_a_photo,
);
