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

/// One request of a key's allowance, to be taken by [`take`] or inside a statement of the
/// caller's that reads what it decides on beside it ([`Take::ctes`]), saving a round trip.
#[derive(Clone, Debug)]
pub struct Take {
    pub key: String,
    /// One request comes back every `interval_ms`.
    pub interval_ms: i64,
    /// How far ahead of now the key's theoretical arrival time may be and still allow one.
    pub tolerance_ms: i64,
}

impl Take {
    /// GCRA as common table expressions: `limit_taken` moves the key's theoretical arrival time
    /// (TAT) one interval forward when it is at most the tolerance ahead of now (or the key is
    /// new), and `limit_wait` answers 0 then; otherwise nothing changes and `limit_wait` answers
    /// how many milliseconds until it would be allowed, or no row when refused by a row newer than
    /// the statement's snapshot. The row lock of the upsert serialises racing takes of one key, on
    /// every process. The key, interval and tolerance are the parameters `$first` to `$first+2`
    /// ([`values`](Self::values)).
    pub fn ctes(first: usize) -> String {
        let (key, interval, tolerance) = (first, first + 1, first + 2);
        format!(
            "limit_clock AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms), \
             limit_taken AS ( \
               INSERT INTO {TABLE} AS a (key, tat_ms) SELECT ${key}, now_ms + ${interval} FROM limit_clock \
               ON CONFLICT (key) DO UPDATE SET tat_ms = GREATEST(a.tat_ms, EXCLUDED.tat_ms - ${interval}) + ${interval} \
               WHERE GREATEST(a.tat_ms, EXCLUDED.tat_ms - ${interval}) - (EXCLUDED.tat_ms - ${interval}) <= ${tolerance} \
               RETURNING 0::bigint AS wait_ms), \
             limit_wait AS ( \
               SELECT wait_ms FROM limit_taken \
               UNION ALL \
               SELECT GREATEST(a.tat_ms - limit_clock.now_ms - ${tolerance}, 1) FROM {TABLE} a, limit_clock \
               WHERE a.key = ${key} AND NOT EXISTS (SELECT 1 FROM limit_taken))"
        )
    }

    /// The values of [`ctes`](Self::ctes)' parameters, in their order.
    pub fn values(&self) -> [sea_orm::Value; 3] {
        [
            self.key.as_str().into(),
            self.interval_ms.into(),
            self.tolerance_ms.into(),
        ]
    }
}

/// Takes one request of the key's allowance in one statement ([`Take::ctes`]): 0 when allowed,
/// else the milliseconds until it would be; None: refused by a row newer than this statement's
/// snapshot.
pub async fn take(db: &impl ConnectionTrait, take: &Take) -> Result<Option<i64>, DbErr> {
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            format!("WITH {} SELECT wait_ms FROM limit_wait", Take::ctes(1)),
            take.values(),
        ))
        .await?;
    row.map(|row| row.try_get::<i64>("", "wait_ms")).transpose()
}
