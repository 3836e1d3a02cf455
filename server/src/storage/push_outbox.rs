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

/// Finished rows are kept as long as their retry key means anything to LINE (it remembers a key
/// for 24 h), then deleted: a delivered push's text (which may name another member) is not kept
/// any longer than that.
pub const FINISHED_RETENTION_SECS: i64 = 24 * 3600;

pub use super::entity::push_outbox::Status as PushStatus;

/// A row a worker has claimed: its lease runs until the `due_at_ms` it was given.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub id: i64,
    pub retry_key: String,
    pub line_user_id: String,
    /// The `messages` array, JSON (a row written before pushes were stored by kind).
    pub messages: String,
    /// Its kind, for a row stored by kind.
    pub kind: Option<String>,
    /// What to render when it is sent: `push::Push` as JSON.
    pub subject: Option<String>,
    /// The user the push names (the sender of a new message).
    pub about_user_id: Option<i64>,
    /// Including this attempt; the claim's token for later writes.
    pub attempts: i32,
    pub created_at: i64,
}

/// What a row holds: pre-rendered `messages` (JSON), or a `kind` and `subject` rendered when it
/// is sent (then `messages` is empty).
#[derive(Clone, Debug)]
pub struct What {
    pub messages: String,
    pub kind: Option<String>,
    pub subject: Option<String>,
}

/// Writes a pending row (in the caller's transaction), due at once; `about_user_id` is the user
/// the push names, if any (the row goes with their account).
pub async fn insert(
    conn: &impl ConnectionTrait,
    retry_key: &str,
    line_user_id: &str,
    what: What,
    about_user_id: Option<i64>,
    now_ms: i64,
) -> anyhow::Result<i64> {
    let inserted = push_outbox::Entity::insert(push_outbox::ActiveModel {
        retry_key: Set(retry_key.to_string()),
        line_user_id: Set(line_user_id.to_string()),
        messages: Set(what.messages),
        kind: Set(what.kind),
        subject: Set(what.subject),
        status: Set(PushStatus::Pending),
        attempts: Set(0),
        created_at: Set(now_ms.div_euclid(1000)),
        due_at_ms: Set(now_ms),
        last_error: Set(None),
        finished_at: Set(None),
        about_user_id: Set(about_user_id),
        ..Default::default()
    })
    .exec(conn)
    .await
    .context("writing a push to the outbox")?;
    Ok(inserted.last_insert_id)
}

/// [`insert`] for many pushes in one statement (in the caller's transaction): rows of (retry
/// key, LINE user id, what), all due at once.
pub async fn insert_many(
    conn: &impl ConnectionTrait,
    rows: Vec<(String, String, What)>,
    now_ms: i64,
) -> anyhow::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    if conn.get_database_backend() == DbBackend::Postgres {
        return insert_many_pg(conn, rows, now_ms).await;
    }
    push_outbox::Entity::insert_many(rows.into_iter().map(|(retry_key, to, what)| {
        push_outbox::ActiveModel {
            retry_key: Set(retry_key),
            line_user_id: Set(to),
            messages: Set(what.messages),
            kind: Set(what.kind),
            subject: Set(what.subject),
            status: Set(PushStatus::Pending),
            attempts: Set(0),
            created_at: Set(now_ms.div_euclid(1000)),
            due_at_ms: Set(now_ms),
            last_error: Set(None),
            finished_at: Set(None),
            about_user_id: Set(None),
            ..Default::default()
        }
    }))
    .exec_without_returning(conn)
    .await
    .context("writing pushes to the outbox")?;
    Ok(())
}

/// A PostgreSQL array literal of texts (each quoted, `"` and `\` escaped; None is NULL), sent
/// as one text value and cast on the server.
fn text_array<'a>(values: impl Iterator<Item = Option<&'a str>>) -> String {
    let mut out = String::from("{");
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        match v {
            None => out.push_str("NULL"),
            Some(text) => {
                out.push('"');
                for c in text.chars() {
                    if c == '"' || c == '\\' {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('"');
            }
        }
    }
    out.push('}');
    out
}

/// A push to write: its retry key, the LINE user it goes to, and what it says.
type PushRow = (String, String, What);

/// [`insert_many`] on PostgreSQL: one `INSERT … SELECT FROM UNNEST` of five text arrays however
/// many rows (the daily job's chunk of 2,000 morning pushes), instead of eleven bound values a row.
async fn insert_many_pg(
    conn: &impl ConnectionTrait,
    rows: Vec<PushRow>,
    now_ms: i64,
) -> anyhow::Result<()> {
    let column = |f: &dyn Fn(&PushRow) -> Option<&str>| -> sea_orm::Value {
        text_array(rows.iter().map(f)).into()
    };
    let insert = Statement::from_sql_and_values(
        DbBackend::Postgres,
        format!(
            "INSERT INTO push_outbox (retry_key, line_user_id, messages, kind, subject, status, \
             attempts, created_at, due_at_ms) \
             SELECT k, t, m, c, s, '{}', 0, $6, $7 \
             FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) \
             AS x(k, t, m, c, s)",
            PushStatus::Pending.as_str()
        ),
        vec![
            column(&|(key, _, _)| Some(key)),
            column(&|(_, to, _)| Some(to)),
            column(&|(_, _, what)| Some(&what.messages)),
            column(&|(_, _, what)| what.kind.as_deref()),
            column(&|(_, _, what)| what.subject.as_deref()),
            now_ms.div_euclid(1000).into(),
            now_ms.into(),
        ],
    );
    conn.execute_raw(insert)
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
             RETURNING id, retry_key, line_user_id, messages, kind, subject, about_user_id, attempts, created_at"
        ),
        _ => format!(
            "UPDATE push_outbox SET due_at_ms = ?1, attempts = attempts + 1 \
             WHERE id IN (SELECT id FROM push_outbox WHERE status = '{pending}' AND due_at_ms <= ?2 \
             ORDER BY due_at_ms, id LIMIT ?3) \
             AND status = '{pending}' AND due_at_ms <= ?2 \
             RETURNING id, retry_key, line_user_id, messages, kind, subject, about_user_id, attempts, created_at"
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
                kind: row.try_get("", "kind")?,
                subject: row.try_get("", "subject")?,
                about_user_id: row.try_get("", "about_user_id")?,
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

/// Counts a push LINE accepted, under its kind, on `day` (`YYYY-MM-DD`, the service's day).
pub async fn count_sent(conn: &impl ConnectionTrait, day: &str, kind: &str) -> anyhow::Result<()> {
    bump(conn, day, kind, "sent").await
}

/// Counts a visit a push's link brought (no member id: only the day and the kind).
pub async fn count_visit(conn: &impl ConnectionTrait, day: &str, kind: &str) -> anyhow::Result<()> {
    bump(conn, day, kind, "visits").await
}

async fn bump(
    conn: &impl ConnectionTrait,
    day: &str,
    kind: &str,
    column: &'static str,
) -> anyhow::Result<()> {
    let backend = conn.get_database_backend();
    let (a, b) = match backend {
        DbBackend::Postgres => ("$1", "$2"),
        _ => ("?1", "?2"),
    };
    let sql = format!(
        "INSERT INTO push_days (day, kind, {column}) VALUES ({a}, {b}, 1) \
         ON CONFLICT (day, kind) DO UPDATE SET {column} = push_days.{column} + 1"
    );
    conn.execute_raw(Statement::from_sql_and_values(
        backend,
        sql.as_str(),
        [day.into(), kind.into()],
    ))
    .await
    .context("counting a push or visit")?;
    Ok(())
}

/// Per kind, pushes sent and visits brought from `first` to `last` (days, inclusive).
pub async fn days(
    conn: &impl ConnectionTrait,
    first: &str,
    last: &str,
) -> anyhow::Result<Vec<(String, i64, i64)>> {
    let backend = conn.get_database_backend();
    let (a, b) = match backend {
        DbBackend::Postgres => ("$1", "$2"),
        _ => ("?1", "?2"),
    };
    let sql = format!(
        "SELECT kind, CAST(SUM(sent) AS BIGINT) AS sent, CAST(SUM(visits) AS BIGINT) AS visits \
         FROM push_days WHERE day >= {a} AND day <= {b} GROUP BY kind ORDER BY kind"
    );
    let rows = conn
        .query_all_raw(Statement::from_sql_and_values(
            backend,
            sql.as_str(),
            [first.into(), last.into()],
        ))
        .await
        .context("reading push counts")?;
    rows.into_iter()
        .map(|row| {
            Ok((
                row.try_get("", "kind")?,
                row.try_get("", "sent")?,
                row.try_get("", "visits")?,
            ))
        })
        .collect::<Result<Vec<_>, sea_orm::DbErr>>()
        .context("decoding push counts")
}

/// The nickname a push names the member `user_id` by (their profile's, as it is now).
pub async fn nickname_of_user(
    conn: &impl ConnectionTrait,
    user_id: i64,
) -> anyhow::Result<Option<String>> {
    use crate::storage::entity::profile;
    let nickname: Option<Option<String>> = profile::Entity::find()
        .select_only()
        .column(profile::Column::Nickname)
        .filter(profile::Column::UserId.eq(user_id))
        .into_tuple()
        .one(conn)
        .await
        .context("reading a nickname")?;
    Ok(nickname.flatten())
}
