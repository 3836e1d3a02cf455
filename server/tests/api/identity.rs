//! ID tokens and sessions: every forgery is E004, every session failure its own E001 code.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use kizuna_server::mock_line::sign_es256;
use p256::ecdsa::SigningKey;
use reqwest::header::AUTHORIZATION;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::helpers::{Backend, assert_error, line_user_id, spawn_app};

fn b64(v: &Value) -> String {
    URL_SAFE_NO_PAD.encode(v.to_string())
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let ipad: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    let opad: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    let inner = Sha256::new()
        .chain_update(&ipad)
        .chain_update(msg)
        .finalize();
    Sha256::new()
        .chain_update(&opad)
        .chain_update(inner)
        .finalize()
        .to_vec()
}

fn claims(sub: &str) -> Value {
    let now = kizuna_server::clock::now_secs();
    json!({"iss": "https://access.line.me", "sub": sub, "aud": kizuna_server::configuration::MOCK_CHANNEL_ID, "iat": now, "exp": now + 3600})
}

async fn forged_id_tokens_are_refused_and_change_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    let victim = line_user_id();
    app.mock_user(&victim, true).await;
    let good = app.id_token(&victim).await;
    let jwks: Value = app
        .get("/__mock/line/oauth2/v2.1/certs", None)
        .await
        .json()
        .await
        .unwrap();
    let jwk = &jwks["keys"][0];
    let kid = jwk["kid"].as_str().unwrap().to_string();

    let parts: Vec<&str> = good.split('.').collect();
    let attacker = line_user_id();
    let mut forged: Vec<(&str, String)> = Vec::new();
    // alg none.
    forged.push((
        "alg none",
        format!(
            "{}.{}.",
            b64(&json!({"alg": "none", "kid": kid})),
            b64(&claims(&victim))
        ),
    ));
    // Tampered payload (the signature of the original).
    forged.push((
        "tampered payload",
        format!("{}.{}.{}", parts[0], b64(&claims(&attacker)), parts[2]),
    ));
    // A foreign key presenting the mock's kid.
    let foreign = SigningKey::random(&mut rand::rngs::OsRng);
    forged.push(("foreign key", sign_es256(&foreign, &kid, &claims(&victim))));
    // An unknown kid.
    forged.push((
        "unknown kid",
        sign_es256(&foreign, "not-a-kid", &claims(&victim)),
    ));
    // HS256 with the public key as the HMAC secret.
    let header = b64(&json!({"alg": "HS256", "kid": kid}));
    let payload = b64(&claims(&victim));
    for secret in [
        jwk.to_string(),
        format!(
            "{}{}",
            jwk["x"].as_str().unwrap(),
            jwk["y"].as_str().unwrap()
        ),
    ] {
        let sig = hmac_sha256(secret.as_bytes(), format!("{header}.{payload}").as_bytes());
        forged.push((
            "HS256 with the public key",
            format!("{header}.{payload}.{}", URL_SAFE_NO_PAD.encode(sig)),
        ));
    }
    // Expired and wrong audience, properly signed by the mock.
    let expired = app
        .id_token_with(json!({"userId": victim, "expiresIn": -10}))
        .await;
    forged.push(("expired", expired));
    let wrong_aud: Value = app
        .client
        .post(app.url("/__mock/line/id-token"))
        .json(&json!({"userId": victim, "audience": "1111111111"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    forged.push((
        "wrong aud",
        wrong_aud["idToken"].as_str().unwrap().to_string(),
    ));
    // Garbage.
    forged.push(("not a JWT", "hello".into()));
    forged.push(("two parts", format!("{}.{}", parts[0], parts[1])));
    forged.push(("bad base64", format!("{}.{}.@@@", parts[0], parts[1])));

    let before = app.snapshot().await;
    let r = app.login_raw(None, &victim).await;
    assert_error(r, 403, "E004").await;
    for (what, token) in &forged {
        let r = app.login_raw(Some(token), &victim).await;
        assert_eq!(r.status(), 403, "{what}");
        assert_error(r, 403, "E004").await;
        let r = app
            .create_profile(Some(token), &json!({"account": victim}))
            .await;
        assert_error(r, 403, "E004").await;
        let r = app
            .client
            .get(app.url(&format!("/api/user/review-status/{victim}")))
            .header("X-Line-Id-Token", token)
            .send()
            .await
            .unwrap();
        assert_error(r, 403, "E004").await;
    }
    // A good token for someone else than the body's account.
    let r = app.login_raw(Some(&good), &attacker).await;
    assert_error(r, 403, "E004").await;
    let r = app
        .create_profile(
            Some(&good),
            &crate::helpers::profile_payload(&attacker, &[], "x"),
        )
        .await;
    assert_error(r, 403, "E004").await;
    assert_eq!(app.snapshot().await, before);

    // The genuine token still works.
    assert_eq!(app.login_raw(Some(&good), &victim).await.status(), 200);
}

async fn session_errors_have_their_codes_and_sessions_renew(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;

    assert_error(app.get("/api/user/my-info", None).await, 401, "E001").await;
    for bad in ["garbage", "", "a.b.c", &"x".repeat(43), &u.token[..42]] {
        let r = app
            .client
            .get(app.url("/api/user/my-info"))
            .header(AUTHORIZATION, format!("Bearer {bad}"))
            .send()
            .await
            .unwrap();
        assert_error(r, 401, "E001A").await;
    }
    let r = app
        .client
        .get(app.url("/api/user/my-info"))
        .header(AUTHORIZATION, format!("Basic {}", u.token))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001A").await;
    // The ID token is no session token.
    let r = app.get("/api/user/my-info", Some(&u.id_token)).await;
    assert_error(r, 401, "E001A").await;

    // Renewal: the answer carries the same token, and the expiry slides forward.
    let hash = kizuna_server::identity::session::hash_token(&u.token);
    let backend = app.db.get_database_backend();
    let soon = kizuna_server::clock::now_secs() + 60;
    app.db
        .execute_raw(Statement::from_string(
            backend,
            format!("UPDATE sessions SET expires_at = {soon} WHERE token_hash = '{hash}'"),
        ))
        .await
        .unwrap();
    // Changed behind the server's back: what it holds of the session is forgotten.
    app.state.sessions.forget_cached();
    let r = app.get("/api/user/my-info", Some(&u.token)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()[AUTHORIZATION].to_str().unwrap(), u.token);
    let row = app
        .db
        .query_one_raw(Statement::from_string(
            backend,
            format!("SELECT expires_at FROM sessions WHERE token_hash = '{hash}'"),
        ))
        .await
        .unwrap()
        .unwrap();
    let expires: i64 = row.try_get("", "expires_at").unwrap();
    assert!(expires > kizuna_server::clock::now_secs() + 6 * 24 * 3600);

    // Expired.
    let past = kizuna_server::clock::now_secs() - 1;
    app.db
        .execute_raw(Statement::from_string(
            backend,
            format!("UPDATE sessions SET expires_at = {past} WHERE token_hash = '{hash}'"),
        ))
        .await
        .unwrap();
    // Changed behind the server's back: what it holds of the session is forgotten.
    app.state.sessions.forget_cached();
    let r = app.get("/api/user/my-info", Some(&u.token)).await;
    assert!(r.headers().get(AUTHORIZATION).is_none());
    assert_error(r, 401, "E001B").await;

    // Revoked.
    let v = app.new_user().await;
    let vhash = kizuna_server::identity::session::hash_token(&v.token);
    app.db
        .execute_raw(Statement::from_string(
            backend,
            format!("UPDATE sessions SET revoked_at = 1 WHERE token_hash = '{vhash}'"),
        ))
        .await
        .unwrap();
    // Changed behind the server's back: what it holds of the session is forgotten.
    app.state.sessions.forget_cached();
    assert_error(
        app.get("/api/user/my-info", Some(&v.token)).await,
        401,
        "E001A",
    )
    .await;

    // Login needs no profile, and works again for the same user (a second session).
    let w = app.new_user().await;
    let again = app.login_raw(Some(&w.id_token), &w.line_id).await;
    assert_eq!(again.status(), 200);
    let t2: Value = again.json().await.unwrap();
    assert_ne!(t2["token"].as_str().unwrap(), w.token);
    assert_eq!(
        app.get("/api/user/my-info", Some(&w.token)).await.status(),
        200
    );
}

crate::on_both_backends!(
    forged_id_tokens_are_refused_and_change_nothing,
    session_errors_have_their_codes_and_sessions_renew,
);
