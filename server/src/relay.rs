//! What other processes on the same PostgreSQL database announce, heard on one LISTEN connection
//! per process (`sqlx::postgres::PgListener`, which reconnects and LISTENs again by itself): chat
//! events (`chat::CHANNEL`) for this process's open streams, sessions that ended
//! (`identity::ends::CHANNEL`) for the same streams, and members whose standing in matchmaking
//! changed (`matchmaking::cache::CHANNEL`) for its pool. Payloads carry ids (and token hashes)
//! only; each process reads the rows itself. Nothing to hear on SQLite (one process).
//!
//! While the connection is being re-established, announcements are missed: the pool then
//! reloads in the background, the streams read the events they missed and look their sessions
//! up again, once the listener hears again (after the reconnect, or with the first notification
//! on a connection made anew after an error).
//!
//! The same task sends this process's heartbeat on the sessions' channel
//! (`identity::ends::SessionEnds::heartbeat`, every `HEARTBEAT_EVERY`) on a connection of its own
//! (`storage::notify::own_connection`), never waiting behind the requests for one of the pool's:
//! hearing it back vouches for the session cache; it stops, and its connection closes, with the
//! listener.

use std::{sync::Arc, time::Duration};

use anyhow::Context;
use sea_orm::{DatabaseConnection, DbBackend};
use tokio::sync::mpsc;

use crate::{chat::ChatHub, identity::ends::SessionEnds, matchmaking::PoolCache};

/// Chat announcements heard and not yet delivered, at most; beyond it the listener waits (and
/// PostgreSQL keeps the rest in its notification queue).
const CHAT_QUEUE: usize = 10_000;

/// Chat announcements delivered together, their messages read in one statement.
const CHAT_BATCH: usize = 256;

/// LISTENs on the three channels and answers once the LISTEN is in place (so nothing announced
/// after start-up is missed); the task hands each announcement to the chat hub, the session ends
/// or the pool.
pub async fn start(
    db: &DatabaseConnection,
    chat: Arc<ChatHub>,
    ends: Arc<SessionEnds>,
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
        .listen_all([
            crate::chat::CHANNEL,
            crate::identity::ends::CHANNEL,
            crate::matchmaking::cache::CHANNEL,
        ])
        .await
        .context("listening for other processes' announcements")?;
    // Delivery apart from listening: the listener never waits for a read, and whatever was heard
    // while one batch was read is read together in the next, so a busy process reads the other
    // processes' messages in a few statements, not one statement (and one wait) per message.
    let (heard, mut to_deliver) = mpsc::channel::<String>(CHAT_QUEUE);
    tokio::spawn({
        let (db, chat) = (db.clone(), chat.clone());
        async move {
            let mut batch = Vec::with_capacity(CHAT_BATCH);
            while to_deliver.recv_many(&mut batch, CHAT_BATCH).await > 0 {
                chat.relay(&db, &batch).await;
                batch.clear();
            }
        }
    });
    ends.cache().vouch_by_heartbeats();
    let heartbeats = {
        // Not through the pool: see `own_connection`.
        let db = crate::storage::notify::own_connection(db)
            .context("the relay runs on PostgreSQL only")?;
        let ends = ends.clone();
        async move {
            let mut every = tokio::time::interval(crate::identity::ends::HEARTBEAT_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                ends.heartbeat(&db).await;
            }
        }
    };
    let listening = async move {
        let mut backoff = Duration::from_millis(500);
        // An error may have cost the connection: the next call makes a new one (and LISTENs)
        // without saying so, and what was announced in between is lost.
        let mut lost = false;
        loop {
            match listener.try_recv().await {
                Ok(Some(note)) => {
                    backoff = Duration::from_millis(500);
                    if std::mem::take(&mut lost) {
                        tracing::warn!("relay: listening again");
                        pool.expire();
                        chat.resync();
                        ends.recheck();
                    }
                    if note.channel() == crate::chat::CHANNEL {
                        if heard.send(note.payload().to_owned()).await.is_err() {
                            break;
                        }
                    } else if note.channel() == crate::identity::ends::CHANNEL {
                        ends.heard(note.payload());
                    } else if let Err(err) = pool.announced(note.payload()) {
                        tracing::warn!(error = ?err, "relay: a pool announcement was not taken");
                    }
                }
                // The connection was lost and has been re-established (LISTEN included); what
                // was announced in between is lost.
                Ok(None) => {
                    tracing::warn!("relay: reconnected to the database");
                    pool.expire();
                    chat.resync();
                    ends.recheck();
                }
                Err(sea_orm::sqlx::Error::PoolClosed) => break,
                Err(err) => {
                    tracing::warn!(error = %err, "relay: the database is unreachable");
                    lost = true;
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(30));
                }
            }
        }
    };
    Ok(Some(tokio::spawn(async move {
        // One task: aborting it (the server's stop) ends both.
        tokio::select! {
            () = listening => {}
            () = heartbeats => {}
        }
    })))
}
