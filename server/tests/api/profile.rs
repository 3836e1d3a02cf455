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

crate::on_both_backends!(
    a_refused_registration_leaves_no_trace_even_for_a_first_time_user,
    the_avatar_is_never_the_proof_of_employment_and_an_early_avatar_can_be_a_photo,
);
