//! `profile_revisions`: an approved member's edit waiting for review, beside the approved
//! profile (one row per profile; see the migration). Table access only: what a save or a
//! decision does is `usecases::revisions`, what a revision changes is `kizuna_core::revision`.

use anyhow::Context;
use kizuna_core::revision::RevisionStatus;
use sea_orm::{ConnectionTrait, QueryResult};

use super::{StorageError, statements::sql};

/// A stored revision.
#[derive(Clone, Debug, PartialEq)]
pub struct Revision {
    pub profile_id: i64,
    /// 1 for the profile's first revision, one more for each save since: a reviewer's decision
    /// names the number they saw.
    pub number: i32,
    pub status: RevisionStatus,
    /// The proposed profile: the normalised UserProfileCreate payload (JSON text).
    pub payload: String,
    /// When the work e-mail of the proposal had been confirmed by its code.
    pub email_confirmed_at: Option<i64>,
    /// Unix seconds of the save.
    pub submitted_at: i64,
    pub decided_at: Option<i64>,
    pub reviewer_user_id: Option<i64>,
    /// The rejection's reason codes (`reject` catalogue).
    pub reasons: Vec<String>,
    pub note: Option<String>,
}

/// The columns of a revision.
pub(crate) const COLUMNS: &str = "profile_id, number, status, payload, email_confirmed_at, submitted_at, \
                       decided_at, reviewer_user_id, reasons, note";

fn read(row: &QueryResult) -> Result<Revision, StorageError> {
    read_as(row, "")
}

/// A revision whose columns are named `{pre}{column}` (a statement that reads other rows too).
pub(crate) fn read_as(row: &QueryResult, pre: &str) -> Result<Revision, StorageError> {
    let status: String = row.try_get(pre, "status").context("a revision's status")?;
    let reasons: Option<String> = row
        .try_get(pre, "reasons")
        .context("a revision's reasons")?;
    Ok(Revision {
        profile_id: row.try_get(pre, "profile_id").context("a revision")?,
        number: row.try_get(pre, "number").context("a revision's number")?,
        status: RevisionStatus::parse(&status)
            .ok_or_else(|| StorageError::Unreadable("profile_revisions.status".into()))?,
        payload: row
            .try_get(pre, "payload")
            .context("a revision's payload")?,
        email_confirmed_at: row
            .try_get(pre, "email_confirmed_at")
            .context("a revision")?,
        submitted_at: row.try_get(pre, "submitted_at").context("a revision")?,
        decided_at: row.try_get(pre, "decided_at").context("a revision")?,
        reviewer_user_id: row.try_get(pre, "reviewer_user_id").context("a revision")?,
        reasons: reasons
            .as_deref()
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default(),
        note: row.try_get(pre, "note").context("a revision's note")?,
    })
}

/// The profile's revision (pending, or the last one decided), if it ever had one.
pub async fn find(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<Revision>, StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            &format!("SELECT {COLUMNS} FROM profile_revisions WHERE profile_id = $1"),
            vec![profile_id.into()],
        ))
        .await
        .context("reading a revision")?;
    row.as_ref().map(read).transpose()
}

/// Stores `payload` as the profile's pending revision, replacing whatever revision it had (in
/// the caller's transaction, which holds the member's row). Answers its number.
pub async fn open(
    db: &impl ConnectionTrait,
    profile_id: i64,
    payload: &str,
    email_confirmed_at: Option<i64>,
    now: i64,
) -> Result<i32, StorageError> {
    let backend = db.get_database_backend();
    let number = match find(db, profile_id).await? {
        Some(old) => {
            let number = old.number + 1;
            db.execute_raw(sql(
                backend,
                "UPDATE profile_revisions SET number = $2, status = $3, payload = $4, \
                 email_confirmed_at = $5, submitted_at = $6, decided_at = NULL, \
                 reviewer_user_id = NULL, reasons = NULL, note = NULL WHERE profile_id = $1",
                vec![
                    profile_id.into(),
                    number.into(),
                    RevisionStatus::Pending.as_str().into(),
                    payload.into(),
                    email_confirmed_at.into(),
                    now.into(),
                ],
            ))
            .await
            .context("replacing a revision")?;
            number
        }
        None => {
            db.execute_raw(sql(
                backend,
                &format!(
                    "INSERT INTO profile_revisions ({COLUMNS}) \
                     VALUES ($1, 1, $2, $3, $4, $5, NULL, NULL, NULL, NULL)"
                ),
                vec![
                    profile_id.into(),
                    RevisionStatus::Pending.as_str().into(),
                    payload.into(),
                    email_confirmed_at.into(),
                    now.into(),
                ],
            ))
            .await
            .context("storing a revision")?;
            1
        }
    };
    Ok(number)
}

/// Withdraws the profile's revision (the member saved the approved version back).
pub async fn withdraw(db: &impl ConnectionTrait, profile_id: i64) -> Result<(), StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "DELETE FROM profile_revisions WHERE profile_id = $1",
        vec![profile_id.into()],
    ))
    .await
    .context("withdrawing a revision")?;
    Ok(())
}

/// A reviewer's decision on the pending revision `number`: answers false, changing nothing,
/// when that is not the pending one any more (decided by another reviewer, or replaced by a
/// newer save).
#[allow(clippy::too_many_arguments)]
pub async fn decide(
    db: &impl ConnectionTrait,
    profile_id: i64,
    number: i32,
    status: RevisionStatus,
    reviewer: i64,
    reasons: &[&str],
    note: Option<&str>,
    now: i64,
) -> Result<bool, StorageError> {
    let reasons = serde_json::to_string(reasons).context("encoding reason codes")?;
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "UPDATE profile_revisions SET status = $3, decided_at = $4, reviewer_user_id = $5, \
             reasons = $6, note = $7 WHERE profile_id = $1 AND number = $2 AND status = $8",
            vec![
                profile_id.into(),
                number.into(),
                status.as_str().into(),
                now.into(),
                reviewer.into(),
                reasons.into(),
                note.map(str::to_string).into(),
                RevisionStatus::Pending.as_str().into(),
            ],
        ))
        .await
        .context("deciding a revision")?;
    Ok(done.rows_affected() == 1)
}

/// Pending revisions of approved profiles, the longest waiting first, at most `limit`: the
/// profile id, the revision's number and when it was saved.
pub async fn queue(
    db: &impl ConnectionTrait,
    limit: u64,
) -> Result<Vec<(i64, i32, i64)>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "SELECT r.profile_id AS profile_id, r.number AS number, \
                 r.submitted_at AS submitted_at FROM profile_revisions r \
                 JOIN profiles p ON p.id = r.profile_id \
                 WHERE r.status = $1 AND p.status = $2 \
                 ORDER BY r.submitted_at, r.profile_id LIMIT {limit}"
            ),
            vec![RevisionStatus::Pending.as_str().into(), "APPROVED".into()],
        ))
        .await
        .context("reading the revisions' queue")?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("", "profile_id").context("a queued revision")?,
                row.try_get("", "number").context("a queued revision")?,
                row.try_get("", "submitted_at")
                    .context("a queued revision")?,
            ))
        })
        .collect()
}
