//! `just bench-match`: matchmaking at scale. Generates valid synthetic members (payloads that
//! pass kizuna-core, spread over Taiwan's cities and the catalogues the way sign-ups would be),
//! bulk-loads them as APPROVED members (multi-row inserts) into a fresh database, then measures
//! on the real engine:
//!
//! - the match pool's load time and memory;
//! - one member's list computed on demand (`matchmaking::todays_list`, pool in memory): p50, p99;
//! - the whole daily job (`matchmaking::job::run`): wall time, lists, pushes enqueued.
//!
//! `cargo run --release -p kizuna-server --example bench_match -- <postgres|sqlite> <members>`
//! PostgreSQL on 127.0.0.1:5432 (user postgres); the database is created and dropped.

use std::time::{Duration, Instant};

use kizuna_core::{
    Drink, Education, IncomeRange, OccupationType, Smoke, catalogue, date::Date,
    profile::UserProfileCreate,
};
use kizuna_server::{
    matchmaking::{self, PoolCache, job},
    storage::{
        self,
        entity::{match_pool, profile, user},
        match_pool as pool_rows,
    },
};
use sea_orm::{ActiveValue::Set, ConnectionTrait, Database, DatabaseConnection, EntityTrait};
use serde_json::{Value, json};

/// splitmix64: the same members every run.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn weighted<T: Copy>(&mut self, items: &[(T, u32)]) -> T {
        let total: u32 = items.iter().map(|(_, w)| w).sum();
        let mut at = self.below(total as usize) as u32;
        for (item, weight) in items {
            if at < *weight {
                return *item;
            }
            at -= weight;
        }
        items[0].0
    }

    fn distinct(&mut self, list: &[catalogue::Tag], n: usize) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        while out.len() < n.min(list.len()) {
            let id = list[self.below(list.len())].id;
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out.sort();
        out
    }
}

fn hex(n: u64, salt: u64) -> String {
    format!("{n:016x}{salt:016x}")
}

/// A registration payload as the web app would send it.
fn payload(n: u64, s: &mut Stream) -> Value {
    let line_id = format!("U{}", hex(n, 0xb0b));
    let cities = catalogue::cities();
    // Most sign-ups live in the six big cities (they are first in the catalogue).
    let city = if s.below(10) < 8 {
        &cities[s.below(6.min(cities.len()))]
    } else {
        &cities[s.below(cities.len())]
    };
    let (gender, wants) = s.weighted(&[
        (("FEMALE", "MALE"), 47),
        (("MALE", "FEMALE"), 47),
        (("FEMALE", "FEMALE"), 2),
        (("MALE", "MALE"), 2),
        (("NON_BINARY", "ANY"), 2),
    ]);
    let female = gender == "FEMALE";
    let year = 1976 + s.below(25);
    let t = catalogue::tags();
    let mut conditions = Vec::new();
    if s.below(2) == 0 {
        let from = 24 + s.below(12);
        conditions.push(json!({"type": "AGE", "from": from, "to": from + 6 + s.below(12)}));
    }
    if s.below(3) == 0 {
        conditions.push(if female {
            json!({"type": "HEIGHT", "from": 165 + s.below(10), "to": 0})
        } else {
            json!({"type": "HEIGHT", "from": 0, "to": 165 + s.below(15)})
        });
    }
    if s.below(4) == 0 {
        conditions.push(json!({"type": "EDUCATION", "value": "BACHELOR"}));
    }
    let mut body = json!({
        "account": line_id, "password": line_id,
        "nickname": format!("Member {n}"), "name": format!("Synthetic Person {n}"),
        "gender": gender, "matchGender": wants,
        "occupationType": OccupationType::ALL[s.below(OccupationType::ALL.len())].as_str(),
        "occupation": "Engineer",
        "height": if female { 150 } else { 162 } + s.below(28),
        "incomeRange": IncomeRange::ALL[s.below(IncomeRange::ALL.len())].as_str(),
        "birthday": format!("{year}-{:02}-{:02}", 1 + s.below(12), 1 + s.below(28)),
        "education": Education::ALL[s.below(Education::ALL.len())].as_str(),
        "marriageRecord": 0, "hasChildren": 0,
        "smoke": Smoke::ALL[s.below(Smoke::ALL.len())].code(),
        "tattoo": "NONE",
        "drink": Drink::ALL[s.below(Drink::ALL.len())].code(),
        "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
        "personalityTagIds": s.distinct(t.personality, 2),
        "exerciseTagIds": s.distinct(t.exercise, 1),
        "hobbyTagIds": s.distinct(t.hobby, 3),
        "marriageTypeTagIds": s.distinct(t.marriage_type, 1),
        "fertilityPlanTagIds": s.distinct(t.fertility_plan, 1),
        "petTagIds": s.distinct(t.pet, 1),
        "city": city.code,
        "recommendDistanceKm": s.weighted(&[(0u32, 15), (10, 10), (20, 20), (30, 25), (50, 20), (100, 10)]),
        "verifyMethod": "COMPANY_EMAIL", "companyEmail": format!("m{n}@tsmc.com"),
        "verifyTempFileName": hex(n, 0xf11e),
        "photoNameList": [hex(n, 0x9407)],
        "valueItem": conditions,
    });
    // Seven in ten share their position (near the city), the rest are placed at the seat.
    if s.below(10) < 7 {
        let o = body.as_object_mut().unwrap();
        o.insert(
            "latitude".into(),
            json!(city.latitude + (s.unit() - 0.5) * 0.2),
        );
        o.insert(
            "longitude".into(),
            json!(city.longitude + (s.unit() - 0.5) * 0.2),
        );
    }
    body
}

fn rss_mb() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
            / 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// One batch of rows to insert.
type Batch = (
    Vec<user::ActiveModel>,
    Vec<profile::ActiveModel>,
    Vec<match_pool::Model>,
);

async fn generate(db: &DatabaseConnection, members: u64, today: Date, now: i64) {
    let chunk = if db.get_database_backend() == sea_orm::DbBackend::Sqlite {
        500
    } else {
        1000
    };
    let started = Instant::now();
    // Members are made and validated by the core on a thread of their own while the database
    // takes the previous batch.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Batch>(4);
    let maker = std::thread::spawn(move || {
        let mut s = Stream(20261124);
        let mut n = 1u64;
        while n <= members {
            let (mut users, mut profiles, mut pools) = (Vec::new(), Vec::new(), Vec::new());
            for id in n..(n + chunk).min(members + 1) {
                let body = payload(id, &mut s);
                let valid = UserProfileCreate::from_json(body)
                    .and_then(|c| c.parse(today))
                    .unwrap_or_else(|errors| {
                        panic!("the generator made an invalid member: {errors:?}")
                    });
                let hash = hex(id, 0x4a54);
                users.push(user::ActiveModel {
                    id: Set(id as i64),
                    line_user_id: Set(valid.account.as_str().to_string()),
                    display_name: Set(None),
                    avatar_file_id: Set(None),
                    created_at: Set(now),
                });
                profiles.push(profile::ActiveModel {
                    id: Set(id as i64),
                    user_id: Set(id as i64),
                    status: Set(profile::Status::Approved),
                    submission_hash: Set(hash.clone()),
                    payload: Set("{}".into()),
                    nickname: Set(Some(valid.nickname.clone())),
                    created_at: Set(now),
                    updated_at: Set(now),
                    ..Default::default()
                });
                pools.push(pool_rows::snapshot(id as i64, &hash, &valid).expect("a home cell"));
            }
            if tx.blocking_send((users, profiles, pools)).is_err() {
                return;
            }
            n += chunk;
        }
    });
    while let Some((users, profiles, pools)) = rx.recv().await {
        user::Entity::insert_many(users)
            .exec_without_returning(db)
            .await
            .unwrap();
        profile::Entity::insert_many(profiles)
            .exec_without_returning(db)
            .await
            .unwrap();
        match_pool::Entity::insert_many(
            pools
                .into_iter()
                .map(sea_orm::IntoActiveModel::into_active_model),
        )
        .exec_without_returning(db)
        .await
        .unwrap();
    }
    maker.join().expect("the generator does not panic");
    // Activity spread over the last 30 days.
    let spread = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => {
            format!("UPDATE users SET last_active_at = {now} - (id % 30) * 86400")
        }
        _ => format!("UPDATE users SET last_active_at = {now} - (id % 30) * 86400"),
    };
    db.execute_unprepared(&spread).await.unwrap();
    if db.get_database_backend() == sea_orm::DbBackend::Postgres {
        db.execute_unprepared("ANALYZE").await.unwrap();
    }
    println!(
        "  generated and loaded {members} valid approved members in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}

/// The targets (issue 46), stated at 1,000,000 members on PostgreSQL; a smaller run is held to
/// the same bounds. A miss exits 1 after the run printed its figures.
const ON_DEMAND_P99_MS: f64 = 10.0;
const JOB_SECS: f64 = 120.0;
const PEAK_RSS_MB: u64 = 1500;

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

/// A timed answer that is not the one the run means to time: stops the run (exit 1).
fn fail(what: &str) -> ! {
    eprintln!("FAIL: {what}");
    std::process::exit(1);
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let backend = args.get(1).map(String::as_str).unwrap_or("postgres");
    let members: u64 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let samples: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let now = kizuna_server::clock::now_secs();
    let today = Date::taipei_day(now).unwrap();
    let name = format!("kizuna_bench_match_{members}");
    let dir = std::env::temp_dir().join(&name);
    let url = match backend {
        "postgres" => {
            let admin = Database::connect("postgres://postgres@127.0.0.1:5432/postgres")
                .await
                .expect("PostgreSQL on 127.0.0.1:5432");
            admin
                .execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .await
                .unwrap();
            admin
                .execute_unprepared(&format!("CREATE DATABASE {name}"))
                .await
                .unwrap();
            format!("postgres://postgres@127.0.0.1:5432/{name}")
        }
        _ => {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            format!("sqlite://{}/bench.db?mode=rwc", dir.display())
        }
    };
    println!("== {backend}, {members} approved members");
    let db = storage::connect(&url, None).await.unwrap();
    storage::migrate(&db).await.unwrap();
    generate(&db, members, today, now).await;

    // On demand: the pool in memory (as a serving process keeps it), one member's list.
    let cache = PoolCache::new(Duration::from_secs(24 * 3600), 0);
    let (rss_before, _) = rss_mb();
    let started = Instant::now();
    let pool = cache.get(&db).await.unwrap();
    let (rss_after, _) = rss_mb();
    println!(
        "  pool: {} members, {} MB of MatchProfiles ({} B each), loaded in {:.1}s; RSS {} -> {} MB",
        pool.len(),
        pool.bytes() / 1_000_000,
        std::mem::size_of::<kizuna_core::matching::MatchProfile>(),
        started.elapsed().as_secs_f64(),
        rss_before,
        rss_after
    );
    let mut s = Stream(7);
    let mut times = Vec::with_capacity(samples);
    let mut picked = 0;
    for _ in 0..samples {
        let viewer = 1 + s.below(members as usize) as i64;
        let started = Instant::now();
        let list = matchmaking::todays_list(&db, &cache, viewer, today, now)
            .await
            .unwrap()
            .expect("an approved member");
        times.push(started.elapsed());
        picked += list.len();
    }
    times.sort();
    let p99 = percentile(&times, 0.99);
    println!(
        "  on demand, one member's list ({samples} members, {:.1} introductions each): p50 {:.1} ms, p99 {p99:.1} ms, max {:.1} ms (target p99 <= {ON_DEMAND_P99_MS} ms: {})",
        picked as f64 / samples as f64,
        percentile(&times, 0.5),
        percentile(&times, 1.0),
        verdict(p99 <= ON_DEMAND_P99_MS)
    );
    // A timed list that came back empty timed nothing worth the name.
    if picked == 0 {
        fail(&format!(
            "{backend} {members}: none of the {samples} lists made on demand introduced anyone"
        ));
    }
    let mut missed = Vec::new();
    if p99 > ON_DEMAND_P99_MS {
        missed.push(format!("on-demand p99 {p99:.1} ms"));
    }
    let pool_members = pool.len();
    drop(pool);

    // The daily job for the next day: every member's list and the morning pushes.
    let tomorrow = Date::from_days_since_epoch(i64::from(today.days_since_epoch()) + 1).unwrap();
    let started = Instant::now();
    let report = job::run(&db, tomorrow, now + 86_400, "bench")
        .await
        .unwrap();
    let wall = started.elapsed().as_secs_f64();
    let (_, peak) = rss_mb();
    println!(
        "  daily job: {wall:.1} s wall (target <= {JOB_SECS} s: {}; {} members, {} lists, {} introductions, {} pushes enqueued; \
         load {:.1}s, lists with their pushes {:.1}s [scan {:.1}s, pick {:.1}s, store {:.1}s, overlapped], other pushes {:.1}s); \
         peak RSS {peak} MB (target < {PEAK_RSS_MB} MB: {})",
        verdict(wall <= JOB_SECS),
        report.members,
        report.lists,
        report.introductions,
        report.pushes,
        report.load_secs,
        report.lists_secs,
        report.scan_secs,
        report.pick_secs,
        report.store_secs,
        report.push_secs,
        verdict(peak < PEAK_RSS_MB)
    );
    // The job must have done its work for every member: a run that made nothing is no figure.
    if report.members != pool_members || report.lists == 0 || report.introductions == 0 {
        fail(&format!(
            "{backend} {members}: the daily job covered {} of the pool's {pool_members} members and made {} lists with {} introductions",
            report.members, report.lists, report.introductions
        ));
    }
    // What it says it wrote is what the tables hold: each introduction and morning push once.
    let scalar = |query: String| {
        let db = &db;
        async move {
            db.query_one_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                query,
            ))
            .await
            .unwrap()
            .unwrap()
            .try_get_by_index::<i64>(0)
            .unwrap() as usize
        }
    };
    let day = storage::matchmaking::day_number(tomorrow);
    let stored = scalar(format!(
        "SELECT COUNT(*) FROM introductions WHERE day = {day}"
    ))
    .await;
    let pushes =
        scalar("SELECT COUNT(*) FROM push_outbox WHERE kind = 'introductions'".into()).await;
    if stored != report.introductions || pushes != report.pushes || pushes == 0 {
        fail(&format!(
            "{backend} {members}: the job reported {} introductions and {} pushes, the tables hold {stored} and {pushes}",
            report.introductions, report.pushes
        ));
    }
    if wall > JOB_SECS {
        missed.push(format!("daily job {wall:.1} s"));
    }
    if peak >= PEAK_RSS_MB {
        missed.push(format!("peak RSS {peak} MB"));
    }
    db.close().await.ok();
    if backend == "postgres" {
        let admin = Database::connect("postgres://postgres@127.0.0.1:5432/postgres")
            .await
            .unwrap();
        admin
            .execute_unprepared(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await
            .unwrap();
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if !missed.is_empty() {
        println!(
            "  {backend} {members}: targets MISSED: {} (every timed answer was the one meant)",
            missed.join(", ")
        );
        std::process::exit(1);
    }
    println!("  {backend} {members}: every target met");
}
