//! The `push_outbox` table: LINE pushes written in the transaction of what caused them and
//! delivered by `crate::line::push`'s worker.
//!
//! A row is *due* from `due_at_ms` on. Claiming a row moves `due_at_ms` to the end of a lease and
//! counts an attempt, in one statement (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so that several
//! server processes never claim the same row; SQLite has one writer at a time). A worker that
//! dies mid-delivery leaves the row to be claimed again when the lease ends: the push is sent
//! again with the same retry key, which LINE (and the mock) answer with 409 if the first one got
//! through. Later writes about a claimed row carry its attempt number, so a worker whose lease
//! ran out cannot overwrite what the worker that took over decided.

use anyhow::Context;
use sea_orm::{
    ActiveValue::Set,
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait, QueryFilter,
    QuerySelect, Statement,
    sea_query::{Expr, Func},
};

use crate::storage::entity::push_outbox;

/// Finished rows are kept this long for inspection, then deleted.
pub const FINISHED_RETENTION_SECS: i64 = 30 * 24 * 3600;

pub use super::entity::push_outbox::Status as PushStatus;

/// A row a worker has claimed: its lease runs until the `due_at_ms` it was given.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub id: i64,
    pub retry_key: String,
    pub line_user_id: String,
    /// The `messages` array, JSON.
    pub messages: String,
    /// Including this attempt; the claim's token for later writes.
    pub attempts: i32,
    pub created_at: i64,
}

/// Writes a pending row (in the caller's transaction), due at once.
pub async fn insert(
    conn: &impl ConnectionTrait,
    retry_key: &str,
    line_user_id: &str,
    messages_json: String,
    now_ms: i64,
) -> anyhow::Result<i64> {
    let inserted = push_outbox::Entity::insert(push_outbox::ActiveModel {
        retry_key: Set(retry_key.to_string()),
        line_user_id: Set(line_user_id.to_string()),
        messages: Set(messages_json),
        status: Set(PushStatus::Pending),
        attempts: Set(0),
        created_at: Set(now_ms.div_euclid(1000)),
        due_at_ms: Set(now_ms),
        last_error: Set(None),
        finished_at: Set(None),
        ..Default::default()
    })
    .exec(conn)
    .await
    .context("writing a push to the outbox")?;
    Ok(inserted.last_insert_id)
}

/// [`insert`] for many pushes in one statement (in the caller's transaction): rows of (retry
/// key, LINE user id, messages JSON), all due at once.
pub async fn insert_many(
    conn: &impl ConnectionTrait,
    rows: Vec<(String, String, String)>,
    now_ms: i64,
) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    push_outbox::Entity::insert_many(rows.into_iter().map(|(retry_key, to, messages)| {
        push_outbox::ActiveModel {
            retry_key: Set(retry_key),
            line_user_id: Set(to),
            messages: Set(messages),
            status: Set(PushStatus::Pending),
            attempts: Set(0),
            created_at: Set(now_ms.div_euclid(1000)),
            due_at_ms: Set(now_ms),
            last_error: Set(None),
            finished_at: Set(None),
            ..Default::default()
        }
    }))
    .exec_without_returning(conn)
    .await
    .context("writing pushes to the outbox")?;
    Ok(())
}

fn claim_sql(backend: DbBackend) -> String {
    let pending = PushStatus::Pending.as_str();
    match backend {
        DbBackend::Postgres => format!(
            "UPDATE push_outbox SET due_at_ms = $1, attempts = attempts + 1 \
             WHERE id IN (SELECT id FROM push_outbox WHERE status = '{pending}' AND due_at_ms <= $2 \
             ORDER BY due_at_ms, id LIMIT $3 FOR UPDATE SKIP LOCKED) \
             AND status = '{pending}' AND due_at_ms <= $2 \
             RETURNING id, retry_key, line_user_id, messages, attempts, created_at"
        ),
        _ => format!(
            "UPDATE push_outbox SET due_at_ms = ?1, attempts = attempts + 1 \
             WHERE id IN (SELECT id FROM push_outbox WHERE status = '{pending}' AND due_at_ms <= ?2 \
             ORDER BY due_at_ms, id LIMIT ?3) \
             AND status = '{pending}' AND due_at_ms <= ?2 \
             RETURNING id, retry_key, line_user_id, messages, attempts, created_at"
        ),
    }
}

/// Claims up to `limit` due rows until `lease_until_ms`.
pub async fn claim_due(
    db: &DatabaseConnection,
    now_ms: i64,
    lease_until_ms: i64,
    limit: u32,
) -> anyhow::Result<Vec<Claimed>> {
    let backend = db.get_database_backend();
    if backend == DbBackend::Sqlite {
        // An UPDATE takes SQLite's write lock even when it matches nothing: look first.
        if next_due_ms(db).await?.is_none_or(|due| due > now_ms) {
            return Ok(vec![]);
        }
    }
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            backend,
            claim_sql(backend).as_str(),
            [
                lease_until_ms.into(),
                now_ms.into(),
                i64::from(limit).into(),
            ],
        ))
        .await
        .context("claiming due pushes")?;
    rows.into_iter()
        .map(|row| {
            Ok(Claimed {
                id: row.try_get("", "id")?,
                retry_key: row.try_get("", "retry_key")?,
                line_user_id: row.try_get("", "line_user_id")?,
                messages: row.try_get("", "messages")?,
                attempts: row.try_get("", "attempts")?,
                created_at: row.try_get("", "created_at")?,
            })
        })
        .collect::<Result<Vec<_>, sea_orm::DbErr>>()
        .context("decoding claimed pushes")
}

/// When the next pending row falls due (Unix ms), if any.
pub async fn next_due_ms(db: &impl ConnectionTrait) -> anyhow::Result<Option<i64>> {
    let due: Option<Option<i64>> = push_outbox::Entity::find()
        .select_only()
        .expr(Func::min(Expr::col(push_outbox::Column::DueAtMs)))
        .filter(push_outbox::Column::Status.eq(PushStatus::Pending))
        .into_tuple()
        .one(db)
        .await
        .context("finding the next due push")?;
    Ok(due.flatten())
}

/// Ends a claimed row with a final status. False if the claim was no longer ours.
pub async fn finish(
    db: &impl ConnectionTrait,
    claim: &Claimed,
    status: PushStatus,
    error: Option<&str>,
    now: i64,
) -> anyhow::Result<bool> {
    let mut update = push_outbox::Entity::update_many()
        .col_expr(push_outbox::Column::Status, Expr::value(status))
        .col_expr(push_outbox::Column::FinishedAt, Expr::value(now))
        .filter(push_outbox::Column::Id.eq(claim.id))
        .filter(push_outbox::Column::Status.eq(PushStatus::Pending));
    if let Some(error) = error {
        update = update.col_expr(
            push_outbox::Column::LastError,
            Expr::value(error.chars().take(300).collect::<String>()),
        );
    }
    // "Delivered" is the truth whoever holds the claim now; other outcomes only for our claim.
    if status != PushStatus::Delivered {
        update = update.filter(push_outbox::Column::Attempts.eq(claim.attempts));
    }
    let result = update.exec(db).await.context("finishing a push")?;
    Ok(result.rows_affected == 1)
}

/// Schedules another attempt of a claimed row. False if the claim was no longer ours.
pub async fn retry_at(
    db: &impl ConnectionTrait,
    claim: &Claimed,
    due_at_ms: i64,
    error: &str,
) -> anyhow::Result<bool> {
    let result = push_outbox::Entity::update_many()
        .col_expr(push_outbox::Column::DueAtMs, Expr::value(due_at_ms))
        .col_expr(
            push_outbox::Column::LastError,
            Expr::value(error.chars().take(300).collect::<String>()),
        )
        .filter(push_outbox::Column::Id.eq(claim.id))
        .filter(push_outbox::Column::Status.eq(PushStatus::Pending))
        .filter(push_outbox::Column::Attempts.eq(claim.attempts))
        .exec(db)
        .await
        .context("scheduling a push retry")?;
    Ok(result.rows_affected == 1)
}

/// A row by its retry key.
pub async fn by_retry_key(
    db: &impl ConnectionTrait,
    retry_key: &str,
) -> anyhow::Result<Option<push_outbox::Model>> {
    push_outbox::Entity::find()
        .filter(push_outbox::Column::RetryKey.eq(retry_key))
        .one(db)
        .await
        .context("looking up a push")
}

/// Deletes rows finished longer ago than the retention.
pub async fn sweep(db: &impl ConnectionTrait, now: i64) -> anyhow::Result<u64> {
    let result = push_outbox::Entity::delete_many()
        .filter(push_outbox::Column::Status.ne(PushStatus::Pending))
        .filter(push_outbox::Column::FinishedAt.lt(now - FINISHED_RETENTION_SECS))
        .exec(db)
        .await
        .context("deleting old finished pushes")?;
    Ok(result.rows_affected)
}
