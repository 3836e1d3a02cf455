//! Live chat delivery: one in-process hub per server, and on PostgreSQL a LISTEN/NOTIFY relay so
//! that a message posted to one process reaches the events streams open on every other.
//!
//! The hub keeps one broadcast channel per member with an open stream (`GET /chat/events`).
//! Whoever changes a chat (a message stored, a read marker moved, a match ended) calls
//! [`ChatHub::publish`] after the commit: the event goes to this process's streams at once and,
//! on PostgreSQL, out as a `NOTIFY kizuna_chat` whose payload holds only ids (and this process's
//! origin id, so it does not deliver its own events twice). Every process LISTENs on that
//! channel with one pooled connection, reads the rows the ids name and delivers them to its
//! own streams. SQLite is one process by nature: there the hub alone delivers.
//!
//! Delivery is live, not durable: an event published while a stream is reconnecting, or while
//! the relay's connection is being re-established, is not replayed. The database holds the truth;
//! the web page refetches the newest messages whenever its stream (re)opens.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::Context;
use kizuna_core::rules::CHAT_STREAMS_PER_MEMBER;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};

use crate::storage::{chat as store, entity::chat_message};

/// The PostgreSQL notification channel of the relay.
pub const CHANNEL: &str = "kizuna_chat";

/// Events a member's stream has not taken yet before it starts losing the oldest.
const BACKLOG: usize = 256;

/// What changed in a chat, with the two members it concerns.
#[derive(Clone, Debug)]
pub enum ChatEvent {
    /// A message was stored (for both members: the sender's other pages show it too).
    Message {
        match_id: i64,
        low: i64,
        high: i64,
        message: chat_message::Model,
    },
    /// `reader` read up to `up_to` (for the other member).
    Read {
        match_id: i64,
        reader: i64,
        other: i64,
        up_to: i64,
    },
    /// The match ended: unmatch, block, report or suspension (for both).
    Ended { match_id: i64, low: i64, high: i64 },
}

impl ChatEvent {
    fn recipients(&self) -> Vec<i64> {
        match self {
            ChatEvent::Message { low, high, .. } | ChatEvent::Ended { low, high, .. } => {
                vec![*low, *high]
            }
            ChatEvent::Read { other, .. } => vec![*other],
        }
    }
}

/// A NOTIFY payload: ids only (a payload is limited to 8000 bytes, and a message's text has
/// no business in the database's notification queue).
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Relayed {
    /// The publishing process.
    o: String,
    /// `message`, `read` or `ended`.
    k: String,
    /// The match.
    m: i64,
    /// The message (message) or the reader (read).
    #[serde(default)]
    i: i64,
    /// The read marker (read).
    #[serde(default)]
    u: i64,
}

pub struct ChatHub {
    /// This process, in NOTIFY payloads.
    origin: String,
    members: Mutex<HashMap<i64, broadcast::Sender<Arc<ChatEvent>>>>,
    closing: watch::Sender<bool>,
}

impl ChatHub {
    pub fn new() -> Arc<ChatHub> {
        Arc::new(ChatHub {
            origin: uuid::Uuid::new_v4().simple().to_string(),
            members: Mutex::new(HashMap::new()),
            closing: watch::Sender::new(false),
        })
    }

    /// The events of `member`'s chats from now on, until the subscription is dropped; None when
    /// the member already holds `CHAT_STREAMS_PER_MEMBER` subscriptions on this process (counted
    /// under the hub's lock, so racing opens cannot pass the cap together; a dropped
    /// subscription frees its slot).
    pub fn subscribe(self: &Arc<Self>, member: i64) -> Option<Subscription> {
        let mut members = self.members.lock().expect("the chat hub's lock");
        let tx = members
            .entry(member)
            .or_insert_with(|| broadcast::channel(BACKLOG).0);
        if tx.receiver_count() >= CHAT_STREAMS_PER_MEMBER as usize {
            return None;
        }
        let rx = tx.subscribe();
        Some(Subscription {
            hub: self.clone(),
            member,
            rx: Some(rx),
        })
    }

    /// Members with a stream open on this process.
    pub fn listeners(&self) -> usize {
        self.members.lock().expect("the chat hub's lock").len()
    }

    fn deliver(&self, event: ChatEvent) {
        let event = Arc::new(event);
        let members = self.members.lock().expect("the chat hub's lock");
        for member in event.recipients() {
            if let Some(tx) = members.get(&member) {
                // No receiver left is not an error: the stream just closed.
                let _ = tx.send(event.clone());
            }
        }
    }

    /// Delivers a committed change to the streams of this process and, on PostgreSQL, to every
    /// other process. A failed NOTIFY is logged, never the caller's failure: the change is
    /// stored, and pages catch up when they next load.
    pub async fn publish(&self, db: &DatabaseConnection, event: ChatEvent) {
        let relayed = match &event {
            ChatEvent::Message {
                match_id, message, ..
            } => Relayed {
                o: self.origin.clone(),
                k: "message".into(),
                m: *match_id,
                i: message.id,
                u: 0,
            },
            ChatEvent::Read {
                match_id,
                reader,
                up_to,
                ..
            } => Relayed {
                o: self.origin.clone(),
                k: "read".into(),
                m: *match_id,
                i: *reader,
                u: *up_to,
            },
            ChatEvent::Ended { match_id, .. } => Relayed {
                o: self.origin.clone(),
                k: "ended".into(),
                m: *match_id,
                i: 0,
                u: 0,
            },
        };
        self.deliver(event);
        if db.get_database_backend() != DbBackend::Postgres {
            return;
        }
        let payload = serde_json::to_string(&relayed).unwrap_or_default();
        let notified = db
            .execute_raw(Statement::from_sql_and_values(
                DbBackend::Postgres,
                "SELECT pg_notify($1, $2)",
                [CHANNEL.into(), payload.into()],
            ))
            .await;
        if let Err(err) = notified {
            tracing::warn!(error = %err, "chat relay: NOTIFY failed");
        }
    }

    /// Ends every open stream (the server is shutting down: streams must not hold it up).
    pub fn shut_down(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves when the server shuts down.
    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// On PostgreSQL, LISTENs for other processes' events and delivers them here; answers once
    /// the LISTEN is in place (so nothing published after start-up is missed). Nothing to do on
    /// SQLite.
    pub async fn start_relay(
        self: &Arc<Self>,
        db: &DatabaseConnection,
    ) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
        if db.get_database_backend() != DbBackend::Postgres {
            return Ok(None);
        }
        let mut listener =
            sea_orm::sqlx::postgres::PgListener::connect_with(db.get_postgres_connection_pool())
                .await
                .context("connecting the chat relay")?;
        listener
            .listen(CHANNEL)
            .await
            .context("listening for chat events")?;
        let hub = self.clone();
        let db = db.clone();
        Ok(Some(tokio::spawn(async move {
            let mut backoff = Duration::from_millis(500);
            loop {
                match listener.try_recv().await {
                    Ok(Some(note)) => {
                        backoff = Duration::from_millis(500);
                        if let Err(err) = hub.relay(&db, note.payload()).await {
                            tracing::warn!(error = ?err, "chat relay: an event was not delivered");
                        }
                    }
                    // The connection was lost and has been re-established (LISTEN included);
                    // what was notified in between is lost (see the module's doc).
                    Ok(None) => tracing::warn!("chat relay: reconnected to the database"),
                    Err(sea_orm::sqlx::Error::PoolClosed) => break,
                    Err(err) => {
                        tracing::warn!(error = %err, "chat relay: the database is unreachable");
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(Duration::from_secs(30));
                    }
                }
            }
        })))
    }

    /// Delivers another process's event to this process's streams.
    async fn relay(&self, db: &DatabaseConnection, payload: &str) -> anyhow::Result<()> {
        let relayed: Relayed = serde_json::from_str(payload).context("reading a chat event")?;
        if relayed.o == self.origin {
            return Ok(());
        }
        if self.members.lock().expect("the chat hub's lock").is_empty() {
            // Nobody listens on this process: no need to read anything.
            return Ok(());
        }
        let Some(m) = store::match_row(db, relayed.m).await? else {
            return Ok(());
        };
        let event = match relayed.k.as_str() {
            "message" => {
                let Some(message) = store::message(db, relayed.i).await? else {
                    return Ok(());
                };
                ChatEvent::Message {
                    match_id: m.id,
                    low: m.low_id,
                    high: m.high_id,
                    message,
                }
            }
            "read" => ChatEvent::Read {
                match_id: m.id,
                reader: relayed.i,
                other: if relayed.i == m.low_id {
                    m.high_id
                } else {
                    m.low_id
                },
                up_to: relayed.u,
            },
            "ended" => ChatEvent::Ended {
                match_id: m.id,
                low: m.low_id,
                high: m.high_id,
            },
            other => anyhow::bail!("unknown chat event kind {other}"),
        };
        self.deliver(event);
        Ok(())
    }
}

/// One stream's view of the hub; leaving drops the member's channel when it was the last.
pub struct Subscription {
    hub: Arc<ChatHub>,
    member: i64,
    rx: Option<broadcast::Receiver<Arc<ChatEvent>>>,
}

impl Subscription {
    /// The next event; `Lagged` when the stream fell more than the backlog behind.
    pub async fn recv(&mut self) -> Result<Arc<ChatEvent>, broadcast::error::RecvError> {
        match self.rx.as_mut() {
            Some(rx) => rx.recv().await,
            None => Err(broadcast::error::RecvError::Closed),
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        drop(self.rx.take());
        let mut members = self.hub.members.lock().expect("the chat hub's lock");
        if members
            .get(&self.member)
            .is_some_and(|tx| tx.receiver_count() == 0)
        {
            members.remove(&self.member);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: i64, sender: i64) -> chat_message::Model {
        chat_message::Model {
            id,
            match_id: 7,
            sender_id: sender,
            client_message_id: "abcd1234".into(),
            text: "hi".into(),
            sent_at: 0,
        }
    }

    #[tokio::test]
    async fn an_event_reaches_the_streams_of_the_members_it_concerns_only() {
        let hub = ChatHub::new();
        let mut a = hub.subscribe(1).unwrap();
        let mut a2 = hub.subscribe(1).unwrap();
        let mut b = hub.subscribe(2).unwrap();
        let mut c = hub.subscribe(3).unwrap();
        hub.deliver(ChatEvent::Message {
            match_id: 7,
            low: 1,
            high: 2,
            message: message(10, 1),
        });
        hub.deliver(ChatEvent::Read {
            match_id: 7,
            reader: 2,
            other: 1,
            up_to: 10,
        });
        for s in [&mut a, &mut a2] {
            assert!(matches!(
                *s.recv().await.unwrap(),
                ChatEvent::Message { .. }
            ));
            assert!(matches!(
                *s.recv().await.unwrap(),
                ChatEvent::Read { up_to: 10, .. }
            ));
        }
        assert!(matches!(
            *b.recv().await.unwrap(),
            ChatEvent::Message { .. }
        ));
        // The reader is not told about their own read, nor anyone else about anything.
        let nothing = tokio::time::timeout(Duration::from_millis(50), b.recv()).await;
        assert!(nothing.is_err());
        let nothing = tokio::time::timeout(Duration::from_millis(50), c.recv()).await;
        assert!(nothing.is_err());
    }

    #[tokio::test]
    async fn a_member_leaves_the_hub_with_their_last_stream() {
        let hub = ChatHub::new();
        let a = hub.subscribe(1).unwrap();
        let a2 = hub.subscribe(1).unwrap();
        assert_eq!(hub.listeners(), 1);
        drop(a);
        assert_eq!(hub.listeners(), 1);
        drop(a2);
        assert_eq!(hub.listeners(), 0);
    }

    #[test]
    fn a_member_holds_at_most_the_cap_of_subscriptions_and_a_closed_one_frees_its_slot() {
        let hub = ChatHub::new();
        let mut held: Vec<_> = (0..CHAT_STREAMS_PER_MEMBER)
            .map(|_| hub.subscribe(1).expect("under the cap"))
            .collect();
        assert!(hub.subscribe(1).is_none());
        // Another member's streams are their own.
        assert!(hub.subscribe(2).is_some());
        held.pop();
        assert!(hub.subscribe(1).is_some());
    }

    #[test]
    fn a_relayed_payload_is_small_and_reads_back() {
        let r = Relayed {
            o: "0123456789abcdef0123456789abcdef".into(),
            k: "message".into(),
            m: i64::MAX,
            i: i64::MAX,
            u: 0,
        };
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.len() < 200, "{text}");
        assert_eq!(serde_json::from_str::<Relayed>(&text).unwrap(), r);
    }
}
