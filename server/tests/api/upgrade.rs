//! Upgrades side by side (docs/operations.md, "Upgrading"): a server of this build keeps serving
//! members while a later release's expand step (a new column, an index built concurrently) is
//! applied to its database by another process; a server of this build starts against a
//! database that holds migrations it does not know, as long as its own are applied; a migration
//! that waits for a lock gives up after `lock_timeout` instead of queueing members behind it.

use std::time::{Duration, Instant};

use sea_orm::{ConnectionTrait, DbBackend, Statement};
use sea_orm_migration::prelude::*;

use crate::{
    chat::{client_id, matched_pair, post},
    helpers::{Backend, empty_database, scratch_dir, spawn_app, spawn_app_with},
    matchmaking::ok_json,
    on_both_backends,
    process::command,
};
use kizuna_server::storage::{
    self,
    migration::{
        Migrator,
        run::{Timeouts, create_index_concurrently},
    },
};

pub(crate) const LATER_MIGRATIONS: [&str; 2] = [
    "m20991231_000001_later_column",
    "m20991231_000002_later_index",
];
pub(crate) const CARELESS_MIGRATION: &str = "m20991231_000003_careless_index";

#[derive(DeriveIden)]
enum ChatMessages {
    Table,
    LaterNote,
}

/// Expand: a nullable column on a table that grows with every message.
struct LaterColumn;

impl MigrationName for LaterColumn {
    fn name(&self) -> &str {
        LATER_MIGRATIONS[0]
    }
}

#[async_trait::async_trait]
impl MigrationTrait for LaterColumn {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ChatMessages::Table)
                    .add_column(ColumnDef::new(ChatMessages::LaterNote).text().null())
                    .to_owned(),
            )
            .await
    }
}

/// Expand: an index on it, built without blocking writes (outside a transaction).
struct LaterIndex;

impl MigrationName for LaterIndex {
    fn name(&self) -> &str {
        LATER_MIGRATIONS[1]
    }
}

#[async_trait::async_trait]
impl MigrationTrait for LaterIndex {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        create_index_concurrently(
            manager,
            "idx_chat_messages_later_note",
            "chat_messages",
            "later_note",
        )
        .await
    }

    fn use_transaction(&self) -> Option<bool> {
        Some(false)
    }
}

/// The same index built the careless way: inside the migration's transaction, blocking every
/// write to the table while it builds.
struct CarelessIndex;

impl MigrationName for CarelessIndex {
    fn name(&self) -> &str {
        CARELESS_MIGRATION
    }
}

#[async_trait::async_trait]
impl MigrationTrait for CarelessIndex {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name("idx_chat_messages_careless")
                    .table(ChatMessages::Table)
                    .col(ChatMessages::LaterNote)
                    .to_owned(),
            )
            .await
    }
}

/// This build's migrations and a later release's expand step.
pub(crate) struct LaterRelease;

impl MigratorTrait for LaterRelease {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        let mut all = Migrator::migrations();
        all.push(Box::new(LaterColumn));
        all.push(Box::new(LaterIndex));
        all
    }
}

/// The later release with a careless migration after it (for the linter to find).
pub(crate) struct CarelessRelease;

impl MigratorTrait for CarelessRelease {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        let mut all = LaterRelease::migrations();
        all.push(Box::new(CarelessIndex));
        all
    }
}

async fn index_is_valid(db: &impl ConnectionTrait, name: &str) -> bool {
    db.query_one_raw(Statement::from_string(
        DbBackend::Postgres,
        format!(
            "SELECT 1 AS ok FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             WHERE c.relname = '{name}' AND i.indisvalid"
        ),
    ))
    .await
    .unwrap()
    .is_some()
}

async fn messages_stored(db: &impl ConnectionTrait, match_id: i64) -> i64 {
    db.query_one_raw(Statement::from_string(
        db.get_database_backend(),
        format!("SELECT COUNT(*) AS n FROM chat_messages WHERE match_id = {match_id}"),
    ))
    .await
    .unwrap()
    .unwrap()
    .try_get::<i64>("", "n")
    .unwrap()
}

/// Members chat and read through the server while another process applies a later release's
/// expand step (the column, then the index built concurrently) to its database: every answer is
/// a success, every acknowledged message is stored once, the index is valid; then a second
/// server of this build starts on the migrated database and serves the same members.
#[tokio::test]
async fn a_server_keeps_serving_while_a_later_release_migrates_postgres() {
    let app = spawn_app(Backend::Postgres).await;
    let (mei, kai, id) = matched_pair(&app, 0).await;
    // Something to index.
    for n in 0..10 {
        let r = post(&app, &mei, id, &client_id(n), "before").await;
        assert_eq!(r.status(), 201);
    }
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let traffic = {
        let done = done.clone();
        let api = crate::helpers::Api::new(app.api.address.clone());
        let tokens = [mei.user.token.clone(), kai.user.token.clone()];
        async move {
            let mut answers = Vec::new();
            let mut n = 100;
            while !done.load(std::sync::atomic::Ordering::SeqCst) || n < 110 {
                let token = &tokens[n % 2];
                let r = api
                    .client
                    .post(api.url(&format!("/api/matches/{id}/messages")))
                    .bearer_auth(token)
                    .json(&serde_json::json!({"clientMessageId": client_id(n), "text": "during"}))
                    .send()
                    .await
                    .unwrap();
                answers.push(("send", r.status().as_u16()));
                let r = api
                    .client
                    .get(api.url(&format!("/api/matches/{id}/messages")))
                    .bearer_auth(token)
                    .send()
                    .await
                    .unwrap();
                answers.push(("history", r.status().as_u16()));
                n += 1;
                tokio::time::sleep(Duration::from_millis(60)).await;
            }
            (answers, n - 100)
        }
    };
    let traffic = tokio::spawn(traffic);
    // The other process: a connection of its own, the later release's migrations.
    let other = storage::connect(&app.database_url, None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let report = storage::migrate_with::<LaterRelease>(&other, &Timeouts::default())
        .await
        .unwrap();
    assert_eq!(report.applied, LATER_MIGRATIONS);
    tokio::time::sleep(Duration::from_millis(200)).await;
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let (answers, sent) = traffic.await.unwrap();
    let failed: Vec<_> = answers
        .iter()
        .filter(|(what, status)| !matches!((*what, status), ("send", 201) | ("history", 200)))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    assert!(
        sent >= 10,
        "the members were served throughout ({sent} sends)"
    );
    assert_eq!(messages_stored(&app.db, id).await, 10 + sent as i64);
    assert!(index_is_valid(&app.db, "idx_chat_messages_later_note").await);

    // The previous release restarting meanwhile: this build on a database it is behind.
    // On the same machine: the first one's local file store too.
    let second = spawn_app_with(Backend::Postgres, |s| {
        s.database_url = Some(app.database_url.clone());
        s.data_dir = app.data_dir.clone();
    })
    .await;
    let history = ok_json(
        second
            .get(
                &format!("/api/matches/{id}/messages"),
                Some(&kai.user.token),
            )
            .await,
    )
    .await;
    assert!(history.to_string().contains("during"), "{history}");
    let r = post(&second, &kai, id, &client_id(999), "after").await;
    assert_eq!(r.status(), 201);
    other.close().await.ok();
}

/// A server of this build starts on a database a later release migrated, and serves what was
/// there; `kizuna-server migrate` of this build says the database is ahead and changes nothing.
async fn a_server_starts_on_a_database_a_later_release_migrated(backend: Backend) {
    let mut app = spawn_app(backend).await;
    let (mei, _kai, id) = matched_pair(&app, 0).await;
    assert_eq!(
        post(&app, &mei, id, &client_id(1), "kept").await.status(),
        201
    );
    app.shut_down().await;
    let url = app.database_url.clone();
    let db = storage::connect(&url, None).await.unwrap();
    storage::migrate_with::<LaterRelease>(&db, &Timeouts::default())
        .await
        .unwrap();
    db.close().await.ok();

    let out = command(&app.data_dir, Some(&url), "warn")
        .arg("migrate")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("no migration to apply"), "{said}");
    assert!(said.contains(LATER_MIGRATIONS[1]), "{said}");

    let again = spawn_app_with(backend, |s| {
        s.database_url = Some(url.clone());
        s.data_dir = app.data_dir.clone();
    })
    .await;
    let history = ok_json(
        again
            .get(
                &format!("/api/matches/{id}/messages"),
                Some(&mei.user.token),
            )
            .await,
    )
    .await;
    assert!(history.to_string().contains("kept"), "{history}");
}

/// A database that holds a migration this build does not know and lacks one of its own (another
/// line of releases) is refused by `migrate` and by `serve`, naming both; nothing is applied.
async fn a_database_of_another_line_of_releases_is_refused(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = empty_database(backend).await;
    let url = url.unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let db = storage::connect(&url, None).await.unwrap();
    storage::migrate_with::<LaterRelease>(&db, &Timeouts::default())
        .await
        .unwrap();
    let own = Migrator::migrations().last().unwrap().name().to_string();
    db.execute_unprepared(&format!(
        "DELETE FROM seaql_migrations WHERE version = '{own}'"
    ))
    .await
    .unwrap();
    for words in [&["migrate"][..], &["serve"]] {
        let out = command(&data_dir, Some(&url), "warn")
            .args(words)
            .env(
                "KIZUNA_BIND",
                format!("127.0.0.1:{}", crate::process::free_port()),
            )
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{words:?}: {said}");
        assert!(
            said.contains("does not know") && said.contains(LATER_MIGRATIONS[0]),
            "{said}"
        );
        assert!(said.contains(&own), "{said}");
    }
    let applied = db
        .query_one_raw(Statement::from_string(
            db.get_database_backend(),
            format!("SELECT COUNT(*) AS n FROM seaql_migrations WHERE version = '{own}'"),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap();
    assert_eq!(applied, 0, "nothing was applied");
    db.close().await.ok();
    std::fs::remove_dir_all(&data_dir).ok();
}

/// A long transaction holds the table a migration must alter: the migration gives up waiting
/// after `lock_timeout` and tries again, members' messages go through meanwhile (queued at most
/// that long, never until the transaction ends), and once the transaction has ended the
/// migration applies.
#[tokio::test]
async fn a_migration_waiting_for_a_lock_gives_up_instead_of_queueing_members_postgres() {
    let app = spawn_app(Backend::Postgres).await;
    let (mei, _kai, id) = matched_pair(&app, 0).await;
    let holder = storage::connect(&app.database_url, Some(1)).await.unwrap();
    use sea_orm::TransactionTrait;
    let long = holder.begin().await.unwrap();
    long.execute_unprepared("LOCK TABLE chat_messages IN ACCESS SHARE MODE")
        .await
        .unwrap();
    let timeouts = Timeouts {
        lock: Duration::from_millis(300),
        attempts: 3,
        pause: Duration::from_millis(300),
        ..Timeouts::default()
    };
    let other = storage::connect(&app.database_url, None).await.unwrap();
    let migrating = {
        let timeouts = timeouts.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let outcome = storage::migrate_with::<LaterRelease>(&other, &timeouts).await;
            other.close().await.ok();
            (outcome, started.elapsed())
        })
    };
    let mut slowest = Duration::ZERO;
    let mut n = 0;
    while !migrating.is_finished() {
        let started = Instant::now();
        let r = post(&app, &mei, id, &client_id(n), "meanwhile").await;
        assert_eq!(r.status(), 201);
        slowest = slowest.max(started.elapsed());
        n += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (outcome, took) = migrating.await.unwrap();
    let err = format!("{:#}", outcome.unwrap_err());
    assert!(err.contains("3 tries each gave up waiting 300 ms"), "{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(n > 0);
    assert!(
        slowest < Duration::from_secs(2),
        "a message waited {slowest:?} behind the migration"
    );
    long.rollback().await.unwrap();
    holder.close().await.ok();
    let db = storage::connect(&app.database_url, None).await.unwrap();
    let report = storage::migrate_with::<LaterRelease>(&db, &timeouts)
        .await
        .unwrap();
    assert_eq!(report.applied, LATER_MIGRATIONS);
    db.close().await.ok();
}

on_both_backends!(
    a_server_starts_on_a_database_a_later_release_migrated,
    a_database_of_another_line_of_releases_is_refused,
);
