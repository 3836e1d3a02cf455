//! Deleting an account (issue 22): a member who has everything deletes; every table and the file
//! store are then checked for anything of theirs, and only the documented records remain (kept
//! under a hash of the LINE user id). A blocked member who leaves and comes back is still
//! blocked; a suspended one cannot come back; a file removal cut short is finished by the next
//! run. SQLite and PostgreSQL.

use std::time::Duration;

use kizuna_server::storage::departures::line_hash;
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::json;

use crate::{
    chat::{Events, matched_pair, post},
    helpers::{Backend, TestApp, User, assert_error, jpeg, profile_payload, spawn_app},
    matchmaking::{Member, approved, ok_json, send, set_status},
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

async fn a_deleted_account_leaves_only_the_documented_records(backend: Backend) {
    let app = spawn_app(backend).await;
    // Kai has everything: a match with Mei with messages both ways, a block and a report with
    // Ren both ways, review history, pushes, an e-mail code, two sessions, an avatar.
    let (mei, kai, match_id) = matched_pair(&app, 0).await;
    ok_json(post(&app, &mei, match_id, "client-0001", "hello Kai").await).await;
    ok_json(post(&app, &kai, match_id, "client-0002", "hello Mei").await).await;
    let (ren, _) = approved(&app, 2, false).await;
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
        Some(json!({"email": "kai.chen@tsmc.com"})),
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
    let mut mei_events = Events::open(&app, &mei).await;

    let r = delete_account(&app, &kai.user.token).await;
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
    // The stored bytes go within moments (the housekeeping run finishes what is left).
    wait_until_gone(&app, &kai_files).await;
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
    a_member_who_left_while_suspended_cannot_register_again,
    a_file_removal_cut_short_is_finished_by_the_next_run,
    line_is_asked_to_revoke_the_leaving_members_authorisation,
);
