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

use std::sync::Arc;

use sea_orm::{DatabaseConnection, DbBackend};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};

use super::session_cache::SessionCache;

/// The PostgreSQL notification channel of ended sessions.
pub const CHANNEL: &str = "kizuna_sessions";

/// Announcements a stream has not looked at yet before it misses the oldest (it then looks its
/// session up instead).
const BACKLOG: usize = 1024;

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

/// A NOTIFY payload: this process's origin, token hashes and user ids of ended sessions, and the
/// ids of users whose sessions are to be read again (`c`).
#[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
struct Relayed {
    o: String,
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
    /// after the commit, before answering). A failed NOTIFY is logged: the other processes'
    /// caches find out within `SESSION_CACHE_TTL`, their streams at their next keep-alive.
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

    /// Another process's announcement (a NOTIFY payload), told to this process's cache and
    /// streams.
    pub(crate) fn heard(&self, payload: &str) {
        match serde_json::from_str::<Relayed>(payload) {
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
}
