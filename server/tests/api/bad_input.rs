//! Bad bodies: each class answers its code and changes no stored data; nothing answers 500.

use serde_json::{Value, json};

use crate::helpers::{Backend, assert_error, jpeg, profile_payload, spawn_app};

async fn bad_bodies(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let p = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let v = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let good = profile_payload(&u.line_id, std::slice::from_ref(&p), &v);
    let before = app.snapshot().await;

    let raw = |path: &str, body: &str| {
        app.client
            .post(app.url(path))
            .header("X-Line-Id-Token", &u.id_token)
            .header("content-type", "application/json")
            .body(body.to_string())
    };

    // Malformed JSON.
    for body in ["{", "{\"account\":", "not json", "", "[1,2", "\u{0}"] {
        let r = raw("/api/user-profile", body).send().await.unwrap();
        assert_error(r, 400, "E002").await;
        let r = raw("/api/user/login", body).send().await.unwrap();
        assert_error(r, 400, "E002").await;
    }
    // Not an object.
    for body in ["[]", "42", "\"text\"", "null"] {
        let r = raw("/api/user-profile", body).send().await.unwrap();
        let status = r.status().as_u16();
        assert!(status == 400 || status == 422, "{body}: {status}");
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "E002");
    }
    // Wrong content type.
    let r = app
        .client
        .post(app.url("/api/user-profile"))
        .header("X-Line-Id-Token", &u.id_token)
        .header("content-type", "text/plain")
        .body(good.to_string())
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;

    // Wrong types: every one reported.
    let mut wrong = good.clone();
    wrong["height"] = json!("tall");
    wrong["personalityTagIds"] = json!("101");
    wrong["latitude"] = json!({"x": 1});
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &wrong).await,
        400,
        "E002",
    )
    .await;
    for f in ["height", "personalityTagIds", "latitude"] {
        assert!(body["fields"][f].is_array(), "{f}: {body}");
    }
    // Unknown fields.
    let mut unknown = good.clone();
    unknown["isAdmin"] = json!(true);
    unknown["status"] = json!("APPROVED");
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &unknown).await,
        400,
        "E002",
    )
    .await;
    assert_eq!(
        body["fields"]["isAdmin"],
        json!(["unknown_field"]),
        "{body}"
    );
    // Missing fields: every required one reported.
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &json!({"account": u.line_id}))
            .await,
        422,
        "E002",
    )
    .await;
    for f in ["nickname", "birthday", "gender", "photoNameList"] {
        assert!(body["fields"][f].is_array(), "{f}: {body}");
    }
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("nickname");
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &missing).await,
        422,
        "E002",
    )
    .await;
    assert!(body["fields"]["nickname"].is_array(), "{body}");
    // Rule failures (too young).
    let mut young = good.clone();
    young["birthday"] = json!("2015-01-01");
    assert_error(
        app.create_profile(Some(&u.id_token), &young).await,
        422,
        "E002",
    )
    .await;
    // Unknown / malformed file names.
    let mut ghost = good.clone();
    ghost["photoNameList"] = json!(["0123456789abcdef0123456789abcdef"]);
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &ghost).await,
        422,
        "E002",
    )
    .await;
    assert_eq!(
        body["fields"]["photoNameList"],
        json!(["unknown_file"]),
        "{body}"
    );
    let mut traversal = good.clone();
    traversal["photoNameList"] = json!(["../../etc/passwd"]);
    assert_error(
        app.create_profile(Some(&u.id_token), &traversal).await,
        422,
        "E002",
    )
    .await;

    // Login: missing, unknown and mistyped fields.
    for body in [
        json!({"account": u.line_id}),
        json!({"account": u.line_id, "password": u.line_id, "admin": true}),
        json!({"account": 5, "password": u.line_id}),
    ] {
        let r = app
            .client
            .post(app.url("/api/user/login"))
            .header("X-Line-Id-Token", &u.id_token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_error(r, 400, "E002").await;
    }

    // Oversize bodies.
    let mut huge = good.clone();
    huge["aboutMe"] = json!("x".repeat(400 * 1024));
    assert_error(
        app.create_profile(Some(&u.id_token), &huge).await,
        413,
        "E006",
    )
    .await;
    // ...also without a Content-Length (chunked).
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = vec![
        Ok(b"{\"aboutMe\":\"".to_vec()),
        Ok(vec![b'y'; 300 * 1024]),
        Ok(b"\"}".to_vec()),
    ];
    let r = app
        .client
        .post(app.url("/api/user-profile"))
        .header("X-Line-Id-Token", &u.id_token)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_error(r, 413, "E006").await;
    // Avatar body of the wrong shape.
    let r = app
        .client
        .put(app.url("/api/user-profile/avatar"))
        .bearer_auth(&u.token)
        .json(&json!({"avatar": 12}))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;

    assert_eq!(app.snapshot().await, before);

    // After all that, the good payload still goes through.
    let r = app.create_profile(Some(&u.id_token), &good).await;
    assert_eq!(r.status(), 200);
}

async fn logger_is_capped_and_rate_limited(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let log = |body: Value| {
        app.client
            .post(app.url("/api/logger"))
            .bearer_auth(&u.token)
            .json(&body)
            .send()
    };
    let r = log(json!({"message": "hello from the client", "level": "info"}))
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_error(
        log(json!({"message": "x", "level": "loud"})).await.unwrap(),
        400,
        "E002",
    )
    .await;
    assert_error(
        log(json!({"message": "x".repeat(2001), "level": "info"}))
            .await
            .unwrap(),
        400,
        "E002",
    )
    .await;
    assert_error(
        log(json!({"message": "x".repeat(40_000), "level": "info"}))
            .await
            .unwrap(),
        413,
        "E006",
    )
    .await;
    let mut limited = false;
    for _ in 0..40 {
        let r = log(json!({"message": "spam", "level": "warn"}))
            .await
            .unwrap();
        if r.status() == 429 {
            assert_error(r, 429, "E007").await;
            limited = true;
            break;
        }
        assert_eq!(r.status(), 204);
    }
    assert!(limited);

    // Wrong types are refused, not turned into text.
    let r = app
        .client
        .post(app.url("/api/logger"))
        .json(&json!({"message": 5, "level": "info"}))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;
    // Made-up session tokens do not buy fresh allowances: without a real session the client's
    // address is what counts.
    let mut limited = false;
    for i in 0..40 {
        let fake = format!("{:0>43}", i);
        let r = app
            .client
            .post(app.url("/api/logger"))
            .bearer_auth(&fake)
            .json(&json!({"message": "spam", "level": "warn"}))
            .send()
            .await
            .unwrap();
        if r.status() == 429 {
            limited = true;
            break;
        }
        assert_eq!(r.status(), 204);
    }
    assert!(limited, "forty fake tokens were never limited");
}

crate::on_both_backends!(logger_is_capped_and_rate_limited, bad_bodies,);
