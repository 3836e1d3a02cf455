//! `just backup-drill`: see `main`. The commands are docs/operations.md's, "Backing up" and
//! "Restoring".

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use reqwest::Method;
use sea_orm::{ConnectionTrait, Statement};
use sha2::{Digest, Sha256};

use crate::{
    cluster::{BUCKET, Postgres, RunDir, S3, Server, ServerSpec, free_port, s3_env},
    members::{Balancer, Line},
    population,
};

const RESTORED_BUCKET: &str = "kizuna-restored";
const RESTORED_DATABASE: &str = "kizuna_restored";

/// Each table's rows and a checksum of their text (sorted), from PostgreSQL itself.
async fn tables(url: &str) -> anyhow::Result<BTreeMap<String, (i64, String)>> {
    let db = sea_orm::Database::connect(url).await?;
    let names: Vec<String> = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
        ))
        .await?
        .iter()
        .map(|r| r.try_get::<String>("", "name"))
        .collect::<Result<_, _>>()?;
    let mut out = BTreeMap::new();
    for name in names {
        let row = db
            .query_one_raw(Statement::from_string(
                db.get_database_backend(),
                format!(
                    "SELECT COUNT(*) AS n, COALESCE(md5(string_agg(t::text, '|' ORDER BY \
                     t::text)), '') AS sum FROM \"{name}\" t"
                ),
            ))
            .await?
            .context("an aggregate")?;
        out.insert(name, (row.try_get("", "n")?, row.try_get("", "sum")?));
    }
    db.close().await.ok();
    Ok(out)
}

/// Every object of a bucket of s3s-fs (a directory per bucket under `root`) with its size and
/// SHA-256, under `prefix`.
fn objects(
    root: &Path,
    bucket: &str,
    prefix: &str,
) -> anyhow::Result<BTreeMap<String, (u64, String)>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let base = root.join(bucket);
    let mut paths = Vec::new();
    walk(&base.join(prefix), &mut paths);
    let mut out = BTreeMap::new();
    for path in paths {
        let key = path.strip_prefix(&base)?.to_string_lossy().to_string();
        // s3s-fs keeps its own bookkeeping beside the objects.
        if key.starts_with(".") || key.contains("/.") {
            continue;
        }
        let bytes = std::fs::read(&path)?;
        out.insert(
            key,
            (bytes.len() as u64, hex::encode(Sha256::digest(&bytes))),
        );
    }
    Ok(out)
}

/// Runs a command of the procedure; answers its wall time.
fn step(what: &str, command: &mut Command) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let out = command
        .output()
        .with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(started.elapsed())
}

fn aws(bin: &str, endpoint: &str) -> Command {
    let mut c = Command::new(bin);
    c.env("AWS_ACCESS_KEY_ID", "kizuna-chaos")
        .env("AWS_SECRET_ACCESS_KEY", "kizuna-chaos-secret-key")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        // s3s-fs takes plain payloads; a real bucket takes either.
        .env("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required")
        .env("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")
        .args(["--endpoint-url", endpoint]);
    c
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

pub async fn run(
    server_bin: PathBuf,
    s3s_fs: &str,
    aws_bin: &str,
    pairs: usize,
) -> anyhow::Result<bool> {
    let started = Instant::now();
    let run = RunDir::new()?;
    let pg = Postgres::start(&run.0)?;
    let s3 = S3::start(&run.0, s3s_fs)?;
    let s3_root = run.0.join("s3");
    let line_port = free_port();
    let _line = Server::start(ServerSpec {
        bin: server_bin.clone(),
        name: "line",
        port: line_port,
        env: vec![],
        data_dir: run.0.join("line"),
        log_dir: run.0.clone(),
    })?;
    let line_base = format!("http://127.0.0.1:{line_port}");
    let spec = |name: &'static str, url: String, bucket: &str| {
        let mut env = s3_env(&s3);
        env.retain(|(k, _)| k != "KIZUNA_FILE_STORE");
        env.extend([
            ("KIZUNA_FILE_STORE".into(), format!("s3://{bucket}")),
            ("DATABASE_URL".into(), url),
            (
                "KIZUNA_LINE_API_BASE".into(),
                format!("{line_base}/__mock/line"),
            ),
            (
                "KIZUNA_TRUSTED_PROXY_HEADER".into(),
                "X-Forwarded-For".into(),
            ),
        ]);
        ServerSpec {
            bin: server_bin.clone(),
            name,
            port: free_port(),
            env,
            data_dir: run.0.join(name),
            log_dir: run.0.clone(),
        }
    };
    println!("backup drill: {pairs} pairs on PostgreSQL and an S3 bucket");
    let mut live = Server::start(spec("live", pg.url(), BUCKET))?;
    let lb = Balancer::new(vec![live.base()]);
    let line = Line {
        base: line_base.clone(),
        client: reqwest::Client::builder().no_proxy().build()?,
    };
    let people = population::populate(&lb, &line, &live.base(), &pg.url(), pairs).await?;
    let messages = population::chat(&lb, &people, 10, "before").await?;
    // Variants rendered (a cache, left out of the backup) and photos read.
    for m in people.members.iter().take(20) {
        lb.ok(
            Some(m),
            Method::GET,
            &format!("/_ipx/w_400,f_webp/api/file/fetch/{}", m.photo),
            None,
            &[],
        )
        .await
        .ok();
    }
    println!("  {messages} chat messages sent");

    // The backup, as docs/operations.md tells an operator: the database first, then the bucket
    // (files only: the image variants are a cache made again on demand).
    let expected_rows = tables(&pg.url()).await?;
    let expected_files = objects(&s3_root, BUCKET, "files")?;
    let backup = run.0.join("backup");
    std::fs::create_dir_all(&backup)?;
    let dump = backup.join("kizuna.dump");
    let dump_time = step(
        "pg_dump",
        Command::new("pg_dump")
            .args(["--format=custom", "--file"])
            .arg(&dump)
            .arg(pg.url()),
    )?;
    let bucket_copy = backup.join("bucket");
    let copy_time = step(
        "aws s3 sync (backup)",
        aws(aws_bin, &s3.endpoint)
            .args(["s3", "sync", &format!("s3://{BUCKET}")])
            .arg(&bucket_copy)
            .args(["--exclude", "cache/*", "--only-show-errors"]),
    )?;
    let dump_bytes = std::fs::metadata(&dump)?.len();

    // After the backup: a member deletes their account (and another message is sent, which the
    // restore will not have: what a backup a day old loses).
    let leaver = &people.members[0];
    let partner = &people.members[1];
    lb.ok(
        Some(leaver),
        Method::DELETE,
        "/api/user/account",
        Some(&serde_json::json!({"lineAccessToken": null})),
        &[],
    )
    .await?;
    let record_deadline = Instant::now() + Duration::from_secs(10);
    let recorded = loop {
        let record = objects(&s3_root, BUCKET, "deletions")?;
        if !record.is_empty() || Instant::now() > record_deadline {
            break record;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    println!(
        "  after the backup: member 0 deleted their account; the deletion record holds {} entry",
        recorded.len()
    );
    live.terminate();

    // The restore: a fresh database and bucket from the backup, then the deletion record of
    // the live bucket.
    let restored_url = pg
        .url()
        .replace("/kizuna", &format!("/{RESTORED_DATABASE}"));
    let create_time = step(
        "createdb",
        Command::new("psql").arg(pg.url()).args([
            "-q",
            "-c",
            &format!("CREATE DATABASE {RESTORED_DATABASE}"),
        ]),
    )?;
    let restore_time = step(
        "pg_restore",
        Command::new("pg_restore")
            .args(["--no-owner", "--exit-on-error", "--jobs=2", "--dbname"])
            .arg(&restored_url)
            .arg(&dump),
    )?;
    std::fs::create_dir_all(s3_root.join(RESTORED_BUCKET))?;
    let put_back_time = step(
        "aws s3 sync (restore)",
        aws(aws_bin, &s3.endpoint)
            .args(["s3", "sync"])
            .arg(&bucket_copy)
            .arg(format!("s3://{RESTORED_BUCKET}"))
            .arg("--only-show-errors"),
    )?;
    let record_time = step(
        "aws s3 sync (deletion record)",
        aws(aws_bin, &s3.endpoint).args([
            "s3",
            "sync",
            &format!("s3://{BUCKET}/deletions"),
            &format!("s3://{RESTORED_BUCKET}/deletions"),
            "--only-show-errors",
        ]),
    )?;

    // Every row and every file came back, before any server touches the restore.
    let got_rows = tables(&restored_url).await?;
    let got_files = objects(&s3_root, RESTORED_BUCKET, "files")?;
    let mut problems = Vec::new();
    for (table, want) in &expected_rows {
        match got_rows.get(table) {
            Some(got) if got == want => {}
            got => problems.push(format!(
                "table {table}: {want:?} backed up, {got:?} restored"
            )),
        }
    }
    if got_files != expected_files {
        let missing = expected_files
            .keys()
            .filter(|k| got_files.get(*k) != expected_files.get(*k))
            .count();
        problems.push(format!(
            "{missing} files missing or different in the restored bucket"
        ));
    }
    let restored_record = objects(&s3_root, RESTORED_BUCKET, "deletions")?;
    if restored_record != recorded {
        problems.push("the deletion record was not copied".into());
    }

    // A server on the restore: it replays the deletion, and serves a member's chat and photos.
    let serving = Instant::now();
    let restored = Server::start(spec("restored", restored_url.clone(), RESTORED_BUCKET))?;
    let start_time = serving.elapsed();
    lb.set_rotation(vec![restored.base()]);
    let db = sea_orm::Database::connect(&restored_url).await?;
    let count = |sql: &'static str| {
        let db = db.clone();
        async move {
            db.query_one_raw(Statement::from_string(db.get_database_backend(), sql))
                .await?
                .context("a count")?
                .try_get::<i64>("", "n")
                .map_err(anyhow::Error::from)
        }
    };
    let leaver_rows = db
        .query_one_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            "SELECT COUNT(*) AS n FROM users WHERE line_user_id = $1",
            [leaver.line_id.clone().into()],
        ))
        .await?
        .context("a count")?
        .try_get::<i64>("", "n")?;
    if leaver_rows != 0 {
        problems.push("the account deleted after the backup came back".into());
    }
    let users_now = count("SELECT COUNT(*) AS n FROM users").await?;
    let users_backed_up = expected_rows.get("users").map(|(n, _)| *n).unwrap_or(0);
    if users_now != users_backed_up - 1 {
        problems.push(format!(
            "{users_now} users after the replay, {users_backed_up} backed up"
        ));
    }
    let leaver_files = objects(&s3_root, RESTORED_BUCKET, "files")?
        .keys()
        .filter(|k| k.ends_with(&leaver.photo))
        .count();
    // The removal runs right after the replay's commit.
    if leaver_files != 0 {
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let leaver_files = objects(&s3_root, RESTORED_BUCKET, "files")?
        .keys()
        .filter(|k| k.ends_with(&leaver.photo))
        .count();
    if leaver_files != 0 {
        problems.push("the deleted member's photo is still in the restored bucket".into());
    }
    let matches = lb
        .ok(Some(partner), Method::GET, "/api/matches", None, &[])
        .await?;
    if matches
        .to_string()
        .contains(&format!("\"memberId\":{}", leaver.profile_id))
    {
        problems.push("the deleted member's match is still listed for their partner".into());
    }
    // Another pair, untouched: their chat and photos, as before the backup.
    let (a, b) = (&people.members[2], &people.members[3]);
    let history = lb
        .ok(
            Some(a),
            Method::GET,
            &format!("/api/matches/{}/messages?limit=50", people.matches[1]),
            None,
            &[],
        )
        .await?;
    let listed = history["messages"].as_array().map(|m| m.len()).unwrap_or(0);
    if listed != 20 {
        problems.push(format!(
            "member 2's chat lists {listed} messages, 20 were sent: {history}"
        ));
    }
    for m in [a, b] {
        let r = lb
            .client
            .get(format!("{}/api/file/fetch/{}", restored.base(), m.photo))
            .bearer_auth(&a.token)
            .header("X-Forwarded-For", &a.address)
            .send()
            .await?;
        let status = r.status();
        let bytes = r.bytes().await?;
        let original = expected_files
            .iter()
            .find(|(k, _)| k.ends_with(&m.photo))
            .map(|(_, (_, sum))| sum.clone());
        if status != 200 || original.as_deref() != Some(&hex::encode(Sha256::digest(&bytes))) {
            problems.push(format!(
                "member {}'s photo: {status}, not the stored bytes",
                m.index
            ));
        }
        let variant = lb
            .client
            .get(format!(
                "{}/_ipx/w_200,f_webp/api/file/fetch/{}",
                restored.base(),
                m.photo
            ))
            .bearer_auth(&a.token)
            .header("X-Forwarded-For", &a.address)
            .send()
            .await?
            .status();
        if variant != 200 {
            problems.push(format!("member {}'s photo variant: {variant}", m.index));
        }
    }
    db.close().await.ok();

    let rows: i64 = expected_rows.values().map(|(n, _)| n).sum();
    let bytes: u64 = expected_files.values().map(|(n, _)| n).sum();
    let busiest: Vec<String> = {
        let mut t: Vec<(&String, i64)> = expected_rows.iter().map(|(k, (n, _))| (k, *n)).collect();
        t.sort_by_key(|(_, n)| -n);
        t.iter().take(6).map(|(k, n)| format!("{k} {n}")).collect()
    };
    println!(
        "  backed up: {rows} rows in {} tables ({}), {} files ({:.1} MB)",
        expected_rows.len(),
        busiest.join(", "),
        expected_files.len(),
        bytes as f64 / 1e6
    );
    println!(
        "  backup: pg_dump {} ({:.1} MB), bucket copy {}",
        secs(dump_time),
        dump_bytes as f64 / 1e6,
        secs(copy_time)
    );
    println!(
        "  restore: createdb {}, pg_restore {}, bucket {}, deletion record {}, server start with \
         the replay {}",
        secs(create_time),
        secs(restore_time),
        secs(put_back_time),
        secs(record_time),
        secs(start_time)
    );
    println!(
        "  compared: {} tables and {} files, counts and checksums; the account deleted after \
         the backup replayed ({} users now)",
        got_rows.len(),
        got_files.len(),
        users_now
    );
    println!(
        "  drill: {:.1} minutes in all",
        started.elapsed().as_secs_f64() / 60.0
    );
    for p in &problems {
        println!("  PROBLEM: {p}");
    }
    let passed = problems.is_empty();
    println!("backup drill: {}", if passed { "PASSED" } else { "FAILED" });
    Ok(passed)
}
