//! The "We met" job's loop: every serve process asks, every few minutes, the members due the
//! question (`usecases::we_met::ask_due`). Running it on every process is safe: each question's
//! row is written by one statement, and only the process whose insert wrote it pushes.

use std::time::Duration;

use crate::{state::State, usecases::Outcome};

/// How often a process looks for members due the question: a question is due days after the
/// conversation began, so minutes late is on time.
pub const EVERY: Duration = Duration::from_secs(300);

/// One run on the application's clock, with what follows its commits (the push worker woken).
pub async fn run_once(state: &State) -> anyhow::Result<usize> {
    let (asked, after) = crate::usecases::we_met::ask_due(&state.db, state.now())
        .await
        .map_err(|err| anyhow::anyhow!("asking we-met questions: {err}"))?;
    Outcome::new((), after).apply(state).await;
    Ok(asked)
}

/// Runs [`run_once`] every `every` until aborted.
pub fn spawn(state: State, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            if let Err(err) = run_once(&state).await {
                tracing::warn!(error = ?err, "we-met questions were not asked");
            }
        }
    })
}
