//! The binary's command line (clap): `serve` (the default), `migrate`, `introductions`,
//! `funnel`, `reviewers`, `members`, `files` and `openapi`; `kizuna-server help <command>` says what each does. The operator
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
    /// Print the funnel of an Asia/Taipei day or range: introductions → likes → matches → first
    /// messages → replies within a day, with the rate of each stage, the matches that expired
    /// because nobody wrote, and the pushes sent by kind with the visits their links brought.
    /// Counts only; nobody is named.
    Funnel {
        /// The first day, YYYY-MM-DD (default: today in Asia/Taipei).
        #[arg(value_parser = parse_day)]
        first: Option<kizuna_core::date::Date>,
        /// The last day, YYYY-MM-DD (default: the first).
        #[arg(value_parser = parse_day)]
        last: Option<kizuna_core::date::Date>,
    },
    /// Who may use the reviewer console.
    Reviewers {
        #[command(subcommand)]
        action: ReviewersCommand,
    },
    /// A member's deletion or export request answered by hand (someone who can no longer open
    /// the app): the same use-cases as the member's own buttons.
    Members {
        #[command(subcommand)]
        action: MembersCommand,
    },
    /// Print the OpenAPI document of /api (for the web app's generated types: `just openapi`).
    Openapi,
    /// The file store (uploaded photos and proofs).
    Files {
        #[command(subcommand)]
        action: FilesCommand,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub enum FilesCommand {
    /// Copy the local store under KIZUNA_DATA_DIR into the bucket of KIZUNA_FILE_STORE=s3://…:
    /// every original and preview (variants are a cache and are made again); what the bucket
    /// holds already at the same size is skipped, so a cut-off run is run again; each copy is
    /// read back and compared; then checks that the bucket holds every file the database names.
    CopyToS3,
}

#[derive(Debug, Clone, Subcommand)]
pub enum MembersCommand {
    /// Delete the member's account at once, as their own "Delete my account" does: matches end,
    /// files are removed, the deletion record is written, what the retention table keeps is
    /// kept. On SQLite, stop the server first.
    Delete {
        /// U followed by 32 lowercase hex digits.
        #[arg(value_parser = parse_id)]
        line_user_id: LineUserId,
    },
    /// Write a copy of the member's data (the zip their own "Download my data" makes) to a file,
    /// which must not exist yet. Counts against their copies of the day.
    Export {
        /// U followed by 32 lowercase hex digits.
        #[arg(value_parser = parse_id)]
        line_user_id: LineUserId,
        /// Where the zip goes.
        out_file: std::path::PathBuf,
    },
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

/// `kizuna-server files copy-to-s3`: answers what to print; an error when a copy failed or a file
/// the database names is in neither store.
pub async fn copy_to_s3(settings: &Settings) -> anyhow::Result<String> {
    use crate::configuration::FileStoreSettings;
    use crate::file_store::{FileStore, file_id_of};
    use futures_util::StreamExt;
    let FileStoreSettings::S3(_) = &settings.file_store else {
        anyhow::bail!(
            "KIZUNA_FILE_STORE is not an s3:// bucket: set it (and the KIZUNA_S3_* variables) to \
             the bucket the local store under KIZUNA_DATA_DIR should move to"
        );
    };
    let local = FileStore::local(&settings.data_dir)?;
    let bucket = FileStore::open(&settings.file_store, &settings.data_dir)?;
    let keys: Vec<_> = local
        .list_page("files", None, usize::MAX)
        .await?
        .into_iter()
        .filter(|o| file_id_of(&o.key).is_some())
        .collect();
    let outcomes: Vec<anyhow::Result<bool>> = futures_util::stream::iter(keys.iter())
        .map(|object| copy_one(&local, &bucket, object))
        .buffer_unordered(8)
        .collect()
        .await;
    let (mut copied, mut skipped, mut failed) = (0, 0, Vec::new());
    for outcome in outcomes {
        match outcome {
            Ok(true) => copied += 1,
            Ok(false) => skipped += 1,
            Err(err) => failed.push(format!("{err:#}")),
        }
    }
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    storage::migrate(&db).await?;
    let named = storage::files::all_ids(&db).await?;
    db.close().await.ok();
    let mut missing = Vec::new();
    for id in &named {
        if !bucket.exists(&FileStore::original(id)).await? {
            missing.push(id.clone());
        }
    }
    let report = format!(
        "{} objects in {}: {copied} copied and read back, {skipped} already in {}, {} failed; \
         the database names {} files, {} of them not in the bucket",
        keys.len(),
        local.name(),
        bucket.name(),
        failed.len(),
        named.len(),
        missing.len(),
    );
    if !failed.is_empty() || !missing.is_empty() {
        let mut lines = vec![report];
        lines.extend(failed.into_iter().take(20));
        lines.extend(
            missing
                .iter()
                .take(20)
                .map(|id| format!("not in the bucket: {id}")),
        );
        lines.push("run the command again to retry".into());
        anyhow::bail!(lines.join("\n"));
    }
    Ok(report)
}

/// One object: skipped when the bucket holds it at the same size, else copied and read back.
/// Answers whether it was copied.
async fn copy_one(
    from: &crate::file_store::FileStore,
    to: &crate::file_store::FileStore,
    object: &crate::file_store::StoredObject,
) -> anyhow::Result<bool> {
    use anyhow::Context;
    use object_store::path::Path;
    let key = Path::from(object.key.as_str());
    if to.size_of(&key).await? == Some(object.size) {
        return Ok(false);
    }
    let bytes = from
        .get(&key)
        .await?
        .with_context(|| format!("{key} went from {} meanwhile", from.name()))?;
    to.put(&key, bytes.clone()).await?;
    let back = to.get(&key).await?;
    anyhow::ensure!(
        back.as_ref() == Some(&bytes),
        "{key} read back from {} differs from what was written",
        to.name()
    );
    Ok(true)
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

/// The entry point for `kizuna-server files …`.
pub async fn files(command: FilesCommand) -> anyhow::Result<()> {
    init_logging();
    let settings = Settings::from_env()?;
    let answer = match command {
        FilesCommand::CopyToS3 => copy_to_s3(&settings).await?,
    };
    println!("{answer}");
    Ok(())
}

/// A use-case's refusal as the command's error: its cause, or the whole chain of an internal
/// error.
fn refused(err: crate::error::ApiError) -> anyhow::Error {
    match err {
        crate::error::ApiError::Internal(err) => err,
        other => anyhow::anyhow!("{other}"),
    }
}

/// How long `members export` waits for the archive.
const EXPORT_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// `kizuna-server members …`: runs the member's own use-case with an operator's state
/// (`startup::operator_state`) and waits for what follows its commit; answers what to print.
pub async fn members(settings: Settings, command: MembersCommand) -> anyhow::Result<String> {
    let (state, instance) = crate::startup::operator_state(settings).await?;
    let result = member_request(&state, command).await;
    state.db.clone().close().await.ok();
    drop(instance);
    result
}

async fn member_request(
    state: &crate::state::AppState,
    command: MembersCommand,
) -> anyhow::Result<String> {
    use crate::usecases::{export, membership};
    use anyhow::Context;
    let id = match &command {
        MembersCommand::Delete { line_user_id } | MembersCommand::Export { line_user_id, .. } => {
            line_user_id.clone()
        }
    };
    {
        let Some(user) = storage::users::find_by_line_id(&state.db, id.as_str()).await? else {
            anyhow::bail!(
                "no account of {id}: nothing to do (a deleted account leaves none; its deletion \
                 is under deletions/ in the file store)"
            );
        };
        match command {
            MembersCommand::Delete { .. } => {
                membership::delete_account(&state.db, &user, None, state.now())
                    .await
                    .map_err(|err| refused(err.into()))?
                    .apply(state)
                    .await;
                // What the outcome started in the background, awaited here before the command
                // exits (each is idempotent: a second run finds nothing left to do).
                crate::cleanup::remove_departed_files(&state.db, &state.files).await?;
                crate::deletions::record_missing(&state.db, &state.files, state.now()).await?;
                crate::cleanup::purge_deleted_bytes(&state.db).await;
                Ok(format!(
                    "deleted the account of {id}: its matches ended, its files are removed and \
                     the deletion is recorded"
                ))
            }
            MembersCommand::Export { out_file, .. } => {
                anyhow::ensure!(
                    !out_file.exists(),
                    "{} exists already: name a new file",
                    out_file.display()
                );
                let requested = export::request(&state.db, user.id, state.now())
                    .await
                    .map_err(|err| refused(err.into()))?
                    .apply(state)
                    .await;
                let started = std::time::Instant::now();
                let (row, archive) = loop {
                    if let Some(ready) = export::download(&state.db, &requested.token, state.now())
                        .await
                        .map_err(|err| refused(err.into()))?
                    {
                        break ready;
                    }
                    let latest = export::latest(&state.db, user.id, state.now())
                        .await
                        .map_err(|err| refused(err.into()))?;
                    if latest.map(|export| export.status) == Some(export::ExportStatus::Failed) {
                        anyhow::bail!("the copy could not be made: the log says why");
                    }
                    anyhow::ensure!(
                        started.elapsed() < EXPORT_WAIT,
                        "the copy was not ready within {} s",
                        EXPORT_WAIT.as_secs()
                    );
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                };
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&out_file)
                    .with_context(|| format!("creating {}", out_file.display()))?;
                std::io::Write::write_all(&mut file, &archive)?;
                file.sync_all()?;
                Ok(format!(
                    "wrote the data of {id} to {} ({} bytes, made {})",
                    out_file.display(),
                    archive.len(),
                    format_utc(row.ready_at.unwrap_or(row.requested_at))
                ))
            }
        }
    }
}

/// The entry point for `kizuna-server members …`.
pub async fn members_main(command: MembersCommand) -> anyhow::Result<()> {
    init_logging();
    let settings = Settings::from_env()?;
    let answer = members(settings, command).await?;
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
    let ran = crate::matchmaking::schedule::run_by_hand(
        &db,
        &settings.clock,
        day,
        &settings.line.liff_id,
    )
    .await;
    db.close().await.ok();
    let (report, recorded) = ran?;
    println!(
        "{day}: {} approved members, {} new lists, {} introductions, {} pushes; \
         load {:.1}s, lists and their pushes {:.1}s, other pushes {:.1}s; pool {} MB; {}",
        report.members,
        report.lists,
        report.introductions,
        report.pushes,
        report.load_secs,
        report.lists_secs,
        report.push_secs,
        report.pool_bytes / 1_000_000,
        match recorded {
            crate::matchmaking::schedule::Recorded::Finished => "the run is recorded in job_runs",
            crate::matchmaking::schedule::Recorded::AlreadyFinished =>
                "the day's run was recorded in job_runs already",
            crate::matchmaking::schedule::Recorded::HeldElsewhere =>
                "a serving process holds the day's run and records it when it finishes",
        }
    );
    Ok(())
}

/// `kizuna-server funnel`: the table of a day or range (see [`Command::Funnel`]).
pub async fn funnel(
    settings: &Settings,
    first: Option<kizuna_core::date::Date>,
    last: Option<kizuna_core::date::Date>,
) -> anyhow::Result<()> {
    let first = first.unwrap_or_else(|| settings.clock.taipei_today());
    let last = last.unwrap_or(first);
    anyhow::ensure!(
        last >= first,
        "the last day ({last}) is before the first ({first})"
    );
    let db = storage::connect(&settings.database_url(), settings.db_pool).await?;
    storage::migrate(&db).await?;
    let stages = storage::funnel::stages(&db, first, last).await?;
    let title = if first == last {
        format!("{first} (Asia/Taipei)")
    } else {
        format!("{first} to {last} (Asia/Taipei)")
    };
    print!("{}", stages.table(&title));
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
            &["kizuna-server", "files"],
            &["kizuna-server", "files", "copy-to-s4"],
            &["kizuna-server", "members", "delete"],
            &["kizuna-server", "members", "delete", "U0123"],
            &[
                "kizuna-server",
                "members",
                "export",
                "U0123456789abcdef0123456789abcdef",
            ],
            &["kizuna-server", "funnel", "2026-11-31"],
            &[
                "kizuna-server",
                "funnel",
                "2026-11-01",
                "2026-11-02",
                "2026-11-03",
            ],
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
