//! Memory of authenticated sessions, so that a member's requests prove their session with no
//! statement: each process keeps what `storage::sessions::lookup` read (the session, its user,
//! their profile and its status, their reviewer period), keyed by the token's hash.
//!
//! What it may hold is never staler than the promise "What a member was promised holds" makes
//! (docs/design.md, When a session ends):
//! - whatever ends a session or changes what a session carries of its user announces it
//!   (`AfterCommit::sessions_ended`, `AfterCommit::account_changed`, and on PostgreSQL the
//!   database's own triggers inside the changing transaction), and
//!   `identity::ends::SessionEnds` evicts it here before the answer leaves, and on every other
//!   process when the relay hears the NOTIFY;
//! - a read that began before an eviction never fills the cache afterwards ([`Ticket`]): every
//!   eviction counts in `evictions` first and removes second, and a fill inserts first and looks
//!   at the count second, so one of the two always sees the other;
//! - an entry answers for [`SESSION_CACHE_TTL`] from before its read: whatever changed since
//!   changed less than that long ago (on SQLite, with one process and the CLI writing the same
//!   file unheard, this is the only bound);
//! - on PostgreSQL it answers beyond that, up to [`SESSION_CACHE_HELD`], while this process
//!   heard, less than [`SESSION_CACHE_TTL`] ago, a heartbeat it sent on the announcements'
//!   channel ([`SessionCache::heard_as_of`]): notifications arrive in the order their
//!   transactions committed, so hearing a heartbeat sent at `t` means every announcement
//!   committed before `t` was heard and evicted. An end is then refused within the second by
//!   every process, as on SQLite, while a member's session is read once, not once a second.
//!   What no trigger and no process announces (a change applied with the triggers off, as a
//!   logical replica applies it) is read again within [`SESSION_CACHE_HELD`].

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use crate::storage::sessions::SessionRow;

/// The revocation bound of docs/design.md, When a session ends: on both databases how long a
/// session read from the database answers from memory, counted from before the read (on SQLite the
/// only bound); on PostgreSQL also how long after the sending of the last heartbeat this process
/// heard its entries answer beyond that, up to [`SESSION_CACHE_HELD`].
pub const SESSION_CACHE_TTL: Duration = Duration::from_secs(1);

/// On PostgreSQL, how long a session read answers from memory at most (while heartbeats are
/// heard): the bound for what nothing announced. Well under the hourly renewal, which a held
/// row with the old expiry would otherwise repeat.
pub const SESSION_CACHE_HELD: Duration = Duration::from_secs(30);

/// Sessions held at most, on one process. Beyond it the least recently used are read again (a
/// miss costs one statement, never a wrong answer).
pub const SESSION_CACHE_ENTRIES: usize = 10_000;

struct Entry {
    row: Arc<SessionRow>,
    read_at: Instant,
}

/// Taken before a read that may fill the cache: when it began, and the evictions so far.
pub struct Ticket {
    evictions: u64,
    read_at: Instant,
}

pub struct SessionCache {
    entries: quick_cache::sync::Cache<String, Arc<Entry>>,
    /// Every eviction so far: a read that began before one does not fill the cache.
    evictions: AtomicU64,
    /// Whether heartbeats vouch for the entries (PostgreSQL, from the relay's start) rather than
    /// their age alone.
    heartbeats: AtomicBool,
    /// When the latest heartbeat this process heard was sent (None: none heard yet).
    heard_as_of: Mutex<Option<Instant>>,
}

impl Default for SessionCache {
    fn default() -> Self {
        SessionCache::new()
    }
}

impl SessionCache {
    pub fn new() -> SessionCache {
        SessionCache {
            entries: quick_cache::sync::Cache::new(SESSION_CACHE_ENTRIES),
            evictions: AtomicU64::new(0),
            heartbeats: AtomicBool::new(false),
            heard_as_of: Mutex::new(None),
        }
    }

    /// The session read under this token hash, if nothing evicted it since and it was read less
    /// than [`SESSION_CACHE_TTL`] ago, or, with heartbeats, less than [`SESSION_CACHE_HELD`] ago
    /// while a heartbeat sent less than [`SESSION_CACHE_TTL`] ago was heard (otherwise such an
    /// entry is kept, unanswered, until one is).
    pub fn get(&self, hash: &str) -> Option<Arc<SessionRow>> {
        let entry = self.entries.get(hash)?;
        let age = entry.read_at.elapsed();
        if age < SESSION_CACHE_TTL {
            return Some(entry.row.clone());
        }
        if self.heartbeats.load(Ordering::SeqCst) && age < SESSION_CACHE_HELD {
            return self.vouched_for().then(|| entry.row.clone());
        }
        self.entries.remove(hash);
        None
    }

    /// From now on heartbeats vouch for the entries (the relay sends and hears them).
    pub fn vouch_by_heartbeats(&self) {
        self.heartbeats.store(true, Ordering::SeqCst);
    }

    /// A heartbeat sent at `sent` was heard: every announcement committed before then was.
    pub fn heard_as_of(&self, sent: Instant) {
        let mut heard = self.heard_as_of.lock().unwrap_or_else(|e| e.into_inner());
        *heard = Some(heard.map_or(sent, |h| h.max(sent)));
    }

    /// Whether a heartbeat sent less than [`SESSION_CACHE_TTL`] ago was heard.
    pub fn vouched_for(&self) -> bool {
        let heard = *self.heard_as_of.lock().unwrap_or_else(|e| e.into_inner());
        heard.is_some_and(|sent| sent.elapsed() < SESSION_CACHE_TTL)
    }

    /// Take before reading the session that [`fill`](Self::fill) may keep.
    pub fn ticket(&self) -> Ticket {
        Ticket {
            evictions: self.evictions.load(Ordering::SeqCst),
            read_at: Instant::now(),
        }
    }

    /// Keeps a live session read after `ticket` was taken, unless something was evicted since
    /// (the read may predate that change).
    pub fn fill(&self, hash: &str, row: Arc<SessionRow>, ticket: Ticket) {
        if self.evictions.load(Ordering::SeqCst) != ticket.evictions {
            return;
        }
        self.entries.insert(
            hash.to_string(),
            Arc::new(Entry {
                row,
                read_at: ticket.read_at,
            }),
        );
        // An eviction that counted after the check above may have removed before this insert.
        if self.evictions.load(Ordering::SeqCst) != ticket.evictions {
            self.entries.remove(hash);
        }
    }

    /// Drops this session without counting an eviction: its own renewal, which only this
    /// request's answer depends on.
    pub fn forget(&self, hash: &str) {
        self.entries.remove(hash);
    }

    fn count_eviction(&self) {
        self.evictions.fetch_add(1, Ordering::SeqCst);
    }

    /// The sessions with these token hashes, and every session of these users, ended or carry
    /// something that changed: they are read again from now on.
    pub fn evict(&self, sessions: &[&str], users: &[i64]) {
        if sessions.is_empty() && users.is_empty() {
            return;
        }
        self.count_eviction();
        for hash in sessions {
            self.entries.remove(*hash);
        }
        if !users.is_empty() {
            self.entries
                .retain(|_, entry| !users.contains(&entry.row.user_id));
        }
    }

    /// Forgets every session (announcements may have been missed: the relay reconnected).
    pub fn clear(&self) {
        self.count_eviction();
        self.entries.clear();
    }

    /// Sessions held now, whether they would answer or not.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(user_id: i64) -> Arc<SessionRow> {
        Arc::new(SessionRow {
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
        })
    }

    #[test]
    fn a_read_begun_before_an_eviction_does_not_fill() {
        let cache = SessionCache::new();
        let ticket = cache.ticket();
        cache.evict(&[], &[1]);
        cache.fill("a", row(1), ticket);
        assert!(cache.get("a").is_none());
        let ticket = cache.ticket();
        cache.fill("a", row(1), ticket);
        assert_eq!(cache.get("a").unwrap().user_id, 1);
    }

    #[test]
    fn an_end_or_a_change_evicts_the_sessions_it_names_and_no_other() {
        let cache = SessionCache::new();
        for (hash, user) in [("a", 1), ("b", 1), ("c", 2), ("d", 3)] {
            cache.fill(hash, row(user), cache.ticket());
        }
        cache.evict(&["c"], &[]);
        assert!(cache.get("c").is_none());
        assert!(cache.get("a").is_some() && cache.get("d").is_some());
        cache.evict(&[], &[1]);
        assert!(cache.get("a").is_none() && cache.get("b").is_none());
        assert!(cache.get("d").is_some());
    }

    #[test]
    fn with_heartbeats_an_entry_answers_only_while_a_heartbeat_sent_within_the_second_was_heard() {
        let cache = SessionCache::new();
        cache.vouch_by_heartbeats();
        let old = Ticket {
            evictions: 0,
            read_at: Instant::now() - SESSION_CACHE_TTL * 3,
        };
        cache.fill("a", row(1), old);
        assert!(cache.get("a").is_none(), "no heartbeat heard yet");
        cache.heard_as_of(Instant::now() - SESSION_CACHE_TTL);
        assert!(
            cache.get("a").is_none(),
            "the heartbeat heard was sent a second ago"
        );
        assert_eq!(cache.len(), 1, "kept until a heartbeat vouches for it");
        cache.heard_as_of(Instant::now());
        assert_eq!(
            cache.get("a").unwrap().user_id,
            1,
            "read 3 s ago, vouched for now"
        );
        // An older heartbeat heard late does not take the newer one's place.
        cache.heard_as_of(Instant::now() - SESSION_CACHE_TTL * 2);
        assert!(cache.get("a").is_some());
        cache.evict(&[], &[1]);
        assert!(cache.get("a").is_none(), "an announcement still evicts");
    }

    #[test]
    fn with_heartbeats_an_entry_answers_for_at_most_its_held_time() {
        let cache = SessionCache::new();
        cache.vouch_by_heartbeats();
        cache.heard_as_of(Instant::now());
        let ticket = Ticket {
            evictions: 0,
            read_at: Instant::now() - SESSION_CACHE_HELD,
        };
        cache.fill("a", row(1), ticket);
        assert!(cache.get("a").is_none());
        assert!(cache.is_empty());
    }

    #[test]
    fn an_entry_answers_for_at_most_its_time_to_live_from_before_its_read() {
        let cache = SessionCache::new();
        let ticket = Ticket {
            evictions: 0,
            read_at: Instant::now() - SESSION_CACHE_TTL,
        };
        cache.fill("a", row(1), ticket);
        assert!(cache.get("a").is_none());
        assert!(cache.is_empty());
    }
}
