//! PostgreSQL's NOTIFY, through which one process tells the others (SQLite has one process, so
//! there is no one to tell).

use anyhow::Context;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, SqlxPostgresConnector, Statement};

use super::StorageError;

/// A pool of one connection beside `db`'s, to the same PostgreSQL database, for an announcement
/// that must not wait behind the requests: when every pooled connection is taken (a saturated
/// process queues its requests there) a heartbeat sent through `db` would wait for one and vouch
/// too late (`identity::ends::HEARTBEAT_EVERY`). It connects on first use and again after an
/// error, and its connection ends with the last clone. None on SQLite.
pub fn own_connection(db: &DatabaseConnection) -> Option<DatabaseConnection> {
    if db.get_database_backend() != DbBackend::Postgres {
        return None;
    }
    let pool = db.get_postgres_connection_pool();
    let own = sea_orm::sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(std::time::Duration::from_secs(10))
        .connect_lazy_with((*pool.connect_options()).clone());
    Some(SqlxPostgresConnector::from_sqlx_postgres_pool(own))
}

/// Sends `payload` on `channel` to every process listening; nothing on SQLite.
pub async fn notify(
    db: &impl ConnectionTrait,
    channel: &str,
    payload: &str,
) -> Result<(), StorageError> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(());
    }
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [channel.into(), payload.into()],
    ))
    .await
    .context("sending a NOTIFY")?;
    Ok(())
}

/// Sends each of `payloads` on `channel`, in order, in one statement (one transaction: the
/// listeners hear them together); nothing on SQLite.
pub async fn notify_many(
    db: &impl ConnectionTrait,
    channel: &str,
    payloads: &[String],
) -> Result<(), StorageError> {
    if db.get_database_backend() != DbBackend::Postgres || payloads.is_empty() {
        return Ok(());
    }
    let calls: Vec<String> = (0..payloads.len())
        .map(|n| format!("pg_notify($1, ${})", n + 2))
        .collect();
    let mut values: Vec<sea_orm::Value> = vec![channel.into()];
    values.extend(payloads.iter().map(|p| sea_orm::Value::from(p.as_str())));
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        format!("SELECT {}", calls.join(", ")),
        values,
    ))
    .await
    .context("sending NOTIFYs")?;
    Ok(())
}
