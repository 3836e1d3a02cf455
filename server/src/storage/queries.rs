//! How many statements a piece of work sends to the database. Every pooled connection reports
//! each statement here (`connect` installs [`record`]), and a statement sent straight on
//! sea-orm's sqlx pool (the session lookup) reports itself ([`record_unmetered`]); [`counted`]
//! runs work with a tally of its own, so that a test holds a list's cost constant whatever its
//! length.

use std::{cell::Cell, future::Future};

tokio::task_local! {
    static TALLY: Cell<u64>;
}

/// Counts one statement for the work running it, if that work is [`counted`].
pub fn record(_statement: &sea_orm::metric::Info<'_>) {
    let _ = TALLY.try_with(|tally| tally.set(tally.get() + 1));
}

/// Counts one statement sent past sea-orm's metric callback.
pub fn record_unmetered() {
    let _ = TALLY.try_with(|tally| tally.set(tally.get() + 1));
}

/// Runs `work` and answers its output with the number of statements it sent.
pub async fn counted<F: Future>(work: F) -> (F::Output, u64) {
    TALLY
        .scope(Cell::new(0), async {
            let output = work.await;
            (output, TALLY.with(Cell::get))
        })
        .await
}
