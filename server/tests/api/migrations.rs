//! Every new PostgreSQL migration is checked by squawk (PyPI `squawk-cli`, in a virtualenv under
//! ~/.cache/kizuna: `just squawk`) on the SQL it really runs: a scratch PostgreSQL cluster of the
//! test's own (initdb and pg_ctl of the installed PostgreSQL, on a spare port) logs every
//! statement (`log_statement = all`, as JSON lines), the migrations run against it through the
//! server's own runner, and each migration's statements are told apart by the
//! `application_name` the runner gives it (`kizuna migrate <name>`). The migrations up to
//! `migration::BASELINE` ran on databases that exist and are left as they are; each later one
//! must pass squawk with no finding.

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use sea_orm_migration::MigratorTrait;
use serde_json::Value;

use crate::{helpers::scratch_dir, process::free_port};

/// A PostgreSQL cluster of the test's own that logs every statement; stopped when dropped.
pub struct StatementLog {
    bin: PathBuf,
    home: PathBuf,
    pub port: u16,
}

/// Runs a PostgreSQL server tool as the `postgres` user when this is root (initdb and postgres
/// refuse to run as root).
fn pg_tool(bin: &Path, tool: &str) -> Command {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(false);
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(tool));
        c
    } else {
        Command::new(bin.join(tool))
    }
}

fn postgres_bin() -> PathBuf {
    let out = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .expect("pg_config (PostgreSQL's server package) is installed");
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(dir.join("initdb").is_file(), "no initdb in {dir:?}");
    dir
}

impl StatementLog {
    pub fn start() -> StatementLog {
        let bin = postgres_bin();
        let home = scratch_dir();
        let _ = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&home)
            .status();
        let status = pg_tool(&bin, "initdb")
            .args(["-N", "-U", "postgres", "--auth=trust", "-E", "UTF8", "-D"])
            .arg(home.join("data"))
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "initdb failed");
        let log = StatementLog {
            bin,
            port: free_port(),
            home,
        };
        let options = format!(
            "-p {} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off \
             -c logging_collector=on -c log_destination=jsonlog -c log_directory={home} \
             -c log_filename=statements -c log_statement=all",
            log.port,
            home = log.home.display()
        );
        let status = pg_tool(&log.bin, "pg_ctl")
            .arg("-D")
            .arg(log.home.join("data"))
            .arg("-l")
            .arg(log.home.join("server.log"))
            .args(["-o", &options, "-w", "start"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl start failed");
        log
    }

    /// A new database on the cluster; answers its URL.
    pub async fn database(&self, name: &str) -> String {
        use sea_orm::ConnectionTrait;
        let admin = sea_orm::Database::connect(format!(
            "postgres://postgres@127.0.0.1:{}/postgres",
            self.port
        ))
        .await
        .unwrap();
        admin
            .execute_unprepared(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        admin.close().await.ok();
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// The statements each migration ran on `database`, by migration name, in order.
    pub fn migrations_run(&self, database: &str) -> Vec<(String, Vec<String>)> {
        let text = std::fs::read_to_string(self.home.join("statements.json")).unwrap();
        let mut runs: Vec<(String, Vec<String>)> = Vec::new();
        for line in text.lines() {
            // The server may be writing the last line still.
            let Ok(entry) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let Some(name) = entry["application_name"]
                .as_str()
                .and_then(|a| a.strip_prefix("kizuna migrate "))
            else {
                continue;
            };
            if entry["dbname"] != database {
                continue;
            }
            let message = entry["message"].as_str().unwrap_or_default();
            // Simple queries log `statement: …`, prepared ones `execute <name>: …`.
            let statement = match message.strip_prefix("statement: ") {
                Some(s) => s,
                None => match message.strip_prefix("execute ") {
                    Some(rest) => rest.split_once(": ").map(|(_, s)| s).unwrap_or_default(),
                    None => continue,
                },
            };
            if runs.last().is_none_or(|(last, _)| last != name) {
                runs.push((name.to_string(), Vec::new()));
            }
            runs.last_mut().unwrap().1.push(statement.to_string());
        }
        runs
    }
}

impl StatementLog {
    /// [`migrations_run`](Self::migrations_run) once the log holds the end of `last` (its COMMIT,
    /// or the RESET after a migration outside a transaction): PostgreSQL writes its log behind
    /// the statements, so the tail of the last migration may not be there yet when it returned.
    pub async fn migrations_run_through(
        &self,
        database: &str,
        last: &str,
    ) -> Vec<(String, Vec<String>)> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let runs = self.migrations_run(database);
            let ended = runs.iter().any(|(name, statements)| {
                name == last
                    && statements
                        .last()
                        .is_some_and(|s| s == "COMMIT" || s.starts_with("RESET "))
            });
            if ended || std::time::Instant::now() > deadline {
                return runs;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

impl Drop for StatementLog {
    fn drop(&mut self) {
        let _ = pg_tool(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(self.home.join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// A migration's SQL as squawk reads it: its statements without the runner's own bookkeeping
/// (the transaction's end, the row in `seaql_migrations`, the settings reset after a migration
/// that ran outside a transaction); answers it and whether it ran in a transaction.
pub fn as_sql_file(statements: &[String]) -> (String, bool) {
    let in_transaction = statements.last().is_some_and(|s| s == "COMMIT");
    let kept: Vec<&String> = statements
        .iter()
        .filter(|s| {
            s.as_str() != "COMMIT"
                && !s.starts_with("INSERT INTO \"seaql_migrations\"")
                && !s.starts_with("RESET ")
        })
        .collect();
    let sql = kept
        .iter()
        .map(|s| format!("{};\n", s.trim_end_matches(';')))
        .collect();
    (sql, in_transaction)
}

/// squawk's findings (`rule_name`, message) for one migration's SQL.
pub fn squawk(dir: &Path, name: &str, statements: &[String]) -> Vec<(String, String)> {
    let (sql, in_transaction) = as_sql_file(statements);
    let file = dir.join(format!("{name}.sql"));
    std::fs::write(&file, sql).unwrap();
    let mut command = Command::new(squawk_bin());
    command.args(["--reporter", "json", "--pg-version", "15"]);
    if in_transaction {
        command.arg("--assume-in-transaction");
    }
    let out = command.arg(&file).output().expect("squawk runs");
    let findings: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "squawk said: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let findings: Vec<(String, String)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule_name"].as_str().unwrap_or_default().to_string(),
                f["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        out.status.success(),
        findings.is_empty(),
        "squawk's exit status and its findings disagree"
    );
    findings
}

/// The squawk of `just squawk` (`$KIZUNA_TOOLS_DIR`, default ~/.cache/kizuna).
fn squawk_bin() -> PathBuf {
    let tools = std::env::var_os("KIZUNA_TOOLS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kizuna")))
        .unwrap();
    let bin = tools.join(format!("squawk-{}/bin/squawk", squawk_version()));
    assert!(
        bin.is_file(),
        "squawk is not installed at {}: run `just squawk` (just test-server does)",
        bin.display()
    );
    bin
}

/// The version `just squawk` installs: the justfile's `squawk_version`.
fn squawk_version() -> &'static str {
    include_str!("../../../justfile")
        .lines()
        .find_map(|line| line.strip_prefix("squawk_version := \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("the justfile names squawk_version")
}

/// Every migration after the baseline passes squawk on what it ran; so does a later release's
/// expand step (a nullable column, an index built concurrently outside a transaction), while the
/// same index built inside a transaction is found: the check can fail.
#[tokio::test]
async fn every_new_migration_passes_squawk_on_the_sql_it_runs_postgres() {
    use kizuna_server::storage::{
        self,
        migration::{BASELINE, Migrator},
    };
    let log = StatementLog::start();
    let dir = scratch_dir();

    let url = log.database("kizuna").await;
    let db = storage::connect(&url, None).await.unwrap();
    storage::migrate(&db).await.unwrap();
    db.close().await.ok();
    let names: Vec<String> = Migrator::migrations()
        .iter()
        .map(|m| m.name().to_string())
        .collect();
    let runs = log
        .migrations_run_through("kizuna", names.last().expect("a migration"))
        .await;
    assert_eq!(
        runs.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        names,
        "every migration's statements were told apart, in order"
    );
    assert!(
        names.iter().any(|n| n == BASELINE),
        "the baseline names a migration"
    );
    // Each one set its timeouts first: for its transaction, or for its connection when it runs
    // outside one (an index built concurrently).
    for (name, statements) in &runs {
        assert!(
            statements[0].starts_with("SET LOCAL lock_timeout")
                || statements[0].starts_with("SET lock_timeout"),
            "{name}: {statements:?}"
        );
    }
    let mut linted = 0;
    let mut found = Vec::new();
    for (name, statements) in runs.iter().filter(|(n, _)| n.as_str() > BASELINE) {
        linted += 1;
        for finding in squawk(&dir, name, statements) {
            found.push(format!("{name}: {finding:?}"));
        }
    }
    assert!(found.is_empty(), "squawk finds: {found:#?}");
    eprintln!(
        "squawk: {linted} migrations after the baseline, no finding ({} in the baseline)",
        names.len() - linted
    );

    // A later release's expand step, through the same runner and log.
    let url = log.database("later").await;
    let db = storage::connect(&url, None).await.unwrap();
    let timeouts = Default::default();
    storage::migrate_with::<crate::upgrade::LaterRelease>(&db, &timeouts)
        .await
        .unwrap();
    storage::migrate_with::<crate::upgrade::CarelessRelease>(&db, &timeouts)
        .await
        .unwrap();
    db.close().await.ok();
    let runs = log
        .migrations_run_through("later", crate::upgrade::CARELESS_MIGRATION)
        .await;
    let lint = |name: &str| {
        let (_, statements) = runs
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} ran no statement: {runs:?}"));
        squawk(&dir, name, statements)
    };
    for name in crate::upgrade::LATER_MIGRATIONS {
        assert_eq!(lint(name), vec![], "{name}");
    }
    let careless = lint(crate::upgrade::CARELESS_MIGRATION);
    assert!(
        careless
            .iter()
            .any(|(rule, _)| rule == "require-concurrent-index-creation"),
        "{careless:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_runners_bookkeeping_is_not_linted_and_a_transaction_is_told() {
    let statements: Vec<String> = [
        "SET LOCAL lock_timeout = '2000ms'",
        "ALTER TABLE profiles ADD COLUMN nickname_reading text",
        "INSERT INTO \"seaql_migrations\" (\"version\", \"applied_at\") VALUES ($1, $2)",
        "COMMIT",
    ]
    .map(String::from)
    .to_vec();
    let (sql, in_transaction) = as_sql_file(&statements);
    assert!(in_transaction);
    assert_eq!(
        sql,
        "SET LOCAL lock_timeout = '2000ms';\nALTER TABLE profiles ADD COLUMN nickname_reading text;\n"
    );
    let (_, in_transaction) = as_sql_file(&statements[..2]);
    assert!(!in_transaction);
}
