//! The binary started as production starts it (the mock LINE platform off): the settings that
//! must not be wrong refuse to start, and what exists only for development answers 404.

use kizuna_server::{
    configuration::{MOCK_CHANNEL_SECRET, MOCK_LIFF_ID},
    line::webhook::signature,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::{
    helpers::{Api, line_user_id, scratch_dir},
    process::{Server, command, free_port},
};

const REAL_SECRET: &str = "a-real-channel-secret";

/// A production deployment's variables: every LINE value real, SMTP set (not contacted at start),
/// LINE's API at an address nothing listens on.
fn production_env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("KIZUNA_LINE_MOCK", "false"),
        ("KIZUNA_LINE_API_BASE", "http://127.0.0.1:9"),
        ("KIZUNA_LINE_CHANNEL_ID", "1650000000"),
        ("KIZUNA_LIFF_ID", "1650000000-abcdefgh"),
        ("KIZUNA_LINE_BOT_ID", "@kizuna"),
        ("KIZUNA_LINE_CHANNEL_SECRET", REAL_SECRET),
        ("KIZUNA_LINE_CHANNEL_ACCESS_TOKEN", "a-real-access-token"),
        ("KIZUNA_LINE_LOGIN_CHANNEL_TOKEN", "a-real-login-token"),
        ("KIZUNA_SMTP_URL", "smtp://127.0.0.1:9"),
        ("KIZUNA_INTRODUCTIONS_AT", "off"),
    ]
}

/// What the binary says when it refuses to start with these variables.
fn refusal(env: &[(&str, &str)]) -> String {
    let data_dir = scratch_dir();
    let out = command(&data_dir, None, "info")
        .env("KIZUNA_BIND", format!("127.0.0.1:{}", free_port()))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    std::fs::remove_dir_all(&data_dir).ok();
    assert!(!out.status.success(), "it started with {env:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn the_mock_will_not_start_beside_a_line_channel_id_or_liff_id() {
    for name in [
        "KIZUNA_LINE_CHANNEL_ID",
        "KIZUNA_LIFF_ID",
        "KIZUNA_LINE_BOT_ID",
    ] {
        let said = refusal(&[(name, "1650000000-abcdefgh")]);
        assert!(said.contains(name), "{said}");
        assert!(said.contains("KIZUNA_LINE_MOCK=false"), "{said}");
    }
}

#[tokio::test]
async fn without_the_mock_no_line_value_falls_back_to_the_mocks() {
    // Only SMTP set, as a deployment that forgot the rest: every missing name is given.
    let said = refusal(&[
        ("KIZUNA_LINE_MOCK", "false"),
        ("KIZUNA_SMTP_URL", "smtp://127.0.0.1:9"),
    ]);
    for name in [
        "KIZUNA_LINE_CHANNEL_ID",
        "KIZUNA_LIFF_ID",
        "KIZUNA_LINE_BOT_ID",
        "KIZUNA_LINE_CHANNEL_SECRET",
        "KIZUNA_LINE_CHANNEL_ACCESS_TOKEN",
        "KIZUNA_LINE_LOGIN_CHANNEL_TOKEN",
    ] {
        assert!(said.contains(name), "{name}: {said}");
    }
    // The mock's public secret given explicitly is no secret.
    let mut env = production_env();
    env.retain(|(name, _)| *name != "KIZUNA_LINE_CHANNEL_SECRET");
    env.push(("KIZUNA_LINE_CHANNEL_SECRET", MOCK_CHANNEL_SECRET));
    let said = refusal(&env);
    assert!(said.contains("KIZUNA_LINE_CHANNEL_SECRET"), "{said}");
    assert!(!said.contains("a-real-access-token"), "no secret printed");
}

#[tokio::test]
async fn in_production_the_development_pages_answer_404_and_the_mock_secret_signs_nothing() {
    let data_dir = scratch_dir();
    std::fs::create_dir_all(data_dir.join("web")).unwrap();
    std::fs::write(
        data_dir.join("web/index.html"),
        "<!doctype html><title>Kizuna</title>",
    )
    .unwrap();
    let server = Server::start_with(&data_dir, None, "info", &production_env()).await;
    let api = Api::new(server.base.clone());
    let config: Value = api.get("/api/config", None).await.json().await.unwrap();
    assert_eq!(config["mockEnable"], false);
    assert_eq!(config["liffId"], "1650000000-abcdefgh");
    assert_ne!(config["liffId"], MOCK_LIFF_ID);

    for path in [
        "/__mock/line/oauth2/v2.1/certs",
        "/__mock/line/messages",
        "/__mock/mail",
        "/__mock/reviewers",
        "/__mock/anything",
        "/dev",
        "/dev/",
        "/dev/tools",
        "/api/docs",
        "/api/openapi.json",
    ] {
        let r = api.get(path, None).await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "GET {path}");
    }
    let r = api
        .client
        .post(api.url("/__mock/line/id-token"))
        .json(&json!({"userId": line_user_id()}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND, "no ID tokens minted");
    // The app's own pages are still the app.
    for path in ["/", "/profile", "/developer"] {
        let r = api.get(path, None).await;
        assert_eq!(r.status(), StatusCode::OK, "GET {path}");
        assert!(r.text().await.unwrap().contains("Kizuna"));
    }

    // A webhook signed with the mock's public secret is refused; the channel's own is believed.
    let unfollow = json!({"destination": "U0123456789abcdef0123456789abcdef", "events": [{
        "type": "unfollow", "mode": "active", "timestamp": 1_000,
        "source": {"type": "user", "userId": line_user_id()},
        "webhookEventId": "01HZZZZZZZZZZZZZZZZZZZZZZ9",
    }]})
    .to_string();
    let post = |secret: &'static str| {
        api.client
            .post(api.url("/api/line/webhook"))
            .header("content-type", "application/json")
            .header("x-line-signature", signature(secret, unfollow.as_bytes()))
            .body(unfollow.clone())
            .send()
    };
    assert_eq!(post(MOCK_CHANNEL_SECRET).await.unwrap().status(), 401);
    assert_eq!(post(REAL_SECRET).await.unwrap().status(), 200);
    drop(server);
    std::fs::remove_dir_all(&data_dir).ok();
}

/// The other side of the test above: in development the same paths are served.
#[tokio::test]
async fn in_development_the_mock_the_dev_page_and_the_api_docs_are_served() {
    let data_dir = scratch_dir();
    std::fs::create_dir_all(data_dir.join("web")).unwrap();
    std::fs::write(
        data_dir.join("web/index.html"),
        "<!doctype html><title>Kizuna</title>",
    )
    .unwrap();
    let server = Server::start_with(&data_dir, None, "info", &[]).await;
    let api = Api::new(server.base.clone());
    for path in [
        "/__mock/line/oauth2/v2.1/certs",
        "/__mock/mail",
        "/dev",
        "/api/docs",
        "/api/openapi.json",
    ] {
        assert_eq!(api.get(path, None).await.status(), StatusCode::OK, "{path}");
    }
    drop(server);
    std::fs::remove_dir_all(&data_dir).ok();
}
