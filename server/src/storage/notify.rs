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
