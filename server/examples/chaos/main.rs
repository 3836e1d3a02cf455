//! `just chaos` (and its short run in `just test`): load and faults against two kizuna-server
//! processes on one PostgreSQL and one S3 bucket, then a checker of what was acknowledged.
//!
//! The run starts its own PostgreSQL cluster on a spare port (restarted once as a crash would),
//! s3s-fs, the mock LINE platform in a third process that no kill reaches (both servers point
//! `KIZUNA_LINE_API_BASE` at it, so its record of pushes and its ID-token key survive), and the
//! two servers A and B with separate data dirs behind a balancer of the driver's own
//! (`members::Balancer`); every simulated client has its own `X-Forwarded-For` address.
//!
//! Members register with a photo and a proof, a reviewer approves them, each pair likes and
//! matches, everyone keeps an events stream open (reconnecting with `Last-Event-ID`), and every
//! member sends messages at an even pace, retrying as the web app does. Phases:
//!
//! 1. two processes, measured: messages a second and send-to-delivery latency;
//! 2. faults, from 3 s after phase 1 (its last sends answered first): A is killed (SIGKILL) and
//!    restarted three times, PostgreSQL restarted once;
//! 3. one process, measured: B stopped, everything through A;
//! 4. drain: B back, sending stops, streams catch up; then the checker (`check`).
//!
//! Settings: `CHAOS_PAIRS` (1000), `CHAOS_RATE` (messages a second in all, 500), `CHAOS_SECS`
//! (each measured phase, 30), `CHAOS_FORGET_LAST_EVENT_ID=1` (streams reconnect without it: the
//! checker must then fail), `CHAOS_SERIES=1` (also print each measured phase's send answers 3 s at
//! a time: a process that is slow or retried shows there), `CHAOS_PG_OPTIONS` (more `-c name=value`
//! settings for the run's PostgreSQL, such as `shared_preload_libraries=pg_stat_statements` to see
//! what the statements cost), `CHAOS_PG_SOCKET=1` (every process reaches PostgreSQL over its Unix
//! socket instead of loopback TCP), `CHAOS_SERVER_ENV` (more `NAME=value` settings,
//! space-separated, for servers A and B, such as `KIZUNA_DB_POOL=8 TOKIO_WORKER_THREADS=1`).
//! `chaos SERVER_BIN [S3S_FS_BIN]`; exits 1 unless the checker passes.
//!
//! Each measured phase counts only acknowledged sends as throughput and prints, beside it, the
//! sends begun in it that were refused or given up (any fails the run: a timed answer that is not
//! the one meant) and those acknowledged but never delivered. The target (two processes,
//! `CHAOS_RATE=1000`: 1,000 messages a second, delivery p99 <= 100 ms) is printed after the
//! figures; a run offering that rate exits 1 when it is missed.

mod check;
mod cluster;
mod members;
mod sse;

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use futures_util::{StreamExt, stream};
use reqwest::Method;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::json;

use cluster::{Postgres, RunDir, S3, Server, ServerSpec, free_port, s3_env};
use members::{Balancer, Line, Member};

/// The target of `CHAOS_RATE=1000 just chaos` (issue 46), on two processes.
const TARGET_PER_SEC: f64 = 1000.0;
const TARGET_P99_MS: f64 = 100.0;

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A message as its sender's client sent it.
#[derive(Clone, Debug)]
pub struct Sent {
    pub sender: usize,
    pub match_id: i64,
    pub client_id: String,
    pub started: Instant,
    /// When the send was acknowledged, and the stored message's id.
    pub acked: Option<(Instant, i64)>,
    /// The answer that refused it for good (a 4xx), if one did.
    pub refused: Option<String>,
}

/// A measured window.
struct Window {
    label: &'static str,
    from: Instant,
    to: Instant,
    streams: usize,
}

fn log(started: Instant, what: &str) {
    println!("[{:6.1} s] {what}", started.elapsed().as_secs_f64());
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let bin = std::path::PathBuf::from(args.next().context("usage: chaos SERVER_BIN [S3S_FS]")?);
    let s3s = args.next().unwrap_or_else(|| "s3s-fs".into());
    let pairs = setting("CHAOS_PAIRS", 1000);
    let rate = setting("CHAOS_RATE", 500);
    let secs = setting("CHAOS_SECS", 30) as u64;
    let forget = std::env::var("CHAOS_FORGET_LAST_EVENT_ID").is_ok_and(|v| v == "1");
    let started = Instant::now();
    println!(
        "chaos: {pairs} pairs ({} members), {rate} messages/s, {secs} s per measured phase",
        pairs * 2
    );

    let run = RunDir::new()?;
    let pg = Postgres::start(&run.0)?;
    let s3 = S3::start(&run.0, &s3s)?;
    let line_port = free_port();
    let line_base = format!("http://127.0.0.1:{line_port}");
    let _line_server = Server::start(ServerSpec {
        bin: bin.clone(),
        name: "line",
        port: line_port,
        env: vec![],
        data_dir: run.0.join("line"),
        log_dir: run.0.clone(),
    })?;
    let shared_env = {
        let mut env = s3_env(&s3);
        env.extend([
            ("DATABASE_URL".into(), pg.url()),
            (
                "KIZUNA_LINE_API_BASE".into(),
                format!("{line_base}/__mock/line"),
            ),
            (
                "KIZUNA_TRUSTED_PROXY_HEADER".into(),
                "X-Forwarded-For".into(),
            ),
        ]);
        env
    };
    let server_env = std::env::var("CHAOS_SERVER_ENV")
        .unwrap_or_default()
        .split_whitespace()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
            _ => bail!("CHAOS_SERVER_ENV: {pair:?} is not NAME=value"),
        })
        .collect::<anyhow::Result<Vec<(String, String)>>>()?;
    // Each server's metrics on a port of its own: the run reads how many members each process's
    // match pool holds.
    let spec = |name: &'static str, metrics: u16| ServerSpec {
        bin: bin.clone(),
        name,
        port: free_port(),
        env: [
            shared_env.clone(),
            vec![("KIZUNA_METRICS_BIND".into(), format!("127.0.0.1:{metrics}"))],
            server_env.clone(),
        ]
        .concat(),
        data_dir: run.0.join(name),
        log_dir: run.0.clone(),
    };
    let metrics = [free_port(), free_port()];
    // A first: it runs the migrations.
    let mut a = Server::start(spec("a", metrics[0]))?;
    let mut b = Server::start(spec("b", metrics[1]))?;
    let both = vec![a.base(), b.base()];
    let lb = Balancer::new(both.clone());
    let line = Line {
        base: line_base.clone(),
        client: reqwest::Client::builder().no_proxy().build()?,
    };
    let db = sea_orm::Database::connect(pg.url()).await?;
    log(
        started,
        "cluster up: PostgreSQL, s3s-fs, mock LINE, servers A and B",
    );

    // The reviewer, put on the list through A's mock route (it writes the shared database).
    let reviewer = {
        let line_id = "U00000000000000000000000000c4a05e";
        let id_token = line.id_token(line_id).await?;
        let r = lb
            .client
            .post(format!("{}/__mock/reviewers", a.base()))
            .json(&json!({"userId": line_id}))
            .send()
            .await?;
        if !r.status().is_success() {
            bail!("making the reviewer: {}", r.status());
        }
        let mut reviewer = Member {
            index: usize::MAX,
            line_id: line_id.into(),
            token: String::new(),
            address: "10.255.255.254".into(),
            profile_id: 0,
            photo: String::new(),
        };
        let login = json!({"account": line_id, "password": line_id});
        let session = lb
            .ok(
                Some(&reviewer),
                Method::POST,
                "/api/user/login",
                Some(&login),
                &[("X-Line-Id-Token", &id_token)],
            )
            .await?;
        reviewer.token = session["token"].as_str().context("a session")?.into();
        reviewer
    };

    let mut members: Vec<Member> = stream::iter(0..pairs * 2)
        .map(|i| members::register(&lb, &line, i))
        .buffered(16)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    let ids = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT u.line_user_id AS line, p.id AS id FROM profiles p JOIN users u ON u.id = p.user_id",
        ))
        .await?;
    let ids: std::collections::HashMap<String, i64> = ids
        .iter()
        .map(|r| {
            Ok((
                r.try_get::<String>("", "line")?,
                r.try_get::<i64>("", "id")?,
            ))
        })
        .collect::<Result<_, sea_orm::DbErr>>()?;
    for m in &mut members {
        m.profile_id = *ids.get(&m.line_id).context("a registered profile")?;
    }
    log(
        started,
        &format!(
            "{} members registered with a photo and a proof",
            members.len()
        ),
    );
    stream::iter(&members)
        .map(|m| members::approve(&lb, &reviewer, m))
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<Vec<_>>>()?;
    log(started, "every member approved by the reviewer");
    // An approval reaches the other process's pool through PostgreSQL's NOTIFY "within moments"
    // (`matchmaking::PoolCache`): lists are asked for once both pools hold every member, and how
    // long that took is a figure of the run.
    let converged = members::pools_hold(&lb.client, &metrics, members.len()).await?;
    log(
        started,
        &format!(
            "both processes' pools hold the {} members ({} ms after the last approval)",
            members.len(),
            converged.as_millis()
        ),
    );
    let match_ids: Vec<i64> = stream::iter(0..pairs)
        .map(|p| members::match_pair(&lb, &members[2 * p], &members[2 * p + 1]))
        .buffered(32)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    log(started, &format!("{} pairs matched", match_ids.len()));

    let (stop_streams, streams_stop) = tokio::sync::watch::channel(false);
    let stream_client = reqwest::Client::builder()
        .no_proxy()
        .connect_timeout(Duration::from_secs(5))
        .build()?;
    let streams: Vec<Arc<sse::Stream>> = members
        .iter()
        .map(|m| {
            sse::keep_open(
                lb.clone(),
                stream_client.clone(),
                m.clone(),
                forget,
                streams_stop.clone(),
            )
        })
        .collect();
    let open = || {
        streams
            .iter()
            .filter(|s| s.open.load(Ordering::SeqCst))
            .count()
    };
    let waiting = Instant::now();
    while open() < streams.len() {
        if waiting.elapsed() > Duration::from_secs(60) {
            bail!("only {} of {} streams opened", open(), streams.len());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    log(started, &format!("{} event streams open", open()));

    // Every member sends at an even pace, staggered so that the whole sends `rate` a second.
    let sent: Arc<Mutex<Vec<Sent>>> = Arc::default();
    let sending = Arc::new(AtomicBool::new(true));
    let interval = Duration::from_secs_f64(members.len() as f64 / rate as f64);
    let t0 = Instant::now();
    let senders: Vec<_> = members
        .iter()
        .map(|m| {
            let (lb, m, sent, sending) = (lb.clone(), m.clone(), sent.clone(), sending.clone());
            let match_id = match_ids[m.index / 2];
            let offset = interval.mul_f64(m.index as f64 / members.len() as f64);
            tokio::spawn(async move {
                let mut n = 0u32;
                while sending.load(Ordering::SeqCst) {
                    tokio::time::sleep_until((t0 + offset + interval * n).into()).await;
                    if !sending.load(Ordering::SeqCst) {
                        break;
                    }
                    let client_id = format!("chaos-{:05}-{n:06}", m.index);
                    let body = json!({"clientMessageId": client_id, "text": format!("hello {n}")});
                    let began = Instant::now();
                    let answer = lb
                        .call(
                            Some(&m),
                            Method::POST,
                            &format!("/api/matches/{match_id}/messages"),
                            Some(&body),
                            &[],
                        )
                        .await;
                    let (acked, refused) = match answer {
                        Ok(Ok((_, stored))) => (
                            stored["messageId"].as_i64().map(|id| (Instant::now(), id)),
                            None,
                        ),
                        Ok(Err(refused)) => (None, Some(refused.to_string())),
                        Err(gave_up) => (None, Some(gave_up.to_string())),
                    };
                    sent.lock().expect("sent").push(Sent {
                        sender: m.index,
                        match_id,
                        client_id,
                        started: began,
                        acked,
                        refused,
                    });
                    n += 1;
                }
            })
        })
        .collect();
    let phase = Duration::from_secs(secs);
    let settle = Duration::from_secs(3);

    // 1. Two processes, measured after the senders settled.
    tokio::time::sleep(settle).await;
    let from = Instant::now();
    tokio::time::sleep(phase).await;
    if !a.running() || !b.running() {
        bail!(
            "a server exited by itself during the two-process phase: see the run's logs in {}",
            run.0.display()
        );
    }
    let two = Window {
        label: "2 processes",
        from,
        to: Instant::now(),
        streams: open(),
    };
    log(started, "two-process phase measured");
    // The phase's last sends are answered and delivered before the first kill, which would
    // otherwise time its own recovery as theirs.
    tokio::time::sleep(settle).await;

    // 2. Faults.
    let gap = phase / 3;
    for kill in 1..=3 {
        a.kill();
        log(started, &format!("kill -9 of A ({kill} of 3)"));
        tokio::time::sleep(Duration::from_millis(500)).await;
        a.restart()?;
        log(started, "A restarted");
        tokio::time::sleep(gap).await;
        if kill == 2 {
            pg.restart()?;
            log(started, "PostgreSQL restarted (stopped as a crash would)");
            tokio::time::sleep(gap).await;
        }
    }

    // 3. One process: B stops in order, its streams move to A.
    lb.set_rotation(vec![a.base()]);
    b.terminate();
    log(started, "B stopped: everything goes through A");
    // B's streams come back through A after the `retry:` they were told (2-4 s) and catch up:
    // measured after that, outside the fault.
    tokio::time::sleep(Duration::from_secs(10)).await;
    let from = Instant::now();
    tokio::time::sleep(phase).await;
    if !a.running() {
        bail!(
            "A exited by itself during the one-process phase: see the run's logs in {}",
            run.0.display()
        );
    }
    let one = Window {
        label: "1 process",
        from,
        to: Instant::now(),
        streams: open(),
    };
    log(started, "one-process phase measured");

    // 4. Drain.
    b.restart()?;
    lb.set_rotation(both.clone());
    sending.store(false, Ordering::SeqCst);
    for s in senders {
        s.await?;
    }
    let sent = std::mem::take(&mut *sent.lock().expect("sent"));
    log(
        started,
        &format!(
            "sending stopped: {} messages sent; streams catching up",
            sent.len()
        ),
    );
    let acked: Vec<i64> = sent.iter().filter_map(|s| s.acked.map(|a| a.1)).collect();
    let caught_up = || {
        let mut seen = std::collections::HashSet::new();
        for s in &streams {
            for e in s.events.lock().expect("events").iter() {
                if let Some(id) = e.message_id {
                    seen.insert(id);
                }
            }
        }
        acked.iter().all(|id| seen.contains(id))
    };
    let waiting = Instant::now();
    while !caught_up() && waiting.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Whatever is still on its way (a read of the last replay) gets a moment more.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let _ = stop_streams.send(true);

    let figures: Vec<check::Figures> = [&two, &one]
        .into_iter()
        .map(|window| {
            check::print_figures(
                window.label,
                window.from,
                window.to,
                window.streams,
                &sent,
                &streams,
            )
        })
        .collect();
    // The target (issue 46), on two processes at CHAOS_RATE=1000: every send offered acknowledged
    // (>= 99 % of 1,000 a second, for the window's edges) and delivery p99 <= 100 ms. Held when the
    // run offers that rate; printed beside the figures either way.
    let two_figures = &figures[0];
    let target_met = two_figures.per_sec >= TARGET_PER_SEC * 0.99
        && two_figures.delivery_p99_ms <= TARGET_P99_MS;
    let held = rate >= TARGET_PER_SEC as usize;
    println!(
        "target (2 processes, CHAOS_RATE=1000): >= {TARGET_PER_SEC} messages/s acknowledged, delivery p99 <= {TARGET_P99_MS} ms: {:.1} messages/s, p99 {:.1} ms: {}",
        two_figures.per_sec,
        two_figures.delivery_p99_ms,
        match (held, target_met) {
            (true, true) => "met".to_string(),
            (true, false) => "MISSED".to_string(),
            (false, _) => format!("not held (this run offers {rate} a second)"),
        }
    );
    // A send timed in a measured phase that was refused or given up fails the run: it is not the
    // answer the phase means to time.
    let failed_sends: usize = figures.iter().map(|f| f.failed).sum();
    let verdict = check::run(check::Run {
        db: &db,
        lb: &lb,
        line: &line,
        bases: &both,
        members: &members,
        match_ids: &match_ids,
        sent: &sent,
        streams: &streams,
    })
    .await?;
    let opens: usize = streams.iter().map(|s| s.opens.load(Ordering::SeqCst)).sum();
    println!(
        "streams: {} opened, {} reconnects through the run",
        streams.len(),
        opens.saturating_sub(streams.len())
    );
    log(started, "done");
    // Every process stops before the verdict's exit (which skips destructors).
    drop((a, b, _line_server, s3, pg));
    if failed_sends > 0 {
        println!(
            "chaos: FAIL: {failed_sends} sends begun in the measured phases were refused or given up (the run's logs: {})",
            run.0.display()
        );
        std::process::exit(1);
    }
    if verdict && held && !target_met {
        println!("chaos: the checker passed; the target was MISSED");
        let _ = std::fs::remove_dir_all(&run.0);
        std::process::exit(1);
    }
    if verdict {
        println!("chaos: PASS");
        let _ = std::fs::remove_dir_all(&run.0);
        Ok(())
    } else {
        println!("chaos: FAIL (the run's logs: {})", run.0.display());
        std::process::exit(1);
    }
}
