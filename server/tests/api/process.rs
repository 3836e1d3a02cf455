//! The `kizuna-server` binary itself, as an operator runs it: `migrate`, refusing an unsafe
//! configuration, graceful shutdown, and what its log holds.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command},
    time::{Duration, Instant},
};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::helpers::{
    Api, Backend, empty_database, jpeg, profile_payload, scratch_database, scratch_dir,
};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_kizuna-server");

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The binary with a data dir of its own, the given database and log level, no web app.
pub(crate) fn command(data_dir: &Path, database_url: Option<&str>, rust_log: &str) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("KIZUNA_DATA_DIR", data_dir)
        .env("KIZUNA_WEB_DIR", data_dir.join("web"))
        // Stops at once unless a test is about the drain (`operations.rs`).
        .env("KIZUNA_DRAIN_SECS", "0")
        .env("RUST_LOG", rust_log);
    if let Some(url) = database_url {
        cmd.env("DATABASE_URL", url);
    }
    cmd
}

/// A running server process; killed if the test ends before it stops.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) base: String,
    log: PathBuf,
}

impl Server {
    pub(crate) async fn start(
        data_dir: &Path,
        database_url: Option<&str>,
        rust_log: &str,
    ) -> Server {
        Server::start_with(data_dir, database_url, rust_log, &[]).await
    }

    /// `start` with extra environment variables.
    pub(crate) async fn start_with(
        data_dir: &Path,
        database_url: Option<&str>,
        rust_log: &str,
        env: &[(&str, &str)],
    ) -> Server {
        let mut server = Server::spawn(data_dir, database_url, rust_log, env);
        server.until_healthy().await;
        server
    }

    /// Starts the process without waiting for it to serve (several at the same instant).
    pub(crate) fn spawn(
        data_dir: &Path,
        database_url: Option<&str>,
        rust_log: &str,
        env: &[(&str, &str)],
    ) -> Server {
        let port = free_port();
        let log = data_dir.join("server.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = command(data_dir, database_url, rust_log)
            .env("KIZUNA_BIND", format!("127.0.0.1:{port}"))
            .envs(env.iter().copied())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
            log,
        }
    }

    /// Waits until /healthz answers 200 (30 s at most); fails at once if the process exited.
    pub(crate) async fn until_healthy(&mut self) {
        let api = Api::new(self.base.clone());
        let started = Instant::now();
        loop {
            if let Ok(r) = api.client.get(api.url("/healthz")).send().await
                && r.status() == StatusCode::OK
            {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the server exited ({status}): {}", self.log_text());
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the server did not come up: {}",
                self.log_text()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(crate) fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub(crate) fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit on its own; answers whether it exited cleanly.
    pub(crate) async fn wait(&mut self, limit: Duration) -> bool {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            assert!(started.elapsed() < limit, "the server did not stop");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The rows of `table` (None: it cannot be read).
pub(crate) async fn table_count(url: &str, table: &str) -> Option<i64> {
    use sea_orm::ConnectionTrait;
    let db = sea_orm::Database::connect(url).await.unwrap();
    let row = db
        .query_one_raw(sea_orm::Statement::from_string(
            db.get_database_backend(),
            format!("SELECT COUNT(*) AS n FROM {table}"),
        ))
        .await
        .ok()??;
    db.close().await.ok();
    row.try_get::<i64>("", "n").ok()
}

async fn migrate_creates_the_schema_and_can_run_again(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = empty_database(backend).await;
    let url_in_force = url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    for run in 0..2 {
        let out = command(&data_dir, url.as_deref(), "info")
            .arg("migrate")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "run {run}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for table in [
        "users",
        "sessions",
        "files",
        "profiles",
        "review_history",
        "route_rules",
        "reviewers",
        "push_outbox",
        "line_friendships",
        "line_webhook_events",
        "email_codes",
    ] {
        assert_eq!(table_count(&url_in_force, table).await, Some(0), "{table}");
    }
    let out = command(&data_dir, url.as_deref(), "info")
        .arg("serve-forever")
        .output()
        .unwrap();
    assert!(!out.status.success(), "an unknown command is an error");
    std::fs::remove_dir_all(&data_dir).ok();
}

#[tokio::test]
async fn the_mock_will_not_start_beside_real_line_credentials() {
    let data_dir = scratch_dir();
    let out = command(&data_dir, None, "info")
        .env("KIZUNA_LINE_CHANNEL_SECRET", "a-real-secret")
        .env("KIZUNA_BIND", format!("127.0.0.1:{}", free_port()))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("KIZUNA_LINE_MOCK=false"), "{said}");
    assert!(
        !said.contains("a-real-secret"),
        "the secret itself is never printed"
    );
    std::fs::remove_dir_all(&data_dir).ok();
}

/// SIGTERM while an upload is half sent: the upload still completes and is stored whole, new
/// connections are refused, and the process exits cleanly.
async fn a_shutdown_lets_requests_in_flight_finish(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let url_in_force = url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let mut server = Server::start(&data_dir, url.as_deref(), "info").await;
    let api = Api::new(server.base.clone());
    let client = &api.client;
    let token = api.new_user().await.token;

    // A multipart upload whose body arrives in two halves, with the shutdown in between.
    let photo = jpeg(640, 480);
    let boundary = "kizuna-shutdown-test";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\n\
         Content-Type: image/jpeg\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&photo);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let (send, chunks) = mpsc::channel::<Result<Vec<u8>, std::io::Error>>(2);
    let half = body.len() / 2;
    send.send(Ok(body[..half].to_vec())).await.unwrap();
    let request = client
        .post(format!("{}/api/file/tempUpload", server.base))
        .bearer_auth(&token)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .header("content-length", body.len())
        .body(reqwest::Body::wrap_stream(tokio_stream_from(chunks)))
        .send();
    let in_flight = tokio::spawn(request);
    tokio::time::sleep(Duration::from_millis(300)).await;

    server.terminate();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        client
            .get(format!("{}/healthz", server.base))
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_err(),
        "no new connections once shutting down"
    );
    send.send(Ok(body[half..].to_vec())).await.unwrap();
    drop(send);
    let answer = in_flight.await.unwrap().unwrap();
    assert_eq!(answer.status(), 200, "the upload in flight finished");
    let uploaded: Value = answer.json().await.unwrap();
    let file_name = uploaded["fileName"].as_str().unwrap().to_string();
    assert!(server.wait(Duration::from_secs(30)).await, "a clean exit");
    assert!(server.log_text().contains("shutting down"));

    // Stored whole: its row and its bytes.
    assert_eq!(table_count(&url_in_force, "files").await, Some(1));
    let stored = data_dir
        .join("files")
        .join(&file_name[..2])
        .join(&file_name);
    let img = image::load_from_memory(&std::fs::read(stored).unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (640, 480));
    std::fs::remove_dir_all(&data_dir).ok();
}

fn tokio_stream_from(
    mut chunks: mpsc::Receiver<Result<Vec<u8>, std::io::Error>>,
) -> impl futures_util::Stream<Item = Result<Vec<u8>, std::io::Error>> {
    futures_util::stream::poll_fn(move |cx| chunks.poll_recv(cx))
}

/// Even at debug level the log holds no token, ID token, LINE user id or profile text, while it
/// does record the requests (so the check is not vacuous).
#[tokio::test]
async fn the_log_holds_no_secrets_and_no_profile_text() {
    the_log_at_level_holds_no_secrets("debug").await;
}

/// The same at trace level, every crate's lines included.
#[tokio::test]
async fn the_log_at_trace_level_holds_no_secrets_either() {
    the_log_at_level_holds_no_secrets("trace").await;
}

/// A run at `level` that logs in, registers, calls the paths naming a LINE user id and sends
/// client log lines holding one: the log records it all and holds none of the secrets.
async fn the_log_at_level_holds_no_secrets(level: &str) {
    let data_dir = scratch_dir();
    let mut server = Server::start(&data_dir, None, level).await;
    let api = Api::new(server.base.clone());
    let user = api.new_user().await;
    let (id_token, token) = (user.id_token.clone(), user.token.clone());
    let photo = api.upload_ok(&token, jpeg(64, 64)).await;
    let employee_id = api.upload_ok(&token, jpeg(64, 48)).await;
    let mut payload = profile_payload(&user.line_id, std::slice::from_ref(&photo), &employee_id);
    let secrets = [
        ("nickname", "Zephyrine"),
        ("name", "Quillon Marsh-Oyelaran"),
        (
            "aboutMe",
            "I collect antique barometers and restore them on weekends.",
        ),
        ("address", "Xinyi District, Songren Road 7"),
        (
            "datingQuestion",
            "What is the loneliest lighthouse you know?",
        ),
        ("companyEmail", "quillon.marsh@tsmc.com"),
        ("verifyDescription", "Badge number 88-1234"),
    ];
    for (field, value) in secrets {
        payload[field] = json!(value);
    }
    let r = api.create_profile(Some(&id_token), &payload).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    // A failing call too: the refused value must not be echoed into the log either.
    let mut refused = payload.clone();
    refused["nickname"] = json!("Obsidian-Nightingale".repeat(5));
    let r = api.create_profile(Some(&id_token), &refused).await;
    assert_eq!(r.status(), 422);
    for path in [
        "/api/user/my-info",
        &format!("/_ipx/w_32/api/file/fetch/{photo}"),
        &format!("/api/user/review-status/{}", user.line_id),
        &format!("/__mock/line/users/{}", user.line_id),
    ] {
        assert_eq!(api.get(path, Some(&token)).await.status(), 200, "{path}");
    }
    // The web app's log lines, at every level, quoting the LINE user id as a client might.
    let upper = user.line_id.to_uppercase();
    let client_lines = [
        ("error", format!("LIFF profile failed for {}", user.line_id)),
        ("warn", format!("{{\"userId\":\"{upper}\"}}")),
        (
            "info",
            format!("opened /user/review-status/%55{}", &user.line_id[1..]),
        ),
        ("debug", format!("user={}.", user.line_id)),
        ("trace", format!("LIFF context {}", user.line_id)),
    ];
    for (level, message) in &client_lines {
        let r = api
            .client
            .post(api.url("/api/logger"))
            .bearer_auth(&token)
            .json(&json!({"level": level, "message": message}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204, "{level}");
    }
    server.terminate();
    assert!(server.wait(Duration::from_secs(30)).await);

    let log = server.log_text();
    assert!(log.contains("login"), "the log records the requests: {log}");
    assert!(log.contains("profile submitted"), "{log}");
    assert!(log.contains("request done"), "{log}");
    let mut leaked: Vec<&str> = vec![];
    assert!(
        log.contains("{lineId}"),
        "the paths holding it were logged: {log}"
    );
    // The client's lines are written at their level, the id masked.
    let written = [
        "LIFF profile failed for {lineId}",
        "{\"userId\":\"{lineId}\"}",
        "opened /user/review-status/{lineId}",
        "user={lineId}.",
        "LIFF context {lineId}",
    ];
    let shown = if level == "trace" { 5 } else { 4 };
    for line in &written[..shown] {
        assert!(log.contains(line), "{line} was not logged: {log}");
    }
    for needle in [
        id_token.as_str(),
        token.as_str(),
        "Obsidian-Nightingale",
        // The LINE user id, also in the other case and without its "U".
        user.line_id.as_str(),
        upper.as_str(),
        &user.line_id[1..],
    ]
    .into_iter()
    .chain(secrets.iter().map(|(_, v)| *v))
    {
        if log.contains(needle) {
            leaked.push(needle);
        }
    }
    // The JWT's signature alone is already a secret's worth of text.
    let signature = id_token.rsplit('.').next().unwrap();
    if log.contains(signature) {
        leaked.push("the ID token's signature");
    }
    assert!(leaked.is_empty(), "the log holds {leaked:?}");
    std::fs::remove_dir_all(&data_dir).ok();
}

/// A deleted account's files, with the process killed (SIGKILL) the moment the deletion answered,
/// whatever its removal had done by then: the next process finishes the removal at start.
async fn a_deletion_cut_short_by_kill_9_is_finished_by_the_next_process(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let url_in_force = url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let mut server = Server::start(&data_dir, url.as_deref(), "info").await;
    let api = Api::new(server.base.clone());
    let user = api.new_user().await;
    let mut files = Vec::new();
    // As many as someone without a profile may hold unclaimed.
    for _ in 0..kizuna_core::rules::UNCLAIMED_UPLOADS_WITHOUT_PROFILE {
        files.push(api.upload_ok(&user.token, jpeg(320, 240)).await);
    }
    let store = kizuna_server::file_store::FileStore::local(&data_dir).unwrap();
    let stored = |files: Vec<String>| {
        let store = store.clone();
        async move {
            let mut n = 0;
            for f in &files {
                n += usize::from(
                    store
                        .exists(&kizuna_server::file_store::FileStore::original(f))
                        .await
                        .unwrap(),
                );
            }
            n
        }
    };
    assert_eq!(stored(files.clone()).await, files.len());
    let r = api
        .client
        .delete(api.url("/api/user/account"))
        .bearer_auth(&user.token)
        .json(&json!({"lineAccessToken": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    // std's kill is SIGKILL: no shutdown, no finishing of anything spawned.
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let left = stored(files.clone()).await;
    eprintln!("the killed process left {left} of {} files", files.len());
    assert_eq!(table_count(&url_in_force, "users").await, Some(0));

    let _next = Server::start(&data_dir, url.as_deref(), "info").await;
    let started = Instant::now();
    while stored(files.clone()).await > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the next process did not remove the deleted account's files"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let started = Instant::now();
    while table_count(&url_in_force, "file_removals").await != Some(0) {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "removals still queued"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    std::fs::remove_dir_all(&data_dir).ok();
}

crate::on_both_backends!(
    migrate_creates_the_schema_and_can_run_again,
    a_shutdown_lets_requests_in_flight_finish,
    a_deletion_cut_short_by_kill_9_is_finished_by_the_next_process,
);
