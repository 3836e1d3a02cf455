//! `kizuna-server reviewers add|remove|list`: the real binary against SQLite and PostgreSQL.

use std::process::Output;

use kizuna_server::storage::{self, reviewers};

use crate::{
    helpers::{Backend, line_user_id, scratch_database, scratch_dir},
    process::command,
};

/// The binary's `reviewers` command on one database (also for `session_cache.rs`, whose servers
/// must hear what it changes).
pub(crate) struct Cli {
    pub(crate) data_dir: std::path::PathBuf,
    pub(crate) url: Option<String>,
}

impl Cli {
    fn run(&self, args: &[&str]) -> Output {
        command(&self.data_dir, self.url.as_deref(), "")
            .env_remove("RUST_LOG")
            .arg("reviewers")
            .args(args)
            .output()
            .unwrap()
    }

    /// Runs a command that must succeed; answers its stdout.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs a command that must fail; answers its stderr.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(out.stdout.is_empty(), "{args:?}");
        String::from_utf8(out.stderr).unwrap()
    }
}

async fn the_reviewers_list_is_managed_with_the_binary(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let cli = Cli {
        data_dir: data_dir.clone(),
        url: url.clone(),
    };
    let url_in_force =
        url.unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let (ana, bo) = (line_user_id(), line_user_id());

    // A fresh database: migrated first, nobody on the list.
    assert_eq!(cli.ok(&["list"]), "no reviewers\n");
    for bad in [
        "U0123",
        "u0123456789abcdef0123456789abcdef",
        "U0123456789ABCDEF0123456789ABCDEF",
    ] {
        let said = cli.fails(&["add", bad]);
        assert!(said.contains("not a LINE user id"), "{said}");
    }
    for usage in [
        &[][..],
        &["add"],
        &["frobnicate"],
        &["list", "--everything"],
        &["add", &ana, &bo],
    ] {
        let said = cli.fails(usage);
        assert!(
            said.to_lowercase()
                .contains("usage: kizuna-server reviewers"),
            "{usage:?}: {said}"
        );
    }

    let added = cli.ok(&["add", &ana]);
    assert!(
        added.starts_with(&format!("added {ana} as a reviewer (since ")),
        "{added}"
    );
    assert!(added.trim_end().ends_with("UTC)"), "{added}");
    let again = cli.ok(&["add", &ana]);
    assert!(
        again.starts_with(&format!("{ana} is already a reviewer")),
        "{again}"
    );
    cli.ok(&["add", &bo]);
    let list = cli.ok(&["list"]);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 2, "{list}");
    assert!(lines[0].starts_with(&format!("{ana}  since ")), "{list}");
    assert!(lines[1].starts_with(&format!("{bo}  since ")), "{list}");

    let db = storage::connect(&url_in_force, None).await.unwrap();
    assert!(reviewers::is_reviewer(&db, &ana).await.unwrap());
    assert!(!reviewers::is_reviewer(&db, &line_user_id()).await.unwrap());

    let removed = cli.ok(&["remove", &ana]);
    assert!(
        removed.starts_with(&format!("removed {ana} (a reviewer from ")),
        "{removed}"
    );
    let said = cli.fails(&["remove", &ana]);
    assert!(said.contains("is not a reviewer"), "{said}");
    assert!(!reviewers::is_reviewer(&db, &ana).await.unwrap());
    assert_eq!(cli.ok(&["list"]).lines().count(), 1);

    // Back again: a new period, the old one kept.
    cli.ok(&["add", &ana]);
    assert!(reviewers::is_reviewer(&db, &ana).await.unwrap());
    let history = cli.ok(&["list", "--all"]);
    let lines: Vec<&str> = history.lines().collect();
    assert_eq!(lines.len(), 3, "{history}");
    assert!(
        lines[0].starts_with(&format!("{ana}  from ")) && lines[0].ends_with("(removed)"),
        "{history}"
    );
    assert_eq!(reviewers::history(&db).await.unwrap().len(), 3);

    // Adds at once: one open period, one "added".
    let carl = line_user_id();
    let children: Vec<_> = (0..4)
        .map(|_| {
            command(&data_dir, cli.url.as_deref(), "")
                .env_remove("RUST_LOG")
                .args(["reviewers", "add", &carl])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut said = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        said.push(String::from_utf8(out.stdout).unwrap());
    }
    assert_eq!(
        said.iter().filter(|s| s.starts_with("added")).count(),
        1,
        "{said:?}"
    );
    let open: Vec<_> = reviewers::list(&db)
        .await
        .unwrap()
        .into_iter()
        .filter(|p| p.line_user_id == carl)
        .collect();
    assert_eq!(open.len(), 1);
    db.close().await.ok();
    std::fs::remove_dir_all(&data_dir).ok();
}

crate::on_both_backends!(the_reviewers_list_is_managed_with_the_binary);
