//! A restore from a backup never brings back an account deleted after the backup: the deletion
//! record outside the database (`deletions/` in the file store) is replayed when a server starts
//! on the restored database (docs/operations.md, "Restoring"). `just backup-drill` does the same
//! on a populated PostgreSQL database and bucket with the operator's tools.

use std::{
    path::Path,
    process::Command,
    time::{Duration, Instant},
};

use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};

use crate::{
    chat::{client_id, matched_pair, post},
    helpers::{Backend, empty_database, scratch_dir, spawn_app, spawn_app_with},
    matchmaking::ok_json,
    on_both_backends,
};

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).into_iter().flatten().flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

fn files_under(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            if e.path().is_dir() {
                files_under(&e.path())
            } else {
                1
            }
        })
        .sum()
}

async fn users_of(db: &impl ConnectionTrait, line_id: &str) -> i64 {
    db.query_one_raw(Statement::from_sql_and_values(
        db.get_database_backend(),
        match db.get_database_backend() {
            sea_orm::DbBackend::Postgres => {
                "SELECT COUNT(*) AS n FROM users WHERE line_user_id = $1"
            }
            _ => "SELECT COUNT(*) AS n FROM users WHERE line_user_id = ?",
        },
        [line_id.into()],
    ))
    .await
    .unwrap()
    .unwrap()
    .try_get::<i64>("", "n")
    .unwrap()
}

/// A backup of the database and the files; then a member deletes their account; everything is
/// restored from the backup into a new data dir and database, with the live deletion record: a
/// server on the restore deletes that account again before it serves (their partner's match
/// ended, their files gone), and serves the partner as before.
async fn an_account_deleted_after_a_backup_stays_deleted_after_a_restore(backend: Backend) {
    let app = spawn_app(backend).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    assert_eq!(
        post(&app, &kai, id, &client_id(1), "before the backup")
            .await
            .status(),
        201
    );
    // The backup: the database (as an operator takes it), then the files.
    let backup = scratch_dir();
    match backend {
        Backend::Sqlite => {
            app.db
                .execute_unprepared(&format!(
                    "VACUUM INTO '{}'",
                    backup.join("kizuna.db").display()
                ))
                .await
                .unwrap();
        }
        Backend::Postgres => {
            let status = Command::new("pg_dump")
                .args(["--format=custom", "--file"])
                .arg(backup.join("kizuna.dump"))
                .arg(&app.database_url)
                .status()
                .unwrap();
            assert!(status.success());
        }
    }
    copy_tree(&app.data_dir.join("files"), &backup.join("files"));
    assert!(files_under(&backup.join("files")) >= 4);

    let r = app
        .client
        .delete(app.url("/api/user/account"))
        .bearer_auth(&mei.user.token)
        .json(&json!({"lineAccessToken": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let record = app.data_dir.join("deletions");
    let started = Instant::now();
    while files_under(&record) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no deletion record"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The restore: the backup, then the live deletion record.
    let restored_dir = scratch_dir();
    copy_tree(&backup.join("files"), &restored_dir.join("files"));
    copy_tree(&record, &restored_dir.join("deletions"));
    let (restored_url, _restored_db) = match backend {
        Backend::Sqlite => {
            std::fs::copy(backup.join("kizuna.db"), restored_dir.join("kizuna.db")).unwrap();
            (None, None)
        }
        Backend::Postgres => {
            let (url, guard) = empty_database(backend).await;
            let status = Command::new("pg_restore")
                .args(["--no-owner", "--exit-on-error", "--dbname"])
                .arg(url.as_ref().unwrap())
                .arg(backup.join("kizuna.dump"))
                .status()
                .unwrap();
            assert!(status.success());
            (url, Some(guard))
        }
    };
    let restored_db = kizuna_server::storage::connect(
        &restored_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}/kizuna.db", restored_dir.display())),
        Some(1),
    )
    .await
    .unwrap();
    assert_eq!(
        users_of(&restored_db, &mei.user.line_id).await,
        1,
        "the backup holds the account"
    );
    restored_db.close().await.ok();

    let restored = spawn_app_with(backend, |s| {
        s.data_dir = restored_dir.clone();
        s.web_dir = restored_dir.join("web");
        s.database_url = restored_url.clone();
    })
    .await;
    assert_eq!(users_of(&restored.state.db, &mei.user.line_id).await, 0);
    let matches = ok_json(restored.get("/api/matches", Some(&kai.user.token)).await).await;
    assert!(
        !matches
            .to_string()
            .contains(&format!("\"memberId\":{}", mei.id)),
        "{matches}"
    );
    let started = Instant::now();
    while restored.stored(&mei.photo).await {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the deleted member's photo is still stored"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Kai is served as before the backup.
    let me: Value = ok_json(
        restored
            .get("/api/user/my-info", Some(&kai.user.token))
            .await,
    )
    .await;
    assert!(me.is_object());
    let photo = restored
        .get(
            &format!("/api/file/fetch/{}", kai.photo),
            Some(&kai.user.token),
        )
        .await;
    assert_eq!(photo.status(), 200);
    // Started again, the same record changes nothing more.
    let users = |db: sea_orm::DatabaseConnection| async move {
        db.query_one_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT COUNT(*) AS n FROM users".to_string(),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap()
    };
    let before = users(restored.state.db.clone()).await;
    assert_eq!(
        kizuna_server::restore::replay(&restored.state)
            .await
            .unwrap(),
        0
    );
    assert_eq!(users(restored.state.db.clone()).await, before);
    std::fs::remove_dir_all(&backup).ok();
}

on_both_backends!(an_account_deleted_after_a_backup_stays_deleted_after_a_restore);
