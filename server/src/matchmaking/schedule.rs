//! The daily job inside `kizuna-server serve`: every process polls; once the Asia/Taipei time of
//! day reaches `KIZUNA_INTRODUCTIONS_AT` (06:00 by default) and today's run has not finished,
//! the process whose claim on today's `job_runs` row succeeds runs the job, the others do
//! nothing. A process started after that time catches up at once. A claim whose process died
//! is taken over after [`LEASE_SECS`]; the job itself is idempotent, so a takeover (or the
//! `introductions` command run by hand, which claims and finishes the day's row the same way:
//! [`run_by_hand`]) does no harm.

use std::time::Duration;

use anyhow::Context;
use kizuna_core::{date::Date, rules};

use super::job::{self, JobReport};
use crate::{
    clock::Clock,
    line::push::PushQueue,
    storage::{StorageError, job_runs, matchmaking::day_number},
};

/// The name of the daily introductions in `job_runs`.
pub const JOB: &str = "introductions";

/// A claim older than this with no finish is a dead process's: a million members take minutes.
pub const LEASE_SECS: i64 = 2 * 60 * 60;

/// When the job runs, and how often a process looks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Minutes after Asia/Taipei midnight.
    pub at_minute: u32,
    /// Time between two looks (not from the environment: a minute; tests shorten).
    pub poll: Duration,
    /// Tests only: a claimed run waits for a permit of this gate before it starts, so that a
    /// test can stop the process in the middle of a run. Never set from the environment.
    #[doc(hidden)]
    pub gate: Option<Gate>,
    /// Tests only: counts the process's looks, so that a test waits until the scheduler looked
    /// (and did nothing) instead of for time to pass. Never set from the environment.
    #[doc(hidden)]
    pub looks: Option<Looks>,
}

/// How many looks a scheduler made (see [`Schedule::looks`]); compared by identity.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Looks(std::sync::Arc<tokio::sync::watch::Sender<u64>>);

impl Looks {
    pub fn new() -> Looks {
        Looks(std::sync::Arc::new(tokio::sync::watch::channel(0).0))
    }

    fn looked(&self) {
        self.0.send_modify(|n| *n += 1);
    }

    /// Returns once `more` looks have ended after this call.
    pub async fn wait(&self, more: u64) {
        let mut seen = self.0.subscribe();
        let from = *seen.borrow_and_update();
        let _ = seen.wait_for(|n| *n >= from + more).await;
    }
}

impl Default for Looks {
    fn default() -> Looks {
        Looks::new()
    }
}

impl PartialEq for Looks {
    fn eq(&self, other: &Looks) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Looks {}

/// A semaphore compared by identity (see [`Schedule::gate`]).
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Gate(pub std::sync::Arc<tokio::sync::Semaphore>);

impl Gate {
    /// A closed gate: runs wait until a test adds permits.
    pub fn closed() -> Gate {
        Gate(std::sync::Arc::new(tokio::sync::Semaphore::new(0)))
    }
}

impl PartialEq for Gate {
    fn eq(&self, other: &Gate) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Gate {}

impl Schedule {
    /// `HH:MM` (24-hour, Asia/Taipei), or `off` for no schedule (the job is then run by the
    /// `introductions` command from cron or a timer).
    pub fn parse(text: &str) -> anyhow::Result<Option<Schedule>> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("off") {
            return Ok(None);
        }
        let parsed = text.split_once(':').and_then(|(h, m)| {
            let (h, m) = (h.parse::<u32>().ok()?, m.parse::<u32>().ok()?);
            (h < 24 && m < 60 && text.len() == 5).then_some(h * 60 + m)
        });
        let at_minute = parsed.with_context(|| {
            format!("KIZUNA_INTRODUCTIONS_AT must be HH:MM (Asia/Taipei) or off, not {text:?}")
        })?;
        Ok(Some(Schedule {
            at_minute,
            poll: Duration::from_secs(60),
            gate: None,
            looks: None,
        }))
    }

    /// `HH:MM`, as `KIZUNA_INTRODUCTIONS_AT` names it (what `/api/config` tells the web app).
    pub fn at_text(&self) -> String {
        format!("{:02}:{:02}", self.at_minute / 60, self.at_minute % 60)
    }

    /// The default: 06:00 Asia/Taipei, before people look at their phones.
    pub fn default_morning() -> Schedule {
        Schedule {
            at_minute: 6 * 60,
            poll: Duration::from_secs(60),
            gate: None,
            looks: None,
        }
    }

    /// The Asia/Taipei day whose run is due at `now`, if its time has come.
    pub fn due_day(&self, now: i64) -> Option<Date> {
        let local = now + rules::TAIPEI_UTC_OFFSET_SECS;
        let minute = (local.rem_euclid(86_400) / 60) as u32;
        (minute >= self.at_minute)
            .then(|| Date::taipei_day(now))
            .flatten()
    }
}

/// One look: runs today's job when it is due, not finished and this process wins the claim.
/// Answers the report of a run made by this call.
pub async fn tick(
    db: &sea_orm::DatabaseConnection,
    clock: &Clock,
    schedule: &Schedule,
    owner: &str,
    liff_id: &str,
) -> Result<Option<JobReport>, StorageError> {
    let now = clock.now_secs();
    let Some(day) = schedule.due_day(now) else {
        return Ok(None);
    };
    let d = day_number(day);
    if job_runs::finished(db, JOB, d).await? {
        return Ok(None);
    }
    if !job_runs::claim(db, JOB, d, owner, now, now - LEASE_SECS).await? {
        return Ok(None);
    }
    if let Some(gate) = &schedule.gate {
        // Closed for good only in a test that stops the process mid-run.
        let _ = gate.0.acquire().await;
    }
    match job::run(db, day, now, liff_id).await {
        Ok(report) => {
            job_runs::finish(db, JOB, d, owner, clock.now_secs(), report.lists as i64).await?;
            Ok(Some(report))
        }
        Err(err) => {
            job_runs::release(db, JOB, d, owner).await?;
            Err(err)
        }
    }
}

/// What [`run_by_hand`] did with the day's row in `job_runs`, the row the gauge
/// `kizuna_daily_job_last_finished_timestamp_seconds` and the alert `KizunaDailyJobNotRun` read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Claimed before the run and marked finished after it.
    Finished,
    /// The day's run had finished before (this one made only what was missing).
    AlreadyFinished,
    /// A serving process held the day's run meanwhile: its claim is left alone, and it records
    /// the run when it finishes (two runs at once are harmless).
    HeldElsewhere,
}

/// The day's job run by an operator (`kizuna-server introductions`, from cron or a timer when
/// KIZUNA_INTRODUCTIONS_AT=off): claimed and finished in `job_runs` as a scheduled run is, so
/// that the metrics and the alert on them see it whichever process or command ran it. It always
/// runs (the job is idempotent): again on a finished day, and beside a serving process that
/// holds the day.
pub async fn run_by_hand(
    db: &sea_orm::DatabaseConnection,
    clock: &Clock,
    day: Date,
    liff_id: &str,
) -> Result<(JobReport, Recorded), StorageError> {
    let now = clock.now_secs();
    let d = day_number(day);
    let owner = format!("command-{}", uuid::Uuid::new_v4().hyphenated());
    let recorded = if job_runs::finished(db, JOB, d).await? {
        Recorded::AlreadyFinished
    } else if job_runs::claim(db, JOB, d, &owner, now, now - LEASE_SECS).await? {
        Recorded::Finished
    } else {
        Recorded::HeldElsewhere
    };
    match job::run(db, day, now, liff_id).await {
        Ok(report) => {
            if recorded == Recorded::Finished {
                job_runs::finish(db, JOB, d, &owner, clock.now_secs(), report.lists as i64).await?;
            }
            Ok((report, recorded))
        }
        Err(err) => {
            if recorded == Recorded::Finished {
                job_runs::release(db, JOB, d, &owner).await?;
            }
            Err(err)
        }
    }
}

/// The polling task of one process, and the token its claims carry.
pub struct Scheduler {
    task: tokio::task::JoinHandle<()>,
    owner: String,
    db: sea_orm::DatabaseConnection,
}

impl Scheduler {
    /// Stops polling; a run cut short gives its claim back at once (only this process's own,
    /// found by its token), so that a restart during the morning run does not leave every
    /// process waiting out the [`LEASE_SECS`] lease. A run that finished keeps its row.
    pub async fn stop(self) {
        self.task.abort();
        // Wait until the task is gone: a claim written after the release would outlive it.
        let _ = self.task.await;
        if let Err(err) = job_runs::release_unfinished(&self.db, JOB, &self.owner).await {
            tracing::error!(error = ?err, "giving back the daily introductions' claim");
        }
    }
}

/// Polls for the rest of the process's life; wakes the push worker after a run enqueued pushes.
pub fn spawn(
    db: sea_orm::DatabaseConnection,
    clock: Clock,
    schedule: Schedule,
    liff_id: String,
    push: PushQueue,
) -> Scheduler {
    let owner = uuid::Uuid::new_v4().hyphenated().to_string();
    let (task_db, task_owner) = (db.clone(), owner.clone());
    let task = tokio::spawn(async move {
        let (db, owner) = (task_db, task_owner);
        loop {
            match tick(&db, &clock, &schedule, &owner, &liff_id).await {
                Ok(Some(report)) => {
                    tracing::info!(
                        lists = report.lists,
                        introductions = report.introductions,
                        pushes = report.pushes,
                        secs = report.load_secs + report.lists_secs + report.push_secs,
                        "daily introductions made"
                    );
                    if report.pushes > 0 {
                        push.wake();
                    }
                }
                Ok(None) => {}
                Err(err) => tracing::error!(error = ?err, "the daily introductions failed"),
            }
            if let Some(looks) = &schedule.looks {
                looks.looked();
            }
            tokio::time::sleep(schedule.poll).await;
        }
    });
    Scheduler { task, owner, db }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_of_day_parses_and_anything_else_is_refused() {
        assert_eq!(Schedule::parse("06:00").unwrap().unwrap().at_minute, 360);
        assert_eq!(Schedule::parse("23:59").unwrap().unwrap().at_minute, 1439);
        assert_eq!(Schedule::parse("off").unwrap(), None);
        for bad in ["6:00", "24:00", "06:60", "0600", "", "06:00:00"] {
            assert!(Schedule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_run_is_due_from_its_taipei_time_to_the_end_of_that_day() {
        let schedule = Schedule::default_morning();
        // 2026-11-23 21:59 UTC is 05:59 on the 24th in Taipei; 22:00 UTC is 06:00 there.
        let before = 1_795_471_140;
        assert_eq!(schedule.due_day(before), None);
        assert_eq!(
            schedule.due_day(before + 60),
            Some(Date::parse("2026-11-24").unwrap())
        );
        // 15:59 UTC is 23:59 the same Taipei day; at 16:00 UTC the next day starts, not due yet.
        assert_eq!(
            schedule.due_day(before + 60 + 18 * 3600 - 60),
            Some(Date::parse("2026-11-24").unwrap())
        );
        assert_eq!(schedule.due_day(before + 60 + 18 * 3600), None);
    }
}
