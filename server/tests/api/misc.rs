//! Config, health, route rules, unknown API paths, OpenAPI, the mock platform and static hosting.

use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};

use crate::helpers::{Backend, assert_error, line_user_id, spawn_app};

#[tokio::test]
async fn public_endpoints_and_unknown_api_paths() {
    let app = spawn_app(Backend::Sqlite).await;
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    let config: Value = app.get("/api/config", None).await.json().await.unwrap();
    assert_eq!(config["apiServerPath"], "/api");
    assert_eq!(config["mockEnable"], true);
    assert!(config["liffId"].is_string() && config["lineBotId"].is_string());

    for path in [
        "/api/nope",
        "/api/user",
        "/api/file/fetch",
        "/api/",
        "/api/user/my-info/extra",
    ] {
        assert_error(app.get(path, None).await, 404, "E003").await;
    }
    let r = app
        .client
        .delete(app.url("/api/user/my-info"))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    assert!(status == 404 || status == 405);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "E003");

    let spec: Value = app
        .get("/api/openapi.json", None)
        .await
        .json()
        .await
        .unwrap();
    for path in [
        "/user/login",
        "/user/my-info",
        "/user/review-status/{userId}",
        "/user-profile",
        "/user-profile/avatar",
        "/file/tempUpload",
        "/file/fetch/{fileId}",
        "/logger",
        "/config",
        "/route-rules",
    ] {
        assert!(
            spec["paths"][path].is_object(),
            "{path} missing from the OpenAPI document"
        );
    }
    assert_eq!(app.get("/api/docs", None).await.status(), 200);
}

#[tokio::test]
async fn route_rules_come_from_the_database() {
    let app = spawn_app(Backend::Sqlite).await;
    let backend = app.db.get_database_backend();
    for (path, redirect) in [
        ("/old", "/profile"),
        ("/legacy/*", "https://example.com/"),
        ("/legacy/keep", "/kept"),
    ] {
        app.db
            .execute_raw(Statement::from_string(
                backend,
                format!("INSERT INTO route_rules (path, redirect, created_at) VALUES ('{path}', '{redirect}', 0)"),
            ))
            .await
            .unwrap();
    }
    let rule = |p: &'static str| {
        let app = &app;
        async move {
            app.client
                .get(app.url("/api/route-rules"))
                .query(&[("path", p)])
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    assert_eq!(rule("/old").await["redirect"], "/profile");
    assert_eq!(
        rule("/legacy/page").await["redirect"],
        "https://example.com/"
    );
    assert_eq!(rule("/legacy/keep").await["redirect"], "/kept");
    assert!(rule("/register").await["redirect"].is_null());
    assert_error(app.get("/api/route-rules", None).await, 400, "E002").await;
    assert_error(
        app.get("/api/route-rules?path=nope", None).await,
        400,
        "E002",
    )
    .await;
}

#[tokio::test]
async fn mock_line_platform() {
    let app = spawn_app(Backend::Sqlite).await;
    let id = line_user_id();
    app.mock_user(&id, false).await;
    let u: Value = app
        .get(&format!("/__mock/line/users/{id}"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(u["friend"], false);
    let f: Value = app
        .get(
            &format!("/__mock/line/friendship/v1/status?userId={id}"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(f["friendFlag"], false);
    app.mock_user(&id, true).await;
    let f: Value = app
        .get(
            &format!("/__mock/line/friendship/v1/status?userId={id}"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(f["friendFlag"], true);
    assert_eq!(
        app.get("/__mock/line/users/Uffffffffffffffffffffffffffffffff", None)
            .await
            .status(),
        404
    );
    let r = app
        .client
        .post(app.url("/__mock/line/users"))
        .json(&json!({"userId": "bob", "displayName": "Bob", "friend": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let token = app.id_token(&id).await;
    assert_eq!(token.split('.').count(), 3);
    let r = app
        .client
        .post(app.url("/__mock/line/v2/bot/message/push"))
        .bearer_auth(kizuna_server::configuration::MOCK_CHANNEL_ACCESS_TOKEN)
        .json(&json!({"to": id, "messages": [{"type": "text", "text": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let msgs: Value = app
        .get("/__mock/line/messages", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(msgs[0]["to"], id.as_str());
}

#[tokio::test]
async fn serves_the_web_app_with_spa_fallback() {
    let app = spawn_app(Backend::Sqlite).await;
    let web = app.data_dir.join("web");
    std::fs::create_dir_all(web.join("assets")).unwrap();
    std::fs::write(
        web.join("index.html"),
        "<!doctype html><title>Kizuna</title>",
    )
    .unwrap();
    std::fs::write(web.join("assets/app-1234abcd.js"), "console.log(1)").unwrap();

    for path in ["/", "/register", "/profile/deep/link"] {
        let r = app.get(path, None).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()[CACHE_CONTROL], "no-cache");
        assert!(r.text().await.unwrap().contains("Kizuna"));
    }
    let r = app.get("/assets/app-1234abcd.js", None).await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    assert_eq!(
        r.headers()[CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(app.get("/assets/missing-0000.js", None).await.status(), 404);
    assert_eq!(app.get("/../../etc/passwd", None).await.status(), 200); // normalised to the SPA
    let r = app.get("/api/unknown", None).await;
    assert_eq!(r.status(), 404);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "E003");
}
