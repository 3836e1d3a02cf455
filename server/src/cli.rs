//! The binary's operator commands beside `serve` and `migrate`:
//!
//! ```text
//! kizuna-server reviewers add <LINE user id>      put a LINE user on the reviewers list
//! kizuna-server reviewers remove <LINE user id>   take them off (their past period is kept)
//! kizuna-server reviewers list [--all]            who is a reviewer since when (--all: history)
//! ```
//!
//! They read the same environment as `serve` (DATABASE_URL, KIZUNA_DATA_DIR), apply pending
//! migrations first, print their answer on stdout and log only warnings, on stderr.

use anyhow::Context;
use kizuna_core::line::LineUserId;

use crate::{
    clock::{date_of, now_secs},
    configuration::Settings,
    storage::{
        self,
        reviewers::{self, Added, ReviewerPeriod},
    },
};

const USAGE: &str = "usage: kizuna-server reviewers add <LINE user id> | remove <LINE user id> | \
                     list [--all]";

/// `2026-11-23 09:41:07 UTC`.
pub fn format_utc(secs: i64) -> String {
    let of_day = secs.rem_euclid(86_400);
    format!(
        "{} {:02}:{:02}:{:02} UTC",
        date_of(secs),
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

fn parse_id(text: Option<&String>) -> anyhow::Result<LineUserId> {
    let text = text.with_context(|| USAGE.to_string())?;
    LineUserId::parse(text).with_context(|| {
        format!("{text:?} is not a LINE user id: U followed by 32 lowercase hex digits")
    })
}

fn describe(period: &ReviewerPeriod) -> String {
    match period.removed_at {
        None => format!(
            "{}  since {}",
            period.line_user_id,
            format_utc(period.added_at)
        ),
        Some(removed) => format!(
            "{}  from {} to {} (removed)",
            period.line_user_id,
            format_utc(period.added_at),
            format_utc(removed)
        ),
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// `kizuna-server reviewers …` (`args` are the words after `reviewers`); answers what to print.
pub async fn reviewers(settings: &Settings, args: &[String]) -> anyhow::Result<String> {
    let command = args.first().map(String::as_str);
    // Refuse bad arguments before touching the database.
    let (id, all) = match command {
        Some("add" | "remove") if args.len() == 2 => (Some(parse_id(args.get(1))?), false),
        Some("list") if args.len() == 1 => (None, false),
        Some("list") if args.len() == 2 && args[1] == "--all" => (None, true),
        _ => anyhow::bail!("{USAGE}"),
    };
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    storage::migrate(&db).await?;
    let now = now_secs();
    let answer = match (command, id) {
        (Some("add"), Some(id)) => match reviewers::add(&db, &id, now).await? {
            Added::Now(period) => format!(
                "added {} as a reviewer (since {})",
                id,
                format_utc(period.added_at)
            ),
            Added::Already(period) => format!(
                "{} is already a reviewer (since {})",
                id,
                format_utc(period.added_at)
            ),
        },
        (Some("remove"), Some(id)) => match reviewers::remove(&db, &id, now).await? {
            Some(period) => format!(
                "removed {} (a reviewer from {} to {})",
                id,
                format_utc(period.added_at),
                format_utc(now)
            ),
            None => {
                db.close().await.ok();
                anyhow::bail!("{id} is not a reviewer");
            }
        },
        _ => {
            let periods = if all {
                reviewers::history(&db).await?
            } else {
                reviewers::list(&db).await?
            };
            if periods.is_empty() {
                "no reviewers".to_string()
            } else {
                periods.iter().map(describe).collect::<Vec<_>>().join("\n")
            }
        }
    };
    db.close().await.ok();
    Ok(answer)
}

/// The entry point for `kizuna-server reviewers …`.
pub async fn main(args: &[String]) -> anyhow::Result<()> {
    init_logging();
    let settings = Settings::from_env()?;
    let answer = reviewers(&settings, args).await?;
    println!("{answer}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_in_utc() {
        assert_eq!(
            format_utc(1_795_305_600 + 9 * 3600 + 41 * 60 + 7),
            "2026-11-22 09:41:07 UTC"
        );
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
    }
}
