//! The operator's drills (not part of `just test`; docs/operations.md):
//!
//! - `drill upgrade OLD_BIN NEW_BIN [OLD_NAME]` (`just upgrade-drill`): the previous
//!   migration-changing build and this one side by side on one PostgreSQL database (and one data
//!   dir: the previous build may predate the bucket).
//!   The old build serves a populated database while members chat; this build's
//!   `kizuna-server migrate` runs meanwhile; then this build serves beside the old one. Fails on
//!   any answer that is not a success and on any acknowledged message not stored exactly once.
//! - `drill backup SERVER_BIN S3S_FS AWS_BIN [PAIRS]` (`just backup-drill`): a populated
//!   database and bucket backed up as docs/operations.md says (`pg_dump --format=custom`, `aws s3
//!   sync`), an account deleted after the backup, everything restored into a fresh database and
//!   bucket with the deletion record copied from the live bucket; every row and file compared
//!   (counts and checksums), then a server on the restore replays the deletion and serves a
//!   member's chat and photos. Prints rows, files, bytes and minutes.
//!
//! Each run starts its own PostgreSQL cluster on a spare port (initdb and pg_ctl of the installed
//! PostgreSQL), the mock LINE platform in a process of its own and (backup) s3s-fs, as `just
//! chaos` does.

#[allow(dead_code)]
#[path = "../chaos/cluster.rs"]
mod cluster;
#[allow(dead_code)]
#[path = "../chaos/members.rs"]
mod members;

mod backup;
mod population;
mod upgrade;

use std::path::PathBuf;

use anyhow::{Context, bail};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let passed = match args.first().map(String::as_str) {
        Some("upgrade") if args.len() >= 3 => {
            upgrade::run(
                PathBuf::from(&args[1]),
                PathBuf::from(&args[2]),
                args.get(3).map(String::as_str).unwrap_or("previous"),
            )
            .await?
        }
        Some("backup") if args.len() >= 4 => {
            let pairs = match args.get(4) {
                Some(n) => n.parse().context("PAIRS is a number")?,
                None => 100,
            };
            backup::run(PathBuf::from(&args[1]), &args[2], &args[3], pairs).await?
        }
        _ => bail!(
            "usage: drill upgrade OLD_BIN NEW_BIN [OLD_NAME] | drill backup SERVER_BIN S3S_FS \
             AWS_BIN [PAIRS]"
        ),
    };
    if !passed {
        std::process::exit(1);
    }
    Ok(())
}
