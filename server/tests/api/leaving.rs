//! Deleting an account: a member who has everything deletes; every table and the file
//! store are then checked for anything of theirs, and only the documented records remain (kept
//! under a hash of the LINE user id). A blocked member who leaves and comes back is still
//! blocked; a suspended one cannot come back; a file removal cut short is finished by the next
//! run. SQLite and PostgreSQL.

use std::time::Duration;

use kizuna_server::storage::departures::{line_hash, pair_hash};
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::json;

use crate::{
    chat::{Events, match_of, matched, post},
    helpers::{
        Backend, TestApp, User, assert_error, jpeg, line_user_id, profile_payload, spawn_app,
    },
    matchmaking::{Member, approved, ok_json, register_user, send, set_status},
    on_both_backends,
};

async fn count(app: &TestApp, query: &str) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            query.to_string(),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap()
}

async fn delete_account(app: &TestApp, token: &str) -> reqwest::Response {
    send(
        app,
        Method::DELETE,
        "/api/user/account",
        token,
        Some(json!({"lineAccessToken": null})),
    )
    .await
}

async fn user_id_of(app: &TestApp, profile: i64) -> i64 {
    count(
        app,
        &format!("SELECT user_id AS n FROM profiles WHERE id = {profile}"),
    )
    .await
}

/// Registers the same LINE user again after they left: a new user, a new profile (PENDING).
async fn register_again(app: &TestApp, user: &mut User) -> reqwest::Response {
    app.sign_in_again(user).await;
    let photo = app.upload_ok(&user.token, jpeg(64, 48)).await;
    let verify = app.upload_ok(&user.token, jpeg(32, 32)).await;
    let body = profile_payload(&user.line_id, std::slice::from_ref(&photo), &verify);
    app.create_profile(Some(&user.id_token), &body).await
}

async fn wait_until_gone(app: &TestApp, files: &[String]) {
    for _ in 0..100 {
        let mut any = false;
        for f in files {
            any |= app.stored(f).await;
        }
        if !any {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the deleted account's files are still stored");
}

/// Kai's details, each one his alone in the test (no other member shares it): none may be
/// left anywhere once he deleted his account.
const KAI_DISPLAY_NAME: &str = "Kaidisplay Vq";
const KAI_DETAILS: [(&str, &str); 9] = [
    ("nickname", "Kainick"),
    ("name", "Kainame Vqlast"),
    ("birthday", "1988-08-08"),
    ("address", "No. 88 Vq Lane"),
    ("companyEmail", "kai.vq@tsmc.com"),
    ("school", "Kaischool Vq"),
    ("aboutMe", "I restore vintage radios in a Vq workshop."),
    ("achievement", "Rebuilt the Vq relay"),
    ("dailyLife", "Solder, surf, sleep (Vq)."),
];
/// His home, as its digits appear in the stored profile.
const KAI_LATITUDE: f64 = 25.0577;
const KAI_MESSAGE: &str = "kai-vq-message: see you at the radio fair";

/// Kai, approved, with the details above and a LINE display name of his own.
async fn kai_with_his_own_details(app: &TestApp) -> Member {
    let line_id = line_user_id();
    app.mock_post(
        "/__mock/line/users",
        json!({"userId": line_id, "displayName": KAI_DISPLAY_NAME, "friend": true}),
    )
    .await;
    let id_token = app.id_token(&line_id).await;
    let r = app.login_raw(Some(&id_token), &line_id).await;
    assert_eq!(r.status(), 200);
    let token = r.json::<serde_json::Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let user = User {
        line_id,
        id_token,
        token,
    };
    let (kai, _) = register_user(&app.api, app, user, 1, false, |body| {
        let o = body.as_object_mut().unwrap();
        for (field, value) in KAI_DETAILS {
            o.insert(field.into(), json!(value));
        }
        o.insert("latitude".into(), json!(KAI_LATITUDE));
        o.insert("longitude".into(), json!(121.5577));
    })
    .await;
    set_status(app, &kai, "APPROVED").await;
    kai
}

/// Every row of every table as text: on SQLite each column `quote`d, on PostgreSQL the row as
/// JSON. Answers (table, row).
async fn every_row(app: &TestApp) -> Vec<(String, String)> {
    let backend = app.db.get_database_backend();
    let query = |sql: String| {
        let db = app.db.clone();
        async move {
            db.query_all_raw(sea_orm::Statement::from_string(backend, sql))
                .await
                .unwrap()
        }
    };
    let text =
        |row: &sea_orm::QueryResult, column: &str| row.try_get::<String>("", column).unwrap();
    let sqlite = backend == sea_orm::DbBackend::Sqlite;
    let tables: Vec<String> = if sqlite {
        query("SELECT name AS t FROM sqlite_master WHERE type = 'table'".into()).await
    } else {
        query(
            "SELECT table_name::text AS t FROM information_schema.tables \
             WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
                .into(),
        )
        .await
    }
    .iter()
    .map(|r| text(r, "t"))
    .collect();
    assert!(tables.len() > 30, "{tables:?}");
    let mut rows = Vec::new();
    for table in tables {
        let select = if sqlite {
            let columns: Vec<String> = query(format!(
                "SELECT name AS c FROM pragma_table_info('{table}')"
            ))
            .await
            .iter()
            .map(|r| format!("quote(\"{}\")", text(r, "c")))
            .collect();
            format!(
                "SELECT {} AS r FROM \"{table}\"",
                columns.join(" || '|' || ")
            )
        } else {
            format!("SELECT row_to_json(t)::text AS r FROM \"{table}\" t")
        };
        for row in query(select).await {
            rows.push((table.clone(), text(&row, "r")));
        }
    }
    rows
}

/// The raw bytes of the SQLite database file and its write-ahead log (freed pages, old frames
/// and all).
fn sqlite_bytes(app: &TestApp) -> Vec<u8> {
    let mut bytes = Vec::new();
    for name in ["kizuna.db", "kizuna.db-wal"] {
        if let Ok(file) = std::fs::read(app.data_dir.join(name)) {
            bytes.extend_from_slice(&file);
        }
    }
    bytes
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// Every file below `dir` (the local store: originals, previews, cached variants, temp files).
fn stored_paths(dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            stored_paths(&path, out);
        } else {
            out.push(path.display().to_string());
        }
    }
}

async fn a_deleted_account_leaves_only_the_documented_records(backend: Backend) {
    let app = spawn_app(backend).await;
    // Kai has everything: a match with Mei with messages both ways (and the pushes that told her),
    // a block and a report with Ren both ways, review history, pushes, an e-mail code, two
    // sessions, an avatar.
    let (mei, _) = approved(&app, 0, true).await;
    let kai = kai_with_his_own_details(&app).await;
    matched(&app, &mei, &kai).await;
    let match_id = match_of(&app, &mei, &kai).await;
    ok_json(post(&app, &mei, match_id, "client-0001", "hello Kai").await).await;
    ok_json(post(&app, &kai, match_id, "client-0002", KAI_MESSAGE).await).await;
    // The push that told Mei names Kai; it is delivered (and kept for its retry key's day).
    let naming_kai = format!(
        "SELECT COUNT(*) AS n FROM push_outbox WHERE line_user_id = '{}' \
         AND kind = 'message' AND status = 'delivered'",
        mei.user.line_id
    );
    for _ in 0..100 {
        if count(&app, &naming_kai).await > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        count(&app, &naming_kai).await,
        1,
        "Mei was told of Kai's message"
    );
    let (ren, _) = approved(&app, 2, false).await;
    // A push to Mei about nobody (her morning introductions) stays; the match push to her led to
    // Kai's chat and goes with him.
    {
        use sea_orm::TransactionTrait as _;
        let txn = app.state.db.begin().await.unwrap();
        let mei_line = kizuna_core::line::LineUserId::parse(&mei.user.line_id).unwrap();
        let morning = kizuna_core::push::Push::Introductions { count: 1 };
        kizuna_server::line::push::enqueue_push(&txn, &mei_line, &morning, None)
            .await
            .unwrap();
        txn.commit().await.unwrap();
    }
    let now = app.clock().now_secs();
    let store = |a, b| kizuna_server::storage::matchmaking::insert_block(&app.db, a, b, now);
    store(ren.id, kai.id).await.unwrap();
    store(kai.id, ren.id).await.unwrap();
    for (from, to) in [(ren.id, kai.id), (kai.id, ren.id)] {
        kizuna_server::storage::matchmaking::insert_report(&app.db, from, to, &["SPAM"], "", now)
            .await
            .unwrap();
    }
    let r = send(
        &app,
        Method::POST,
        "/api/verification/email-code",
        &kai.user.token,
        Some(json!({"email": "kai.vq@tsmc.com"})),
    )
    .await;
    assert_eq!(r.status(), 200);
    let avatar = app.upload_ok(&kai.user.token, jpeg(40, 40)).await;
    assert_eq!(app.set_avatar(&kai.user.token, &avatar).await.status(), 200);
    // A copy of his data asked for.
    assert_eq!(
        send(
            &app,
            Method::POST,
            "/api/user/data-export",
            &kai.user.token,
            None
        )
        .await
        .status(),
        202
    );
    let mut second = kai.user.clone();
    app.sign_in_again(&mut second).await;
    let kai_user = user_id_of(&app, kai.id).await;
    let kai_files: Vec<String> = {
        let rows = app
            .db
            .query_all_raw(sea_orm::Statement::from_string(
                app.db.get_database_backend(),
                format!("SELECT id FROM files WHERE owner_id = {kai_user}"),
            ))
            .await
            .unwrap();
        rows.iter()
            .map(|r| r.try_get::<String>("", "id").unwrap())
            .collect()
    };
    assert_eq!(kai_files.len(), 3, "photo, proof and avatar");
    assert!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM push_outbox WHERE line_user_id = '{}'",
                kai.user.line_id
            )
        )
        .await
            > 0,
        "the match was pushed to Kai"
    );
    // The scan below would prove nothing about rows Kai never had: he has each of these.
    for (table, column) in [
        ("review_history", "profile_id"),
        ("profile_photos", "profile_id"),
        ("introductions", "viewer_id"),
        ("introductions", "target_id"),
        ("reactions", "viewer_id"),
        ("chat_messages", "sender_id"),
        ("reports", "reporter_id"),
        ("reports", "target_id"),
        ("blocks", "blocker_id"),
        ("blocks", "blocked_id"),
    ] {
        let n = count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM {table} WHERE {column} = {}",
                kai.id
            ),
        )
        .await;
        assert!(n > 0, "Kai has no {table}.{column} row to delete");
    }
    // What identifies Kai as text: the scans below find each of them now.
    let mut traces: Vec<String> = KAI_DETAILS.iter().map(|(_, v)| v.to_string()).collect();
    traces.extend([
        kai.user.line_id.clone(),
        KAI_DISPLAY_NAME.to_string(),
        KAI_LATITUDE.to_string(),
        KAI_MESSAGE.to_string(),
    ]);
    traces.extend(kai_files.iter().cloned());
    let rows = every_row(&app).await;
    for trace in &traces {
        assert!(
            rows.iter().any(|(_, row)| row.contains(trace.as_str())),
            "no row holds {trace:?}: the scan would prove nothing"
        );
    }
    let sqlite = backend == Backend::Sqlite;
    if sqlite {
        let bytes = sqlite_bytes(&app);
        for trace in &traces {
            assert!(
                holds(&bytes, trace),
                "the SQLite files do not hold {trace:?}"
            );
        }
    }
    let mut mei_events = Events::open(&app, &mei).await;

    let r = delete_account(&app, &kai.user.token).await;
    let deleted = std::time::Instant::now();
    assert_eq!(r.status(), 204);
    assert!(r.headers().get("authorization").is_none());

    // Mei's open chat is told at once; Kai is gone from everything she sees.
    assert_eq!(
        mei_events.expect("ended").await,
        json!({"matchId": match_id})
    );
    assert_eq!(
        ok_json(app.get("/api/matches", Some(&mei.user.token)).await).await,
        json!([])
    );
    assert_error(
        app.get(
            &format!("/api/file/fetch/{}", kai.photo),
            Some(&mei.user.token),
        )
        .await,
        404,
        "E003",
    )
    .await;
    // Both of Kai's sessions ended.
    for token in [&kai.user.token, &second.token] {
        assert_error(
            app.get("/api/user/my-info", Some(token)).await,
            401,
            "E001A",
        )
        .await;
    }

    // Nothing of Kai's in any table.
    let line = &kai.user.line_id;
    let (p, u) = (kai.id, kai_user);
    let checks = [
        format!("SELECT COUNT(*) AS n FROM users WHERE id = {u} OR line_user_id = '{line}'"),
        format!("SELECT COUNT(*) AS n FROM sessions WHERE user_id = {u}"),
        format!("SELECT COUNT(*) AS n FROM files WHERE owner_id = {u} OR profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM profiles WHERE id = {p} OR user_id = {u}"),
        format!("SELECT COUNT(*) AS n FROM profile_photos WHERE profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM profile_tags WHERE profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM profile_conditions WHERE profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM profile_submissions WHERE profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM review_history WHERE profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM review_claims WHERE profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM match_pool WHERE profile_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM introductions WHERE viewer_id = {p} OR target_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM introduction_days WHERE viewer_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM reactions WHERE viewer_id = {p} OR target_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM matches WHERE low_id = {p} OR high_id = {p}"),
        format!(
            "SELECT COUNT(*) AS n FROM chat_messages WHERE match_id = {match_id} OR sender_id = {p}"
        ),
        format!(
            "SELECT COUNT(*) AS n FROM chat_marks WHERE match_id = {match_id} OR member_id = {p}"
        ),
        format!("SELECT COUNT(*) AS n FROM chat_presence WHERE member_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM blocks WHERE blocker_id = {p} OR blocked_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM reports WHERE reporter_id = {p} OR target_id = {p}"),
        format!("SELECT COUNT(*) AS n FROM push_outbox WHERE line_user_id = '{line}'"),
        format!("SELECT COUNT(*) AS n FROM email_codes WHERE user_id = {u}"),
        format!("SELECT COUNT(*) AS n FROM data_exports WHERE user_id = {u}"),
        format!("SELECT COUNT(*) AS n FROM line_friendships WHERE line_user_id = '{line}'"),
    ];
    for check in &checks {
        assert_eq!(count(&app, check).await, 0, "{check}");
    }
    // No push, whoever it is addressed to, names him or leads to his chat.
    let outbox = app
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            "SELECT line_user_id, messages, subject, about_user_id FROM push_outbox".to_string(),
        ))
        .await
        .unwrap();
    assert!(!outbox.is_empty(), "the others' pushes are still there");
    for row in &outbox {
        let to: String = row.try_get("", "line_user_id").unwrap();
        let messages: String = row.try_get("", "messages").unwrap();
        let subject: Option<String> = row.try_get("", "subject").unwrap();
        let messages = format!("{messages} {}", subject.unwrap_or_default());
        let about: Option<i64> = row.try_get("", "about_user_id").unwrap();
        assert_ne!(to, *line);
        assert_ne!(about, Some(u));
        let stored_match = format!("\"match_id\":{match_id}");
        for trace in [
            "Kainick",
            line.as_str(),
            &format!("match={match_id}"),
            &stored_match,
        ] {
            assert!(
                !messages.contains(trace),
                "a push holds {trace:?}: {messages}"
            );
        }
    }
    // The stored bytes go within moments (the housekeeping run finishes what is left), and
    // every preview and variant with them.
    wait_until_gone(&app, &kai_files).await;
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM file_removals").await,
        0
    );
    // Nor, then, any of his details in any row of any table.
    for (table, row) in every_row(&app).await {
        for trace in &traces {
            assert!(
                !row.contains(trace.as_str()),
                "{table} holds {trace:?}: {row}"
            );
        }
    }
    let mut paths = Vec::new();
    stored_paths(&app.data_dir, &mut paths);
    for id in &kai_files {
        assert!(
            !paths.iter().any(|p| p.contains(id.as_str())),
            "{id} is still in the store: {paths:?}"
        );
    }
    // The raw bytes of the SQLite files, free pages and the log's old frames included, hold
    // none of it within a minute of the deletion.
    if sqlite {
        let deadline = deleted + Duration::from_secs(60);
        loop {
            let bytes = sqlite_bytes(&app);
            let left: Vec<&String> = traces.iter().filter(|t| holds(&bytes, t)).collect();
            if left.is_empty() {
                println!(
                    "the SQLite files held nothing of Kai {:?} after his deletion (read then)",
                    deleted.elapsed()
                );
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "a minute after the deletion the SQLite files still hold {left:?}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM file_removals").await,
        0
    );

    // What is kept, under the hash only: the departure and the two blocks with Ren.
    let hash = line_hash(line);
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM departures WHERE line_hash = '{hash}' AND NOT suspended"
            )
        )
        .await,
        1
    );
    assert_eq!(
        count(&app, &format!("SELECT COUNT(*) AS n FROM kept_blocks WHERE departed_hash = '{hash}' AND member_id = {}", ren.id)).await,
        2
    );
    // The two reports stay for the reviewer: Kai's about Ren without Kai's name, Ren's about Kai
    // out of the queue, waiting under the hash for a return.
    assert_eq!(
        count(&app, &format!("SELECT COUNT(*) AS n FROM reports WHERE reporter_id IS NULL AND target_id = {} AND status = 'OPEN'", ren.id)).await,
        1
    );
    assert_eq!(
        count(&app, &format!("SELECT COUNT(*) AS n FROM reports WHERE reporter_id = {} AND target_id IS NULL AND target_departed = '{hash}'", ren.id)).await,
        1
    );
    let reviewer = crate::review::make_reviewer(&app).await;
    let queue = ok_json(app.get("/api/review/reports", Some(&reviewer.token)).await).await;
    let items = queue["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{queue}");
    assert_eq!(items[0]["reporter"], json!(null));
    assert_eq!(items[0]["target"]["profileId"], json!(ren.id));
    assert_eq!(items[0]["conversation"], json!([]));
    // Mei and Ren are untouched.
    assert_eq!(
        app.get("/api/user/my-info", Some(&mei.user.token))
            .await
            .status(),
        200
    );
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM profiles WHERE id IN ({}, {})",
                mei.id, ren.id
            )
        )
        .await,
        2
    );

    // Deleting again: the session is gone.
    assert_error(delete_account(&app, &kai.user.token).await, 401, "E001A").await;
    // Without a session at all.
    let r = app
        .client
        .delete(app.url("/api/user/account"))
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
}

async fn a_blocked_and_reported_member_who_leaves_and_returns_is_still_blocked_and_reported(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    let (ren, _) = approved(&app, 1, true).await;
    let (mut kai, _) = approved(&app, 2, false).await;
    // Ren reports Kai, which blocks Kai too.
    let now = app.clock().now_secs();
    kizuna_server::storage::matchmaking::insert_block(&app.db, ren.id, kai.id, now)
        .await
        .unwrap();
    kizuna_server::storage::matchmaking::insert_report(
        &app.db,
        ren.id,
        kai.id,
        &["SPAM"],
        "asked for money",
        now,
    )
    .await
    .unwrap();
    assert_eq!(delete_account(&app, &kai.user.token).await.status(), 204);
    let reviewer = crate::review::make_reviewer(&app).await;
    let queue = ok_json(app.get("/api/review/reports", Some(&reviewer.token)).await).await;
    assert_eq!(queue["items"], json!([]), "away: out of the queue");

    let r = register_again(&app, &mut kai.user).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let new_id = crate::matchmaking::profile_id(&app, &kai.user.line_id).await;
    assert_ne!(new_id, kai.id, "a new profile, nothing of the old one");
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM blocks WHERE blocker_id = {} AND blocked_id = {new_id}",
                ren.id
            )
        )
        .await,
        1
    );
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM kept_blocks").await,
        0
    );
    // Ren's report is back in the queue, about the new profile.
    let queue = ok_json(app.get("/api/review/reports", Some(&reviewer.token)).await).await;
    let items = queue["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{queue}");
    assert_eq!(items[0]["target"]["profileId"], json!(new_id));
    assert_eq!(items[0]["reporter"]["profileId"], json!(ren.id));
    assert_eq!(items[0]["text"], json!("asked for money"));
    let fresh = Member { id: new_id, ..kai };
    set_status(&app, &fresh, "APPROVED").await;
    let list = ok_json(app.get("/api/introductions", Some(&ren.user.token)).await).await;
    assert!(
        !list.to_string().contains(&format!("\"memberId\":{new_id}")),
        "{list}"
    );
}

/// A departure keeps the pairs it matched or passed (as a hash of both LINE user ids, a year):
/// registered afresh, Kai is not introduced again to Mei (his match) nor Lin (who passed him),
/// nor they to him; Sora, whom he only met in a list, is.
async fn a_member_who_leaves_and_returns_is_not_introduced_again_to_a_former_match_or_pass(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    let (mei, _) = approved(&app, 0, true).await;
    let (mut kai, _) = approved(&app, 1, false).await;
    let (lin, _) = approved(&app, 2, true).await;
    let (sora, _) = approved(&app, 4, true).await;
    matched(&app, &mei, &kai).await;
    crate::matchmaking::introductions(&app, &lin).await;
    let r = send(
        &app,
        Method::POST,
        &format!("/api/introductions/{}/pass", kai.id),
        &lin.user.token,
        None,
    )
    .await;
    assert!(r.status().is_success(), "{}", r.status());
    assert!(
        crate::matchmaking::listed_ids(&crate::matchmaking::introductions(&app, &kai).await)
            .contains(&sora.id),
        "Kai met Sora in a list"
    );

    assert_eq!(delete_account(&app, &kai.user.token).await.status(), 204);
    // Only the two pairs, and only as hashes of both LINE user ids.
    let line = kai.user.line_id.clone();
    let pairs = app
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            "SELECT pair_hash FROM kept_pairs".to_string(),
        ))
        .await
        .unwrap();
    let mut kept: Vec<String> = pairs
        .iter()
        .map(|r| r.try_get::<String>("", "pair_hash").unwrap())
        .collect();
    kept.sort();
    let mut expected = vec![
        pair_hash(&line, &mei.user.line_id),
        pair_hash(&lin.user.line_id, &line),
    ];
    expected.sort();
    assert_eq!(kept, expected);

    // He registers afresh, as the same man seeking women.
    app.sign_in_again(&mut kai.user).await;
    let (fresh, _) = register_user(&app.api, &app, kai.user.clone(), 1, false, |_| {}).await;
    let new_id = fresh.id;
    assert_ne!(new_id, kai.id);
    set_status(&app, &fresh, "APPROVED").await;
    let list = crate::matchmaking::introductions(&app, &fresh).await;
    let listed = crate::matchmaking::listed_ids(&list);
    assert!(listed.contains(&sora.id), "{list}");
    assert!(
        !listed.contains(&mei.id),
        "Mei, his match, again: {listed:?}"
    );
    assert!(
        !listed.contains(&lin.id),
        "Lin, who passed him, again: {listed:?}"
    );
    // Nor, on the next day's lists, they to him; Sora has him.
    app.clock().advance(86_400);
    for (who, expected) in [(&mei, false), (&lin, false), (&sora, true)] {
        let listed =
            crate::matchmaking::listed_ids(&crate::matchmaking::introductions(&app, who).await);
        assert_eq!(
            listed.contains(&new_id),
            expected,
            "{} lists {listed:?}",
            who.id
        );
    }
    // The kept pairs stay for their year (Mei or Lin may leave and come back too).
    assert_eq!(count(&app, "SELECT COUNT(*) AS n FROM kept_pairs").await, 2);
}

async fn a_member_who_left_while_suspended_cannot_register_again(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mut kai, _) = approved(&app, 1, false).await;
    set_status(&app, &kai, "SUSPENDED").await;
    // A suspended member may still delete their account.
    assert_eq!(delete_account(&app, &kai.user.token).await.status(), 204);
    let r = register_again(&app, &mut kai.user).await;
    let body = assert_error(r, 403, "E004").await;
    assert!(
        body["cause"].as_str().unwrap().contains("suspended"),
        "{body}"
    );
}

async fn line_is_asked_to_revoke_the_leaving_members_authorisation(backend: Backend) {
    let app = spawn_app(backend).await;
    let (kai, _) = approved(&app, 1, false).await;
    // Not a token: refused, nothing deleted.
    for bad in [json!("has spaces in it"), json!("x".repeat(1025)), json!(5)] {
        let r = send(
            &app,
            Method::DELETE,
            "/api/user/account",
            &kai.user.token,
            Some(json!({"lineAccessToken": bad})),
        )
        .await;
        assert!(
            [400, 422].contains(&r.status().as_u16()),
            "{bad}: {}",
            r.status()
        );
    }
    assert_eq!(
        app.get("/api/user/my-info", Some(&kai.user.token))
            .await
            .status(),
        200
    );
    let r = send(
        &app,
        Method::DELETE,
        "/api/user/account",
        &kai.user.token,
        Some(json!({"lineAccessToken": "eyJhbGciOiJIUzI1NiJ9.kai-access-token"})),
    )
    .await;
    assert_eq!(r.status(), 204);
    let revoked: Vec<String> = app
        .get("/__mock/line/deauthorized", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        revoked,
        vec!["eyJhbGciOiJIUzI1NiJ9.kai-access-token".to_string()]
    );
}

async fn a_file_removal_cut_short_is_finished_by_the_next_run(backend: Backend) {
    let app = spawn_app(backend).await;
    let user = app.new_user().await;
    let file = app.upload_ok(&user.token, jpeg(40, 40)).await;
    assert!(app.stored(&file).await);
    // As a process killed between the deletion's commit and the removal leaves it: queued.
    app.db
        .execute_unprepared(&format!(
            "INSERT INTO file_removals (file_id, queued_at) VALUES ('{file}', 0)"
        ))
        .await
        .unwrap();
    let removed = kizuna_server::cleanup::remove_departed_files(&app.db, &app.state.files)
        .await
        .unwrap();
    assert_eq!(removed, 1);
    assert!(!app.stored(&file).await);
    assert_eq!(
        count(&app, "SELECT COUNT(*) AS n FROM file_removals").await,
        0
    );
}

on_both_backends!(
    a_deleted_account_leaves_only_the_documented_records,
    a_blocked_and_reported_member_who_leaves_and_returns_is_still_blocked_and_reported,
    a_member_who_leaves_and_returns_is_not_introduced_again_to_a_former_match_or_pass,
    a_member_who_left_while_suspended_cannot_register_again,
    a_file_removal_cut_short_is_finished_by_the_next_run,
    line_is_asked_to_revoke_the_leaving_members_authorisation,
);
