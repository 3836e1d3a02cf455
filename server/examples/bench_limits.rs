//! `just bench-limits`: what one rate-limit check costs, shared on PostgreSQL (one upsert into
//! `rate_allowances`, `crate::rate_limit`) and in the process's memory (SQLite's), measured as
//! a request makes it: one check after another (latency p50 / p99) and 32 at once over
//! 2,000 keys (checks a second). PostgreSQL on 127.0.0.1:5432 (user postgres); the database is
//! created and dropped.
//!
//! `cargo run --release -p kizuna-server --example bench_limits -- [checks]`

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use kizuna_server::{rate_limit::Limits, storage};
use sea_orm::{ConnectionTrait, Database};

const ADMIN: &str = "postgres://postgres@127.0.0.1:5432/postgres";

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at].as_secs_f64() * 1e3
}

async fn measure(label: &str, limits: &Limits, checks: usize) {
    // Generous allowances: every check is a real take, none refused early.
    let limiter = limits.per_minute("bench", 1_000_000);
    let mut times = Vec::with_capacity(checks);
    for n in 0..checks {
        let key = format!("member:{}", n % 2_000);
        let started = Instant::now();
        assert!(limiter.check(&key).await.is_ok());
        times.push(started.elapsed());
    }
    times.sort();
    let concurrent = 32;
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrent)
        .map(|t| {
            let limiter = Arc::clone(&limiter);
            tokio::spawn(async move {
                for n in 0..checks / concurrent {
                    let key = format!("member:{}", (t * 7919 + n) % 2_000);
                    let _ = limiter.check(&key).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let rate = (checks / concurrent * concurrent) as f64 / started.elapsed().as_secs_f64();
    println!(
        "{label:<28} one at a time: p50 {:.3} ms, p99 {:.3} ms; 32 at once: {:.0} checks/s",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        rate
    );
}

#[tokio::main]
async fn main() {
    let checks: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let name = format!("kizuna_bench_limits_{}", std::process::id());
    let admin = Database::connect(ADMIN)
        .await
        .expect("PostgreSQL on 127.0.0.1:5432");
    admin
        .execute_unprepared(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let url = format!("postgres://postgres@127.0.0.1:5432/{name}");
    let db = storage::connect(&url, None).await.unwrap();
    storage::migrate(&db).await.unwrap();
    println!("rate-limit checks ({checks} per run, keys over 2,000 members):");
    measure("PostgreSQL (shared)", &Limits::for_database(&db), checks).await;
    measure("in process (SQLite)", &Limits::in_process(), checks).await;
    db.close().await.ok();
    admin
        .execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .await
        .ok();
}
