//! Matches where nobody writes close gently (kizuna-core's `conversation::quiet_match_step`):
//! both members are reminded once, by a LINE push, `rules::QUIET_MATCH_REMINDER_DAYS` after the
//! match, and the match ends as expired after `rules::QUIET_MATCH_EXPIRY_DAYS`, for both, the way
//! an unmatch ends it (the chat closes, open pages are told). A match with any message never
//! expires. Safe with several processes running it at once: each reminder and each expiry is one
//! conditional write under the match's lock, and only the call that made it enqueues or tells.

use anyhow::Context;
use kizuna_core::{
    conversation::{self, QuietStep},
    push::Push,
};
use sea_orm::DatabaseConnection;

use super::{AfterCommit, Outcome, push_target, record_chat};
use crate::{
    chat::What,
    line::push,
    storage::{self, StorageError, chat, matchmaking as store},
};

/// Matches read per page of a run.
const PAGE: u64 = 200;

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuietRun {
    /// Matches whose members were reminded by this run.
    pub reminded: u32,
    /// Matches this run closed as expired.
    pub expired: u32,
}

/// Reminds and expires the live matches where nobody wrote, as of `now`.
pub async fn close_quiet_matches(
    db: &DatabaseConnection,
    now: i64,
) -> Result<Outcome<QuietRun>, StorageError> {
    let mut run = QuietRun::default();
    let mut after = AfterCommit::default();
    let mut last = 0;
    loop {
        let page =
            store::quiet_matches(db, now - conversation::REMINDER_AFTER_SECS, last, PAGE).await?;
        let Some(tail) = page.last() else {
            break;
        };
        last = tail.id;
        for quiet in &page {
            match conversation::quiet_match_step(quiet.created_at, now, false, quiet.reminded) {
                QuietStep::Wait => {}
                QuietStep::Remind => {
                    if remind(db, quiet, now, &mut after).await? {
                        run.reminded += 1;
                    }
                }
                QuietStep::Expire => {
                    if expire(db, quiet, now, &mut after).await? {
                        run.expired += 1;
                    }
                }
            }
        }
        if (page.len() as u64) < PAGE {
            break;
        }
    }
    Ok(Outcome::new(run, after))
}

/// Under the match's lock (a message sent meanwhile waits for it, or was stored before it):
/// whether the match is still live and silent.
async fn still_silent(
    txn: &impl sea_orm::ConnectionTrait,
    match_id: i64,
) -> Result<bool, StorageError> {
    let live = chat::lock_match(txn, match_id)
        .await?
        .is_some_and(|m| m.ended_at.is_none());
    Ok(live && !store::has_message(txn, match_id).await?)
}

async fn remind(
    db: &DatabaseConnection,
    quiet: &store::QuietMatch,
    now: i64,
    after: &mut AfterCommit,
) -> Result<bool, StorageError> {
    let txn = storage::begin_write(db)
        .await
        .context("starting a reminder")?;
    if !still_silent(&txn, quiet.id).await? || !store::mark_reminded(&txn, quiet.id, now).await? {
        return Ok(false);
    }
    for (member, other) in [(quiet.low_id, quiet.high_id), (quiet.high_id, quiet.low_id)] {
        // The "matches" switch covers what concerns a match before its conversation.
        if let Some((to, _)) = push_target(&txn, member, store::PushKind::Matches).await? {
            // It names the other member: the row goes with their account.
            let about = store::member(&txn, other).await?.map(|p| p.user_id);
            let what = Push::QuietMatch { match_id: quiet.id };
            push::enqueue_push(&txn, &to, &what, about).await?;
            after.pushed();
        }
    }
    txn.commit().await.context("committing a reminder")?;
    Ok(true)
}

async fn expire(
    db: &DatabaseConnection,
    quiet: &store::QuietMatch,
    now: i64,
    after: &mut AfterCommit,
) -> Result<bool, StorageError> {
    let txn = storage::begin_write(db)
        .await
        .context("starting an expiry")?;
    if !still_silent(&txn, quiet.id).await? || !store::expire(&txn, quiet.id, now).await? {
        return Ok(false);
    }
    record_chat(
        &txn,
        vec![(quiet.id, What::Ended, vec![quiet.low_id, quiet.high_id])],
        now,
        after,
    )
    .await?;
    txn.commit().await.context("committing an expiry")?;
    Ok(true)
}
