//! The database: connection (SQLite by default, PostgreSQL when DATABASE_URL says so), entities and
//! migrations.

pub mod entity;
pub mod migration;

use std::time::Duration;

use anyhow::Context;
use sea_orm::{
    ConnectOptions, Database, DatabaseConnection, DatabaseTransaction, DbErr, EntityTrait,
    QuerySelect, SqlErr, SqliteTransactionMode, TransactionOptions, TransactionTrait,
};
use sea_orm_migration::MigratorTrait;

/// Opens the pool. SQLite gets WAL, a busy timeout, foreign keys and `synchronous = NORMAL`.
pub async fn connect(url: &str) -> anyhow::Result<DatabaseConnection> {
    let is_sqlite = url.starts_with("sqlite:");
    if is_sqlite {
        ensure_sqlite_dir(url)?;
    }
    let pool_size = std::env::var("KIZUNA_DB_POOL")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|n| *n > 0);
    let mut options = ConnectOptions::new(url.to_string());
    options
        .sqlx_logging(false)
        .connect_timeout(Duration::from_secs(10))
        .acquire_timeout(Duration::from_secs(10));
    if is_sqlite {
        options
            .max_connections(pool_size.unwrap_or(8))
            .min_connections(1)
            .map_sqlx_sqlite_opts(|opts| {
                opts.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
                    .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
                    .busy_timeout(Duration::from_secs(10))
                    .foreign_keys(true)
            });
    } else {
        options
            .max_connections(pool_size.unwrap_or(32))
            .min_connections(2);
    }
    Database::connect(options)
        .await
        .with_context(|| format!("connecting to the {} database", backend_name(url)))
}

fn backend_name(url: &str) -> &'static str {
    if url.starts_with("sqlite:") {
        "SQLite"
    } else if url.starts_with("postgres") {
        "PostgreSQL"
    } else {
        "configured"
    }
}

fn ensure_sqlite_dir(url: &str) -> anyhow::Result<()> {
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" {
        return Ok(());
    }
    if let Some(parent) = std::path::Path::new(path).parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating the database directory {}", parent.display()))?;
    }
    Ok(())
}

/// Applies every pending migration.
pub async fn migrate(db: &DatabaseConnection) -> anyhow::Result<()> {
    migration::Migrator::up(db, None)
        .await
        .context("running the database migrations")
}

/// `SELECT 1` for /healthz.
pub async fn ping(db: &DatabaseConnection) -> bool {
    db.ping().await.is_ok()
}

/// True when the error is a unique-constraint violation (a concurrent duplicate insert).
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(err.sql_err(), Some(SqlErr::UniqueConstraintViolation(_)))
}

/// A transaction that will write: `BEGIN IMMEDIATE` on SQLite (so that two writers queue on the
/// busy timeout instead of failing to upgrade a read lock), a plain `BEGIN` on PostgreSQL.
pub async fn begin_write(db: &DatabaseConnection) -> Result<DatabaseTransaction, DbErr> {
    db.begin_with_options(TransactionOptions {
        sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
        ..Default::default()
    })
    .await
}

/// A write transaction that holds one user's row until it ends. Two writes for the same user
/// (a double tap on submit, an avatar change during registration) then run one after the other:
/// the second starts only once the first has committed, and so reads the profile and file claims
/// the first made, instead of deciding on what it saw before. On PostgreSQL (READ COMMITTED) that
/// takes `SELECT … FOR UPDATE`; on SQLite `BEGIN IMMEDIATE` already queues every writer and the
/// lock clause is left out of the SQL.
pub async fn begin_user_write(
    db: &DatabaseConnection,
    user_id: i64,
) -> anyhow::Result<DatabaseTransaction> {
    let txn = begin_write(db).await.context("starting a transaction")?;
    entity::user::Entity::find_by_id(user_id)
        .lock_exclusive()
        .one(&txn)
        .await
        .context("locking the user's row")?;
    Ok(txn)
}
