//! The counts `kizuna-server funnel` prints, read from the tables that hold them: introductions
//! and likes by their Asia/Taipei day, matches by the day they were made and, of those, the ones
//! with a first message, the ones whose first message the other member answered within a day and
//! the ones that expired because nobody wrote; "We met" answers given in the range that say they
//! met and, of those, that want to see the other again; pushes sent and the visits they brought
//! from `push_days`. Counts only: no member is named.

use anyhow::Context;
use kizuna_core::date::Date;
use sea_orm::{ConnectionTrait, DbBackend, Statement};

use crate::storage::push_outbox;

pub use kizuna_core::push::Funnel as Stages;

/// Unix second at which the Asia/Taipei day `day` starts.
fn taipei_start(day: Date) -> i64 {
    i64::from(day.days_since_epoch()) * 86_400 - 8 * 3600
}

fn placeholders(backend: DbBackend) -> (&'static str, &'static str) {
    match backend {
        DbBackend::Postgres => ("$1", "$2"),
        _ => ("?1", "?2"),
    }
}

async fn numbers(
    conn: &impl ConnectionTrait,
    sql: &str,
    from: i64,
    to: i64,
    columns: &[&str],
) -> anyhow::Result<Vec<i64>> {
    let backend = conn.get_database_backend();
    let row = conn
        .query_all_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [from.into(), to.into()],
        ))
        .await
        .context("counting the funnel")?
        .into_iter()
        .next()
        .context("a count answers a row")?;
    columns
        .iter()
        .map(|c| {
            row.try_get::<Option<i64>>("", c)
                .map(Option::unwrap_or_default)
                .context("decoding a count")
        })
        .collect()
}

/// The funnel from `first` to `last` (Asia/Taipei days, inclusive).
pub async fn stages(
    conn: &impl ConnectionTrait,
    first: Date,
    last: Date,
) -> anyhow::Result<Stages> {
    let (a, b) = placeholders(conn.get_database_backend());
    let (d1, d2) = (
        i64::from(first.days_since_epoch()),
        i64::from(last.days_since_epoch()),
    );
    let intro = numbers(
        conn,
        &format!(
            "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM introductions WHERE day >= {a} AND day <= {b}"
        ),
        d1,
        d2,
        &["n"],
    )
    .await?;
    let likes = numbers(
        conn,
        &format!(
            "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM reactions \
             WHERE kind = 'LIKE' AND day >= {a} AND day <= {b}"
        ),
        d1,
        d2,
        &["n"],
    )
    .await?;
    let (from, to) = (taipei_start(first), taipei_start(last) + 86_400);
    let chats = numbers(
        conn,
        &format!(
            "WITH f AS (SELECT m.id, m.ended_reason, (SELECT c.id FROM chat_messages c WHERE c.match_id = m.id \
             ORDER BY c.sent_at, c.id LIMIT 1) AS first_id \
             FROM matches m WHERE m.created_at >= {a} AND m.created_at < {b}) \
             SELECT CAST(COUNT(*) AS BIGINT) AS matches, \
             CAST(COUNT(f.first_id) AS BIGINT) AS firsts, \
             CAST(COALESCE(SUM(CASE WHEN EXISTS (SELECT 1 FROM chat_messages r \
             JOIN chat_messages c ON c.id = f.first_id WHERE r.match_id = f.id \
             AND r.sender_id <> c.sender_id AND r.sent_at <= c.sent_at + 86400) \
             THEN 1 ELSE 0 END), 0) AS BIGINT) AS replies, \
             CAST(COALESCE(SUM(CASE WHEN f.ended_reason = 'EXPIRED' THEN 1 ELSE 0 END), 0) \
             AS BIGINT) AS expired FROM f"
        ),
        from,
        to,
        &["matches", "firsts", "replies", "expired"],
    )
    .await?;
    let pushes = push_outbox::days(conn, &first.to_string(), &last.to_string()).await?;
    let (we_met, see_again) = super::we_met::funnel_counts(conn, from, to).await?;
    Ok(Stages {
        introductions: intro[0],
        likes: likes[0],
        matches: chats[0],
        first_messages: chats[1],
        replies_within_a_day: chats[2],
        we_met,
        see_again,
        expired: chats[3],
        pushes,
    })
}
