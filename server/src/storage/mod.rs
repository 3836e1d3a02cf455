//! The database: connection (SQLite by default, PostgreSQL when DATABASE_URL says so), entities,
//! migrations, and the storage layer the handlers call: one module per aggregate (`users`,
//! `profiles`, `files`, `route_rules`), each reading and writing typed values so that the routes
//! hold no queries and a renamed field is a compile error rather than a NULL column.

pub mod access;
pub mod appeals;
pub mod blocks;
pub mod chat;
pub mod chat_events;
pub mod colleagues;
pub mod daily_lists;
pub mod deletion_record;
pub mod departures;
pub mod email_codes;
pub mod entity;
pub mod exports;
pub mod files;
pub mod funnel;
pub mod gauges;
pub mod job_runs;
pub mod line_events;
pub mod locale;
pub mod match_pool;
pub mod matches;
pub mod matchmaking;
pub mod members;
pub mod migration;
pub mod notify;
pub mod pauses;
pub mod photo_hashes;
pub mod profiles;
pub mod push_outbox;
pub mod queries;
pub mod rate_limits;
pub mod reactions;
pub mod relations;
pub mod removal_notices;
pub mod reports;
pub mod review;
pub mod review_time;
pub mod reviewers;
pub mod revisions;
pub mod route_rules;
pub mod safety;
pub mod sessions;
pub mod statements;
pub mod users;
pub mod we_met;

use std::time::Duration;

use anyhow::Context;
use sea_orm::{
    ConnectOptions, Database, DatabaseConnection, DatabaseTransaction, DbErr, EntityTrait,
    QuerySelect, RuntimeErr, SqlErr, SqliteTransactionMode, TransactionOptions, TransactionTrait,
};
use sea_orm_migration::MigratorTrait;

/// What the storage layer can fail with. Database failures keep their `anyhow` chain (with the
/// `DbErr` at its root) for the log; the API boundary answers them as E500.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A row that must be unique exists already (a concurrent duplicate got there first).
    #[error("the row exists already")]
    Duplicate,
    /// A stored row that no longer reads back into its domain type.
    #[error("stored data is unreadable: {0}")]
    Unreadable(String),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// Opens the pool: `pool_size` connections at most (None: SQLite 8, PostgreSQL 32). SQLite gets
/// WAL, a busy timeout, foreign keys, `synchronous = NORMAL` and `secure_delete`: what is
/// deleted (an account, a message) is overwritten with zeros in its pages, not left readable in
/// the file's free space (the log's old frames are then checkpointed away: [`checkpoint_wal`]).
pub async fn connect(url: &str, pool_size: Option<u32>) -> anyhow::Result<DatabaseConnection> {
    let is_sqlite = url.starts_with("sqlite:");
    if is_sqlite {
        ensure_sqlite_dir(url)?;
    }
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
                    .pragma("secure_delete", "ON")
            });
    } else {
        options
            .max_connections(pool_size.unwrap_or(32))
            .min_connections(2);
    }
    let mut db = Database::connect(options)
        .await
        .with_context(|| format!("connecting to the {} database", backend_name(url)))?;
    db.set_metric_callback(queries::record);
    Ok(db)
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

/// Applies every pending migration of this build (`migration::run`): a database that a newer
/// build migrated further is served as it is, as long as this build's own migrations are all
/// applied.
///
/// On PostgreSQL several processes may start at once (a rolling or simultaneous start behind a
/// load balancer): each holds the advisory lock `(instance::MIGRATION_LOCK, 0)` while it
/// migrates, on a session of its own taken out of the pool, so they take turns and the later
/// ones find nothing pending. The others ask for the lock every 200 ms and hold no statement open
/// meanwhile, which an index built `CONCURRENTLY` would wait for. Closing that session lets the lock go, on every path (an error
/// included; dropped, the connection closes its socket and PostgreSQL ends the session all the
/// same). SQLite needs no lock: one `serve` per file (`instance`).
pub async fn migrate(db: &DatabaseConnection) -> anyhow::Result<migration::run::Report> {
    migrate_with::<migration::Migrator>(db, &migration::run::Timeouts::default()).await
}

/// How often a process that found another migrating asks for the migration lock again.
const MIGRATION_LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// [`migrate`] with another list of migrations (a test's later release) and other timeouts.
pub async fn migrate_with<M: MigratorTrait>(
    db: &DatabaseConnection,
    timeouts: &migration::run::Timeouts,
) -> anyhow::Result<migration::run::Report> {
    use sea_orm::sqlx::Connection;
    if db.get_database_backend() != sea_orm::DbBackend::Postgres {
        return migration::run::run::<M>(db, timeouts)
            .await
            .context("running the database migrations");
    }
    let mut session = db
        .get_postgres_connection_pool()
        .acquire()
        .await
        .context("connecting the migration lock")?
        .detach();
    let (taken,): (bool,) = sea_orm::sqlx::query_as("SELECT pg_try_advisory_lock($1, 0)")
        .bind(crate::instance::MIGRATION_LOCK)
        .fetch_one(&mut session)
        .await
        .context("taking the migration lock")?;
    if !taken {
        tracing::info!("another process is migrating the database; waiting for it to finish");
        // Asked again and again rather than waited for with `pg_advisory_lock`: a session blocked
        // in that statement is a transaction in progress, and an index built `CONCURRENTLY` by the
        // process that migrates waits for every such transaction to end, so the two would wait
        // for each other until the migration's lock timeout.
        loop {
            tokio::time::sleep(MIGRATION_LOCK_POLL).await;
            let (taken,): (bool,) = sea_orm::sqlx::query_as("SELECT pg_try_advisory_lock($1, 0)")
                .bind(crate::instance::MIGRATION_LOCK)
                .fetch_one(&mut session)
                .await
                .context("waiting for the migration lock")?;
            if taken {
                break;
            }
        }
    }
    let migrated = migration::run::run::<M>(db, timeouts)
        .await
        .context("running the database migrations");
    if let Err(err) = session.close().await {
        // The session ends with its socket all the same, and the lock with it.
        tracing::warn!(error = %err, "closing the migration lock's connection");
    }
    migrated
}

/// SQLite: copies every frame of the write-ahead log into the database file and empties the log
/// file (`PRAGMA wal_checkpoint(TRUNCATE)`). Pages written before a deletion stay in the log's
/// old frames until then (a passive checkpoint copies them but leaves the bytes in the log).
/// Answers whether it completed: false while a reader still holds an older snapshot (try again
/// later). Nothing to do on PostgreSQL (true).
pub async fn checkpoint_wal(db: &DatabaseConnection) -> anyhow::Result<bool> {
    if db.get_database_backend() != sea_orm::DbBackend::Sqlite {
        return Ok(true);
    }
    let (busy, _, _): (i64, i64, i64) = sea_orm::sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(db.get_sqlite_connection_pool())
        .await
        .context("checkpointing the write-ahead log")?;
    Ok(busy == 0)
}

/// `SELECT 1` for /healthz.
pub async fn ping(db: &DatabaseConnection) -> bool {
    db.ping().await.is_ok()
}

/// True when `err` says the database cannot be reached right now, rather than that a statement
/// was wrong: the pool could not hand out a connection in time, the connection was refused, reset
/// or cut mid-statement, PostgreSQL is shutting down, starting up or out of connection slots
/// (SQLSTATE class 08, 57P01-57P03, 53300), or SQLite stayed locked by another process beyond the
/// busy timeout (SQLITE_BUSY). Such a request may succeed when retried a few seconds later, so the
/// API answers 503 with `Retry-After` instead of 500. Constraint violations, decoding failures and
/// every other error stay internal errors (E500), and so does a non-database I/O error found in
/// the same chain (a stored file that cannot be read).
pub fn is_unavailable(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        if let Some(db) = cause.downcast_ref::<DbErr>() {
            db_err_is_unavailable(db)
        } else if let Some(sqlx) = cause.downcast_ref::<sea_orm::sqlx::Error>() {
            sqlx_is_unavailable(sqlx)
        } else {
            false
        }
    })
}

/// [`is_unavailable`] for a sea-orm error.
pub fn db_err_is_unavailable(err: &DbErr) -> bool {
    match err {
        DbErr::ConnectionAcquire(_) => true,
        DbErr::Conn(RuntimeErr::SqlxError(e))
        | DbErr::Exec(RuntimeErr::SqlxError(e))
        | DbErr::Query(RuntimeErr::SqlxError(e)) => sqlx_is_unavailable(e),
        _ => false,
    }
}

fn sqlx_is_unavailable(err: &sea_orm::sqlx::Error) -> bool {
    use sea_orm::sqlx::{
        Error, error::DatabaseError, postgres::PgDatabaseError, sqlite::SqliteError,
    };
    match err {
        // The pool's acquire timeout ran out (connections refused or all busy), or it is closing.
        Error::PoolTimedOut | Error::PoolClosed => true,
        // Connecting or talking to the server failed: refused, reset, broken pipe, cut mid-reply.
        Error::Io(_) => true,
        Error::Database(db) => {
            if let Some(pg) = db.try_downcast_ref::<PgDatabaseError>() {
                let code = pg.code();
                code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300")
            } else if let Some(lite) = db.try_downcast_ref::<SqliteError>() {
                // The extended code's low byte is the primary code; 5 = SQLITE_BUSY.
                DatabaseError::code(lite)
                    .and_then(|c| c.parse::<i32>().ok())
                    .is_some_and(|c| c & 0xff == 5)
            } else {
                false
            }
        }
        _ => false,
    }
}

/// True when the error is a unique-constraint violation (a concurrent duplicate insert).
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(err.sql_err(), Some(SqlErr::UniqueConstraintViolation(_)))
}

/// A transaction that will write: `BEGIN IMMEDIATE` on SQLite (so that two writers queue on the
/// busy timeout instead of failing to upgrade a read lock), a plain `BEGIN` on PostgreSQL.
pub async fn begin_write(db: &DatabaseConnection) -> Result<DatabaseTransaction, DbErr> {
    let started = std::time::Instant::now();
    let txn = db
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await;
    // A connection from the pool, then BEGIN (on SQLite, IMMEDIATE: the write lock too).
    metrics::histogram!(crate::metric_names::DB_BEGIN_WAIT).record(started.elapsed().as_secs_f64());
    txn
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

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use anyhow::Context;
    use sea_orm::{
        ConnAcquireErr, DbErr, RuntimeErr,
        sqlx::{self, Connection, Executor, sqlite::SqliteConnectOptions},
    };

    use super::is_unavailable;

    fn io(kind: std::io::ErrorKind) -> sqlx::Error {
        sqlx::Error::Io(std::io::Error::from(kind))
    }

    #[test]
    fn a_pool_timeout_or_a_broken_connection_is_unavailability() {
        for err in [
            DbErr::ConnectionAcquire(ConnAcquireErr::Timeout),
            DbErr::Conn(RuntimeErr::SqlxError(Arc::new(io(
                std::io::ErrorKind::ConnectionRefused,
            )))),
            DbErr::Query(RuntimeErr::SqlxError(Arc::new(io(
                std::io::ErrorKind::UnexpectedEof,
            )))),
            DbErr::Exec(RuntimeErr::SqlxError(Arc::new(sqlx::Error::PoolTimedOut))),
        ] {
            let chained = anyhow::Error::new(err.clone()).context("committing a profile");
            assert!(is_unavailable(&chained), "{err}");
        }
        // The session lookup runs on sqlx directly.
        let direct = anyhow::Error::new(io(std::io::ErrorKind::ConnectionReset))
            .context("looking up a session");
        assert!(is_unavailable(&direct));
    }

    #[test]
    fn bugs_and_other_failures_stay_internal_errors() {
        let not_database = [
            anyhow::anyhow!("the new user vanished"),
            anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::NotFound))
                .context("reading stored file"),
            anyhow::Error::new(DbErr::Exec(RuntimeErr::Internal("bad statement".into()))),
            anyhow::Error::new(DbErr::Json("decoding a stored profile".into())),
            anyhow::Error::new(sqlx::Error::RowNotFound),
            anyhow::Error::new(sqlx::Error::ColumnNotFound("status".into())),
        ];
        for err in not_database {
            assert!(!is_unavailable(&err), "{err:?}");
        }
    }

    /// Real SQLite errors: a constraint violation is a bug (E500); a write lock held by another
    /// connection beyond the busy timeout is unavailability (E503).
    #[tokio::test]
    async fn sqlite_busy_is_unavailability_and_a_constraint_violation_is_not() {
        let path =
            std::env::temp_dir().join(format!("kizuna-busy-{}.db", crate::images::random_id()));
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .busy_timeout(Duration::ZERO);
        let mut holder = sqlx::SqliteConnection::connect_with(&options)
            .await
            .unwrap();
        holder
            .execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
            .await
            .unwrap();
        holder.execute("INSERT INTO t VALUES (1)").await.unwrap();
        let duplicate = holder
            .execute("INSERT INTO t VALUES (1)")
            .await
            .context("inserting")
            .unwrap_err();
        assert!(!is_unavailable(&duplicate), "{duplicate:?}");

        holder.execute("BEGIN EXCLUSIVE").await.unwrap();
        let mut other = sqlx::SqliteConnection::connect_with(&options)
            .await
            .unwrap();
        let busy = other
            .execute("INSERT INTO t VALUES (2)")
            .await
            .context("inserting")
            .unwrap_err();
        assert!(is_unavailable(&busy), "{busy:?}");
        holder.execute("ROLLBACK").await.unwrap();
        other.execute("INSERT INTO t VALUES (2)").await.unwrap();
        drop((holder, other));
        let _ = std::fs::remove_file(&path);
    }

    /// Real PostgreSQL errors (127.0.0.1:5432, as the integration tests): a unique violation or a
    /// failing statement is E500; the connection ended by the server (as on a restart: 57P01) is
    /// unavailability.
    #[tokio::test]
    async fn postgres_shutting_a_connection_down_is_unavailability_and_bad_sql_is_not() {
        let url = "postgres://postgres@127.0.0.1:5432/postgres";
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        conn.execute("CREATE TEMPORARY TABLE t (id INTEGER PRIMARY KEY)")
            .await
            .unwrap();
        conn.execute("INSERT INTO t VALUES (1)").await.unwrap();
        for sql in [
            "INSERT INTO t VALUES (1)",
            "SELECT 1 / 0",
            "SELECT nope FROM t",
        ] {
            let err = conn.execute(sql).await.context("a statement").unwrap_err();
            assert!(!is_unavailable(&err), "{sql}: {err:?}");
        }
        let err = conn
            .execute("SELECT pg_terminate_backend(pg_backend_pid())")
            .await
            .context("a statement")
            .unwrap_err();
        assert!(is_unavailable(&err), "{err:?}");
    }
}
