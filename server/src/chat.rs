//! Chat delivery: one in-process hub per server, a LISTEN/NOTIFY relay on PostgreSQL so that a
//! change made through one process reaches the events streams open on every other, and each
//! member's numbered events in the database (`storage::chat_events`) so that nothing is lost.
//!
//! Whoever changes a chat (a message stored, a read marker moved, a match ended) writes the
//! change's events in its transaction, one per member it is for, each with the member's next
//! number, and calls [`ChatHub::publish`] after the commit: the event goes to this process's
//! streams at once and, on PostgreSQL, out as a `NOTIFY kizuna_chat` whose payload holds only ids
//! and numbers (and this process's origin, so it does not deliver its own events twice). Every
//! process LISTENs on that channel (`crate::relay`), reads the rows the ids name and delivers them
//! to its own streams. SQLite is one process by nature: there the hub alone delivers.
//!
//! Live delivery may miss an event (a stream reconnecting, the relay's connection being
//! re-established, a process killed between its commit and its publish): the numbers make that
//! visible and repairable. A stream sends each event with its number as the SSE `id`; a stream
//! that sees a number beyond the next one, falls behind its backlog or is told that the relay
//! reconnected ([`ChatHub::resync`]) reads what it missed from the database; a stream that
//! reconnects with `Last-Event-ID` starts with the events after it.
//!
//! Each published event carries the wall-clock time it was published at, right after its commit
//! (in the NOTIFY payload too), so that a stream taking a message on any process records the
//! message's delivery lag (`kizuna_chat_delivery_lag_seconds`; across machines it includes their
//! clocks' difference, which NTP keeps to milliseconds).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use kizuna_core::{rules::CHAT_STREAMS_PER_MEMBER, safety::Kinds};
use sea_orm::{DatabaseConnection, DbBackend};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};

use crate::storage::{chat as store, chat_events::Kind, entity::chat_message};

/// The PostgreSQL notification channel of the relay.
pub const CHANNEL: &str = "kizuna_chat";

/// Events a member's stream has not taken yet before it starts losing the oldest (it then reads
/// them from the database).
const BACKLOG: usize = 256;

/// A stored chat message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Increasing within the match.
    pub id: i64,
    pub match_id: i64,
    pub sender_id: i64,
    /// The id the sender's client gave it.
    pub client_message_id: String,
    pub text: String,
    /// Unix seconds.
    pub sent_at: i64,
    /// What the screening found in it.
    pub kinds: Kinds,
}

impl From<chat_message::Model> for Message {
    fn from(row: chat_message::Model) -> Message {
        Message {
            id: row.id,
            match_id: row.match_id,
            sender_id: row.sender_id,
            client_message_id: row.client_message_id,
            text: row.text,
            sent_at: row.sent_at,
            kinds: Kinds::from_bits(u8::try_from(row.safety_kinds & 0xff).unwrap_or(0)),
        }
    }
}

/// What changed in a chat.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// A message was stored (for both members: the sender's other pages show it too).
    Message(Message),
    /// The other member read up to this message.
    Read { up_to: i64 },
    /// The match ended: unmatch, block, report, suspension or a deleted account (for both).
    Ended,
}

impl What {
    /// The kind and reference of its stored events.
    pub fn stored(&self) -> (Kind, i64) {
        match self {
            What::Message(m) => (Kind::Message, m.id),
            What::Read { up_to } => (Kind::Read, *up_to),
            What::Ended => (Kind::Ended, 0),
        }
    }
}

/// A committed change of a match's chat, for the members in `to`, each with the event's number
/// in that member's events.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatEvent {
    pub match_id: i64,
    pub what: What,
    pub to: Vec<(i64, i64)>,
}

impl ChatEvent {
    /// This event's number in `member`'s events.
    pub fn seq_for(&self, member: i64) -> Option<i64> {
        self.to.iter().find(|(m, _)| *m == member).map(|(_, s)| *s)
    }
}

/// A NOTIFY payload: ids and numbers only (a payload is limited to 8000 bytes, and a message's
/// text has no business in the database's notification queue).
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Relayed {
    /// The publishing process.
    o: String,
    /// `message`, `read` or `ended`.
    k: String,
    /// The match.
    m: i64,
    /// The message (message) or the marker (read).
    #[serde(default)]
    i: i64,
    /// The members and their event numbers.
    s: Vec<(i64, i64)>,
    /// When it was published (Unix milliseconds; 0 from a process that did not say).
    #[serde(default)]
    t: i64,
}

/// Now, in Unix milliseconds by the wall clock (never the application's mock clock: lags are
/// measured across processes).
fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// An event on its way to the streams, with when it was published (Unix ms, 0: unknown).
type Stamped = (Arc<ChatEvent>, i64);

pub struct ChatHub {
    /// This process, in NOTIFY payloads.
    origin: String,
    members: Mutex<HashMap<i64, broadcast::Sender<Stamped>>>,
    closing: watch::Sender<bool>,
    /// Bumped when events may have been missed (the relay reconnected): streams read the
    /// database for what they have not seen.
    resyncs: watch::Sender<u64>,
    /// NOTIFY payloads on their way out.
    outbox: Arc<Mutex<Outbox>>,
}

/// Payloads not yet sent, and whether a task is sending: one task at a time sends whatever has
/// queued meanwhile in one statement, in the order published, so that under load a NOTIFY is
/// not a round trip per message (and a send's answer does not wait for it).
#[derive(Default)]
struct Outbox {
    queued: Vec<String>,
    sending: bool,
}

/// At most this many payloads in one statement.
const NOTIFY_BATCH: usize = 100;

/// Sends the outbox's payloads until it is empty.
async fn send_queued(db: DatabaseConnection, outbox: Arc<Mutex<Outbox>>) {
    loop {
        let batch: Vec<String> = {
            let mut outbox = outbox.lock().expect("the chat outbox's lock");
            if outbox.queued.is_empty() {
                outbox.sending = false;
                return;
            }
            let n = outbox.queued.len().min(NOTIFY_BATCH);
            outbox.queued.drain(..n).collect()
        };
        if let Err(err) = crate::storage::notify::notify_many(&db, CHANNEL, &batch).await {
            // The events are stored: streams read them when they notice the gap.
            tracing::warn!(error = ?err, count = batch.len(), "chat relay: NOTIFY failed");
        }
    }
}

impl ChatHub {
    pub fn new() -> Arc<ChatHub> {
        Arc::new(ChatHub {
            origin: uuid::Uuid::new_v4().simple().to_string(),
            members: Mutex::new(HashMap::new()),
            closing: watch::Sender::new(false),
            resyncs: watch::Sender::new(0),
            outbox: Arc::default(),
        })
    }

    /// Event streams open on this process (a metric).
    pub fn open_streams(&self) -> usize {
        let members = self.members.lock().expect("the chat hub's lock");
        members.values().map(|tx| tx.receiver_count()).sum()
    }

    /// The events of `member`'s chats from now on, until the subscription is dropped; None when
    /// the member already holds `CHAT_STREAMS_PER_MEMBER` subscriptions on this process (counted
    /// under the hub's lock, so racing opens cannot pass the cap together; a dropped
    /// subscription frees its slot). The cap across processes is the presence rows'
    /// (`storage::chat::open_presence`).
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

    fn deliver(&self, event: ChatEvent, published_ms: i64) {
        let event = Arc::new(event);
        let members = self.members.lock().expect("the chat hub's lock");
        for (member, _) in &event.to {
            if let Some(tx) = members.get(member) {
                // No receiver left is not an error: the stream just closed.
                let _ = tx.send((event.clone(), published_ms));
            }
        }
    }

    /// Delivers a committed change to the streams of this process and, on PostgreSQL, to every
    /// other process (the NOTIFY is queued: it goes out with whatever else queued while the
    /// previous one was sent). A failed NOTIFY is logged, never the caller's failure: the events
    /// are stored, and streams read them when they notice the gap.
    pub async fn publish(&self, db: &DatabaseConnection, event: ChatEvent) {
        let (kind, id) = match &event.what {
            What::Message(m) => ("message", m.id),
            What::Read { up_to } => ("read", *up_to),
            What::Ended => ("ended", 0),
        };
        let published_ms = wall_ms();
        let relayed = Relayed {
            o: self.origin.clone(),
            k: kind.into(),
            m: event.match_id,
            i: id,
            s: event.to.clone(),
            t: published_ms,
        };
        self.deliver(event, published_ms);
        if db.get_database_backend() != DbBackend::Postgres {
            return;
        }
        let payload = serde_json::to_string(&relayed).unwrap_or_default();
        let start = {
            let mut outbox = self.outbox.lock().expect("the chat outbox's lock");
            outbox.queued.push(payload);
            !std::mem::replace(&mut outbox.sending, true)
        };
        if start {
            tokio::spawn(send_queued(db.clone(), self.outbox.clone()));
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

    /// Tells every stream of this process to read what it may have missed from the database.
    pub fn resync(&self) {
        self.resyncs.send_modify(|n| *n += 1);
    }

    /// Changes when the streams should read the database ([`resync`](Self::resync)).
    pub fn resyncs(&self) -> watch::Receiver<u64> {
        self.resyncs.subscribe()
    }

    /// Delivers other processes' events (NOTIFY payloads, in the order heard) to this process's
    /// streams, reading the messages they name in one statement. When that read fails, every
    /// stream is told to read what it missed from the database once it can.
    pub(crate) async fn relay(&self, db: &DatabaseConnection, payloads: &[String]) {
        let mut heard = Vec::with_capacity(payloads.len());
        {
            let members = self.members.lock().expect("the chat hub's lock");
            for payload in payloads {
                match serde_json::from_str::<Relayed>(payload) {
                    // Nobody it is for listens on this process: nothing to read.
                    Ok(relayed)
                        if relayed.o != self.origin
                            && relayed.s.iter().any(|(m, _)| members.contains_key(m)) =>
                    {
                        heard.push(relayed)
                    }
                    Ok(_) => {}
                    Err(err) => {
                        tracing::warn!(error = %err, "chat relay: an announcement was not read")
                    }
                }
            }
        }
        let ids: Vec<i64> = heard
            .iter()
            .filter(|r| r.k == "message")
            .map(|r| r.i)
            .collect();
        let messages: HashMap<i64, Message> = if ids.is_empty() {
            HashMap::new()
        } else {
            match store::messages(db, &ids).await {
                Ok(rows) => rows.into_iter().map(|m| (m.id, Message::from(m))).collect(),
                Err(err) => {
                    tracing::warn!(error = ?err, "chat relay: messages not read; the streams will read them");
                    self.resync();
                    return;
                }
            }
        };
        for relayed in heard {
            let what = match relayed.k.as_str() {
                "message" => match messages.get(&relayed.i) {
                    Some(message) => What::Message(message.clone()),
                    // Gone already (its sender deleted their account): nothing to show.
                    None => continue,
                },
                "read" => What::Read { up_to: relayed.i },
                "ended" => What::Ended,
                other => {
                    tracing::warn!(kind = other, "chat relay: an unknown event kind");
                    continue;
                }
            };
            self.deliver(
                ChatEvent {
                    match_id: relayed.m,
                    what,
                    to: relayed.s,
                },
                relayed.t,
            );
        }
    }
}

/// One stream's view of the hub; leaving drops the member's channel when it was the last.
pub struct Subscription {
    hub: Arc<ChatHub>,
    member: i64,
    rx: Option<broadcast::Receiver<Stamped>>,
}

impl Subscription {
    /// The next event; `Lagged` when the stream fell more than the backlog behind. A message
    /// from the other member records its delivery lag as the stream takes it.
    pub async fn recv(&mut self) -> Result<Arc<ChatEvent>, broadcast::error::RecvError> {
        match self.rx.as_mut() {
            Some(rx) => {
                let (event, published_ms) = rx.recv().await?;
                if let What::Message(message) = &event.what
                    && message.sender_id != self.member
                    && published_ms > 0
                {
                    metrics::histogram!(crate::metric_names::CHAT_DELIVERY_LAG)
                        .record((wall_ms() - published_ms).max(0) as f64 / 1000.0);
                }
                Ok(event)
            }
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
    use std::time::Duration;

    use super::*;

    fn message(id: i64, sender: i64) -> Message {
        Message {
            id,
            match_id: 7,
            sender_id: sender,
            client_message_id: "abcd1234".into(),
            text: "hi".into(),
            sent_at: 0,
            kinds: Kinds::EMPTY,
        }
    }

    #[tokio::test]
    async fn an_event_reaches_the_streams_of_the_members_it_is_for_only() {
        let hub = ChatHub::new();
        let mut a = hub.subscribe(1).unwrap();
        let mut a2 = hub.subscribe(1).unwrap();
        let mut b = hub.subscribe(2).unwrap();
        let mut c = hub.subscribe(3).unwrap();
        hub.deliver(
            ChatEvent {
                match_id: 7,
                what: What::Message(message(10, 1)),
                to: vec![(1, 4), (2, 9)],
            },
            wall_ms(),
        );
        hub.deliver(
            ChatEvent {
                match_id: 7,
                what: What::Read { up_to: 10 },
                to: vec![(1, 5)],
            },
            wall_ms(),
        );
        for s in [&mut a, &mut a2] {
            let first = s.recv().await.unwrap();
            assert!(matches!(first.what, What::Message(_)));
            assert_eq!(first.seq_for(1), Some(4));
            let second = s.recv().await.unwrap();
            assert_eq!(second.what, What::Read { up_to: 10 });
            assert_eq!(second.seq_for(1), Some(5));
        }
        assert_eq!(b.recv().await.unwrap().seq_for(2), Some(9));
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
            s: vec![(i64::MAX, i64::MAX), (i64::MAX - 1, i64::MAX)],
            t: i64::MAX,
        };
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.len() < 300, "{text}");
        assert_eq!(serde_json::from_str::<Relayed>(&text).unwrap(), r);
    }
}
