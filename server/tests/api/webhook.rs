//! POST /api/line/webhook: LINE's signature, follow / unfollow, deduplication and order.

use kizuna_server::{
    configuration::MOCK_CHANNEL_SECRET, line::webhook::signature, storage::line_events,
};
use reqwest::Response;
use serde_json::{Value, json};

use crate::helpers::{Backend, TestApp, assert_error, line_user_id, spawn_app};

fn event(kind: &str, user: &str, id: &str, timestamp: i64) -> Value {
    json!({
        "type": kind,
        "mode": "active",
        "timestamp": timestamp,
        "source": {"type": "user", "userId": user},
        "webhookEventId": id,
        "deliveryContext": {"isRedelivery": false},
    })
}

fn body(events: Vec<Value>) -> String {
    json!({"destination": "U0123456789abcdef0123456789abcdef", "events": events}).to_string()
}

async fn post(app: &TestApp, body: &str, signature: Option<&str>) -> Response {
    let mut req = app
        .client
        .post(app.url("/api/line/webhook"))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(signature) = signature {
        req = req.header("x-line-signature", signature);
    }
    req.send().await.unwrap()
}

async fn signed(app: &TestApp, body: &str) -> Value {
    let r = post(
        app,
        body,
        Some(&signature(MOCK_CHANNEL_SECRET, body.as_bytes())),
    )
    .await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

async fn friendship(app: &TestApp, user: &str) -> Option<bool> {
    line_events::friendship(&app.db, user).await.unwrap()
}

async fn only_a_correctly_signed_body_is_accepted(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = line_user_id();
    let follow = body(vec![event(
        "follow",
        &user,
        "01HZZZZZZZZZZZZZZZZZZZZZZ1",
        1_000,
    )]);
    let before = app.snapshot().await;
    let good = signature(MOCK_CHANNEL_SECRET, follow.as_bytes());
    let tampered = follow.replace("follow", "unfollow");
    let refused = [
        (None, follow.clone(), "E001"),
        (
            Some(signature("another-secret", follow.as_bytes())),
            follow.clone(),
            "E001A",
        ),
        (Some(good.clone()), tampered, "E001A"),
        (Some(good.clone()), format!("{follow} "), "E001A"),
        (Some("bm90IGEgc2lnbmF0dXJl".into()), follow.clone(), "E001A"),
        (Some("%%%".into()), follow.clone(), "E001A"),
        (Some(String::new()), follow.clone(), "E001A"),
        (
            Some(good[..good.len() - 2].to_string()),
            follow.clone(),
            "E001A",
        ),
    ];
    for (sig, body, code) in refused {
        assert_error(post(&app, &body, sig.as_deref()).await, 401, code).await;
    }
    // Without a content type, too: the signature decides.
    let r = app
        .client
        .post(app.url("/api/line/webhook"))
        .body(follow.clone())
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
    assert_eq!(app.snapshot().await, before, "nothing recorded");
    assert_eq!(friendship(&app, &user).await, None);

    // A signed body that is no webhook body: 400, nothing recorded.
    let junk = "[1, 2, 3]";
    let r = post(
        &app,
        junk,
        Some(&signature(MOCK_CHANNEL_SECRET, junk.as_bytes())),
    )
    .await;
    assert_error(r, 400, "E002").await;
    assert_eq!(app.snapshot().await, before);

    let ack = signed(&app, &follow).await;
    assert_eq!(ack, json!({"applied": 1, "duplicates": 0, "ignored": 0}));
    assert_eq!(friendship(&app, &user).await, Some(true));
    // LINE's "verify" call: no events.
    assert_eq!(
        signed(&app, &body(vec![])).await,
        json!({"applied": 0, "duplicates": 0, "ignored": 0})
    );
}

async fn a_replayed_event_is_applied_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = line_user_id();
    app.mock_user(&user, true).await;
    let sent = app
        .mock_post(
            "/__mock/line/webhook-events",
            json!({"type": "follow", "userId": user}),
        )
        .await;
    assert_eq!(sent["status"], 200);
    assert_eq!(sent["answer"]["applied"], 1);
    let id = sent["webhookEventId"].as_str().unwrap();
    // The exact request again (LINE redelivers what got no 200).
    let r = post(
        &app,
        sent["body"].as_str().unwrap(),
        sent["signature"].as_str(),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"applied": 0, "duplicates": 1, "ignored": 0})
    );
    // Marked as a redelivery, with the same id.
    let again = app
        .mock_post(
            "/__mock/line/webhook-events",
            json!({"type": "follow", "userId": user, "webhookEventId": id, "isRedelivery": true}),
        )
        .await;
    assert_eq!(again["answer"]["duplicates"], 1, "{again}");
    assert_eq!(app.snapshot().await.count("line_webhook_events"), 1);

    // An unfollow after it; a replay of the old follow must not undo it.
    let unfollow = app
        .mock_post(
            "/__mock/line/webhook-events",
            json!({"type": "unfollow", "userId": user}),
        )
        .await;
    assert_eq!(unfollow["answer"]["applied"], 1);
    assert_eq!(friendship(&app, &user).await, Some(false));
    let r = post(
        &app,
        sent["body"].as_str().unwrap(),
        sent["signature"].as_str(),
    )
    .await;
    assert_eq!(r.json::<Value>().await.unwrap()["duplicates"], 1);
    assert_eq!(friendship(&app, &user).await, Some(false));
    // The mock's own LIFF friendship answer follows its events.
    let status: Value = app
        .get(
            &format!("/__mock/line/friendship/v1/status?userId={user}"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(status["friendFlag"], false);
}

async fn out_of_order_events_keep_the_newest(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = line_user_id();
    // The unfollow (t = 2000) arrives before the follow (t = 1000) it came after.
    let ack = signed(&app, &body(vec![event("unfollow", &user, "E2", 2_000)])).await;
    assert_eq!(ack["applied"], 1);
    let ack = signed(&app, &body(vec![event("follow", &user, "E1", 1_000)])).await;
    assert_eq!(ack["applied"], 1, "recorded as seen, but older");
    assert_eq!(friendship(&app, &user).await, Some(false));
    // Both in one body, newest first.
    let other = line_user_id();
    signed(
        &app,
        &body(vec![
            event("follow", &other, "E4", 4_000),
            event("unfollow", &other, "E3", 3_000),
        ]),
    )
    .await;
    assert_eq!(friendship(&app, &other).await, Some(true));
    // A newer follow wins.
    signed(&app, &body(vec![event("follow", &user, "E5", 5_000)])).await;
    assert_eq!(friendship(&app, &user).await, Some(true));
}

/// A forged (or skewed) unfollow dated far in the future must not silence the member for good: it
/// counts as of its arrival, and the member's next real follow wins over it.
async fn an_event_dated_in_the_future_is_not_trusted_beyond_now(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = line_user_id();
    let year_3000 = 32_503_680_000_000;
    let ack = signed(&app, &body(vec![event("unfollow", &user, "F1", year_3000)])).await;
    assert_eq!(ack["applied"], 1);
    assert_eq!(friendship(&app, &user).await, Some(false));
    // A second later by the server's clock, the member follows again.
    app.clock().advance(1);
    let now_ms = app.clock().now_millis();
    signed(&app, &body(vec![event("follow", &user, "F2", now_ms)])).await;
    assert_eq!(
        friendship(&app, &user).await,
        Some(true),
        "the real follow after it is newer"
    );
}

async fn other_events_are_acknowledged_and_ignored(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = line_user_id();
    let before = app.snapshot().await;
    let mut message = event("message", &user, "M1", 1_000);
    message["message"] = json!({"type": "text", "id": "1", "text": "hello"});
    let mut group_follow = event("follow", &user, "M2", 1_000);
    group_follow["source"] = json!({"type": "group", "groupId": "C0123"});
    let mut bad_user = event("unfollow", "someone", "M3", 1_000);
    bad_user["mode"] = json!("standby");
    let no_id =
        json!({"type": "follow", "timestamp": 1, "source": {"type": "user", "userId": user}});
    let ack = signed(&app, &body(vec![message, group_follow, bad_user, no_id])).await;
    assert_eq!(ack, json!({"applied": 0, "duplicates": 0, "ignored": 4}));
    assert_eq!(app.snapshot().await, before);
}

async fn the_document_describes_the_webhook(backend: Backend) {
    let app = spawn_app(backend).await;
    let spec: Value = app
        .get("/api/openapi.json", None)
        .await
        .json()
        .await
        .unwrap();
    let op = &spec["paths"]["/line/webhook"]["post"];
    assert!(
        op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "x-line-signature" && p["in"] == "header"),
        "{op}"
    );
    assert_eq!(
        op["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/LineWebhook"
    );
    assert!(op["responses"]["401"].is_object());
    assert!(spec["components"]["schemas"]["LineWebhook"]["properties"]["events"].is_object());
    for path in [
        "/verification/email-code",
        "/verification/email-code/confirm",
    ] {
        assert!(spec["paths"][path]["post"].is_object(), "{path}");
    }
}

crate::on_both_backends!(
    only_a_correctly_signed_body_is_accepted,
    a_replayed_event_is_applied_once,
    out_of_order_events_keep_the_newest,
    an_event_dated_in_the_future_is_not_trusted_beyond_now,
    other_events_are_acknowledged_and_ignored,
    the_document_describes_the_webhook,
);
