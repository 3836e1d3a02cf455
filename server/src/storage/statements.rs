//! What matchmaking's table modules share: days as stored, and statements written with `$n`.

use kizuna_core::date::Date;
use sea_orm::{DbBackend, Statement};

/// Days since 1970 of a date, as stored.
pub fn day_number(day: Date) -> i32 {
    day.days_since_epoch()
}

pub(crate) fn date_of(day: i32) -> Option<Date> {
    Date::from_days_since_epoch(i64::from(day))
}

pub(crate) fn sql(backend: DbBackend, text: &str, values: Vec<sea_orm::Value>) -> Statement {
    // The statements are written with `$n`; SQLite reads `?n` the same way.
    let text = if backend == DbBackend::Postgres {
        text.to_string()
    } else {
        text.replace('$', "?")
    };
    Statement::from_sql_and_values(backend, text, values)
}
