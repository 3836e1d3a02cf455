//! `appeals`: a suspended member's request for a second look, once per suspension (the SUSPEND's
//! `review_history` row is its key), and its answer. Table access only: who may appeal or answer
//! is kizuna-core's `appeal` and `review_guard`, asked by `usecases::review::appeals`.
//!
//! Two requests at once make one: the insert does nothing on a suspension that has one already
//! (its `suspension_id` is unique). Two answers at once make one: the answer updates the row
//! `WHERE status = 'PENDING'`, so the second writes nothing.

use anyhow::Context;
use kizuna_core::appeal::AppealStatus;
use sea_orm::{
    ActiveValue::{NotSet, Set},
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QueryResult,
};

use super::{StorageError, entity::review_history, statements::sql};

/// One appeal as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Appeal {
    pub id: i64,
    pub profile_id: i64,
    /// The `review_history` row of the suspension appealed.
    pub suspension_id: i64,
    /// The reviewer who suspended (kept out of the answer); null for a suspension without one.
    pub suspended_by: Option<i64>,
    pub text: String,
    pub status: AppealStatus,
    pub created_at: i64,
    pub decided_at: Option<i64>,
    pub decided_by: Option<i64>,
    pub note: Option<String>,
}

/// A new appeal.
pub struct NewAppeal<'a> {
    pub profile_id: i64,
    pub suspension_id: i64,
    pub suspended_by: Option<i64>,
    pub text: &'a str,
    pub now: i64,
}

/// The columns of an appeal, in the order `read` takes them.
pub(crate) const COLUMNS: &str = "id, profile_id, suspension_id, suspended_by, text, status, created_at, \
                       decided_at, decided_by, note";

fn read(row: &QueryResult) -> Result<Appeal, StorageError> {
    read_as(row, "")
}

/// An appeal whose columns are named `{pre}{column}` (a statement that reads other rows too).
pub(crate) fn read_as(row: &QueryResult, pre: &str) -> Result<Appeal, StorageError> {
    let get = |e: sea_orm::DbErr| StorageError::Db(anyhow::Error::new(e).context("an appeal"));
    let status: String = row.try_get(pre, "status").map_err(get)?;
    Ok(Appeal {
        id: row.try_get(pre, "id").map_err(get)?,
        profile_id: row.try_get(pre, "profile_id").map_err(get)?,
        suspension_id: row.try_get(pre, "suspension_id").map_err(get)?,
        suspended_by: row.try_get(pre, "suspended_by").map_err(get)?,
        text: row.try_get(pre, "text").map_err(get)?,
        status: AppealStatus::parse(&status)
            .ok_or_else(|| StorageError::Unreadable("appeals.status".into()))?,
        created_at: row.try_get(pre, "created_at").map_err(get)?,
        decided_at: row.try_get(pre, "decided_at").map_err(get)?,
        decided_by: row.try_get(pre, "decided_by").map_err(get)?,
        note: row.try_get(pre, "note").map_err(get)?,
    })
}

async fn one(
    db: &impl ConnectionTrait,
    text: &str,
    values: Vec<sea_orm::Value>,
) -> Result<Option<Appeal>, StorageError> {
    let row = db
        .query_one_raw(sql(db.get_database_backend(), text, values))
        .await
        .context("reading an appeal")?;
    row.as_ref().map(read).transpose()
}

/// The suspension that stands on a profile: its last SUSPEND row (id and reviewer).
pub async fn latest_suspension(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<review_history::Model>, StorageError> {
    Ok(review_history::Entity::find()
        .filter(review_history::Column::ProfileId.eq(profile_id))
        .filter(review_history::Column::Action.eq("SUSPEND"))
        .order_by_desc(review_history::Column::Id)
        .one(db)
        .await
        .context("reading the last suspension")?)
}

/// The appeal of a suspension, if it was appealed.
pub async fn of_suspension(
    db: &impl ConnectionTrait,
    suspension_id: i64,
) -> Result<Option<Appeal>, StorageError> {
    one(
        db,
        &format!("SELECT {COLUMNS} FROM appeals WHERE suspension_id = $1"),
        vec![suspension_id.into()],
    )
    .await
}

/// The profile's latest appeal, if any.
pub async fn latest(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<Appeal>, StorageError> {
    one(
        db,
        &format!("SELECT {COLUMNS} FROM appeals WHERE profile_id = $1 ORDER BY id DESC LIMIT 1"),
        vec![profile_id.into()],
    )
    .await
}

/// An appeal by id.
pub async fn find(db: &impl ConnectionTrait, id: i64) -> Result<Option<Appeal>, StorageError> {
    one(
        db,
        &format!("SELECT {COLUMNS} FROM appeals WHERE id = $1"),
        vec![id.into()],
    )
    .await
}

/// Stores an appeal unless its suspension has one: true when this call did (one statement, so
/// two racing requests store one).
pub async fn insert(db: &impl ConnectionTrait, new: &NewAppeal<'_>) -> Result<bool, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "INSERT INTO appeals (profile_id, suspension_id, suspended_by, text, status, \
             created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (suspension_id) DO NOTHING",
            vec![
                new.profile_id.into(),
                new.suspension_id.into(),
                new.suspended_by.into(),
                new.text.into(),
                AppealStatus::Pending.as_str().into(),
                new.now.into(),
            ],
        ))
        .await
        .context("storing an appeal")?;
    Ok(done.rows_affected() == 1)
}

/// Pending appeals, the longest waiting first, at most `limit`.
pub async fn pending(db: &impl ConnectionTrait, limit: u64) -> Result<Vec<Appeal>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "SELECT {COLUMNS} FROM appeals WHERE status = $1 \
                 ORDER BY created_at, id LIMIT $2"
            ),
            vec![
                AppealStatus::Pending.as_str().into(),
                i64::try_from(limit).unwrap_or(i64::MAX).into(),
            ],
        ))
        .await
        .context("reading the appeals")?;
    rows.iter().map(read).collect()
}

/// Answers a pending appeal: true when this call did (a racing answer made first leaves it
/// writing nothing).
pub async fn answer(
    db: &impl ConnectionTrait,
    id: i64,
    outcome: AppealStatus,
    reviewer: i64,
    note: Option<&str>,
    now: i64,
) -> Result<bool, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "UPDATE appeals SET status = $1, decided_by = $2, decided_at = $3, note = $4 \
             WHERE id = $5 AND status = $6",
            vec![
                outcome.as_str().into(),
                reviewer.into(),
                now.into(),
                note.map(str::to_string).into(),
                id.into(),
                AppealStatus::Pending.as_str().into(),
            ],
        ))
        .await
        .context("answering an appeal")?;
    Ok(done.rows_affected() == 1)
}

/// The review history's row of an appeal upheld: the suspension stands (SUSPENDED to
/// SUSPENDED), answered by `reviewer` with `note`.
pub async fn record_upheld(
    db: &impl ConnectionTrait,
    profile_id: i64,
    reviewer: i64,
    note: Option<&str>,
    now: i64,
) -> Result<(), StorageError> {
    review_history::Entity::insert(review_history::ActiveModel {
        id: NotSet,
        profile_id: Set(profile_id),
        from_status: Set(Some("SUSPENDED".into())),
        to_status: Set("SUSPENDED".into()),
        reason: Set(None),
        actor: Set("reviewer".into()),
        created_at: Set(now),
        action: Set(Some(UPHOLD.into())),
        reviewer_user_id: Set(Some(reviewer)),
        reasons: Set(Some("[]".into())),
        note: Set(note.map(str::to_string)),
    })
    .exec(db)
    .await
    .context("recording an appeal upheld")?;
    Ok(())
}

/// The history action of an appeal upheld: no change of status, so no decision the member is
/// shown in place of the suspension.
pub const UPHOLD: &str = "UPHOLD";
