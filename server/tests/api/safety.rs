//! Safe conversations over HTTP on SQLite and PostgreSQL: the recipient's caution (the page of
//! messages and the events stream), never on the sender's own copy; the kinds stored with the
//! message, not a second copy of its text; a conversation with money talk in the reviewers'
//! queue once (racing sends too), as an item of its own that neither blocks nor ends the match
//! and names no reporter; its dismissal, and its settlement by a suspension; who may do what.

use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    chat::{Events, client_id, history, matched_pair, post},
    helpers::{Backend, assert_error, number, reviewer, spawn_app},
    matchmaking::{approved, ok_json, send},
    on_both_backends,
};

const CONTACT: &str = "加我ＬＩＮＥ：ｋｅｖｉｎ０８１５";
const MONEY: &str = "Buy USDT and send it to this wallet, the platform guarantees returns";

fn keys(message: &Value) -> Vec<String> {
    let mut keys: Vec<String> = message.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

async fn the_recipient_sees_a_caution_and_the_sender_never_does(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let (lin, _) = approved(&app, 2, true).await;
    let mut mei_events = Events::open(&app, &mei).await;
    let mut kai_events = Events::open(&app, &kai).await;

    let sent = ok_json(post(&app, &mei, id, &client_id(1), CONTACT).await).await;
    assert_eq!(sent["caution"], Value::Null, "the sender's own answer");
    let got = kai_events.expect("message").await;
    assert_eq!(
        got["message"]["caution"],
        json!({"kinds": ["OFF_PLATFORM"]})
    );
    assert_eq!(
        mei_events.expect("message").await["message"]["caution"],
        Value::Null
    );
    ok_json(post(&app, &mei, id, &client_id(2), MONEY).await).await;
    assert_eq!(
        kai_events.expect("message").await["message"]["caution"],
        json!({"kinds": ["MONEY"]})
    );
    ok_json(
        post(
            &app,
            &mei,
            id,
            &client_id(3),
            "See you at Taipei 101 at 7:30",
        )
        .await,
    )
    .await;
    ok_json(post(&app, &kai, id, &client_id(4), "My LINE is kai_1990").await).await;

    let page = ok_json(history(&app, &kai, id, "").await).await;
    let cautions: Vec<&Value> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["caution"])
        .collect();
    assert_eq!(
        cautions,
        [
            &json!({"kinds": ["OFF_PLATFORM"]}),
            &json!({"kinds": ["MONEY"]}),
            &Value::Null,
            // Kai's own message: no caution for him.
            &Value::Null,
        ]
    );
    let page = ok_json(history(&app, &mei, id, "").await).await;
    let cautions: Vec<&Value> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["caution"])
        .collect();
    assert_eq!(
        cautions,
        [
            &Value::Null,
            &Value::Null,
            &Value::Null,
            &json!({"kinds": ["OFF_PLATFORM"]})
        ]
    );
    // A message as its reader gets it: nothing about its sender beyond the text.
    assert_eq!(
        keys(&page["messages"][0]),
        [
            "caution",
            "clientMessageId",
            "messageId",
            "mine",
            "sentAt",
            "text"
        ]
    );
    // The kinds are stored with the message: one row each, no second copy of the text.
    assert_eq!(
        number(&app, "SELECT COUNT(*) AS n FROM chat_messages").await,
        4
    );
    assert_eq!(
        number(
            &app,
            "SELECT COUNT(*) AS n FROM chat_messages WHERE safety_kinds <> 0"
        )
        .await,
        3
    );
    // A member not in the match, and a stranger without a session, learn nothing.
    assert_error(history(&app, &lin, id, "").await, 404, "E003").await;
    assert_error(
        app.get(&format!("/api/matches/{id}/messages"), None).await,
        401,
        "E001",
    )
    .await;
}

async fn money_talk_puts_the_conversation_in_the_queue_once_and_a_reviewer_dismisses_it(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let (lin, _) = approved(&app, 2, true).await;
    let token = reviewer(&app).await;

    ok_json(post(&app, &kai, id, &client_id(1), "Hi Mei").await).await;
    ok_json(post(&app, &mei, id, &client_id(1), CONTACT).await).await;
    let queue = ok_json(app.get("/api/review/conversations", Some(&token)).await).await;
    assert_eq!(
        queue["items"],
        json!([]),
        "contact details alone queue nothing"
    );

    // Racing money messages: the conversation enters the queue once.
    let ids: Vec<String> = (0..6).map(|n| client_id(10 + n)).collect();
    let racing = ids.iter().map(|c| post(&app, &mei, id, c, MONEY));
    for r in futures_util::future::join_all(racing).await {
        assert_eq!(r.status(), 201);
    }
    let queue = ok_json(app.get("/api/review/conversations", Some(&token)).await).await;
    let items = queue["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{queue}");
    let item = &items[0];
    assert_eq!(item["matchId"], id);
    assert_eq!(item["cause"], "OFF_PLATFORM_THEN_MONEY");
    assert_eq!(item["member"]["profileId"], mei.id);
    assert_eq!(item["other"]["profileId"], kai.id);
    assert_eq!(item["memberStatus"], "APPROVED");
    assert!(item.get("reporter").is_none(), "it names no reporter");
    assert!(queue["now"].as_i64().unwrap() >= item["createdAt"].as_i64().unwrap());
    let lines = item["conversation"].as_array().unwrap();
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0]["from"], "other");
    assert_eq!(lines[0]["kinds"], json!([]));
    assert_eq!(lines[1]["from"], "member");
    assert_eq!(lines[1]["kinds"], json!(["OFF_PLATFORM"]));
    assert_eq!(lines[2]["kinds"], json!(["MONEY"]));
    // Not a report: no report row, no block, the match goes on for both.
    assert_eq!(number(&app, "SELECT COUNT(*) AS n FROM reports").await, 0);
    assert_eq!(number(&app, "SELECT COUNT(*) AS n FROM blocks").await, 0);
    assert_eq!(
        post(&app, &kai, id, &client_id(2), "Hmm").await.status(),
        201
    );

    // Members never reach the queue; nobody without a session does.
    for m in [&mei, &kai, &lin] {
        assert_error(
            app.get("/api/review/conversations", Some(&m.user.token))
                .await,
            403,
            "E004",
        )
        .await;
        assert_error(
            send(
                &app,
                Method::POST,
                &format!("/api/review/conversations/{id}/dismiss"),
                &m.user.token,
                None,
            )
            .await,
            403,
            "E004",
        )
        .await;
    }
    assert_error(
        app.get("/api/review/conversations", None).await,
        401,
        "E001",
    )
    .await;

    let paths: Vec<String> = [id, id + 1000]
        .iter()
        .map(|m| format!("/api/review/conversations/{m}/dismiss"))
        .collect();
    let dismiss = |n: usize| send(&app, Method::POST, &paths[n], &token, None);
    assert_eq!(ok_json(dismiss(0).await).await, json!({"matchId": id}));
    assert_error(dismiss(0).await, 409, "E005").await;
    assert_error(dismiss(1).await, 404, "E003").await;
    // Once only: more money talk does not bring it back.
    ok_json(post(&app, &mei, id, &client_id(30), MONEY).await).await;
    let queue = ok_json(app.get("/api/review/conversations", Some(&token)).await).await;
    assert_eq!(queue["items"], json!([]));
    assert_eq!(
        number(&app, "SELECT COUNT(*) AS n FROM safety_reviews").await,
        1
    );
    // Nobody was suspended by the rule: the member still chats.
    assert_eq!(
        post(&app, &mei, id, &client_id(31), "Still here")
            .await
            .status(),
        201
    );
}

async fn a_suspension_settles_the_flagged_conversation(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    let token = reviewer(&app).await;
    ok_json(post(&app, &kai, id, &client_id(1), "可以先借我五萬嗎，急用").await).await;
    let queue = ok_json(app.get("/api/review/conversations", Some(&token)).await).await;
    let item = &queue["items"][0];
    assert_eq!(item["cause"], "MONEY");
    assert_eq!(item["member"]["profileId"], kai.id);
    let version = item["memberVersion"].as_i64().unwrap();
    let r = send(
        &app,
        Method::POST,
        &format!("/api/review/profiles/{}/decision", kai.id),
        &token,
        Some(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": version})),
    )
    .await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let queue = ok_json(app.get("/api/review/conversations", Some(&token)).await).await;
    assert_eq!(queue["items"], json!([]));
    assert_error(
        send(
            &app,
            Method::POST,
            &format!("/api/review/conversations/{id}/dismiss"),
            &token,
            None,
        )
        .await,
        409,
        "E005",
    )
    .await;
    let _ = mei;
}

/// The server binary at trace level, on the test's PostgreSQL database, stores and delivers
/// flagged messages (and a reviewer reads and dismisses the conversation) without writing any
/// message's text into its log, while the log does record the requests.
#[tokio::test]
async fn no_message_text_reaches_the_log_postgres() {
    let app = spawn_app(Backend::Postgres).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    // The same data dir: its files are the database's.
    let mut server =
        crate::process::Server::start(&app.data_dir, Some(&app.database_url), "trace").await;
    let api = crate::helpers::Api::new(server.base.clone());
    let texts = [
        "Zephyrine-lighthouse add me on LINE: quillon_0815",
        "Obsidian-barometer: buy USDT, the platform guarantees returns",
    ];
    for (n, text) in texts.iter().enumerate() {
        let r = api
            .client
            .post(api.url(&format!("/api/matches/{id}/messages")))
            .bearer_auth(&mei.user.token)
            .json(&json!({"clientMessageId": client_id(n), "text": text}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    }
    let page = api
        .client
        .get(api.url(&format!("/api/matches/{id}/messages")))
        .bearer_auth(&kai.user.token)
        .send()
        .await
        .unwrap();
    let page: Value = page.json().await.unwrap();
    assert_eq!(page["messages"][1]["caution"], json!({"kinds": ["MONEY"]}));
    let token = reviewer(&app).await;
    let queue: Value = api
        .client
        .get(api.url("/api/review/conversations"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(queue["items"][0]["conversation"][1]["text"], texts[1]);
    let r = api
        .client
        .post(api.url(&format!("/api/review/conversations/{id}/dismiss")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.terminate();
    assert!(server.wait(std::time::Duration::from_secs(30)).await);
    let log = server.log_text();
    assert!(log.contains("request done"), "the log records the requests");
    assert!(log.contains("flagged conversation dismissed"), "{log}");
    for needle in ["Zephyrine", "quillon_0815", "Obsidian", "USDT"] {
        assert!(!log.contains(needle), "{needle} is in the log");
    }
}

/// A conversation weeks old and thousands of messages long: contact details carry no caution
/// any more, money talk still does, and the sender's contact details from its first day, far
/// behind the rest, still make it the stronger cause in the queue. What a send counts of the
/// conversation stops at the rule's threshold, and it reads the flagged messages alone, so that
/// this send costs what it costs in a new conversation.
async fn a_long_old_conversation_keeps_its_cautions_and_its_history(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    ok_json(post(&app, &mei, id, &client_id(1), CONTACT).await).await;
    // Weeks of talk, as sends store it: 1,500 messages from each side after Mei's first.
    for (n, who) in [(0, &mei), (1, &kai)] {
        let sql = format!(
            "INSERT INTO chat_messages \
               (match_id, sender_id, client_message_id, text, sent_at, safety_kinds) \
             WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 1500) \
             SELECT {id}, {member}, 'bulk-{n}-' || i, 'how was your day?', {now}, 0 FROM k",
            member = who.id,
            now = app.state.now(),
        );
        app.db.execute_unprepared(&sql).await.unwrap();
    }
    let old = kizuna_core::rules::SAFETY_YOUNG_MATCH_SECS + 60;
    app.db
        .execute_unprepared(&format!(
            "UPDATE matches SET created_at = created_at - {old} WHERE id = {id}"
        ))
        .await
        .unwrap();
    let mut mei_events = Events::open(&app, &mei).await;
    let mut kai_events = Events::open(&app, &kai).await;

    ok_json(post(&app, &kai, id, &client_id(2), "My LINE is kai_1990").await).await;
    assert_eq!(
        mei_events.expect("message").await["message"]["caution"],
        Value::Null,
        "contact details in an old conversation"
    );
    assert_eq!(
        kai_events.expect("message").await["message"]["mine"],
        true,
        "Kai's own copy first"
    );
    ok_json(post(&app, &mei, id, &client_id(3), MONEY).await).await;
    assert_eq!(
        kai_events.expect("message").await["message"]["caution"],
        json!({"kinds": ["MONEY"]})
    );
    let causes = number(
        &app,
        "SELECT COUNT(*) AS n FROM safety_reviews WHERE cause = 'OFF_PLATFORM_THEN_MONEY'",
    )
    .await;
    assert_eq!(causes, 1, "Mei's first-day contact details are found");
    assert_eq!(
        number(&app, "SELECT COUNT(*) AS n FROM chat_messages").await,
        3003
    );
}

on_both_backends!(
    the_recipient_sees_a_caution_and_the_sender_never_does,
    money_talk_puts_the_conversation_in_the_queue_once_and_a_reviewer_dismisses_it,
    a_suspension_settles_the_flagged_conversation,
    a_long_old_conversation_keeps_its_cautions_and_its_history,
);
