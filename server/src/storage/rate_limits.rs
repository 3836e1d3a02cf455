//! The rate limits' allowances shared by every process on PostgreSQL (`crate::rate_limit`): one
//! row per key holding its theoretical arrival time, in milliseconds of the database's clock.

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement};

/// The table of shared allowances (migration `m20261127_000001_shared_limits`).
const TABLE: &str = "rate_allowances";

/// Forgets the keys whose allowance is whole again.
pub async fn forget_whole(db: &DatabaseConnection) -> Result<(), DbErr> {
    db.execute_raw(Statement::from_string(
        DbBackend::Postgres,
        format!(
            "DELETE FROM {TABLE} \
             WHERE tat_ms < (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        ),
    ))
    .await
    .map(|_| ())
}

/// GCRA in one statement: the key's theoretical arrival time (TAT) moves one `interval_ms`
/// forward when it is at most `tolerance_ms` ahead of now (or the key is new), answering 0;
/// otherwise nothing changes and the answer is how many milliseconds until it would be allowed.
/// None: refused by a row newer than this statement's snapshot. The row lock of the upsert
/// serialises racing checks of one key, on every process.
pub async fn take(
    db: &impl ConnectionTrait,
    key: &str,
    interval_ms: i64,
    tolerance_ms: i64,
) -> Result<Option<i64>, DbErr> {
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            format!(
                "WITH clock AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms), \
                 taken AS ( \
                   INSERT INTO {TABLE} AS a (key, tat_ms) SELECT $1, now_ms + $2 FROM clock \
                   ON CONFLICT (key) DO UPDATE SET tat_ms = GREATEST(a.tat_ms, EXCLUDED.tat_ms - $2) + $2 \
                   WHERE GREATEST(a.tat_ms, EXCLUDED.tat_ms - $2) - (EXCLUDED.tat_ms - $2) <= $3 \
                   RETURNING 0::bigint AS wait_ms) \
                 SELECT wait_ms FROM taken \
                 UNION ALL \
                 SELECT GREATEST(a.tat_ms - clock.now_ms - $3, 1) FROM {TABLE} a, clock \
                 WHERE a.key = $1 AND NOT EXISTS (SELECT 1 FROM taken)"
            ),
            [key.into(), interval_ms.into(), tolerance_ms.into()],
        ))
        .await?;
    row.map(|row| row.try_get::<i64>("", "wait_ms")).transpose()
}
