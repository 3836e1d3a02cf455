//! LINE-native pushes on SQLite and PostgreSQL: each kind is stored as its kind and ids
//! and rendered when it is sent, a Flex Message in the member's language *at sending time* with
//! one permanent link to its screen, within LINE's limits; the mock LINE platform refuses what
//! LINE would refuse, and so does the worker before sending; the arrivals through a push's link
//! are counted by kind with nobody's id (and the endpoint that counts them is limited); `funnel`
//! prints a day's stages and rates from the real tables, in-process and through the binary.

use std::time::{Duration, Instant};

use kizuna_core::{
    line::LineUserId,
    locale::Locale,
    push::{self as core_push, Push, alt_text, check_messages, permanent_link},
};
use kizuna_server::{
    configuration::MOCK_LIFF_ID,
    line::push,
    storage::{self, push_outbox::What},
};
use sea_orm::{ConnectionTrait, TransactionTrait};
use serde_json::{Value, json};

use crate::{
    chat::{matched_pair, post},
    helpers::{Backend, TestApp, assert_error, spawn_app_with},
    matchmaking::ok_json,
    on_both_backends,
    process::BIN,
};

async fn count(app: &TestApp, sql: &str) -> i64 {
    let row = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            sql.to_string(),
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

async fn settled(app: &TestApp, to: &str, rows: i64) {
    let deadline = Instant::now() + Duration::from_secs(15);
    let done = format!(
        "SELECT COUNT(*) AS n FROM push_outbox WHERE line_user_id = '{to}' AND status <> 'pending'"
    );
    while count(app, &done).await < rows {
        assert!(Instant::now() < deadline, "pushes to {to} not settled");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn reasons() -> Vec<(String, String)> {
    vec![(
        "review.reject.PHOTOS_UNCLEAR".to_string(),
        "PHOTOS_UNCLEAR".to_string(),
    )]
}

async fn every_kind_is_a_flex_message_in_the_language_of_when_it_is_sent(backend: Backend) {
    // The worker only looks when woken: the member changes language between the write and the
    // sending.
    let app = spawn_app_with(backend, |s| s.push.poll_every = Duration::from_secs(3600)).await;
    // A live match for the pushes about one (a push about a match that ended is withdrawn):
    // its own two "match" pushes go out first.
    let (mei, kai, live) = matched_pair(&app, 0).await;
    settled(&app, &mei.user.line_id, 1).await;
    settled(&app, &kai.user.line_id, 1).await;
    let day = app.clock().taipei_today().to_string();
    let sent_today = |kind: &'static str| {
        let (app, day) = (&app, &day);
        async move {
            count(
                app,
                &format!(
                    "SELECT CAST(COALESCE(SUM(sent), 0) AS BIGINT) AS n FROM push_days \
                     WHERE day = '{day}' AND kind = '{kind}'"
                ),
            )
            .await
        }
    };
    let mut before = Vec::new();
    for kind in ["match", "message", "introductions", "review", "safety"] {
        before.push(sent_today(kind).await);
    }
    let member = app.new_user_in("en").await;
    let to = LineUserId::parse(&member.line_id).unwrap();
    let every = [
        Push::NewMatch { match_id: live },
        Push::NewMessage { match_id: live },
        Push::Introductions { count: 4 },
        Push::Approved,
        Push::ChangesRequested {
            reasons: reasons(),
            note: Some("A photo in daylight, please.".into()),
        },
        Push::Suspended { reasons: reasons() },
        Push::MatchRemoved,
        Push::RevisionApproved,
        Push::RevisionRejected {
            reasons: reasons(),
            note: None,
        },
    ];
    // Nothing is claimed between the commit and the language change once the worker waits.
    app.state.push.idle().await;
    let txn = app.state.db.begin().await.unwrap();
    for what in &every {
        push::enqueue_push(&txn, &to, what, None).await.unwrap();
    }
    txn.commit().await.unwrap();
    // What the outbox keeps: the kind and the ids, no text.
    let stored = app
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!(
                "SELECT messages, kind, subject FROM push_outbox WHERE line_user_id = '{}' \
                 ORDER BY id",
                member.line_id
            ),
        ))
        .await
        .unwrap();
    assert_eq!(stored.len(), every.len());
    for (row, what) in stored.iter().zip(&every) {
        assert_eq!(row.try_get::<String>("", "messages").unwrap(), "");
        assert_eq!(
            row.try_get::<String>("", "kind").unwrap(),
            what.kind().as_str()
        );
        let subject: Push =
            serde_json::from_str(&row.try_get::<String>("", "subject").unwrap()).unwrap();
        assert_eq!(&subject, what);
    }

    app.db
        .execute_unprepared(&format!(
            "UPDATE users SET locale = 'ja' WHERE line_user_id = '{}'",
            member.line_id
        ))
        .await
        .unwrap();
    app.state.push.wake();
    settled(&app, &member.line_id, every.len() as i64).await;
    let pushes: Vec<Value> = app
        .pushes()
        .await
        .into_iter()
        .filter(|p| p["to"] == member.line_id.as_str())
        .collect();
    assert_eq!(pushes.len(), every.len(), "{pushes:?}");
    for what in &every {
        let alt = alt_text(what, Locale::Ja, None);
        let sent = pushes
            .iter()
            .find(|p| p["messages"][0]["altText"] == alt.as_str())
            .unwrap_or_else(|| panic!("no push says {alt:?}: {pushes:?}"));
        let messages = &sent["messages"];
        check_messages(messages).unwrap();
        assert_eq!(messages[0]["type"], "flex");
        let text = messages.to_string();
        assert!(
            text.contains(&permanent_link(MOCK_LIFF_ID, &what.path())),
            "{what:?}: {text}"
        );
        assert_eq!(text.matches("\"uri\":").count(), 1, "one action: {text}");
        assert!(!text.contains("\"image\""), "no photo: {text}");
    }
    // Counted as sent, by kind, under the service's day.
    for ((kind, n), before) in [
        ("match", 1),
        ("message", 1),
        ("introductions", 1),
        ("review", 5),
        ("safety", 1),
    ]
    .into_iter()
    .zip(before)
    {
        assert_eq!(sent_today(kind).await - before, n, "{kind}");
    }
}

/// A new message's push names its sender by the nickname they have when it is sent (the chat's
/// own tests show it never carries the text).
async fn a_message_push_names_the_sender_as_they_are_when_it_is_sent(backend: Backend) {
    let app = spawn_app_with(backend, |s| s.push.poll_every = Duration::from_secs(3600)).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    settled(&app, &kai.user.line_id, 1).await;
    // The worker drains the outbox before it waits: until it waits, it would claim the row below
    // before the rename (what CI once saw on PostgreSQL).
    app.state.push.idle().await;
    // Written as a message makes it (without waking the worker), then the sender renames.
    let sender = count(
        &app,
        &format!("SELECT user_id AS n FROM profiles WHERE id = {}", mei.id),
    )
    .await;
    let txn = app.state.db.begin().await.unwrap();
    let to = LineUserId::parse(&kai.user.line_id).unwrap();
    push::enqueue_push(&txn, &to, &Push::NewMessage { match_id: id }, Some(sender))
        .await
        .unwrap();
    txn.commit().await.unwrap();
    app.db
        .execute_unprepared(&format!(
            "UPDATE profiles SET nickname = 'Meimei' WHERE id = {}",
            mei.id
        ))
        .await
        .unwrap();
    app.state.push.wake();
    settled(&app, &kai.user.line_id, 2).await;
    let pushes = app.pushes().await;
    let to_kai: Vec<&Value> = pushes
        .iter()
        .filter(|p| p["to"] == kai.user.line_id.as_str())
        .collect();
    let message = to_kai
        .iter()
        .find(|p| p.to_string().contains("via=message"))
        .unwrap_or_else(|| panic!("{to_kai:?}"));
    let text = message.to_string();
    assert!(text.contains("New message from Meimei"), "{text}");
    let matched = to_kai
        .iter()
        .find(|p| p.to_string().contains("via=match"))
        .unwrap();
    assert!(
        matched
            .to_string()
            .contains(&format!("/chat?match={id}&via=match")),
        "{matched}"
    );
}

async fn line_and_the_worker_refuse_what_is_beyond_lines_limits(backend: Backend) {
    let app = spawn_app_with(backend, |_| {}).await;
    let send = |messages: Value, token: &str| {
        app.client
            .post(app.url("/__mock/line/v2/bot/message/push"))
            .bearer_auth(token)
            .json(&json!({"to": "U0123456789abcdef0123456789abcdef", "messages": messages}))
            .send()
    };
    let token = kizuna_server::configuration::MOCK_CHANNEL_ACCESS_TOKEN;
    let bubble = |component: Value| json!({"type": "bubble", "body": {"type": "box", "layout": "vertical", "contents": [component]}});
    let text = json!({"type": "text", "text": "hi"});
    let flex = |alt: String, contents: Value| json!([{"type": "flex", "altText": alt, "contents": contents}]);
    assert_eq!(
        send(flex("hi".into(), bubble(text.clone())), token)
            .await
            .unwrap()
            .status(),
        200
    );
    let refused = [
        flex(
            "a".repeat(core_push::MAX_ALT_TEXT_CHARS + 1),
            bubble(text.clone()),
        ),
        flex(
            "hi".into(),
            bubble(json!({"type": "text", "text": "a".repeat(core_push::MAX_BUBBLE_BYTES)})),
        ),
        flex(
            "hi".into(),
            json!({"type": "carousel", "contents": vec![bubble(text.clone()); core_push::MAX_CAROUSEL_BUBBLES + 1]}),
        ),
        flex(
            "hi".into(),
            json!({"type": "carousel", "contents": vec![bubble(json!({"type": "text", "text": "a".repeat(20_000)})); 3]}),
        ),
        flex(
            "hi".into(),
            bubble(json!({"type": "image", "url": "http://kizuna.example/art.png"})),
        ),
    ];
    for messages in refused {
        let r = send(messages.clone(), token).await.unwrap();
        assert_eq!(r.status(), 400, "{}", &messages.to_string()[..80]);
        let body: Value = r.json().await.unwrap();
        assert!(body["message"].is_string(), "{body}");
    }
    // The worker does not send what LINE would refuse (a row written before the limits were
    // checked, say): failed, not retried, nothing recorded.
    let member = app.new_user().await;
    let txn = app.state.db.begin().await.unwrap();
    storage::push_outbox::insert(
        &txn,
        &uuid::Uuid::new_v4().to_string(),
        &member.line_id,
        What {
            messages: flex("a".repeat(core_push::MAX_ALT_TEXT_CHARS + 1), bubble(text)).to_string(),
            kind: None,
            subject: None,
        },
        None,
        app.clock().now_millis(),
    )
    .await
    .unwrap();
    txn.commit().await.unwrap();
    app.state.push.wake();
    settled(&app, &member.line_id, 1).await;
    let failed = format!(
        "SELECT COUNT(*) AS n FROM push_outbox WHERE line_user_id = '{}' AND status = 'failed' \
         AND attempts = 1 AND last_error LIKE 'beyond LINE%'",
        member.line_id
    );
    assert_eq!(count(&app, &failed).await, 1);
    assert!(
        app.pushes()
            .await
            .iter()
            .all(|p| p["to"] != member.line_id.as_str())
    );
}

async fn visit(app: &TestApp, body: Value, token: Option<&str>) -> reqwest::Response {
    let mut req = app.client.post(app.url("/api/visits")).json(&body);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    req.send().await.unwrap()
}

async fn arrivals_through_a_link_are_counted_by_kind_and_nothing_else(backend: Backend) {
    let app = spawn_app_with(backend, |_| {}).await;
    let member = app.new_user().await;
    // Anonymous (a member not yet logged in) and signed in alike; the session is not read.
    assert_eq!(
        visit(&app, json!({"via": "introductions"}), None)
            .await
            .status(),
        204
    );
    assert_eq!(
        visit(&app, json!({"via": "introductions"}), Some(&member.token))
            .await
            .status(),
        204
    );
    assert_eq!(
        visit(&app, json!({"via": "message"}), None).await.status(),
        204
    );
    assert_error(
        visit(&app, json!({"via": "newsletter"}), None).await,
        400,
        "E002",
    )
    .await;
    assert_error(visit(&app, json!({"via": 3}), None).await, 400, "E002").await;
    assert_error(
        visit(&app, json!({"via": "match", "userId": 1}), None).await,
        400,
        "E002",
    )
    .await;
    let day = app.clock().taipei_today().to_string();
    let visits = |kind: &str| {
        format!(
            "SELECT CAST(COALESCE(SUM(visits), 0) AS BIGINT) AS n FROM push_days \
             WHERE day = '{day}' AND kind = '{kind}'"
        )
    };
    assert_eq!(count(&app, &visits("introductions")).await, 2);
    assert_eq!(count(&app, &visits("message")).await, 1);
    // Nothing about who: the table has the day, the kind and two counts.
    let columns = app
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            "SELECT * FROM push_days".to_string(),
        ))
        .await
        .unwrap();
    for row in &columns {
        let mut names = row.column_names();
        names.sort();
        assert_eq!(names, ["day", "kind", "sent", "visits"]);
    }
    // A flood from one address is refused (its first six above counted against it).
    let mut refused = 0;
    for _ in 0..core_push::VISITS_PER_MINUTE_PER_ADDRESS {
        let r = visit(&app, json!({"via": "review"}), None).await;
        if r.status() == 429 {
            assert_error(r, 429, "E007").await;
            refused += 1;
        }
    }
    assert!(refused > 0);
    assert!(
        count(&app, &visits("review")).await < i64::from(core_push::VISITS_PER_MINUTE_PER_ADDRESS)
    );
}

async fn the_funnel_counts_a_days_stages_from_the_tables(backend: Backend) {
    let app = spawn_app_with(backend, |_| {}).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    ok_json(post(&app, &mei, id, "client-0001", "hello").await).await;
    ok_json(post(&app, &kai, id, "client-0002", "hi!").await).await;
    ok_json(post(&app, &mei, id, "client-0003", "how are you").await).await;
    settled(&app, &kai.user.line_id, 1).await;
    assert_eq!(
        visit(&app, json!({"via": "match"}), None).await.status(),
        204
    );
    let today = app.clock().taipei_today();
    let stages = storage::funnel::stages(&app.db, today, today)
        .await
        .unwrap();
    assert!(stages.introductions >= 2, "{stages:?}");
    assert_eq!(
        (
            stages.likes,
            stages.matches,
            stages.first_messages,
            stages.replies_within_a_day
        ),
        (2, 1, 1, 1),
        "{stages:?}"
    );
    let matched = stages.pushes.iter().find(|(k, _, _)| k == "match").unwrap();
    assert_eq!((matched.1 >= 1, matched.2), (true, 1), "{stages:?}");
    // Nothing the day before.
    let before =
        kizuna_core::date::Date::from_days_since_epoch(i64::from(today.days_since_epoch()) - 1)
            .unwrap();
    let empty = storage::funnel::stages(&app.db, before, before)
        .await
        .unwrap();
    assert_eq!((empty.likes, empty.matches), (0, 0));

    // The operator's command prints the same over the same database.
    let out = std::process::Command::new(BIN)
        .args(["funnel", &today.to_string()])
        .env("DATABASE_URL", &app.database_url)
        .env("KIZUNA_DATA_DIR", &app.data_dir)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{printed} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        printed.contains(&format!("Funnel {today} (Asia/Taipei)")),
        "{printed}"
    );
    assert!(
        printed.contains("matches                          1  50.0% of likes"),
        "{printed}"
    );
    assert!(
        printed.contains("replies within a day             1  100.0% of first messages"),
        "{printed}"
    );
}

on_both_backends!(
    every_kind_is_a_flex_message_in_the_language_of_when_it_is_sent,
    a_message_push_names_the_sender_as_they_are_when_it_is_sent,
    line_and_the_worker_refuse_what_is_beyond_lines_limits,
    arrivals_through_a_link_are_counted_by_kind_and_nothing_else,
    the_funnel_counts_a_days_stages_from_the_tables,
);
