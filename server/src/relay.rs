//! What other processes on the same PostgreSQL database announce, heard on one LISTEN connection
//! per process (`sqlx::postgres::PgListener`, which reconnects and LISTENs again by itself): chat
//! events (`chat::CHANNEL`) for this process's open streams, and members whose standing in
//! matchmaking changed (`matchmaking::pool::CHANNEL`) for its pool. Payloads carry ids only;
//! each process reads the rows itself. Nothing to hear on SQLite (one process).
//!
//! While the connection is being re-established, announcements are missed: the pool then
//! reloads in the background.

use std::{sync::Arc, time::Duration};

use anyhow::Context;
use sea_orm::{DatabaseConnection, DbBackend};

use crate::{chat::ChatHub, matchmaking::PoolCache};

/// LISTENs on both channels and answers once the LISTEN is in place (so nothing announced after
/// start-up is missed); the task hands each announcement to the chat hub or the pool.
pub async fn start(
    db: &DatabaseConnection,
    chat: Arc<ChatHub>,
    pool: PoolCache,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(None);
    }
    let mut listener =
        sea_orm::sqlx::postgres::PgListener::connect_with(db.get_postgres_connection_pool())
            .await
            .context("connecting the relay")?;
    listener
        .listen_all([crate::chat::CHANNEL, crate::matchmaking::pool::CHANNEL])
        .await
        .context("listening for other processes' announcements")?;
    let db = db.clone();
    Ok(Some(tokio::spawn(async move {
        let mut backoff = Duration::from_millis(500);
        loop {
            match listener.try_recv().await {
                Ok(Some(note)) => {
                    backoff = Duration::from_millis(500);
                    let heard = if note.channel() == crate::chat::CHANNEL {
                        chat.relay(&db, note.payload()).await
                    } else {
                        pool.announced(note.payload())
                    };
                    if let Err(err) = heard {
                        tracing::warn!(error = ?err, channel = note.channel(), "relay: an announcement was not taken");
                    }
                }
                // The connection was lost and has been re-established (LISTEN included); what
                // was announced in between is lost.
                Ok(None) => {
                    tracing::warn!("relay: reconnected to the database");
                    pool.expire();
                    chat.resync();
                }
                Err(sea_orm::sqlx::Error::PoolClosed) => break,
                Err(err) => {
                    tracing::warn!(error = %err, "relay: the database is unreachable");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(30));
                }
            }
        }
    })))
}
