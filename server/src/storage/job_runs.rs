//! Claims on scheduled job runs (`job_runs`): one row per (job, Asia/Taipei day). A process runs
//! a day's job only after its claim wrote or took over the row, in one statement, so two
//! processes polling at once cannot both run it.

use anyhow::Context;
use sea_orm::{ConnectionTrait, DbBackend, Statement};

use super::StorageError;

fn sql(backend: DbBackend, text: &str, values: Vec<sea_orm::Value>) -> Statement {
    // Written with `$n`; SQLite reads `?n` the same way.
    let text = if backend == DbBackend::Postgres {
        text.to_string()
    } else {
        text.replace('$', "?")
    };
    Statement::from_sql_and_values(backend, text, values)
}

/// Claims the run of `job` on `day` for `owner`: true when this call wrote the row, or took over
/// an unfinished one started before `stale_before` (its process died holding it); false when the
/// run is finished or held by a live claim.
pub async fn claim(
    db: &impl ConnectionTrait,
    job: &str,
    day: i32,
    owner: &str,
    now: i64,
    stale_before: i64,
) -> Result<bool, StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "INSERT INTO job_runs (job, day, owner, claims, started_at) VALUES ($1, $2, $3, 1, $4) \
         ON CONFLICT (job, day) DO UPDATE SET owner = excluded.owner, \
         claims = job_runs.claims + 1, started_at = excluded.started_at \
         WHERE job_runs.finished_at IS NULL AND job_runs.started_at < $5",
        vec![
            job.into(),
            day.into(),
            owner.into(),
            now.into(),
            stale_before.into(),
        ],
    );
    let result = db.execute_raw(stmt).await.context("claiming a job run")?;
    Ok(result.rows_affected() == 1)
}

/// Whether the run of `job` on `day` finished.
pub async fn finished(
    db: &impl ConnectionTrait,
    job: &str,
    day: i32,
) -> Result<bool, StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "SELECT 1 AS one FROM job_runs WHERE job = $1 AND day = $2 AND finished_at IS NOT NULL",
        vec![job.into(), day.into()],
    );
    Ok(db
        .query_one_raw(stmt)
        .await
        .context("reading a job run")?
        .is_some())
}

/// Records that `owner` finished the run, with the lists it made.
pub async fn finish(
    db: &impl ConnectionTrait,
    job: &str,
    day: i32,
    owner: &str,
    now: i64,
    lists: i64,
) -> Result<(), StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "UPDATE job_runs SET finished_at = $1, lists = $2 WHERE job = $3 AND day = $4 AND owner = $5",
        vec![
            now.into(),
            lists.into(),
            job.into(),
            day.into(),
            owner.into(),
        ],
    );
    db.execute_raw(stmt).await.context("finishing a job run")?;
    Ok(())
}

/// Gives a failed run back: the next poll of any process tries again.
pub async fn release(
    db: &impl ConnectionTrait,
    job: &str,
    day: i32,
    owner: &str,
) -> Result<(), StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "DELETE FROM job_runs WHERE job = $1 AND day = $2 AND owner = $3 AND finished_at IS NULL",
        vec![job.into(), day.into(), owner.into()],
    );
    db.execute_raw(stmt).await.context("releasing a job run")?;
    Ok(())
}

/// Gives back every unfinished run `owner` holds of `job` (a process stopping mid-run).
pub async fn release_unfinished(
    db: &impl ConnectionTrait,
    job: &str,
    owner: &str,
) -> Result<(), StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "DELETE FROM job_runs WHERE job = $1 AND owner = $2 AND finished_at IS NULL",
        vec![job.into(), owner.into()],
    );
    db.execute_raw(stmt)
        .await
        .context("releasing unfinished job runs")?;
    Ok(())
}
