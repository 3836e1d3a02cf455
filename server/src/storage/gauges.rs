//! What the metrics' collector (`crate::monitoring`) reads from the database at each scrape: a
//! few counts and ages over whole tables, never a member's row.

use anyhow::Context;
use kizuna_core::revision::RevisionStatus;
use sea_orm::ConnectionTrait;

use super::{StorageError, entity::push_outbox::Status as PushStatus, statements::sql};

/// The database's share of the gauges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gauges {
    /// Profiles waiting for a reviewer: PENDING ones and pending revisions of approved ones.
    pub review_queue: i64,
    /// When the longest-waiting of them came in (Unix seconds).
    pub review_oldest_at: Option<i64>,
    /// LINE pushes in the outbox not delivered yet.
    pub pushes_pending: i64,
    /// When the oldest of them was written (Unix seconds).
    pub pushes_oldest_at: Option<i64>,
    /// The run of `job` that finished last.
    pub job_last: Option<JobRun>,
}

/// A finished run of a job (`job_runs`), whichever process or command ran it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRun {
    /// When its claim was last taken, and when it finished (Unix seconds).
    pub started_at: i64,
    pub finished_at: i64,
    /// The lists it made.
    pub lists: i64,
}

async fn count_and_oldest(
    db: &impl ConnectionTrait,
    text: &str,
    values: Vec<sea_orm::Value>,
) -> Result<(i64, Option<i64>), StorageError> {
    let row = db
        .query_one_raw(sql(db.get_database_backend(), text, values))
        .await
        .context("reading a gauge")?
        .context("an aggregate answers one row")?;
    Ok((
        row.try_get("", "n").context("a count")?,
        row.try_get("", "oldest").context("an age")?,
    ))
}

/// Reads every gauge; `job` names the daily job's runs in `job_runs`.
pub async fn read(db: &impl ConnectionTrait, job: &str) -> Result<Gauges, StorageError> {
    let (profiles, profiles_oldest) = count_and_oldest(
        db,
        "SELECT COUNT(*) AS n, MIN(updated_at) AS oldest FROM profiles WHERE status = $1",
        vec!["PENDING".into()],
    )
    .await?;
    let (revisions, revisions_oldest) = count_and_oldest(
        db,
        "SELECT COUNT(*) AS n, MIN(r.submitted_at) AS oldest FROM profile_revisions r \
         JOIN profiles p ON p.id = r.profile_id WHERE r.status = $1 AND p.status = $2",
        vec![RevisionStatus::Pending.as_str().into(), "APPROVED".into()],
    )
    .await?;
    let (pushes_pending, pushes_oldest_at) = count_and_oldest(
        db,
        "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM push_outbox WHERE status = $1",
        vec![PushStatus::Pending.as_str().into()],
    )
    .await?;
    let job_last = match db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT started_at, finished_at, lists FROM job_runs \
             WHERE job = $1 AND finished_at IS NOT NULL ORDER BY finished_at DESC LIMIT 1",
            vec![job.into()],
        ))
        .await
        .context("reading the last job run")?
    {
        Some(row) => Some(JobRun {
            started_at: row.try_get("", "started_at").context("a start")?,
            finished_at: row.try_get("", "finished_at").context("a finish")?,
            lists: row
                .try_get::<Option<i64>>("", "lists")
                .context("lists")?
                .unwrap_or(0),
        }),
        None => None,
    };
    Ok(Gauges {
        review_queue: profiles + revisions,
        review_oldest_at: match (profiles_oldest, revisions_oldest) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        pushes_pending,
        pushes_oldest_at,
        job_last,
    })
}
