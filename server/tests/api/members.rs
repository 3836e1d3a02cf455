//! What an operator runs for members and the daily job with the real binary, on SQLite and
//! PostgreSQL: `kizuna-server members export|delete` answer a request by hand through the
//! member's own use-cases, and `kizuna-server introductions` (cron, with
//! KIZUNA_INTRODUCTIONS_AT=off) records its run where the `KizunaDailyJobNotRun` alert looks.

use std::{io::Read, path::Path, process::Output, time::Duration};

use kizuna_server::{
    deletions,
    file_store::FileStore,
    storage::{self, departures},
};
use serde_json::{Value, json};

use crate::{
    helpers::{Api, Backend, jpeg, line_user_id, profile_payload, scratch_database, scratch_dir},
    on_both_backends,
    operations::{samples, until_ready, value_of},
    process::{Server, command, free_port},
};

/// Runs `kizuna-server <args>` on the data dir and database.
fn run(data_dir: &Path, url: Option<&str>, args: &[&str]) -> Output {
    command(data_dir, url, "")
        .env_remove("RUST_LOG")
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fails(out: Output) -> String {
    assert!(
        !out.status.success(),
        "succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

/// The entries of a zip file: name and bytes.
fn entries(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut entry = zip.by_index(i).unwrap();
            let mut out = Vec::new();
            entry.read_to_end(&mut out).unwrap();
            (entry.name().unwrap().to_string(), out)
        })
        .collect()
}

/// A member who can no longer open the app asks for a copy of their data, then for their
/// account's deletion: the operator's commands make the zip the member's own button makes and
/// delete as the member's own button does (files removed, the departure kept, the deletion
/// record written, their sessions refused). On SQLite the commands refuse while a server serves
/// the file; on PostgreSQL they run beside the serving process, which hears of the deletion.
async fn an_operator_answers_a_members_export_and_deletion_requests(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let url_in_force = url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let env = [("KIZUNA_INTRODUCTIONS_AT", "off")];
    let mut server = Server::start_with(&data_dir, url.as_deref(), "warn", &env).await;
    let api = Api::new(server.base.clone());
    let ana = api.new_user().await;
    let photo = api.upload_ok(&ana.token, jpeg(64, 48)).await;
    let verify = api.upload_ok(&ana.token, jpeg(48, 32)).await;
    let mut payload = profile_payload(&ana.line_id, std::slice::from_ref(&photo), &verify);
    payload["nickname"] = json!("Quillon");
    let r = api.create_profile(Some(&ana.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let bo = api.new_user().await;
    let members = |args: &[&str]| {
        let mut all = vec!["members"];
        all.extend_from_slice(args);
        run(&data_dir, url.as_deref(), &all)
    };

    if backend == Backend::Sqlite {
        let said = fails(members(&["delete", &ana.line_id]));
        assert!(
            said.contains("another kizuna-server process is serving the SQLite database"),
            "{said}"
        );
        server.terminate();
        assert!(server.wait(Duration::from_secs(30)).await);
    }
    let stranger = line_user_id();
    let said = fails(members(&["delete", &stranger]));
    assert!(
        said.contains(&format!("no account of {stranger}")),
        "{said}"
    );
    let said = fails(members(&["delete", "U0123"]));
    assert!(said.contains("not a LINE user id"), "{said}");

    let out_file = data_dir.join("copy-for-ana.zip");
    let out_text = out_file.display().to_string();
    let said = ok(members(&["export", &ana.line_id, &out_text]));
    assert!(
        said.starts_with(&format!(
            "wrote the data of {} to {out_text} (",
            ana.line_id
        )),
        "{said}"
    );
    let copy = entries(&out_file);
    let data: Value = serde_json::from_slice(
        &copy
            .iter()
            .find(|(name, _)| name == "data.json")
            .expect("data.json")
            .1,
    )
    .unwrap();
    assert!(data.to_string().contains("Quillon"), "{data}");
    let files_in_copy = copy
        .iter()
        .filter(|(name, _)| name.starts_with("files/"))
        .count();
    assert_eq!(files_in_copy, 2, "the photo and the proof");
    let said = fails(members(&["export", &ana.line_id, &out_text]));
    assert!(said.contains("exists already"), "{said}");

    let said = ok(members(&["delete", &ana.line_id]));
    assert!(
        said.starts_with(&format!("deleted the account of {}", ana.line_id)),
        "{said}"
    );
    let db = storage::connect(&url_in_force, None).await.unwrap();
    assert!(
        storage::users::find_by_line_id(&db, &ana.line_id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        storage::users::find_by_line_id(&db, &bo.line_id)
            .await
            .unwrap()
            .is_some()
    );
    let hash = departures::line_hash(&ana.line_id);
    assert!(departures::departed(&db, &hash).await.unwrap());
    let store = FileStore::local(&data_dir).unwrap();
    for file in [&photo, &verify] {
        assert!(!store.exists(&FileStore::original(file)).await.unwrap());
    }
    let record = deletions::recorded(&store).await.unwrap();
    assert!(record.iter().any(|r| r.line_hash == hash), "{record:?}");
    let said = fails(members(&["delete", &ana.line_id]));
    assert!(said.contains("no account of"), "{said}");

    if backend == Backend::Sqlite {
        server = Server::start_with(&data_dir, url.as_deref(), "warn", &env).await;
    }
    let api = Api::new(server.base.clone());
    assert_eq!(
        api.get("/api/user/my-info", Some(&ana.token))
            .await
            .status(),
        401
    );
    assert_eq!(
        api.get("/api/user/my-info", Some(&bo.token)).await.status(),
        200
    );
    db.close().await.ok();
    drop(server);
    std::fs::remove_dir_all(&data_dir).ok();
}

/// With KIZUNA_INTRODUCTIONS_AT=off no serving process runs the daily job: `kizuna-server
/// introductions` from cron does, and records its run in `job_runs`, so that every serving
/// process's scrape shows when it finished (what `KizunaDailyJobNotRun` reads), how long it took
/// and the lists it made. Run again, it says the day was recorded already.
async fn the_introductions_command_records_its_run_for_the_alert(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let metrics_bind = format!("127.0.0.1:{}", free_port());
    let server = Server::start_with(
        &data_dir,
        url.as_deref(),
        "warn",
        &[
            ("KIZUNA_INTRODUCTIONS_AT", "off"),
            ("KIZUNA_METRICS_BIND", &metrics_bind),
        ],
    )
    .await;
    let api = Api::new(server.base.clone());
    until_ready(&api).await;
    let scrape = || async {
        let text = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .get(format!("http://{metrics_bind}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        samples(&text)
    };
    let finished = "kizuna_daily_job_last_finished_timestamp_seconds";
    assert_eq!(
        value_of(&scrape().await, finished, &[]),
        None,
        "no run yet, none recorded"
    );

    let started = kizuna_server::clock::now_secs();
    let said = ok(run(&data_dir, url.as_deref(), &["introductions"]));
    assert!(said.contains("the run is recorded in job_runs"), "{said}");
    let scraped = scrape().await;
    let at = value_of(&scraped, finished, &[]).expect("the run is on the scrape");
    assert!(
        (started as f64 - 1.0..started as f64 + 60.0).contains(&at),
        "{at} against {started}"
    );
    let took = value_of(&scraped, "kizuna_daily_job_last_duration_seconds", &[]).unwrap();
    assert!((0.0..60.0).contains(&took), "{took}");
    assert_eq!(
        value_of(&scraped, "kizuna_daily_job_last_lists", &[]),
        Some(0.0)
    );

    let said = ok(run(&data_dir, url.as_deref(), &["introductions"]));
    assert!(
        said.contains("the day's run was recorded in job_runs already"),
        "{said}"
    );
    assert_eq!(value_of(&scrape().await, finished, &[]), Some(at));
    drop(server);
    std::fs::remove_dir_all(&data_dir).ok();
}

on_both_backends!(
    an_operator_answers_a_members_export_and_deletion_requests,
    the_introductions_command_records_its_run_for_the_alert
);
