//! The job that reminds and expires matches where nobody writes (`usecases::quiet`): every
//! `serve` process runs it every few minutes on the application's clock. No claim is needed:
//! each reminder and expiry is written once whichever process gets to it first, and a run that
//! finds nothing due costs one indexed query.

use std::time::Duration;

use crate::state::{AppState, State};

/// How often a process looks: a reminder or an expiry is at most this late.
pub const EVERY: Duration = Duration::from_secs(300);

/// One run, with what follows its commits done (pushes woken, open chat pages told).
pub async fn run(state: &AppState) -> anyhow::Result<crate::usecases::quiet::QuietRun> {
    let outcome = crate::usecases::quiet::close_quiet_matches(&state.db, state.now()).await?;
    Ok(outcome.apply(state).await)
}

/// Runs [`run`] every `every` until the process stops.
pub fn spawn(state: State, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            match run(&state).await {
                Ok(done) if done.reminded == 0 && done.expired == 0 => {}
                Ok(done) => tracing::info!(
                    reminded = done.reminded,
                    expired = done.expired,
                    "matches where nobody wrote reminded and expired"
                ),
                Err(err) => tracing::warn!(error = ?err, "the quiet matches job failed"),
            }
        }
    })
}
