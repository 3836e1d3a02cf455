//! A second's memory of authenticated sessions, so that a member's requests in quick succession
//! prove their session with no statement: each process keeps what `storage::sessions::lookup`
//! read (the session, its user, their profile and its status, their reviewer period),
//! keyed by the token's hash, for at most [`SESSION_CACHE_TTL`] from before the read.
//!
//! What it may hold is never staler than the promise "What a member was promised holds" makes
//! (docs/design.md, When a session ends):
//! - whatever ends a session or changes what a session carries of its user announces it after
//!   its commit (`AfterCommit::sessions_ended`, `AfterCommit::account_changed`), and
//!   `identity::ends::SessionEnds` evicts it here before the answer leaves, and on every other
//!   process when the relay hears the NOTIFY;
//! - a read that began before an eviction never fills the cache afterwards ([`Ticket`]): every
//!   eviction counts in `evictions` first and removes second, and a fill inserts first and looks
//!   at the count second, so one of the two always sees the other;
//! - anything nobody announced (a lost NOTIFY, a reviewer added with the CLI, a row changed by
//!   hand) is read again at most [`SESSION_CACHE_TTL`] after the read that missed it.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use crate::storage::sessions::SessionRow;

/// How long a session read from the database answers from memory, counted from before the read:
/// the bound within which an end or a change nobody announced (or whose announcement is late)
/// takes effect on a process. The revocation bound of docs/design.md, When a session ends.
pub const SESSION_CACHE_TTL: Duration = Duration::from_secs(1);

/// Sessions held at most: those used within the last second, on one process. Beyond it the
/// least recently used are read again (a miss costs one statement, never a wrong answer).
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
        }
    }

    /// The session read under this token hash, if it was read less than [`SESSION_CACHE_TTL`]
    /// ago and nothing evicted it since.
    pub fn get(&self, hash: &str) -> Option<Arc<SessionRow>> {
        let entry = self.entries.get(hash)?;
        if entry.read_at.elapsed() < SESSION_CACHE_TTL {
            Some(entry.row.clone())
        } else {
            self.entries.remove(hash);
            None
        }
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

    /// Sessions held now, read less than a second ago or not.
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
