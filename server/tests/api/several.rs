//! Several server processes, as on several machines behind a load balancer: two processes on one
//! PostgreSQL database and one S3 bucket (a real S3-compatible server, `s3`), each with a data
//! dir of its own. Each test is one row of the table of "what is shared" (docs/design.md,
//! "Several processes"): photos, rate limits and the stream cap, the match pool, chat presence
//! after a crash, and a second process on one SQLite file; also processes that start at once.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use kizuna_server::matchmaking::Pool;
use reqwest::Method;
use sea_orm::ConnectionTrait;
use serde_json::json;

use crate::{
    chat::{Events, client_id, matched_pair, post},
    helpers::{
        Api, Backend, TestApp, assert_error, empty_database, jpeg, scratch_dir, spawn_app_on_s3,
    },
    matchmaking::{Member, approved, ok_json, register, send},
    process::{Server, command, free_port, table_count},
    review::make_reviewer,
    s3::{BUCKET, S3Server},
};

/// A first process on a PostgreSQL database of its own, its files in a bucket of its own.
async fn first_process(tweak: impl FnOnce(&mut kizuna_server::configuration::Settings)) -> TestApp {
    spawn_app_on_s3(Backend::Postgres, &S3Server::start(), tweak).await
}

/// A second process on the first one's database and bucket, with a data dir of its own.
async fn second_process(
    first: &TestApp,
    tweak: impl FnOnce(&mut kizuna_server::configuration::Settings),
) -> TestApp {
    let url = first.database_url.clone();
    let s3 = first.s3.as_ref().expect("the first process is on S3");
    spawn_app_on_s3(Backend::Postgres, s3, move |s| {
        tweak(s);
        s.database_url = Some(url);
    })
    .await
}

/// Two processes hand out one allowance per member between them: 30 messages a minute in all,
/// not 30 on each; a refusal on either says how long to wait. Client log lines likewise.
#[tokio::test]
async fn a_rate_limit_is_one_allowance_across_processes_postgres() {
    let a = first_process(|_| {}).await;
    let b = second_process(&a, |_| {}).await;
    assert!(a.state.limits.is_shared() && b.state.limits.is_shared());
    let (mei, kai, id) = matched_pair(&a, 0).await;
    // 30 at once, then one more every two seconds: however slow the machine, no more than that
    // in all, whichever process takes them.
    let started = Instant::now();
    let mut sent = 0;
    let refused = loop {
        let through = if sent % 2 == 0 { &a } else { &b };
        let r = post(through, &mei, id, &client_id(sent), "hi").await;
        if r.status() != 201 {
            break r;
        }
        sent += 1;
        assert!(sent <= 60, "never refused");
    };
    let refills = (started.elapsed().as_secs_f64() / 2.0).floor() as usize;
    let limit = kizuna_core::rules::CHAT_MESSAGES_PER_MINUTE as usize;
    assert!(
        (limit..=limit + refills).contains(&sent),
        "{sent} in {:?}",
        started.elapsed()
    );
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_error(refused, 429, "E007").await;
    // The other member's allowance is their own, on both processes.
    ok_json(post(&b, &kai, id, &client_id(0), "hi back").await).await;

    // Log lines: 30 a minute per user, whichever process writes them.
    let started = Instant::now();
    let mut written = 0;
    for n in 0..40 {
        let through = if n % 2 == 0 { &a } else { &b };
        let r = through
            .api
            .client
            .request(Method::POST, through.api.url("/api/logger"))
            .bearer_auth(&mei.user.token)
            .json(&json!({"message": "line", "level": "info"}))
            .send()
            .await
            .unwrap();
        match r.status().as_u16() {
            204 => written += 1,
            429 => {}
            other => panic!("logger answered {other}"),
        }
    }
    let refills = (started.elapsed().as_secs_f64() / 2.0).floor() as usize;
    assert!((30..=30 + refills).contains(&written), "{written}");
}

/// SQLite serves one process: a second `kizuna-server serve` on the same file stops at start
/// and says why (the first goes on serving); once the first has stopped, another starts.
#[tokio::test]
async fn a_second_process_on_one_sqlite_file_refuses_to_start() {
    let data_dir = scratch_dir();
    let mut first = Server::start(&data_dir, None, "warn").await;
    let second = command(&data_dir, None, "warn")
        .env("KIZUNA_BIND", format!("127.0.0.1:{}", free_port()))
        .output()
        .unwrap();
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        said.contains("another kizuna-server process is serving the SQLite database")
            && said.contains("PostgreSQL"),
        "{said}"
    );
    let api = Api::new(first.base.clone());
    assert_eq!(api.get("/healthz", None).await.status(), 200);
    first.terminate();
    assert!(first.wait(Duration::from_secs(30)).await);
    let _third = Server::start(&data_dir, None, "warn").await;
    std::fs::remove_dir_all(&data_dir).ok();
}

/// Processes started at the same instant on one fresh PostgreSQL database (a simultaneous start
/// behind a load balancer) take turns at the migrations under an advisory lock: every one
/// serves, and the schema is migrated once. Five rounds of three, a fresh database each; some
/// process says it waited for another's migrations.
#[tokio::test]
async fn processes_started_at_once_migrate_the_database_once_postgres() {
    use sea_orm_migration::MigratorTrait;
    let migrations = kizuna_server::storage::migration::Migrator::migrations().len() as i64;
    let mut waited = 0;
    for round in 0..5 {
        let (url, database) = empty_database(Backend::Postgres).await;
        let url = url.unwrap();
        let dirs: Vec<_> = (0..3).map(|_| scratch_dir()).collect();
        let mut servers: Vec<Server> = dirs
            .iter()
            .map(|dir| Server::spawn(dir, Some(&url), "info", &[]))
            .collect();
        for server in &mut servers {
            server.until_healthy().await;
            let api = Api::new(server.base.clone());
            assert_eq!(
                api.get("/healthz", None).await.status(),
                200,
                "round {round}"
            );
        }
        assert_eq!(
            table_count(&url, "seaql_migrations").await,
            Some(migrations),
            "round {round}"
        );
        waited += servers
            .iter()
            .filter(|s| {
                s.log_text()
                    .contains("another process is migrating the database; waiting")
            })
            .count();
        drop(servers);
        drop(database);
        for dir in dirs {
            std::fs::remove_dir_all(dir).ok();
        }
    }
    assert!(waited > 0, "no process waited for another's migrations");
}

/// Waits until `holds` is true of `app`'s match pool; answers how long that took.
async fn pool_until(app: &TestApp, what: &str, holds: impl Fn(&Pool) -> bool) -> Duration {
    let started = Instant::now();
    loop {
        let pool = app.state.pool.get(&app.state.db).await.unwrap();
        if holds(&pool) {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{what}: not in the other process's pool within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A member approved, suspended, paused, back or deleted through one process is in (or out of)
/// the other's match pool within moments, applied member by member: neither process loads its
/// whole pool again (their time to live is a day here, so only the announcements can do it).
#[tokio::test]
async fn the_match_pool_follows_every_change_on_every_process_postgres() {
    let day =
        |s: &mut kizuna_server::configuration::Settings| s.pool_ttl = Duration::from_secs(86_400);
    let a = first_process(day).await;
    let b = second_process(&a, day).await;
    let (kai, _) = approved(&a, 1, false).await;
    // `approved` is the tests' shortcut past the review flow (which announces the change); b
    // loaded its pool at start, so it is told as the announcement would.
    b.state.pool.invalidate().await;
    let (mei, _) = register(&a, 0, true).await;
    // Both pools are loaded once: Kai is in, Mei (PENDING) is not.
    for app in [&a, &b] {
        let pool = app.state.pool.get(&app.state.db).await.unwrap();
        assert!(pool.get(kai.id as u64).is_some() && pool.get(mei.id as u64).is_none());
    }
    let loads = (a.state.pool.loads(), b.state.pool.loads());

    let reviewer = make_reviewer(&a).await;
    let decision = format!("/api/review/profiles/{}/decision", mei.id);
    let decide =
        |body: serde_json::Value| send(&a, Method::POST, &decision, &reviewer.token, Some(body));
    ok_json(decide(json!({"action": "APPROVE", "employer": "tsmc", "version": 1})).await).await;
    let took = pool_until(&b, "approved", |p| p.get(mei.id as u64).is_some()).await;
    eprintln!("approved through A, in B's pool after {took:?}");
    ok_json(decide(json!({"action": "SUSPEND", "reasons": ["SCAM"], "version": 2})).await).await;
    pool_until(&b, "suspended", |p| p.get(mei.id as u64).is_none()).await;

    // Kai pauses through B: A's pool lets him go; back, he returns.
    let pause = |paused: bool| {
        send(
            &b,
            Method::PUT,
            "/api/user/pause",
            &kai.user.token,
            Some(json!({"paused": paused})),
        )
    };
    ok_json(pause(true).await).await;
    pool_until(&a, "paused", |p| p.get(kai.id as u64).is_none()).await;
    ok_json(pause(false).await).await;
    pool_until(&a, "back", |p| p.get(kai.id as u64).is_some()).await;
    // Kai deletes his account through B.
    let r = send(
        &b,
        Method::DELETE,
        "/api/user/account",
        &kai.user.token,
        Some(json!({"lineAccessToken": null})),
    )
    .await;
    assert_eq!(r.status(), 204);
    pool_until(&a, "deleted", |p| p.get(kai.id as u64).is_none()).await;

    assert_eq!(
        (a.state.pool.loads(), b.state.pool.loads()),
        loads,
        "a change reloaded a whole pool"
    );
}

/// At most `CHAT_STREAMS_PER_MEMBER` streams per member across the processes, not on each; a
/// closed stream frees its slot on any of them.
#[tokio::test]
async fn the_stream_cap_holds_across_processes_postgres() {
    let a = first_process(|_| {}).await;
    let b = second_process(&a, |_| {}).await;
    let (mei, kai, id) = matched_pair(&a, 0).await;
    let cap = kizuna_core::rules::CHAT_STREAMS_PER_MEMBER as usize;
    let mut open = Vec::new();
    for n in 0..cap {
        open.push(Events::open(if n % 2 == 0 { &a } else { &b }, &mei).await);
    }
    for app in [&a, &b] {
        assert_error(
            app.get("/api/chat/events", Some(&mei.user.token)).await,
            429,
            "E007",
        )
        .await;
    }
    let _kai = Events::open(&b, &kai).await;
    // One closes on A: a stream opens on B (once A sees the connection go).
    drop(open.remove(0));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = b.get("/api/chat/events", Some(&mei.user.token)).await;
        if r.status() == 200 {
            break;
        }
        assert_error(r, 429, "E007").await;
        assert!(
            Instant::now() < deadline,
            "the closed stream's slot stays taken"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ok_json(post(&b, &kai, id, &client_id(1), "all of you?").await).await;
    for events in &mut open {
        events.expect("message").await;
    }
}

/// A stream that died with its process (kill -9) no longer counts as the member's presence: a
/// message sent a second later is pushed to them (before, the stream's row kept them "present",
/// pushless, for three keep-alive intervals, 45 s).
#[tokio::test]
async fn a_stream_that_died_with_its_process_is_not_presence_postgres() {
    let a = first_process(|_| {}).await;
    let (mei, kai, id) = matched_pair(&a, 0).await;
    // The other process is the real binary on the same database and bucket, verifying ID tokens
    // with A's mock platform; SIGKILL leaves its rows exactly as they were.
    let dir = scratch_dir();
    let line = a.api.url("/__mock/line");
    let s3 = a.s3.as_ref().unwrap().env();
    let mut env: Vec<(&str, &str)> = s3.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.push(("KIZUNA_LINE_API_BASE", &line));
    let mut b = Server::start_with(&dir, Some(&a.database_url), "warn", &env).await;
    let b_api = Api::new(b.base.clone());
    let r = b_api.get("/api/chat/events", Some(&kai.user.token)).await;
    assert_eq!(r.status(), 200);
    let mut stream = r.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("connected"));
    // While B lives, Kai is present: no push.
    ok_json(post(&a, &mei, id, &client_id(1), "are you there?").await).await;
    assert_eq!(message_pushes(&a, &kai).await, 0);

    b.child.kill().unwrap();
    b.child.wait().unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        count(&a, "SELECT COUNT(*) AS n FROM chat_presence").await,
        1,
        "the killed process's row is still there"
    );
    ok_json(post(&a, &mei, id, &client_id(2), "hello?").await).await;
    assert_eq!(message_pushes(&a, &kai).await, 1);
    drop(stream);
    std::fs::remove_dir_all(&dir).ok();
}

async fn message_pushes(app: &TestApp, to: &Member) -> i64 {
    count(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM push_outbox WHERE line_user_id = '{}' \
             AND kind = 'message'",
            to.user.line_id
        ),
    )
    .await
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    app.db
        .query_one_raw(sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            sql.to_string(),
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap()
}

/// The bytes of `path` as `token` gets them through `app` (status 200 asserted).
async fn bytes_of(app: &TestApp, path: &str, token: &str) -> Vec<u8> {
    let r = app.get(path, Some(token)).await;
    assert_eq!(r.status(), 200, "{path}");
    r.bytes().await.unwrap().to_vec()
}

/// Waits until neither process's store holds `file`.
async fn gone_from_both(a: &TestApp, b: &TestApp, file: &str) {
    let started = Instant::now();
    while a.stored(file).await || b.stored(file).await {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{file} is still stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Photos live in the bucket, not on the machine that took the upload: a photo uploaded through
/// one process displays through the other (the file and the proxy's variants, both directions),
/// for a member who may see it and for a reviewer (a proof of employment uploaded on A, seen on
/// B); a variant rendered by one is served by the other from the bucket; a file deleted through
/// either (a replaced avatar swept, a deleted account's photos) is gone for both; and the bucket
/// answers no one who does not sign with its key.
#[tokio::test]
async fn a_photo_uploaded_through_one_process_displays_through_the_other_postgres() {
    let a = first_process(|_| {}).await;
    let b = second_process(&a, |_| {}).await;
    assert!(a.data_dir != b.data_dir);
    let (mei, _) = register(&a, 0, true).await;
    let (kai, _) = crate::matchmaking::register_through(&b.api, &a, 1, false).await;
    let reviewer = make_reviewer(&b).await;
    // Each reviews the other process's uploads: the proof of employment and the photo.
    for (through, member, owner) in [(&b, &mei, &a), (&a, &kai, &b)] {
        for file in [&member.verify, &member.photo] {
            let path = format!("/api/file/fetch/{file}");
            assert_eq!(
                bytes_of(through, &path, &reviewer.token).await,
                bytes_of(owner, &path, &member.user.token).await
            );
        }
    }
    for member in [&mei, &kai] {
        crate::matchmaking::set_status(&a, member, "APPROVED").await;
    }
    // `set_status` is the tests' shortcut past the review flow, whose announcement would tell b.
    b.state.pool.invalidate().await;
    b.state.sessions.forget_cached();
    // Introduced to each other, each sees the other's photo through the other process.
    assert!(
        crate::matchmaking::listed_ids(&crate::matchmaking::introductions(&b, &kai).await)
            .contains(&mei.id)
    );
    assert!(
        crate::matchmaking::listed_ids(&crate::matchmaking::introductions(&a, &mei).await)
            .contains(&kai.id)
    );
    for (through, viewer, owner) in [(&b, &kai, &mei), (&a, &mei, &kai)] {
        let file = format!("/api/file/fetch/{}", owner.photo);
        let own = if std::ptr::eq(through, &a) { &b } else { &a };
        assert_eq!(
            bytes_of(through, &file, &viewer.user.token).await,
            bytes_of(own, &file, &owner.user.token).await
        );
        let card = format!("/_ipx/w_32,f_png/api/file/fetch/{}", owner.photo);
        let img =
            image::load_from_memory(&bytes_of(through, &card, &viewer.user.token).await).unwrap();
        assert_eq!((img.width(), img.height()), (32, 24));
    }
    // A variant rendered through A is in the bucket: B serves those very bytes.
    let variant = format!("/_ipx/w_20,f_webp/api/file/fetch/{}", kai.photo);
    let rendered = bytes_of(&a, &variant, &mei.user.token).await;
    assert_eq!(b.state.files.variant_count(&kai.photo).await.unwrap(), 2);
    assert_eq!(bytes_of(&b, &variant, &kai.user.token).await, rendered);

    // A replaced avatar (uploaded on B, replaced on A) swept by A's housekeeping: gone for both.
    let first_avatar = b.upload_ok(&kai.user.token, jpeg(40, 40)).await;
    assert_eq!(
        b.set_avatar(&kai.user.token, &first_avatar).await.status(),
        200
    );
    let second_avatar = a.upload_ok(&kai.user.token, jpeg(40, 40)).await;
    assert_eq!(
        a.set_avatar(&kai.user.token, &second_avatar).await.status(),
        200
    );
    let later = kizuna_server::clock::now_secs() + kizuna_server::cleanup::TEMP_FILE_TTL_SECS + 60;
    assert_eq!(
        kizuna_server::cleanup::sweep(&a.db, &a.state.files, later)
            .await
            .unwrap(),
        1
    );
    assert!(!b.stored(&first_avatar).await && b.stored(&second_avatar).await);
    for app in [&a, &b] {
        let r = app
            .get(
                &format!("/api/file/fetch/{first_avatar}"),
                Some(&kai.user.token),
            )
            .await;
        assert_error(r, 404, "E003").await;
        assert_eq!(
            app.get(
                &format!("/api/file/fetch/{second_avatar}"),
                Some(&kai.user.token)
            )
            .await
            .status(),
            200
        );
    }

    // Mei leaves through B: her photo (uploaded on A) and its variants go for both processes.
    let r = b
        .client
        .delete(b.url("/api/user/account"))
        .bearer_auth(&mei.user.token)
        .json(&json!({"lineAccessToken": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    for file in [&mei.photo, &mei.verify] {
        gone_from_both(&a, &b, file).await;
    }
    assert_eq!(a.state.files.variant_count(&mei.photo).await.unwrap(), 0);
    for app in [&a, &b] {
        let r = app
            .get(
                &format!("/api/file/fetch/{}", mei.photo),
                Some(&reviewer.token),
            )
            .await;
        assert_error(r, 404, "E003").await;
    }

    // The bucket is private: an unsigned GET of a stored photo, and one signed with another
    // key, are refused; the server's own key reads it (so the refusal is the signature's).
    let s3 = a.s3.as_ref().unwrap();
    let key = kizuna_server::file_store::FileStore::original(&kai.photo);
    let unsigned = reqwest::Client::new()
        .get(format!("{}/{BUCKET}/{key}", s3.endpoint))
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 403, "{}", unsigned.text().await.unwrap());
    let mut forged = s3.store();
    if let kizuna_server::configuration::FileStoreSettings::S3(s) = &mut forged {
        s.secret_access_key = "not-the-secret".into();
    }
    let forged = kizuna_server::file_store::FileStore::open(&forged, &a.data_dir).unwrap();
    assert!(
        forged.get(&key).await.is_err(),
        "a wrong signature reads nothing"
    );
    assert!(a.state.files.get(&key).await.unwrap().is_some());
}

/// A process started against an empty store while its database names files (a new machine
/// whose KIZUNA_FILE_STORE was forgotten, the wrong bucket) stops at start and says why, instead
/// of answering 404 for every photo; on the right store it starts.
#[tokio::test]
async fn a_start_against_an_empty_store_whose_database_names_files_says_so_postgres() {
    let a = first_process(|_| {}).await;
    register(&a, 0, true).await;
    let dir = scratch_dir();
    let refused = command(&dir, Some(&a.database_url), "warn")
        .env("KIZUNA_BIND", format!("127.0.0.1:{}", free_port()))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("the database names 2 stored files")
            && said.contains(&format!("local files under {}", dir.display()))
            && said.contains("Is this the file store of DATABASE_URL"),
        "{said}"
    );
    let env = a.s3.as_ref().unwrap().env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let _started = Server::start_with(&dir, Some(&a.database_url), "warn", &env).await;
    std::fs::remove_dir_all(&dir).ok();
}

/// `kizuna-server files copy-to-s3` moves a local store into the bucket: run again after a cut
/// (here: some objects already copied, one of them half-way, at another size), it copies what
/// is missing or different, reads each copy back, and checks the bucket holds every file the
/// database names; a process on the bucket then serves the photos.
#[tokio::test]
async fn the_copy_to_s3_is_resumable_and_verified_postgres() {
    let local = crate::helpers::spawn_app(Backend::Postgres).await;
    let mut members = Vec::new();
    for n in 0..3 {
        members.push(register(&local, n, n % 2 == 0).await.0);
    }
    let big = local
        .upload_ok(&members[0].user.token, jpeg(2400, 1800))
        .await;
    let s3 = S3Server::start();
    let bucket = kizuna_server::file_store::FileStore::open(&s3.store(), &local.data_dir).unwrap();
    // A run cut short: one file copied whole, one "half" (another size).
    let first = kizuna_server::file_store::FileStore::original(&members[0].photo);
    bucket
        .put(
            &first,
            local.state.files.get(&first).await.unwrap().unwrap(),
        )
        .await
        .unwrap();
    let half = kizuna_server::file_store::FileStore::original(&members[1].photo);
    bucket.put(&half, b"half".to_vec()).await.unwrap();

    let env = s3.env();
    let copy = || {
        command(&local.data_dir, Some(&local.database_url), "warn")
            .args(["files", "copy-to-s3"])
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .unwrap()
    };
    let out = copy();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 3 members × (photo + proof) + the big upload and its preview.
    assert!(
        said.contains("8 objects in local files under")
            && said.contains("7 copied and read back, 1 already in s3://kizuna-files")
            && said.contains("0 failed")
            && said.contains("the database names 7 files, 0 of them not in the bucket"),
        "{said}"
    );
    assert_eq!(s3.object_count(), 8);
    assert_eq!(
        bucket.get(&half).await.unwrap(),
        local.state.files.get(&half).await.unwrap()
    );
    // Again: nothing left to copy.
    let out = copy();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("0 copied and read back, 8 already in"),
        "{said}"
    );
    // Not configured for S3: refused, saying what to set.
    let out = command(&local.data_dir, Some(&local.database_url), "warn")
        .args(["files", "copy-to-s3"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("KIZUNA_FILE_STORE is not an s3://"));

    // A process on the bucket (and a data dir of its own) serves what the old machine stored.
    let moved = spawn_app_on_s3(Backend::Postgres, &s3, |s| {
        s.database_url = Some(local.database_url.clone())
    })
    .await;
    for m in &members {
        let path = format!("/api/file/fetch/{}", m.photo);
        assert_eq!(
            bytes_of(&moved, &path, &m.user.token).await,
            bytes_of(&local, &path, &m.user.token).await
        );
    }
    let preview = format!("/_ipx/w_400,f_webp/api/file/fetch/{big}");
    bytes_of(&moved, &preview, &members[0].user.token).await;
}
