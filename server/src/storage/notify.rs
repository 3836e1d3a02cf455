//! PostgreSQL's NOTIFY, through which one process tells the others (SQLite has one process, so
//! there is no one to tell).

use anyhow::Context;
use sea_orm::{ConnectionTrait, DbBackend, Statement};

use super::StorageError;

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
