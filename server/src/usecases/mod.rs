//! The use-cases: one module per family of what members and reviewers do. A use-case takes the
//! already checked caller and input, runs its transaction through storage (table access only),
//! and answers its result together with what must happen once that transaction committed
//! ([`AfterCommit`]: end the open streams of ended sessions, forget cached sessions, wake the
//! push worker, tell open chat pages, update every process's matchmaking pool).
//! [`Outcome::apply`] does those things, in one place; a route extracts the caller, parses, calls
//! one use-case, applies its outcome and maps errors.

pub mod chat;
pub mod export;
pub mod health;
pub mod login;
pub mod matchmaking;
pub mod membership;
pub mod quiet;
pub mod review;
pub mod revisions;
pub mod route_rules;
pub mod uploads;
pub mod verification;
pub mod visits;
pub mod we_met;

use kizuna_core::line::LineUserId;
use sea_orm::ConnectionTrait;

use crate::{
    chat::{ChatEvent, What},
    identity::ends::Ended,
    locale::Locale,
    storage::{
        StorageError,
        chat_events::{self, NewEvent},
        locale, matchmaking as store,
    },
};

/// What follows a committed transaction.
#[derive(Debug, Default)]
pub struct AfterCommit {
    /// Sessions that ended: their open events streams end, on every process.
    pub(crate) sessions_ended: Vec<Ended>,
    /// Users whose sessions carry something that changed: read again, on every process.
    pub(crate) accounts_changed: Vec<i64>,
    /// LINE pushes were written to the outbox.
    pub(crate) pushes: bool,
    /// For the members' open chat pages.
    pub(crate) events: Vec<ChatEvent>,
    /// Members whose standing in matchmaking changed.
    pub(crate) pool_changed: Vec<i64>,
    /// Files of a deleted account were queued for removal.
    pub(crate) files_queued: bool,
    /// Rows of a deleted account were deleted: their bytes leave the SQLite files too.
    pub(crate) purge: bool,
    /// A member left: the deletion record outside the database is written (`deletions`).
    pub(crate) departed: bool,
    /// A leaving member's LINE access token, whose authorisation LINE is asked to revoke.
    pub(crate) deauthorize: Option<String>,
    /// A data export to prepare.
    pub(crate) export: Option<i64>,
}

impl AfterCommit {
    /// The transaction ended these sessions: what carries them beyond a request (an open events
    /// stream) ends too, within a second, on every process.
    pub fn sessions_ended(&mut self, ended: Ended) {
        self.sessions_ended.push(ended);
    }

    /// What a session carries of this user changed (their name or avatar, their profile's
    /// status or payload, their reviewer role): every process reads their sessions again rather
    /// than from its session cache (`identity::session_cache`), this one before answering.
    pub fn account_changed(&mut self, user: i64) {
        self.accounts_changed.push(user);
    }

    /// The transaction wrote pushes: the push worker sends them now rather than at its next
    /// poll.
    pub fn pushed(&mut self) {
        self.pushes = true;
    }

    /// A chat event (stored) for the open pages of the members it is for.
    pub fn tell(&mut self, event: ChatEvent) {
        self.events.push(event);
    }

    /// This member's standing in matchmaking changed (approved, suspended, paused, deleted,
    /// edited): every process's pool takes the change (`matchmaking::PoolCache::changed`).
    pub fn pool_changed(&mut self, member: i64) {
        self.pool_changed.push(member);
    }

    /// LINE is asked to revoke this access token's authorisation (best effort: a failure is
    /// logged, never undoes what committed).
    pub fn deauthorize(&mut self, line_access_token: String) {
        self.deauthorize = Some(line_access_token);
    }

    /// Files were queued in `file_removals`: they are removed now rather than at the next
    /// housekeeping run (which finishes whatever this one does not).
    pub fn files_queued(&mut self) {
        self.files_queued = true;
    }

    /// An account's rows were deleted: the SQLite log's old frames, which still hold them, are
    /// checkpointed away (`cleanup::purge_deleted_bytes`).
    pub fn purge_deleted(&mut self) {
        self.purge = true;
    }

    /// A member left: their departure goes to the deletion record outside the database now
    /// rather than at the next housekeeping run.
    pub fn departed(&mut self) {
        self.departed = true;
    }

    /// A copy of a member's data was asked for: it is prepared in the background.
    pub fn export_requested(&mut self, export_id: i64) {
        self.export = Some(export_id);
    }
}

/// A use-case's result and what must follow its commit.
#[must_use = "apply the outcome once the use-case returned it"]
#[derive(Debug)]
pub struct Outcome<T> {
    pub(crate) value: T,
    pub(crate) after: AfterCommit,
}

impl<T> Outcome<T> {
    pub fn new(value: T, after: AfterCommit) -> Outcome<T> {
        Outcome { value, after }
    }

    /// Nothing follows (a repeat that changed nothing).
    pub fn only(value: T) -> Outcome<T> {
        Outcome::new(value, AfterCommit::default())
    }
}

/// Stores the events of chat changes in the caller's transaction (each member's next numbers,
/// `storage::chat_events`) and has them told to the open pages after the commit: `changes` are
/// (match, what changed, the members it is for). Call it as the transaction's last write.
pub(crate) async fn record_chat(
    txn: &impl ConnectionTrait,
    changes: Vec<(i64, What, Vec<i64>)>,
    now: i64,
    after: &mut AfterCommit,
) -> Result<(), StorageError> {
    let mut new = Vec::new();
    for (match_id, what, members) in &changes {
        let (kind, ref_id) = what.stored();
        new.extend(members.iter().map(|member| NewEvent {
            member: *member,
            kind,
            match_id: *match_id,
            ref_id,
        }));
    }
    let mut seqs = chat_events::record(txn, &new, now).await?.into_iter();
    for (match_id, what, members) in changes {
        let to = members
            .into_iter()
            .map(|member| (member, seqs.next().expect("one number per event")))
            .collect();
        after.tell(ChatEvent { match_id, what, to });
    }
    Ok(())
}

/// The LINE user and language of a member, for a push; None when the member has no readable
/// LINE user id.
pub(crate) async fn push_target(
    db: &impl ConnectionTrait,
    member: i64,
    kind: store::PushKind,
) -> Result<Option<(LineUserId, Locale)>, StorageError> {
    let Some(row) = store::member(db, member).await? else {
        return Ok(None);
    };
    let Some(owner) = crate::storage::users::find(db, row.user_id).await? else {
        return Ok(None);
    };
    if !store::push_wanted(db, owner.id, kind).await? {
        return Ok(None);
    }
    let language = locale::locale_of_user(db, owner.id).await?;
    Ok(LineUserId::parse(&owner.line_user_id).map(|id| (id, language)))
}

#[cfg(test)]
mod tests;
