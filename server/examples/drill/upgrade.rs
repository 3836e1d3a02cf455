//! `just upgrade-drill`: see `main`.

use std::{
    path::PathBuf,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use sea_orm::{ConnectionTrait, Statement};
use serde_json::json;

use crate::{
    cluster::{Postgres, RunDir, Server, ServerSpec, free_port},
    members::{Balancer, Line},
    population,
};

/// One send as its client saw it.
struct Answer {
    client_id: String,
    /// The HTTP status, or None for a transport error.
    status: Option<u16>,
    phase: &'static str,
}

pub async fn run(old_bin: PathBuf, new_bin: PathBuf, old_name: &str) -> anyhow::Result<bool> {
    let started = Instant::now();
    let run = RunDir::new()?;
    let pg = Postgres::start(&run.0)?;
    let line_port = free_port();
    let _line = Server::start(ServerSpec {
        bin: new_bin.clone(),
        name: "line",
        port: line_port,
        env: vec![],
        data_dir: run.0.join("line"),
        log_dir: run.0.clone(),
    })?;
    let line_base = format!("http://127.0.0.1:{line_port}");
    // One machine's data dir for both: the previous build may predate the bucket
    // (KIZUNA_FILE_STORE), and the drill is about the database.
    let env: Vec<(String, String)> = vec![
        ("DATABASE_URL".into(), pg.url()),
        (
            "KIZUNA_LINE_API_BASE".into(),
            format!("{line_base}/__mock/line"),
        ),
        (
            "KIZUNA_TRUSTED_PROXY_HEADER".into(),
            "X-Forwarded-For".into(),
        ),
    ];
    let spec = |name: &'static str, bin: &PathBuf| ServerSpec {
        bin: bin.clone(),
        name,
        port: free_port(),
        env: env.clone(),
        data_dir: run.0.join("data"),
        log_dir: run.0.clone(),
    };
    println!("upgrade drill: {old_name} build serving, this build migrating beside it");
    let mut old = Server::start(spec("old", &old_bin))?;
    let migrations_of = |url: String| async move {
        let db = sea_orm::Database::connect(url).await?;
        let rows = db
            .query_all_raw(Statement::from_string(
                db.get_database_backend(),
                "SELECT version FROM seaql_migrations ORDER BY version",
            ))
            .await?;
        db.close().await.ok();
        rows.iter()
            .map(|r| r.try_get::<String>("", "version"))
            .collect::<Result<Vec<_>, _>>()
    };
    let before = migrations_of(pg.url()).await?;
    let lb = Balancer::new(vec![old.base()]);
    let line = Line {
        base: line_base,
        client: reqwest::Client::builder().no_proxy().build()?,
    };
    let people = population::populate(&lb, &line, &old.base(), &pg.url(), 20).await?;

    // Members chat through whatever is in rotation, every answer kept, nothing retried.
    let answers: Arc<Mutex<Vec<Answer>>> = Arc::default();
    let phase: Arc<Mutex<&'static str>> = Arc::new(Mutex::new("old serving"));
    let going = Arc::new(AtomicBool::new(true));
    let senders: Vec<_> = people
        .members
        .iter()
        .map(|m| {
            let (lb, m, answers, phase, going) = (
                lb.clone(),
                m.clone(),
                answers.clone(),
                phase.clone(),
                going.clone(),
            );
            let match_id = people.matches[m.index / 2];
            tokio::spawn(async move {
                let mut n = 0;
                // 40 members at one message every 4 s each: 10 a second in all, within the chat
                // limit however long the drill runs.
                tokio::time::sleep(Duration::from_millis(100 * m.index as u64)).await;
                while going.load(Ordering::SeqCst) {
                    let client_id = format!("drill-{:03}-{n:05}", m.index);
                    let now = *phase.lock().expect("phase");
                    let status = lb
                        .client
                        .post(format!("{}/api/matches/{match_id}/messages", lb.pick()))
                        .bearer_auth(&m.token)
                        .header("X-Forwarded-For", &m.address)
                        .json(&json!({"clientMessageId": client_id, "text": "during the upgrade"}))
                        .send()
                        .await
                        .ok()
                        .map(|r| r.status().as_u16());
                    answers.lock().expect("answers").push(Answer {
                        client_id,
                        status,
                        phase: now,
                    });
                    n += 1;
                    tokio::time::sleep(Duration::from_secs(4)).await;
                }
            })
        })
        .collect();

    tokio::time::sleep(Duration::from_secs(5)).await;
    *phase.lock().expect("phase") = "migrating";
    let migrating = Instant::now();
    let mut migrate = std::process::Command::new(&new_bin);
    migrate
        .arg("migrate")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", pg.url())
        .env("KIZUNA_DATA_DIR", run.0.join("migrate"))
        .env("RUST_LOG", "warn");
    // Off the runtime's threads: the members keep chatting meanwhile.
    let out = tokio::task::spawn_blocking(move || migrate.output()).await??;
    let migrate_secs = migrating.elapsed().as_secs_f64();
    let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        println!(
            "FAILED: `kizuna-server migrate` of this build: {said}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return Ok(false);
    }
    *phase.lock().expect("phase") = "old serving the migrated database";
    tokio::time::sleep(Duration::from_secs(5)).await;
    let new = Server::start(spec("new", &new_bin))?;
    lb.set_rotation(vec![old.base(), new.base()]);
    *phase.lock().expect("phase") = "old and new side by side";
    tokio::time::sleep(Duration::from_secs(10)).await;
    going.store(false, Ordering::SeqCst);
    for sender in senders {
        sender.await?;
    }
    let old_alive = old.running();
    let after = migrations_of(pg.url()).await?;

    let answers = std::mem::take(&mut *answers.lock().expect("answers"));
    let db = sea_orm::Database::connect(pg.url()).await?;
    let stored: std::collections::HashMap<String, i64> = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT client_message_id AS id, COUNT(*) AS n FROM chat_messages \
             WHERE client_message_id LIKE 'drill-%' GROUP BY client_message_id",
        ))
        .await?
        .iter()
        .map(|r| Ok((r.try_get::<String>("", "id")?, r.try_get::<i64>("", "n")?)))
        .collect::<Result<_, sea_orm::DbErr>>()?;
    db.close().await.ok();
    let failed: Vec<&Answer> = answers.iter().filter(|a| a.status != Some(201)).collect();
    let lost = answers
        .iter()
        .filter(|a| a.status == Some(201) && stored.get(&a.client_id) != Some(&1))
        .count();
    let sent: std::collections::HashSet<&str> =
        answers.iter().map(|a| a.client_id.as_str()).collect();
    let invented = stored
        .iter()
        .filter(|(id, n)| !sent.contains(id.as_str()) || **n > 1)
        .count();

    println!(
        "  migrations: {} applied by the {old_name} build; `kizuna-server migrate` of this build \
         took {migrate_secs:.2} s and said: {}",
        before.len(),
        said.replace('\n', "; ")
    );
    println!("  migrations after: {}", after.len());
    for name in [
        "old serving",
        "migrating",
        "old serving the migrated database",
        "old and new side by side",
    ] {
        let of: Vec<&Answer> = answers.iter().filter(|a| a.phase == name).collect();
        let ok = of.iter().filter(|a| a.status == Some(201)).count();
        println!("  {name}: {} sends, {ok} acknowledged", of.len());
    }
    println!(
        "  {} sends in all, {} not acknowledged, {lost} acknowledged but not stored once, {invented} \
         stored that no acknowledged send made; the {old_name} process {} ({:.0} s in all)",
        answers.len(),
        failed.len(),
        if old_alive { "still serving" } else { "EXITED" },
        started.elapsed().as_secs_f64()
    );
    for a in failed.iter().take(10) {
        println!(
            "  not acknowledged: {} in '{}': {:?}",
            a.client_id, a.phase, a.status
        );
    }
    let passed = failed.is_empty()
        && lost == 0
        && invented == 0
        && old_alive
        && after.len() >= before.len()
        && answers
            .iter()
            .any(|a| a.phase == "old and new side by side");
    old.terminate();
    println!(
        "upgrade drill: {}",
        if passed { "PASSED" } else { "FAILED" }
    );
    Ok(passed)
}
