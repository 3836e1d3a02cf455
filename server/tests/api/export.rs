//! Downloading my data: the archive holds what is the member's and nothing private of
//! anyone else; its link needs no session, works for one copy for 10 minutes; three requests a
//! day, racing ones included; a preparation cut short is finished by the next run. SQLite and
//! PostgreSQL.

use std::{io::Read, time::Duration};

use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};

use crate::{
    chat::{matched_pair, post},
    helpers::{Backend, TestApp, assert_error, spawn_app},
    matchmaking::{Member, approved, ok_json, secrets_of, send, set_status},
    on_both_backends,
};

async fn ask(app: &TestApp, token: &str) -> reqwest::Response {
    send(app, Method::POST, "/api/user/data-export", token, None).await
}

/// Asks for a copy and waits until it is ready; answers the download link.
pub(crate) async fn ready_copy(app: &TestApp, member: &Member) -> String {
    let r = ask(app, &member.user.token).await;
    assert_eq!(r.status(), 202);
    let asked = r.json::<Value>().await.unwrap();
    let link = asked["downloadUrl"].as_str().unwrap().to_string();
    for _ in 0..100 {
        let status = ok_json(
            app.get("/api/user/data-export", Some(&member.user.token))
                .await,
        )
        .await;
        match status["status"].as_str().unwrap() {
            "READY" => return link,
            "PREPARING" => tokio::time::sleep(Duration::from_millis(50)).await,
            other => panic!("the copy is {other}: {status}"),
        }
    }
    panic!("the copy was not ready within 5 s");
}

/// Downloads without any session, as another browser would; answers the zip's entries.
pub(crate) async fn download(app: &TestApp, link: &str) -> Vec<(String, Vec<u8>)> {
    let r = app.client.get(app.url(link)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/zip");
    assert_eq!(r.headers()["cache-control"], "no-store");
    let disposition = r.headers()["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"kizuna-data-"),
        "{disposition}"
    );
    let bytes = r.bytes().await.unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut entry = zip.by_index(i).unwrap();
            let mut out = Vec::new();
            entry.read_to_end(&mut out).unwrap();
            (entry.name().unwrap().to_string(), out)
        })
        .collect()
}

async fn a_member_gets_what_is_theirs_and_nothing_private_of_anyone_else(backend: Backend) {
    let app = spawn_app(backend).await;
    // matched_pair: Mei is member 0 (a woman), Kai member 1.
    let (mei, kai, match_id) = matched_pair(&app, 0).await;
    ok_json(post(&app, &mei, match_id, "client-0001", "hello Kai").await).await;
    ok_json(post(&app, &kai, match_id, "client-0002", "hello Mei").await).await;
    let link = ready_copy(&app, &mei).await;
    assert!(link.starts_with("/api/data-export/"));
    let entries = download(&app, &link).await;

    let (_, json) = entries
        .iter()
        .find(|(name, _)| name == "data.json")
        .expect("data.json");
    let data: Value = serde_json::from_slice(json).unwrap();
    let mine = secrets_of(0, true);
    assert_eq!(data["account"]["lineUserId"], json!(mei.user.line_id));
    assert_eq!(data["profile"]["profileId"], json!(mei.id));
    assert_eq!(data["profile"]["asSubmitted"]["nickname"], "Nick0");
    // The member's own private fields are theirs to have.
    assert_eq!(data["profile"]["asSubmitted"]["name"], json!(mine.name));
    assert_eq!(
        data["profile"]["asSubmitted"]["birthday"],
        json!(mine.birthday)
    );
    assert_eq!(
        data["introductions"][0]["member"],
        json!({"memberId": kai.id, "nickname": "Nick1"})
    );
    assert_eq!(data["likesAndPasses"][0]["kind"], "LIKE");
    assert_eq!(data["likesAndPasses"][0]["member"]["memberId"], kai.id);
    let chat = &data["matches"][0];
    assert_eq!(chat["matchId"], match_id);
    assert_eq!(chat["with"]["nickname"], "Nick1");
    let lines: Vec<(&str, &str)> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["from"].as_str().unwrap(), m["text"].as_str().unwrap()))
        .collect();
    assert_eq!(lines, vec![("me", "hello Kai"), ("them", "hello Mei")]);
    // The photo and the proof of employment, byte for byte as stored.
    let files: Vec<&(String, Vec<u8>)> = entries
        .iter()
        .filter(|(name, _)| name.starts_with("files/"))
        .collect();
    assert_eq!(files.len(), 2, "{:?}", data["files"]);
    for id in [&mei.photo, &mei.verify] {
        let (_, bytes) = files
            .iter()
            .find(|(name, _)| name.contains(id.as_str()))
            .unwrap_or_else(|| panic!("{id} is not in the archive"));
        let stored = app
            .state
            .files
            .get(&kizuna_server::file_store::FileStore::original(id))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(bytes, &stored);
    }

    // Nothing of Kai's beyond his member id and nickname.
    let text = String::from_utf8_lossy(json).to_string();
    let kai_secrets = secrets_of(1, false);
    for secret in [
        kai_secrets.name.clone(),
        kai_secrets.birthday.to_string(),
        kai_secrets.address.clone(),
        format!("{}", kai_secrets.latitude),
        format!("{}", kai_secrets.longitude),
        kai_secrets.email.clone(),
        kai.user.line_id.clone(),
        kai.photo.clone(),
        kai.verify.clone(),
    ] {
        assert!(!text.contains(&secret), "the archive holds Kai's {secret}");
    }
    assert!(
        entries
            .iter()
            .all(|(name, _)| !name.contains(&kai.photo) && !name.contains(&kai.verify))
    );

    // The link works again within its 10 minutes, for anyone who has it, and then no more.
    assert_eq!(download(&app, &link).await.len(), entries.len());
    app.clock()
        .advance(kizuna_core::rules::DATA_EXPORT_LINK_SECS + 1);
    assert_error(
        app.client.get(app.url(&link)).send().await.unwrap(),
        404,
        "E003",
    )
    .await;
    let status = ok_json(
        app.get("/api/user/data-export", Some(&mei.user.token))
            .await,
    )
    .await;
    assert_eq!(status["status"], "EXPIRED");
}

async fn three_copies_a_day_even_when_asked_for_at_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let asks = (0..6).map(|_| ask(&app, &mei.user.token));
    let answers = futures_util::future::join_all(asks).await;
    let mut accepted = 0;
    for r in answers {
        match r.status().as_u16() {
            202 => accepted += 1,
            429 => {
                let wait: i64 = r.headers()["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(wait > 0 && wait <= 24 * 3600, "{wait}");
                let body = assert_error(r, 429, "E007").await;
                assert!(body["cause"].as_str().unwrap().contains("3"), "{body}");
            }
            other => panic!("{other}"),
        }
    }
    assert_eq!(accepted, 3);
    let rows = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            "SELECT COUNT(*) AS n FROM data_exports".to_string(),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap();
    assert_eq!(rows, 3);
    // A day later the allowance is back.
    app.clock().advance(24 * 3600 + 1);
    assert_eq!(ask(&app, &mei.user.token).await.status(), 202);
}

async fn a_stranger_or_a_guessed_link_gets_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let r = app
        .client
        .post(app.url("/api/user/data-export"))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
    assert_error(app.get("/api/user/data-export", None).await, 401, "E001").await;
    // No copy asked for yet.
    assert_eq!(
        app.get("/api/user/data-export", Some(&mei.user.token))
            .await
            .status(),
        204
    );
    let link = ready_copy(&app, &mei).await;
    let token = link.trim_start_matches("/api/data-export/");
    let mut guessed = token.to_string();
    let last = guessed.pop().unwrap();
    guessed.push(if last == 'A' { 'B' } else { 'A' });
    for bad in [
        guessed.as_str(),
        "short",
        "../../user/my-info",
        &"x".repeat(400),
        &token.to_uppercase(),
    ] {
        let r = app
            .client
            .get(app.url(&format!("/api/data-export/{bad}")))
            .send()
            .await
            .unwrap();
        assert!(
            [404].contains(&r.status().as_u16()),
            "{bad}: {}",
            r.status()
        );
    }
}

async fn a_suspended_member_may_still_have_their_data(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    set_status(&app, &mei, "SUSPENDED").await;
    // Nothing else...
    assert_error(
        app.get("/api/introductions", Some(&mei.user.token)).await,
        403,
        "E004",
    )
    .await;
    // ...but their own data.
    let link = ready_copy(&app, &mei).await;
    let entries = download(&app, &link).await;
    let data: Value =
        serde_json::from_slice(&entries.iter().find(|(n, _)| n == "data.json").unwrap().1).unwrap();
    assert_eq!(data["profile"]["status"], "SUSPENDED");
}

async fn a_preparation_cut_short_is_finished_by_the_next_run(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let now = app.clock().now_secs();
    let user_id = app
        .db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!(
                "SELECT id FROM users WHERE line_user_id = '{}'",
                mei.user.line_id
            ),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "id")
        .unwrap();
    // As a process killed between the request's commit and the archive leaves it.
    let token = "a".repeat(43);
    app.db
        .execute_unprepared(&format!(
            "INSERT INTO data_exports (user_id, token_hash, status, requested_at) \
             VALUES ({user_id}, '{}', 'PREPARING', {})",
            kizuna_server::usecases::export::token_hash(&token),
            now - 120
        ))
        .await
        .unwrap();
    let taken_up = kizuna_server::data_export::resume_stalled(&app.db, &app.state.files, now)
        .await
        .unwrap();
    assert_eq!(taken_up, 1);
    let entries = download(&app, &format!("/api/data-export/{token}")).await;
    assert!(entries.iter().any(|(n, _)| n == "data.json"));
}

async fn version_of(app: &TestApp, profile: i64) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            format!("SELECT version FROM profiles WHERE id = {profile}"),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "version")
        .unwrap()
}

/// The review reasons (and a filed report's) are a list of codes, as everywhere else in the API,
/// with their labels in the member's language beside them; a decision without reasons has two
/// empty lists.
async fn the_reasons_are_codes_with_their_texts_in_the_members_language(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user_in("ja").await;
    let (mei, _) = crate::matchmaking::register_user(&app.api, &app, user, 0, true, |_| {}).await;
    let (kai, _) = approved(&app, 1, false).await;
    let reviewer = crate::review::make_reviewer(&app).await;
    let path = format!("/api/review/profiles/{}/decision", mei.id);
    let decide = |body: Value| send(&app, Method::POST, &path, &reviewer.token, Some(body));
    let r = decide(json!({
        "action": "REJECT", "reasons": ["PHOTOS_UNCLEAR", "OTHER"],
        "note": "A photo in daylight, please.", "version": version_of(&app, mei.id).await,
    }))
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // She resubmits (as the edit form would), and is approved.
    set_status(&app, &mei, "PENDING").await;
    let r = decide(json!({
        "action": "APPROVE", "reasons": [], "employer": "tsmc",
        "version": version_of(&app, mei.id).await,
    }))
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let now = app.clock().now_secs();
    kizuna_server::storage::matchmaking::insert_report(
        &app.db,
        mei.id,
        kai.id,
        &["SPAM", "OTHER"],
        "sells courses",
        now,
    )
    .await
    .unwrap();

    let entries = download(&app, &ready_copy(&app, &mei).await).await;
    let (_, json) = entries.iter().find(|(n, _)| n == "data.json").unwrap();
    let data: Value = serde_json::from_slice(json).unwrap();
    let ja: Value = serde_json::from_str(include_str!("../../../core/data/texts/ja.json")).unwrap();
    let label = |key: &str| {
        ja[key]
            .as_str()
            .unwrap_or_else(|| panic!("{key}"))
            .to_string()
    };
    let decisions = data["reviewDecisions"].as_array().unwrap();
    let to = |status: &str| {
        decisions
            .iter()
            .find(|d| d["to"] == status)
            .unwrap_or_else(|| panic!("no decision to {status}: {decisions:?}"))
    };
    let rejected = to("REJECTED");
    assert_eq!(rejected["reasons"], json!(["PHOTOS_UNCLEAR", "OTHER"]));
    assert_eq!(
        rejected["reasonTexts"],
        json!([
            label("review.reject.PHOTOS_UNCLEAR"),
            label("review.reject.OTHER")
        ])
    );
    assert_eq!(to("APPROVED")["reasons"], json!([]));
    assert_eq!(to("APPROVED")["reasonTexts"], json!([]));
    // The submission itself gave none.
    assert_eq!(decisions[0]["reasons"], json!([]));
    let report = &data["reportsFiled"][0];
    assert_eq!(report["reasons"], json!(["SPAM", "OTHER"]));
    assert_eq!(
        report["reasonTexts"],
        json!([label("report.reason.SPAM"), label("report.reason.OTHER")])
    );
    assert_eq!(report["text"], "sells courses");
    // Nothing encoded twice anywhere.
    let text = String::from_utf8_lossy(json);
    assert!(!text.contains("\\\""), "{text}");
}

on_both_backends!(
    the_reasons_are_codes_with_their_texts_in_the_members_language,
    a_member_gets_what_is_theirs_and_nothing_private_of_anyone_else,
    three_copies_a_day_even_when_asked_for_at_once,
    a_stranger_or_a_guessed_link_gets_nothing,
    a_suspended_member_may_still_have_their_data,
    a_preparation_cut_short_is_finished_by_the_next_run,
);
