//! Safe conversations' tables: the kinds stored with each message (`chat_messages.safety_kinds`,
//! written by `chat::insert_message`) and `safety_reviews`, the conversations the screening put
//! in the reviewers' queue (once per match). Which conversation is due is kizuna-core's
//! `safety::review_due`; who may read the queue is `crate::access`'s.

use anyhow::Context;
use sea_orm::ConnectionTrait;

use super::{StorageError, statements::sql};

/// Whether a match's conversation was ever put in the reviewers' queue.
pub async fn queued_before(db: &impl ConnectionTrait, match_id: i64) -> Result<bool, StorageError> {
    Ok(db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT 1 AS ok FROM safety_reviews WHERE match_id = $1",
            vec![match_id.into()],
        ))
        .await
        .context("reading a safety review")?
        .is_some())
}

/// Puts a match's conversation in the reviewers' queue unless it was already: true when this
/// call did (one statement, so two racing sends queue it once).
pub async fn queue(
    db: &impl ConnectionTrait,
    match_id: i64,
    member: i64,
    cause: &str,
    now: i64,
) -> Result<bool, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "INSERT INTO safety_reviews (match_id, member_id, cause, created_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (match_id) DO NOTHING",
            vec![match_id.into(), member.into(), cause.into(), now.into()],
        ))
        .await
        .context("queueing a conversation for review")?;
    Ok(done.rows_affected() == 1)
}

/// An open item of the queue.
pub struct OpenReview {
    pub match_id: i64,
    /// The member whose messages carried the money talk.
    pub member_id: i64,
    pub other_id: i64,
    pub cause: String,
    pub created_at: i64,
}

/// Open items, oldest first, but for those about `leave_out` (a reviewer who is a member is not
/// shown a conversation of their own).
pub async fn open(
    db: &impl ConnectionTrait,
    limit: u64,
    leave_out: Option<i64>,
) -> Result<Vec<OpenReview>, StorageError> {
    let leave_out = leave_out.unwrap_or(0);
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT r.match_id AS match_id, r.member_id AS member_id, r.cause AS cause, \
             r.created_at AS created_at, m.low_id AS low_id, m.high_id AS high_id \
             FROM safety_reviews r JOIN matches m ON m.id = r.match_id \
             WHERE r.settled_at IS NULL AND m.low_id <> $1 AND m.high_id <> $1 \
             ORDER BY r.created_at, r.match_id LIMIT $2",
            vec![leave_out.into(), (limit as i64).into()],
        ))
        .await
        .context("reading the safety queue")?;
    rows.iter()
        .map(|row| {
            let member_id: i64 = row.try_get("", "member_id").context("decoding")?;
            let low: i64 = row.try_get("", "low_id").context("decoding")?;
            let high: i64 = row.try_get("", "high_id").context("decoding")?;
            Ok(OpenReview {
                match_id: row.try_get("", "match_id").context("decoding")?,
                other_id: if member_id == low { high } else { low },
                member_id,
                cause: row.try_get("", "cause").context("decoding")?,
                created_at: row.try_get("", "created_at").context("decoding")?,
            })
        })
        .collect()
}

/// What settling an item came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Settled {
    Done,
    Already,
    Unknown,
}

/// Closes an open item (`dismissed` by a reviewer). One statement: two racing reviewers settle
/// it once.
pub async fn settle(
    db: &impl ConnectionTrait,
    match_id: i64,
    settlement: &str,
    reviewer: i64,
    now: i64,
) -> Result<Settled, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "UPDATE safety_reviews SET settled_at = $2, settlement = $3, settled_by = $4 \
             WHERE match_id = $1 AND settled_at IS NULL",
            vec![
                match_id.into(),
                now.into(),
                settlement.into(),
                reviewer.into(),
            ],
        ))
        .await
        .context("settling a safety review")?;
    if done.rows_affected() == 1 {
        return Ok(Settled::Done);
    }
    Ok(if queued_before(db, match_id).await? {
        Settled::Already
    } else {
        Settled::Unknown
    })
}

/// Settles every open item about `member` (a reviewer suspended them).
pub async fn settle_member(
    db: &impl ConnectionTrait,
    member: i64,
    reviewer: i64,
    now: i64,
) -> Result<(), StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "UPDATE safety_reviews SET settled_at = $2, settlement = 'suspended', settled_by = $3 \
         WHERE member_id = $1 AND settled_at IS NULL",
        vec![member.into(), now.into(), reviewer.into()],
    ))
    .await
    .context("settling a member's safety reviews")?;
    Ok(())
}

/// The member an item is about and the match's two members, if the item exists.
pub async fn item(
    db: &impl ConnectionTrait,
    match_id: i64,
) -> Result<Option<(i64, i64, i64)>, StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT r.member_id AS member_id, m.low_id AS low_id, m.high_id AS high_id \
             FROM safety_reviews r JOIN matches m ON m.id = r.match_id WHERE r.match_id = $1",
            vec![match_id.into()],
        ))
        .await
        .context("reading a safety review")?;
    row.map(|row| {
        Ok((
            row.try_get("", "member_id").context("decoding")?,
            row.try_get("", "low_id").context("decoding")?,
            row.try_get("", "high_id").context("decoding")?,
        ))
    })
    .transpose()
}
