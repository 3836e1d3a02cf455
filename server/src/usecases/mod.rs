//! The use-cases: one module per family of what members and reviewers do. A use-case takes the
//! already checked caller and input, runs its transaction through storage (table access only),
//! and answers its result together with what must happen once that transaction committed
//! ([`AfterCommit`]: wake the push worker, tell open chat pages, update every process's matchmaking pool).
//! [`Outcome::apply`] does those things, in one place; a route extracts the caller, parses, calls
//! one use-case, applies its outcome and maps errors.

pub mod chat;
pub mod export;
pub mod matchmaking;
pub mod membership;
pub mod review;
pub mod revisions;
pub mod uploads;
pub mod verification;

use kizuna_core::line::LineUserId;
use sea_orm::{ConnectionTrait, EntityTrait};

use crate::{
    chat::{ChatEvent, What},
    locale::Locale,
    state::AppState,
    storage::{
        StorageError,
        chat_events::{self, NewEvent},
        entity::user,
        locale, matchmaking as store,
    },
};

/// What follows a committed transaction.
#[derive(Debug, Default)]
pub struct AfterCommit {
    /// LINE pushes were written to the outbox.
    pushes: bool,
    /// For the members' open chat pages.
    events: Vec<ChatEvent>,
    /// Members whose standing in matchmaking changed.
    pool_changed: Vec<i64>,
    /// Files of a deleted account were queued for removal.
    files_queued: bool,
    /// A leaving member's LINE access token, whose authorisation LINE is asked to revoke.
    deauthorize: Option<String>,
    /// A data export to prepare.
    export: Option<i64>,
}

impl AfterCommit {
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

    /// A copy of a member's data was asked for: it is prepared in the background.
    pub fn export_requested(&mut self, export_id: i64) {
        self.export = Some(export_id);
    }
}

/// A use-case's result and what must follow its commit.
#[must_use = "apply the outcome once the use-case returned it"]
#[derive(Debug)]
pub struct Outcome<T> {
    value: T,
    after: AfterCommit,
}

impl<T> Outcome<T> {
    pub fn new(value: T, after: AfterCommit) -> Outcome<T> {
        Outcome { value, after }
    }

    /// Nothing follows (a repeat that changed nothing).
    pub fn only(value: T) -> Outcome<T> {
        Outcome::new(value, AfterCommit::default())
    }

    /// Does what follows the commit and answers the result.
    pub async fn apply(self, state: &AppState) -> T {
        let AfterCommit {
            pushes,
            events,
            pool_changed,
            files_queued,
            deauthorize,
            export,
        } = self.after;
        if pushes {
            state.push.wake();
        }
        for event in events {
            state.chat.publish(&state.db, event).await;
        }
        state.pool.changed(&state.db, &pool_changed).await;
        if let Some(token) = deauthorize
            && let Err(err) = state.deauthorizer.revoke(&token).await
        {
            tracing::warn!(error = ?err, "LINE did not revoke a leaving member's authorisation");
        }
        if files_queued {
            let (db, files) = (state.db.clone(), state.files.clone());
            tokio::spawn(async move {
                if let Err(err) = crate::cleanup::remove_departed_files(&db, &files).await {
                    tracing::warn!(error = ?err, "removing deleted accounts' files failed");
                }
            });
        }
        if let Some(export_id) = export {
            let (db, files, now) = (state.db.clone(), state.files.clone(), state.now());
            tokio::spawn(async move {
                if let Err(err) = crate::data_export::prepare(&db, &files, export_id, now).await {
                    tracing::warn!(error = ?err, "a data export failed");
                }
            });
        }
        self.value
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
    let Some(owner) = user::Entity::find_by_id(row.user_id)
        .one(db)
        .await
        .map_err(|e| anyhow::Error::new(e).context("reading a member"))?
    else {
        return Ok(None);
    };
    if !store::push_wanted(db, owner.id, kind).await? {
        return Ok(None);
    }
    let language = locale::locale_of_user(db, owner.id).await?;
    Ok(LineUserId::parse(&owner.line_user_id).map(|id| (id, language)))
}
