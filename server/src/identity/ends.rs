//! The end of sessions, told to what carries a session beyond one request: the chat events
//! streams. A request proves its session when it arrives; a stream lives on after that, so it
//! must hear when its session ends (sign-out, sign-out everywhere, a suspension, a deleted
//! account) and end too, within a second, on every process.
//!
//! Whoever ends sessions announces it after the commit ([`SessionEnds::announce`], from a
//! use-case's `AfterCommit`): at once to this process's streams and, on PostgreSQL, as a
//! `NOTIFY kizuna_sessions` whose payload names token hashes (SHA-256, as the table stores them)
//! and user ids, never a token. Every process hears it on its one LISTEN connection
//! (`crate::relay`) and tells its own streams. A notification can be lost while the relay
//! reconnects: the relay then asks every stream to look its session up again
//! ([`SessionEnds::recheck`]), and each stream also looks it up at every keep-alive. A session's
//! own end (its sliding expiry, or 30 days after the login) is a timer in the stream.
//!
//! The same announcements evict the ended sessions from each process's session cache
//! (`identity::session_cache`), together with the sessions of users whose account changed in
//! what a session carries (`AfterCommit::account_changed`: their name or avatar, their profile's
//! status, their reviewer role), which no stream hears of. After a reconnect the
//! cache is emptied.
//!
//! On PostgreSQL the database announces too, inside the transaction that makes the change:
//! triggers on `sessions` (revoked, or deleted while live), `profiles` (status), `users` (name,
//! avatar) and `reviewers` (migration `m20261205_000001_session_announcements`) send the same
//! payload without an origin, which every process takes, the one that made the change included
//! (it told itself already; evicting and ending again changes nothing). So an end commits with
//! its announcement, whoever made it: the API, the CLI, an operator's hand. And each process
//! sends itself a heartbeat on the same channel ([`SessionEnds::heartbeat`], every
//! [`HEARTBEAT_EVERY`]); hearing one vouches that every announcement committed before it was sent
//! was heard, which is what lets the session cache keep a session beyond a second.

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use sea_orm::{DatabaseConnection, DbBackend};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};

use super::session_cache::SessionCache;

/// The PostgreSQL notification channel of ended sessions.
pub const CHANNEL: &str = "kizuna_sessions";

/// Announcements a stream has not looked at yet before it misses the oldest (it then looks its
/// session up instead).
const BACKLOG: usize = 1024;

/// How often each process sends itself a heartbeat on [`CHANNEL`]: well within the session
/// cache's second (`session_cache::SESSION_CACHE_TTL`), so that a process whose relay keeps up
/// always has one heard less than a second ago.
pub const HEARTBEAT_EVERY: Duration = Duration::from_millis(250);

/// Heartbeats sent and not heard yet, at most (older ones are forgotten: hearing them late
/// would vouch for nothing new).
const HEARTBEATS_AWAITED: usize = 64;

/// Sessions that ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The session with this token hash (signed out on this device).
    Session(String),
    /// Every session of this user (signed out everywhere, suspended, deleted).
    User(i64),
}

impl Ended {
    /// Whether the session `hash` of user `user` is among these.
    pub fn covers(&self, hash: &str, user: i64) -> bool {
        match self {
            Ended::Session(ended) => ended == hash,
            Ended::User(ended) => *ended == user,
        }
    }
}

/// A NOTIFY payload: the announcing process's origin (empty when the database's triggers send
/// it), token hashes and user ids of ended sessions, the ids of users whose sessions are to be
/// read again (`c`), or a process's heartbeat (`h`, its number).
#[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
struct Relayed {
    #[serde(default)]
    o: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    h: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    s: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    u: Vec<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    c: Vec<i64>,
}

impl Relayed {
    fn of(origin: &str, ended: &[Ended], changed: &[i64]) -> Relayed {
        let mut relayed = Relayed {
            o: origin.to_string(),
            c: changed.to_vec(),
            ..Relayed::default()
        };
        for end in ended {
            match end {
                Ended::Session(hash) => relayed.s.push(hash.clone()),
                Ended::User(user) => relayed.u.push(*user),
            }
        }
        relayed
    }

    fn ended(&self) -> Vec<Ended> {
        self.s
            .iter()
            .cloned()
            .map(Ended::Session)
            .chain(self.u.iter().copied().map(Ended::User))
            .collect()
    }
}

/// The ends of sessions on this process (one per process, in `AppState`).
pub struct SessionEnds {
    origin: String,
    ended: broadcast::Sender<Arc<Ended>>,
    /// Bumped when announcements may have been missed (the relay reconnected).
    rechecks: watch::Sender<u64>,
    /// This process's session cache, evicted by every announcement.
    cache: Arc<SessionCache>,
    /// The next heartbeat's number, and those sent and not heard yet with when they were sent.
    next_heartbeat: AtomicU64,
    heartbeats: Mutex<VecDeque<(u64, Instant)>>,
    /// Whether the last heartbeat failed to go (so that an outage is logged once, not 4 times a
    /// second).
    heartbeat_failing: AtomicBool,
}

/// What one stream listens to: announced ends, and when to look its session up again.
pub struct EndWatch {
    pub ended: broadcast::Receiver<Arc<Ended>>,
    pub rechecks: watch::Receiver<u64>,
}

impl SessionEnds {
    pub fn new() -> Arc<SessionEnds> {
        Arc::new(SessionEnds {
            origin: uuid::Uuid::new_v4().simple().to_string(),
            ended: broadcast::channel(BACKLOG).0,
            rechecks: watch::Sender::new(0),
            cache: Arc::new(SessionCache::new()),
            next_heartbeat: AtomicU64::new(0),
            heartbeats: Mutex::new(VecDeque::new()),
            heartbeat_failing: AtomicBool::new(false),
        })
    }

    /// This process's session cache, which the announcements evict (for `SessionStore`).
    pub fn cache(&self) -> Arc<SessionCache> {
        self.cache.clone()
    }

    /// Listens from now on: subscribe before the session is checked, so that an end announced
    /// after the check cannot be missed.
    pub fn watch(&self) -> EndWatch {
        EndWatch {
            ended: self.ended.subscribe(),
            rechecks: self.rechecks.subscribe(),
        }
    }

    fn tell(&self, ended: Ended) {
        // No stream listening is not an error.
        let _ = self.ended.send(Arc::new(ended));
    }

    /// Tells this process's cache and streams and, on PostgreSQL, every other process that these
    /// sessions ended and that what the sessions of the `changed` users carry changed (call it
    /// after the commit, before answering). A failed NOTIFY is logged: the database's triggers
    /// announced in the transaction every end and every change but a new profile; that one the
    /// other processes' caches read again within `SESSION_CACHE_HELD`.
    pub async fn announce(&self, db: &DatabaseConnection, ended: &[Ended], changed: &[i64]) {
        if ended.is_empty() && changed.is_empty() {
            return;
        }
        self.evict(ended, changed);
        for end in ended {
            self.tell(end.clone());
        }
        if db.get_database_backend() != DbBackend::Postgres {
            return;
        }
        let payload =
            serde_json::to_string(&Relayed::of(&self.origin, ended, changed)).unwrap_or_default();
        if let Err(err) = crate::storage::notify::notify(db, CHANNEL, &payload).await {
            tracing::warn!(error = %err, "session ends: NOTIFY failed");
        }
    }

    /// Sends this process's next heartbeat on [`CHANNEL`] (PostgreSQL; the relay calls it every
    /// [`HEARTBEAT_EVERY`] once it listens). When it was sent is taken before the statement, so
    /// that whatever committed before that instant committed before the heartbeat.
    pub async fn heartbeat(&self, db: &DatabaseConnection) {
        let number = self.next_heartbeat.fetch_add(1, Ordering::SeqCst);
        {
            let mut awaited = self.heartbeats.lock().unwrap_or_else(|e| e.into_inner());
            awaited.push_back((number, Instant::now()));
            while awaited.len() > HEARTBEATS_AWAITED {
                awaited.pop_front();
            }
        }
        let payload = serde_json::to_string(&Relayed {
            o: self.origin.clone(),
            h: Some(number),
            ..Relayed::default()
        })
        .unwrap_or_default();
        match crate::storage::notify::notify(db, CHANNEL, &payload).await {
            Ok(()) => self.heartbeat_failing.store(false, Ordering::SeqCst),
            Err(err) => {
                if !self.heartbeat_failing.swap(true, Ordering::SeqCst) {
                    tracing::warn!(error = %err, "session ends: a heartbeat could not be sent");
                }
            }
        }
    }

    /// This process's heartbeat `number` came back: the cache is vouched for as of its sending.
    fn heartbeat_heard(&self, number: u64) {
        let mut awaited = self.heartbeats.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(&(sent_number, sent)) = awaited.front() {
            if sent_number > number {
                break;
            }
            awaited.pop_front();
            if sent_number == number {
                self.cache.heard_as_of(sent);
            }
        }
    }

    /// An announcement heard on [`CHANNEL`] (a NOTIFY payload): another process's, or the
    /// database's (no origin, this process's own changes included), told to this process's
    /// cache and streams; this process's own heartbeat vouches for its cache.
    pub(crate) fn heard(&self, payload: &str) {
        match serde_json::from_str::<Relayed>(payload) {
            Ok(Relayed {
                o, h: Some(number), ..
            }) => {
                if o == self.origin {
                    self.heartbeat_heard(number);
                }
            }
            Ok(relayed) if relayed.o != self.origin => {
                let ended = relayed.ended();
                self.evict(&ended, &relayed.c);
                ended.into_iter().for_each(|e| self.tell(e));
            }
            Ok(_) => {}
            Err(err) => tracing::warn!(error = %err, "session ends: an announcement was not read"),
        }
    }

    /// Evicts from this process's session cache the ended sessions (by token hash, or all of a
    /// user's) and the sessions of the changed users.
    fn evict(&self, ended: &[Ended], changed: &[i64]) {
        let mut sessions = Vec::new();
        let mut users = changed.to_vec();
        for end in ended {
            match end {
                Ended::Session(hash) => sessions.push(hash.as_str()),
                Ended::User(user) => users.push(*user),
            }
        }
        self.cache.evict(&sessions, &users);
    }

    /// Announcements may have been missed (the relay reconnected): the cache is emptied and every
    /// stream looks its session up again.
    pub fn recheck(&self) {
        self.cache.clear();
        self.rechecks.send_modify(|n| *n += 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_of(user_id: i64) -> crate::storage::sessions::SessionRow {
        crate::storage::sessions::SessionRow {
            session_created_at: 0,
            expires_at: 0,
            revoked_at: None,
            user_id,
            line_user_id: format!("U{user_id}"),
            display_name: None,
            avatar_file_id: None,
            user_created_at: 0,
            profile_id: None,
            profile_status: None,
            reviewer_since: None,
        }
    }

    #[test]
    fn an_end_covers_its_session_or_every_session_of_its_user() {
        assert!(Ended::Session("ab".into()).covers("ab", 1));
        assert!(!Ended::Session("ab".into()).covers("cd", 1));
        assert!(Ended::User(1).covers("ab", 1));
        assert!(Ended::User(1).covers("cd", 1));
        assert!(!Ended::User(2).covers("ab", 1));
    }

    #[test]
    fn a_relayed_payload_names_hashes_and_users_only_and_reads_back() {
        let ended = [Ended::Session("a".repeat(64)), Ended::User(i64::MAX)];
        let text = serde_json::to_string(&Relayed::of("origin", &ended, &[])).unwrap();
        assert_eq!(
            text,
            format!(
                "{{\"o\":\"origin\",\"s\":[\"{}\"],\"u\":[{}]}}",
                "a".repeat(64),
                i64::MAX
            )
        );
        let back = serde_json::from_str::<Relayed>(&text).unwrap().ended();
        assert_eq!(back, ended);
        let changed = serde_json::to_string(&Relayed::of("origin", &[], &[7])).unwrap();
        assert_eq!(changed, "{\"o\":\"origin\",\"c\":[7]}");
        assert_eq!(
            serde_json::from_str::<Relayed>(&changed).unwrap().c,
            vec![7]
        );
    }

    #[tokio::test]
    async fn another_process_announcement_reaches_the_streams_and_its_own_does_not_twice() {
        let ends = SessionEnds::new();
        let mut watch = ends.watch();
        ends.heard(
            &serde_json::to_string(&Relayed::of("elsewhere", &[Ended::User(7)], &[])).unwrap(),
        );
        assert_eq!(*watch.ended.recv().await.unwrap(), Ended::User(7));
        ends.heard(
            &serde_json::to_string(&Relayed::of(&ends.origin, &[Ended::User(8)], &[])).unwrap(),
        );
        // A change is no end: no stream hears of it, the cache forgets the user's sessions.
        let cache = ends.cache();
        cache.fill("s9", Arc::new(row_of(9)), cache.ticket());
        cache.fill("s10", Arc::new(row_of(10)), cache.ticket());
        ends.heard(&serde_json::to_string(&Relayed::of("elsewhere", &[], &[9])).unwrap());
        assert!(cache.get("s9").is_none() && cache.get("s10").is_some());
        ends.heard("not json");
        assert!(matches!(
            watch.ended.try_recv(),
            Err(broadcast::error::TryRecvError::Empty)
        ));
    }

    #[test]
    fn only_this_process_heartbeat_heard_vouches_for_its_cache_as_of_its_sending() {
        let ends = SessionEnds::new();
        let cache = ends.cache();
        let long_ago = Instant::now() - Duration::from_secs(2);
        let sent = Instant::now();
        ends.heartbeats
            .lock()
            .unwrap()
            .extend([(0, long_ago), (1, sent), (2, sent)]);
        let beat = |origin: &str, number: u64| {
            serde_json::to_string(&Relayed {
                o: origin.to_string(),
                h: Some(number),
                ..Relayed::default()
            })
            .unwrap()
        };
        ends.heard(&beat("elsewhere", 1));
        assert!(
            !cache.vouched_for(),
            "another process's heartbeat vouches for nothing here"
        );
        let own = ends.origin.clone();
        ends.heard(&beat(&own, 0));
        assert!(
            !cache.vouched_for(),
            "a heartbeat sent 2 s ago vouches for nothing now"
        );
        ends.heard(&beat(&own, 1));
        assert!(cache.vouched_for());
        assert_eq!(
            ends.heartbeats
                .lock()
                .unwrap()
                .iter()
                .map(|h| h.0)
                .collect::<Vec<_>>(),
            vec![2],
            "heard in order: the heartbeats up to it are no longer awaited"
        );
    }

    #[tokio::test]
    async fn the_database_announcement_reaches_every_process_its_own_changes_included() {
        let ends = SessionEnds::new();
        let mut watch = ends.watch();
        let cache = ends.cache();
        cache.fill("s9", Arc::new(row_of(9)), cache.ticket());
        // As the triggers write it: no origin.
        ends.heard(r#"{"s":["s9"]}"#);
        assert_eq!(
            *watch.ended.recv().await.unwrap(),
            Ended::Session("s9".into())
        );
        assert!(cache.get("s9").is_none());
        cache.fill("s10", Arc::new(row_of(10)), cache.ticket());
        ends.heard(r#"{"c":[10]}"#);
        assert!(cache.get("s10").is_none());
    }
}
