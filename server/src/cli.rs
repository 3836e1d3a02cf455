//! The binary's command line (clap): `serve` (the default), `migrate`, `introductions`,
//! `reviewers` and `openapi`; `kizuna-server help <command>` says what each does. The operator
//! commands read the same environment as `serve` (DATABASE_URL, KIZUNA_DATA_DIR), apply pending
//! migrations first, print their answer on stdout and log only warnings, on stderr.

use clap::{Parser, Subcommand};
use kizuna_core::line::LineUserId;

use crate::{
    clock::{date_of, now_secs},
    configuration::Settings,
    storage::{
        self,
        reviewers::{self, Added, ReviewerPeriod},
    },
};

/// Kizuna's server: the /api, the web app, the image proxy and (by default) the mock LINE
/// platform, configured by the environment (docs/design.md lists every variable).
#[derive(Debug, Parser)]
#[command(name = "kizuna-server", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve HTTP on KIZUNA_BIND (the default command); migrates the database first.
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Run the daily introductions for one Asia/Taipei day and print what was done; meant for a
    /// scheduler when KIZUNA_INTRODUCTIONS_AT=off. Running it again for a day is harmless.
    Introductions {
        /// The day, YYYY-MM-DD (default: today in Asia/Taipei).
        #[arg(value_parser = parse_day)]
        day: Option<kizuna_core::date::Date>,
    },
    /// Who may use the reviewer console.
    Reviewers {
        #[command(subcommand)]
        action: ReviewersCommand,
    },
    /// Print the OpenAPI document of /api (for the web app's generated types: `just openapi`).
    Openapi,
}

#[derive(Debug, Clone, Subcommand)]
pub enum ReviewersCommand {
    /// Put a LINE user on the reviewers list.
    Add {
        /// U followed by 32 lowercase hex digits.
        #[arg(value_parser = parse_id)]
        line_user_id: LineUserId,
    },
    /// Take a LINE user off the reviewers list (their past period is kept).
    Remove {
        /// U followed by 32 lowercase hex digits.
        #[arg(value_parser = parse_id)]
        line_user_id: LineUserId,
    },
    /// Who is a reviewer, since when.
    List {
        /// Every period, past ones included.
        #[arg(long)]
        all: bool,
    },
}

fn parse_id(text: &str) -> Result<LineUserId, String> {
    LineUserId::parse(text).ok_or_else(|| {
        format!("{text:?} is not a LINE user id: U followed by 32 lowercase hex digits")
    })
}

fn parse_day(text: &str) -> Result<kizuna_core::date::Date, String> {
    kizuna_core::date::Date::parse(text)
        .ok_or_else(|| format!("{text:?} is not a day: expected YYYY-MM-DD"))
}

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

/// `kizuna-server reviewers …`: answers what to print.
pub async fn reviewers(settings: &Settings, command: ReviewersCommand) -> anyhow::Result<String> {
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    storage::migrate(&db).await?;
    let now = now_secs();
    let answer = match command {
        ReviewersCommand::Add { line_user_id: id } => match reviewers::add(&db, &id, now).await? {
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
        ReviewersCommand::Remove { line_user_id: id } => {
            match reviewers::remove(&db, &id, now).await? {
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
            }
        }
        ReviewersCommand::List { all } => {
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
pub async fn main(command: ReviewersCommand) -> anyhow::Result<()> {
    init_logging();
    let settings = Settings::from_env()?;
    let answer = reviewers(&settings, command).await?;
    println!("{answer}");
    Ok(())
}

/// `kizuna-server introductions [YYYY-MM-DD]`: runs the daily job for that Asia/Taipei day
/// (today by default) against the configured database and prints what it did. Meant for a
/// scheduler (cron, a systemd timer) early each morning; running it again is harmless.
pub async fn introductions(
    settings: &Settings,
    day: Option<kizuna_core::date::Date>,
) -> anyhow::Result<()> {
    let day = day.unwrap_or_else(|| settings.clock.taipei_today());
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    storage::migrate(&db).await?;
    let report =
        crate::matchmaking::job::run(&db, day, settings.clock.now_secs(), &settings.line.liff_id)
            .await?;
    println!(
        "{day}: {} approved members, {} new lists, {} introductions, {} pushes; \
         load {:.1}s, picks {:.1}s, pushes {:.1}s; pool {} MB",
        report.members,
        report.lists,
        report.introductions,
        report.pushes,
        report.load_secs,
        report.pick_secs,
        report.push_secs,
        report.pool_bytes / 1_000_000
    );
    db.close().await.ok();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_command_says_what_it_does_in_its_help() {
        let cli = Cli::command();
        cli.clone().debug_assert();
        for command in cli.get_subcommands() {
            assert!(command.get_about().is_some(), "{}", command.get_name());
            for inner in command.get_subcommands() {
                assert!(inner.get_about().is_some(), "{}", inner.get_name());
            }
        }
    }

    #[test]
    fn the_server_readme_and_the_design_show_every_command() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        let design = std::fs::read_to_string(root.join("../docs/design.md")).unwrap();
        for command in Cli::command().get_subcommands() {
            let line = format!("kizuna-server {}", command.get_name());
            assert!(readme.contains(&line), "server/README.md misses `{line}`");
            assert!(design.contains(&line), "docs/design.md misses `{line}`");
            for inner in command.get_subcommands() {
                let line = format!("kizuna-server {} {}", command.get_name(), inner.get_name());
                assert!(readme.contains(&line), "server/README.md misses `{line}`");
            }
        }
    }

    #[test]
    fn bad_words_are_refused_before_anything_runs() {
        for words in [
            &["kizuna-server", "serve-forever"][..],
            &["kizuna-server", "reviewers"],
            &["kizuna-server", "reviewers", "add", "U0123"],
            &["kizuna-server", "reviewers", "list", "--everything"],
            &["kizuna-server", "introductions", "2026-13-01"],
        ] {
            assert!(Cli::try_parse_from(words).is_err(), "{words:?}");
        }
        let parsed = Cli::try_parse_from(["kizuna-server", "introductions", "2026-11-24"]).unwrap();
        assert!(matches!(
            parsed.command,
            Some(Command::Introductions { day: Some(_) })
        ));
        assert!(
            Cli::try_parse_from(["kizuna-server"])
                .unwrap()
                .command
                .is_none()
        );
    }

    #[test]
    fn times_print_in_utc() {
        assert_eq!(
            format_utc(1_795_305_600 + 9 * 3600 + 41 * 60 + 7),
            "2026-11-22 09:41:07 UTC"
        );
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
    }
}
