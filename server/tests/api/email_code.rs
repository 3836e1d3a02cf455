//! Work e-mail one-time codes: sent (mock outbox and a real SMTP server), confirmed once,
//! locked after 5 wrong tries, expired, resend waits, daily caps, bad input.

use std::time::Duration;

use kizuna_server::storage::{
    email_codes,
    entity::{email_code, user},
};
use reqwest::Response;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::{
    helpers::{Backend, TestApp, User, assert_error, spawn_app, spawn_app_with},
    smtp::SmtpServer,
};

async fn send(app: &TestApp, token: &str, email: &str) -> Response {
    app.client
        .post(app.url("/api/verification/email-code"))
        .bearer_auth(token)
        .json(&json!({ "email": email }))
        .send()
        .await
        .unwrap()
}

pub(crate) async fn confirm(app: &TestApp, token: &str, email: &str, code: &str) -> Response {
    app.client
        .post(app.url("/api/verification/email-code/confirm"))
        .bearer_auth(token)
        .json(&json!({ "email": email, "code": code }))
        .send()
        .await
        .unwrap()
}

pub(crate) async fn send_ok(app: &TestApp, token: &str, email: &str) -> Value {
    let r = send(app, token, email).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    r.json().await.unwrap()
}

/// The mails in the mock outbox.
async fn outbox(app: &TestApp) -> Vec<Value> {
    let r = app.get("/__mock/mail", None).await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// The 6-digit code in a mail's text.
fn code_in(text: &str) -> String {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|w| w.len() == 6)
        .unwrap_or_else(|| panic!("no code in {text:?}"))
        .to_string()
}

pub(crate) async fn last_code(app: &TestApp, to: &str) -> String {
    let mails = outbox(app).await;
    let mail = mails
        .iter()
        .rev()
        .find(|m| m["to"] == to)
        .unwrap_or_else(|| panic!("no mail to {to}: {mails:?}"));
    code_in(mail["text"].as_str().unwrap())
}

async fn user_id(app: &TestApp, user: &User) -> i64 {
    user::Entity::find()
        .filter(user::Column::LineUserId.eq(user.line_id.as_str()))
        .one(&app.db)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// A wrong code that is surely not `right`.
fn wrong(right: &str) -> String {
    let n: u32 = right.parse().unwrap();
    format!("{:06}", (n + 1) % 1_000_000)
}

async fn a_code_arrives_and_confirms_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let mei = app.new_user_in("ja").await;
    let sent = send_ok(&app, &mei.token, " Mei.Lin@TSMC.com ").await;
    assert_eq!(sent["email"], "mei.lin@tsmc.com");
    assert_eq!(sent["resendAfter"], 60);
    let mails = outbox(&app).await;
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0]["to"], "mei.lin@tsmc.com");
    // In the language she logged in with.
    assert!(
        mails[0]["subject"].as_str().unwrap().contains("確認コード"),
        "{mails:?}"
    );
    let code = last_code(&app, "mei.lin@tsmc.com").await;
    // Stored as SHA-256(salt ‖ code), with a salt of its own.
    let row = email_code::Entity::find()
        .one(&app.db)
        .await
        .unwrap()
        .unwrap();
    let salt = hex::decode(&row.salt).unwrap();
    assert_eq!(salt.len(), 16);
    let digest = Sha256::new()
        .chain_update(&salt)
        .chain_update(code.as_bytes())
        .finalize();
    assert_eq!(row.code_hash, hex::encode(digest));

    let id = user_id(&app, &mei).await;
    assert!(
        !email_codes::email_confirmed(&app.db, id, "mei.lin@tsmc.com", app.state.now())
            .await
            .unwrap()
    );
    let body = assert_error(
        confirm(&app, &mei.token, "mei.lin@tsmc.com", &wrong(&code)).await,
        422,
        "E002",
    )
    .await;
    assert_eq!(body["fields"]["code"], json!(["mismatch"]));
    assert!(
        body["cause"].as_str().unwrap().contains("4 tries left"),
        "{body}"
    );

    // Another member cannot use it.
    let ken = app.new_user().await;
    let body = assert_error(
        confirm(&app, &ken.token, "mei.lin@tsmc.com", &code).await,
        422,
        "E002",
    )
    .await;
    assert_eq!(body["fields"]["code"], json!(["not_sent"]));

    let r = confirm(&app, &mei.token, "MEI.LIN@tsmc.com", &code).await;
    assert_eq!(r.status(), 200);
    let confirmed: Value = r.json().await.unwrap();
    assert_eq!(confirmed["email"], "mei.lin@tsmc.com");
    assert!(confirmed["confirmedAt"].as_i64().unwrap() > 0);
    assert!(
        email_codes::email_confirmed(&app.db, id, "Mei.Lin@tsmc.com", app.state.now())
            .await
            .unwrap()
    );
    assert!(
        !email_codes::email_confirmed(&app.db, id, "other@tsmc.com", app.state.now())
            .await
            .unwrap()
    );
    assert!(
        !email_codes::email_confirmed(
            &app.db,
            user_id(&app, &ken).await,
            "mei.lin@tsmc.com",
            app.state.now()
        )
        .await
        .unwrap()
    );

    // Used once.
    let body = assert_error(
        confirm(&app, &mei.token, "mei.lin@tsmc.com", &code).await,
        422,
        "E002",
    )
    .await;
    assert_eq!(body["fields"]["code"], json!(["used"]));

    // The request's own language wins over the stored one; English by default.
    let other = send_ok(&app, &ken.token, "ken@tsmc.com").await;
    assert_eq!(other["email"], "ken@tsmc.com");
    let r = app
        .client
        .post(app.url("/api/verification/email-code"))
        .bearer_auth(&mei.token)
        .header("Accept-Language", "zh-TW")
        .json(&json!({"email": "mei@mail.tsmc.com"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mails = outbox(&app).await;
    assert!(
        mails[1]["subject"]
            .as_str()
            .unwrap()
            .starts_with("Your Kizuna code")
    );
    assert!(mails[2]["subject"].as_str().unwrap().contains("驗證碼"));
}

async fn five_wrong_tries_lock_the_code(backend: Backend) {
    let app = spawn_app_with(backend, |s| s.email_codes.resend_wait_secs = 1).await;
    let user = app.new_user().await;
    let email = "lock@tsmc.com";
    send_ok(&app, &user.token, email).await;
    let code = last_code(&app, email).await;
    for left in (0..5).rev() {
        let body = assert_error(
            confirm(&app, &user.token, email, &wrong(&code)).await,
            422,
            "E002",
        )
        .await;
        assert_eq!(body["fields"]["code"], json!(["mismatch"]), "{body}");
        if left == 0 {
            assert!(body["cause"].as_str().unwrap().contains("locked"), "{body}");
        } else {
            assert!(
                body["cause"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("{left} tries left")),
                "{body}"
            );
        }
    }
    // Now even the right code is refused.
    let body = assert_error(confirm(&app, &user.token, email, &code).await, 422, "E002").await;
    assert_eq!(body["fields"]["code"], json!(["locked"]));
    // A new code works, once the resend wait is over by the server's clock.
    app.clock().advance(1);
    send_ok(&app, &user.token, email).await;
    let fresh = last_code(&app, email).await;
    assert_eq!(
        confirm(&app, &user.token, email, &fresh).await.status(),
        200
    );
}

async fn an_expired_code_is_refused_and_a_new_one_replaces_the_old(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    let email = "late@tsmc.com";
    send_ok(&app, &user.token, email).await;
    let code = last_code(&app, email).await;
    // Ten minutes and a second later, by the server's clock.
    app.clock().advance(601);
    let body = assert_error(confirm(&app, &user.token, email, &code).await, 422, "E002").await;
    assert_eq!(body["fields"]["code"], json!(["expired"]));

    // Only the newest code counts.
    send_ok(&app, &user.token, email).await;
    let newer = last_code(&app, email).await;
    if newer != code {
        let body = assert_error(confirm(&app, &user.token, email, &code).await, 422, "E002").await;
        assert_eq!(body["fields"]["code"], json!(["mismatch"]));
    }
    assert_eq!(
        confirm(&app, &user.token, email, &newer).await.status(),
        200
    );
}

async fn a_resend_waits_and_daily_caps_hold(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    send_ok(&app, &user.token, "wait@tsmc.com").await;
    let r = send(&app, &user.token, "Wait@TSMC.com").await;
    let retry_after: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((55..=60).contains(&retry_after), "{retry_after}");
    let body = assert_error(r, 429, "E007").await;
    assert!(
        body["cause"].as_str().unwrap().contains("60 seconds"),
        "{body}"
    );
    assert_eq!(outbox(&app).await.len(), 1, "nothing sent");

    // Another address is not held up, until the member's five a day.
    for i in 1..5 {
        send_ok(&app, &user.token, &format!("wait{i}@tsmc.com")).await;
    }
    let r = send(&app, &user.token, "wait9@tsmc.com").await;
    let retry_after: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        retry_after > 86_000 && retry_after <= 86_400,
        "{retry_after}"
    );
    let body = assert_error(r, 429, "E007").await;
    assert!(
        body["cause"].as_str().unwrap().contains("for one member"),
        "{body}"
    );

    // Five other members asked for codes to one address: its owner's first code still goes.
    let address = "popular@tsmc.com";
    let mut others = Vec::new();
    for _ in 0..5 {
        let other = app.new_user().await;
        send_ok(&app, &other.token, address).await;
        others.push(other);
    }
    let owner = app.new_user().await;
    send_ok(&app, &owner.token, address).await;
    // A repeat send to it is what the address's cap refuses.
    app.clock().advance(61);
    let r = send(&app, &others[0].token, address).await;
    assert!(r.headers().contains_key("retry-after"));
    let body = assert_error(r, 429, "E007").await;
    assert!(
        body["cause"].as_str().unwrap().contains("other members"),
        "{body}"
    );
    assert_eq!(outbox(&app).await.len(), 11);
}

/// The owner of an address is not locked out by others asking for codes to it: neither by
/// strangers nor by one account asking again and again (the cap counts distinct members).
async fn nobody_else_can_lock_an_address_out(backend: Backend) {
    let app = spawn_app(backend).await;
    let address = "owner@tsmc.com";
    let pest = app.new_user().await;
    for _ in 0..5 {
        send_ok(&app, &pest.token, address).await;
        app.clock().advance(61);
    }
    let r = send(&app, &pest.token, address).await;
    assert_error(r, 429, "E007").await;
    let owner = app.new_user().await;
    send_ok(&app, &owner.token, address).await;
    // And the owner may ask again after the wait: one other member is not five.
    app.clock().advance(61);
    send_ok(&app, &owner.token, address).await;
}

/// Twenty members racing for one address each get their first code, once; twenty requests of
/// one member racing get one; and a repeat send is judged on an exact count of the other members
/// (each accepted repeat had fewer than five others before it).
async fn twenty_racers_neither_lose_nor_double_a_code(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut racers = Vec::new();
    for _ in 0..20 {
        racers.push(app.new_user().await);
    }
    let address = "race@tsmc.com";
    let answers =
        futures_util::future::join_all(racers.iter().map(|u| send(&app, &u.token, address))).await;
    for r in answers {
        assert_eq!(r.status(), 200, "{:?}", r.text().await);
    }
    let to = |mails: &[Value], address: &str| mails.iter().filter(|m| m["to"] == address).count();
    assert_eq!(to(&outbox(&app).await, address), 20);

    let alone = app.new_user().await;
    let answers =
        futures_util::future::join_all((0..20).map(|_| send(&app, &alone.token, "alone@tsmc.com")))
            .await;
    let sent = answers.iter().filter(|r| r.status() == 200).count();
    assert_eq!(sent, 1, "one code, the others wait");
    assert!(
        answers
            .iter()
            .all(|r| [200, 429].contains(&r.status().as_u16()))
    );

    // Four members asked once; then they ask again while sixteen new members ask first.
    let edge = "edge@tsmc.com";
    for u in &racers[..4] {
        send_ok(&app, &u.token, edge).await;
    }
    app.clock().advance(61);
    let fresh: Vec<User> = {
        let mut v = Vec::new();
        for _ in 0..16 {
            v.push(app.new_user().await);
        }
        v
    };
    let askers: Vec<&User> = racers[..4].iter().chain(fresh.iter()).collect();
    let answers =
        futures_util::future::join_all(askers.iter().map(|u| send(&app, &u.token, edge))).await;
    for (u, r) in askers.iter().zip(&answers).skip(4) {
        assert_eq!(r.status(), 200, "a first send: {}", u.line_id);
    }
    let rows = email_code::Entity::find()
        .filter(email_code::Column::Email.eq(edge))
        .all(&app.db)
        .await
        .unwrap();
    assert_eq!(
        rows.len(),
        4 + 16 + answers[..4].iter().filter(|r| r.status() == 200).count()
    );
    let mut seen = std::collections::HashSet::new();
    let mut rows = rows;
    rows.sort_by_key(|r| r.id);
    for row in &rows {
        if !seen.insert(row.user_id) {
            let others = seen.len() - 1;
            assert!(others < 5, "a repeat send after {others} other members");
        }
    }
    assert_eq!(
        to(&outbox(&app).await, edge),
        rows.len(),
        "every row mailed"
    );
}

async fn bad_requests_are_refused_and_change_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    let before = app.snapshot().await;
    for (email, rule) in [
        ("not an address", "invalid_email"),
        ("jane@", "invalid_email"),
        ("jane@gmail.com", "unknown_employer"),
        ("jane@tsmc.com.evil.io", "unknown_employer"),
    ] {
        let body = assert_error(send(&app, &user.token, email).await, 422, "E002").await;
        assert_eq!(body["fields"]["email"], json!([rule]), "{email}");
        let body = assert_error(
            confirm(&app, &user.token, email, "123456").await,
            422,
            "E002",
        )
        .await;
        assert_eq!(body["fields"]["email"], json!([rule]), "{email}");
    }
    for code in ["12345", "1234567", "12a456", ""] {
        let body = assert_error(
            confirm(&app, &user.token, "jane@tsmc.com", code).await,
            422,
            "E002",
        )
        .await;
        assert_eq!(body["fields"]["code"], json!(["invalid"]), "{code:?}");
    }
    let body = assert_error(
        confirm(&app, &user.token, "jane@tsmc.com", "123456").await,
        422,
        "E002",
    )
    .await;
    assert_eq!(body["fields"]["code"], json!(["not_sent"]));
    for bad in [
        json!({"email": 5}),
        json!({"email": "a@tsmc.com", "x": 1}),
        json!([]),
    ] {
        let r = app
            .client
            .post(app.url("/api/verification/email-code"))
            .bearer_auth(&user.token)
            .json(&bad)
            .send()
            .await
            .unwrap();
        assert_error(r, 400, "E002").await;
    }
    let r = app
        .client
        .post(app.url("/api/verification/email-code"))
        .json(&json!({"email": "jane@tsmc.com"}))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
    assert_eq!(app.snapshot().await, before);
    assert!(outbox(&app).await.is_empty());
}

async fn codes_go_out_through_a_real_smtp_server(backend: Backend) {
    let smtp = SmtpServer::start();
    let url = smtp.url();
    let app = spawn_app_with(backend, |s| {
        s.mail.smtp_url = Some(url);
        s.mail.from = "Kizuna <codes@kizuna.example>".into();
    })
    .await;
    let user = app.new_user_in("zh-TW").await;
    send_ok(&app, &user.token, "Wei@MediaTek.com").await;
    let mails = smtp.wait_for(1).await;
    let mail = &mails[0];
    assert_eq!(mail.rcpt_tos, vec!["wei@mediatek.com".to_string()]);
    assert_eq!(mail.mail_from, "codes@kizuna.example");
    assert!(mail.from.contains("codes@kizuna.example"), "{mail:?}");
    assert!(mail.subject.contains("驗證碼"), "{mail:?}");
    let code = code_in(&mail.text);
    assert!(mail.subject.contains(&code));
    assert_eq!(
        confirm(&app, &user.token, "wei@mediatek.com", &code)
            .await
            .status(),
        200
    );
    assert_eq!(smtp.mails().len(), 1);
}

async fn an_unreachable_mail_server_costs_no_allowance(backend: Backend) {
    let smtp = SmtpServer::start();
    let port = smtp.port;
    drop(smtp);
    let app = spawn_app_with(backend, |s| {
        s.mail.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
    })
    .await;
    let user = app.new_user().await;
    let before = app.snapshot().await;
    let body = assert_error(send(&app, &user.token, "down@tsmc.com").await, 500, "E500").await;
    assert!(
        !body["cause"].as_str().unwrap().contains("127.0.0.1"),
        "{body}"
    );
    assert_eq!(app.snapshot().await, before, "the code was withdrawn");
    // So trying again is not "too soon".
    assert_error(send(&app, &user.token, "down@tsmc.com").await, 500, "E500").await;
}

crate::on_both_backends!(
    a_code_arrives_and_confirms_once,
    five_wrong_tries_lock_the_code,
    an_expired_code_is_refused_and_a_new_one_replaces_the_old,
    a_resend_waits_and_daily_caps_hold,
    nobody_else_can_lock_an_address_out,
    twenty_racers_neither_lose_nor_double_a_code,
    bad_requests_are_refused_and_change_nothing,
    codes_go_out_through_a_real_smtp_server,
    an_unreachable_mail_server_costs_no_allowance,
);

/// The real binary at debug level: the log records the code being sent and confirmed, never the
/// code or the address.
#[tokio::test]
async fn the_log_holds_neither_the_code_nor_the_address() {
    use crate::process::Server;
    let data_dir = crate::helpers::scratch_dir();
    let mut server = Server::start(&data_dir, None, "debug").await;
    let api = crate::helpers::Api::new(server.base.clone());
    let user = api.new_user().await;
    let address = "quillon.marsh@tsmc.com";
    let r = api
        .client
        .post(api.url("/api/verification/email-code"))
        .bearer_auth(&user.token)
        .json(&json!({ "email": address }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mails: Vec<Value> = api.get("/__mock/mail", None).await.json().await.unwrap();
    let code = code_in(mails[0]["text"].as_str().unwrap());
    for attempt in [wrong(&code), code.clone()] {
        api.client
            .post(api.url("/api/verification/email-code/confirm"))
            .bearer_auth(&user.token)
            .json(&json!({ "email": address, "code": attempt }))
            .send()
            .await
            .unwrap();
    }
    server.terminate();
    assert!(server.wait(Duration::from_secs(30)).await);
    let log = server.log_text();
    assert!(log.contains("e-mail code sent"), "{log}");
    assert!(log.contains("work e-mail confirmed"), "{log}");
    assert!(!log.contains("quillon"), "the address is not logged");
    // Timestamps carry 6-digit fractions (".123456Z"): those are not the code.
    for (at, _) in log.match_indices(&code) {
        let before = log[..at].chars().next_back();
        assert!(
            before == Some('.'),
            "the code is in the log: {}",
            &log[at.saturating_sub(60)..at + 6]
        );
    }
    std::fs::remove_dir_all(&data_dir).ok();
}

#[tokio::test]
async fn without_the_mock_the_server_will_not_start_without_smtp() {
    let data_dir = crate::helpers::scratch_dir();
    let out = crate::process::command(&data_dir, None, "info")
        .env("KIZUNA_LINE_MOCK", "false")
        .env("KIZUNA_LINE_CHANNEL_SECRET", "a-real-secret")
        .env("KIZUNA_LINE_CHANNEL_ACCESS_TOKEN", "a-real-token")
        .env(
            "KIZUNA_BIND",
            format!("127.0.0.1:{}", crate::process::free_port()),
        )
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("KIZUNA_SMTP_URL"), "{said}");
    std::fs::remove_dir_all(&data_dir).ok();
}
