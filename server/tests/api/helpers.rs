//! Test harness: the real server on a random port with its own database (a SQLite file in its
//! data dir, or a PostgreSQL database dropped afterwards), copied from a migrated template
//! (`templates`), and its own data dir.

use std::{path::PathBuf, sync::Once, time::Duration};

use kizuna_server::{
    configuration::{
        LineSettings, MOCK_BOT_ID, MOCK_CHANNEL_ACCESS_TOKEN, MOCK_CHANNEL_ID, MOCK_CHANNEL_SECRET,
        MOCK_LIFF_ID, MOCK_LOGIN_CHANNEL_TOKEN, Settings,
    },
    line::push::PushSettings,
    startup::Application,
};
use rand::RngCore;
use reqwest::{Response, StatusCode};
use sea_orm::{ConnectionTrait, Database};
use serde_json::{Value, json};

pub const PG_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

pub struct TestApp {
    pub api: Api,
    pub data_dir: PathBuf,
    /// The database URL the server uses (for a second server on the same database).
    pub database_url: String,
    pub db: sea_orm::DatabaseConnection,
    /// The server's own state (its push queue, settings, …), for what no HTTP call reaches yet.
    pub state: kizuna_server::routes::State,
    /// Where its metrics listener answers, when the test set `metrics_bind`.
    pub metrics: Option<std::net::SocketAddr>,
    /// Drops a PostgreSQL database with FORCE, which also ends the server's pooled connections
    /// (the server itself lives on in its spawned task until the test's runtime ends, unless
    /// the test [`shut_down`](TestApp::shut_down)s it).
    _database: ScratchDb,
    /// The S3 server the app keeps its files in, when it is not the local store: kept running as
    /// long as any app uses it.
    pub s3: Option<std::sync::Arc<crate::s3::S3Server>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

static TRACING: Once = Once::new();

pub(crate) fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    rand::rngs::OsRng.fill_bytes(&mut b);
    hex::encode(b)
}

/// A fresh LINE user id (U + 32 lowercase hex).
pub fn line_user_id() -> String {
    format!("U{}", random_hex(16))
}

/// A database of its own for one test, every migration applied: a copy of this build's migrated
/// template (`templates`), on SQLite as `data_dir`'s `kizuna.db` (None: where the server looks by
/// default), on PostgreSQL a database dropped with the guard.
pub async fn scratch_database(
    backend: Backend,
    data_dir: &std::path::Path,
) -> (Option<String>, ScratchDb) {
    match backend {
        Backend::Sqlite => {
            let template = crate::templates::sqlite_template().await;
            std::fs::create_dir_all(data_dir).unwrap();
            std::fs::copy(template, data_dir.join("kizuna.db")).unwrap();
            (None, ScratchDb(None))
        }
        Backend::Postgres => {
            let template = crate::templates::pg_template().await;
            create_pg_database(&format!("TEMPLATE {template}")).await
        }
    }
}

/// An empty database (SQLite: none yet, made where the server looks by default), for the tests
/// of migrating itself: `kizuna-server migrate`, a partial migration, a restore.
pub async fn empty_database(backend: Backend) -> (Option<String>, ScratchDb) {
    match backend {
        Backend::Sqlite => (None, ScratchDb(None)),
        Backend::Postgres => create_pg_database("").await,
    }
}

async fn create_pg_database(options: &str) -> (Option<String>, ScratchDb) {
    let name = format!("kizuna_test_{}", random_hex(8));
    let admin = Database::connect(PG_ADMIN_URL)
        .await
        .expect("PostgreSQL on 127.0.0.1:5432");
    admin
        .execute_unprepared(&format!("CREATE DATABASE {name} {options}"))
        .await
        .unwrap();
    admin.close().await.ok();
    (
        Some(format!("postgres://postgres@127.0.0.1:5432/{name}")),
        ScratchDb(Some(name)),
    )
}

/// Drops its PostgreSQL database (if any) when the test ends.
pub struct ScratchDb(Option<String>);

impl Drop for ScratchDb {
    fn drop(&mut self) {
        if let Some(name) = self.0.take() {
            // The server's pool may still hold connections: FORCE closes them.
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    if let Ok(admin) = Database::connect(PG_ADMIN_URL).await {
                        let _ = admin
                            .execute_unprepared(&format!(
                                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                            ))
                            .await;
                        admin.close().await.ok();
                    }
                });
            })
            .join()
            .ok();
        }
    }
}

/// A fresh, empty data directory (the caller removes it).
pub fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kizuna-test-{}", random_hex(8)));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, |_| {}).await
}

/// The push worker's pace in tests: retries within milliseconds, a short lease.
pub fn fast_pushes() -> PushSettings {
    PushSettings {
        poll_every: Duration::from_millis(200),
        lease: Duration::from_secs(5),
        request_timeout: Duration::from_secs(2),
        first_retry: Duration::from_millis(50),
        max_retry: Duration::from_millis(400),
        ..PushSettings::default()
    }
}

/// `spawn_app` with settings changed by `tweak` (e.g. an SMTP server, shorter code times, a proxy
/// between the server and its database). The test's own connection (`TestApp::db`) always goes
/// straight to the database the harness made.
pub async fn spawn_app_with(backend: Backend, tweak: impl FnOnce(&mut Settings)) -> TestApp {
    spawn(backend, None, tweak).await
}

/// `spawn_app_with`, the files kept in `s3`'s bucket.
pub async fn spawn_app_on_s3(
    backend: Backend,
    s3: &std::sync::Arc<crate::s3::S3Server>,
    tweak: impl FnOnce(&mut Settings),
) -> TestApp {
    spawn(backend, Some(s3.clone()), tweak).await
}

async fn spawn(
    backend: Backend,
    s3: Option<std::sync::Arc<crate::s3::S3Server>>,
    tweak: impl FnOnce(&mut Settings),
) -> TestApp {
    TRACING.call_once(|| {
        if std::env::var("TEST_LOG").is_ok() {
            kizuna_server::telemetry::init_subscriber();
        }
    });
    let data_dir = scratch_dir();
    let (database_url, pg_database) = scratch_database(backend, &data_dir).await;
    let mut settings = Settings {
        bind: "127.0.0.1:0".into(),
        database_url,
        data_dir: data_dir.clone(),
        web_dir: data_dir.join("web"),
        line: LineSettings {
            mock: true,
            api_base: None,
            channel_id: MOCK_CHANNEL_ID.into(),
            liff_id: MOCK_LIFF_ID.into(),
            bot_id: MOCK_BOT_ID.into(),
            channel_secret: MOCK_CHANNEL_SECRET.into(),
            channel_access_token: MOCK_CHANNEL_ACCESS_TOKEN.into(),
            login_channel_token: MOCK_LOGIN_CHANNEL_TOKEN.into(),
        },
        image_workers: 2,
        ipx_previews: true,
        mail: Default::default(),
        push: fast_pushes(),
        email_codes: Default::default(),
        clock: kizuna_server::clock::Clock::system(),
        chat: kizuna_server::configuration::ChatSettings {
            keep_alive: Duration::from_secs(1),
        },
        // Off unless a test turns it on: a run at start would make lists and pushes that the
        // other tests do not expect.
        introductions: None,
        db_pool: None,
        pool_ttl: Duration::from_secs(60),
        trusted_proxy_header: None,
        connections: Default::default(),
        uploads: kizuna_server::images::admission::UploadLimits::for_workers(2),
        file_store: match &s3 {
            Some(s3) => s3.store(),
            None => kizuna_server::configuration::FileStoreSettings::Local,
        },
        metrics_bind: None,
        // A test's shutdown stops at once; the drain itself is tested on the binary.
        drain: Duration::ZERO,
    };
    let db_url = settings.database_url();
    tweak(&mut settings);
    let app = Application::build(settings).await.expect("the app builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    let state = app.state();
    let metrics = app.metrics_address();
    let mut housekeeping = app.housekeeping_passes();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        // A dropped TestApp leaves the server running, as before.
        if stopped.await.is_err() {
            std::future::pending::<()>().await;
        }
    }));
    // A test that queues what the pass at start takes (a file removal, a stalled export, an old
    // orphan) and then runs the pass's function itself would race it.
    housekeeping
        .wait_for(|passes| *passes >= 1)
        .await
        .expect("the housekeeping pass at start finishes");
    let db = kizuna_server::storage::connect(&db_url, None)
        .await
        .unwrap();
    TestApp {
        api: Api::new(address),
        database_url: db_url,
        data_dir,
        _database: pg_database,
        s3,
        db,
        state,
        metrics,
        stop: Some(stop),
        server: Some(server),
    }
}

impl TestApp {
    /// The server's clock: `advance` it instead of sleeping through a time limit.
    pub fn clock(&self) -> &kizuna_server::clock::Clock {
        &self.state.settings.clock
    }

    /// Whether the store holds the file's bytes.
    pub async fn stored(&self, id: &str) -> bool {
        self.state
            .files
            .exists(&kizuna_server::file_store::FileStore::original(id))
            .await
            .unwrap()
    }

    /// Where a key of the local store is on disk (for what only a crash or a race does).
    pub fn local_path(&self, key: &object_store::path::Path) -> PathBuf {
        assert!(self.state.files.is_local(), "a local store");
        self.data_dir.join(key.as_ref())
    }

    /// Shuts the server down as SIGTERM would, and waits until it has stopped.
    pub async fn shut_down(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.unwrap().expect("the server stops cleanly");
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// A user as the tests drive it: LINE id, a fresh ID token, a session.
#[derive(Clone)]
pub struct User {
    pub line_id: String,
    pub id_token: String,
    pub token: String,
}

/// A running server as its clients reach it: over HTTP at `address`.
pub struct Api {
    pub address: String,
    pub client: reqwest::Client,
}

impl std::ops::Deref for TestApp {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Api {
    pub fn new(address: String) -> Api {
        Api {
            address,
            client: reqwest::Client::builder().no_proxy().build().unwrap(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn mock_user(&self, line_id: &str, friend: bool) {
        let r = self
            .client
            .post(self.url("/__mock/line/users"))
            .json(&json!({"userId": line_id, "displayName": "Test user", "friend": friend}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }

    pub async fn id_token(&self, line_id: &str) -> String {
        self.id_token_with(json!({"userId": line_id})).await
    }

    /// An ID token the mock signs for this request body (`expiresIn`, `aud`, …).
    pub async fn id_token_with(&self, request: Value) -> String {
        let r: Value = self
            .client
            .post(self.url("/__mock/line/id-token"))
            .json(&request)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        r["idToken"].as_str().unwrap().to_string()
    }

    pub async fn login_raw(&self, id_token: Option<&str>, account: &str) -> Response {
        let mut req = self
            .client
            .post(self.url("/api/user/login"))
            .json(&json!({"account": account, "password": account}));
        if let Some(t) = id_token {
            req = req.header("X-Line-Id-Token", t);
        }
        req.send().await.unwrap()
    }

    /// A new mock LINE user, logged in with the web app's locale in `Accept-Language`.
    pub async fn new_user_in(&self, locale: &str) -> User {
        let line_id = line_user_id();
        self.mock_user(&line_id, true).await;
        let id_token = self.id_token(&line_id).await;
        let r = self
            .client
            .post(self.url("/api/user/login"))
            .header("Accept-Language", locale)
            .header("X-Line-Id-Token", &id_token)
            .json(&json!({"account": line_id, "password": line_id}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        User {
            line_id,
            id_token,
            token: body["token"].as_str().unwrap().to_string(),
        }
    }

    /// What the mock LINE platform recorded as pushed.
    pub async fn pushes(&self) -> Vec<Value> {
        self.get("/__mock/line/messages", None)
            .await
            .json()
            .await
            .unwrap()
    }

    /// POSTs a JSON body to a mock endpoint and expects 200.
    pub async fn mock_post(&self, path: &str, body: Value) -> Value {
        let r = self
            .client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        r.json().await.unwrap()
    }

    /// A fresh session for a user whose session ended (a suspension, the 30-day limit), as the
    /// web app signs in again.
    pub async fn sign_in_again(&self, user: &mut User) {
        user.id_token = self.id_token(&user.line_id).await;
        let r = self.login_raw(Some(&user.id_token), &user.line_id).await;
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        user.token = body["token"].as_str().unwrap().to_string();
    }

    /// A new mock LINE user, logged in.
    pub async fn new_user(&self) -> User {
        let line_id = line_user_id();
        self.mock_user(&line_id, true).await;
        let id_token = self.id_token(&line_id).await;
        let r = self.login_raw(Some(&id_token), &line_id).await;
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        User {
            line_id,
            id_token,
            token: body["token"].as_str().unwrap().to_string(),
        }
    }

    pub async fn upload(&self, token: &str, bytes: Vec<u8>, name: &str) -> Response {
        let part = reqwest::multipart::Part::bytes(bytes)
            .file_name(name.to_string())
            .mime_str("image/jpeg")
            .unwrap();
        let form = reqwest::multipart::Form::new().part("file", part);
        self.client
            .post(self.url("/api/file/tempUpload"))
            .bearer_auth(token)
            .multipart(form)
            .send()
            .await
            .unwrap()
    }

    pub async fn upload_ok(&self, token: &str, bytes: Vec<u8>) -> String {
        let r = self.upload(token, bytes, "photo.jpg").await;
        assert_eq!(r.status(), 200, "{:?}", r.text().await);
        let body: Value = r.json().await.unwrap();
        body["fileName"].as_str().unwrap().to_string()
    }

    pub async fn create_profile(&self, id_token: Option<&str>, body: &Value) -> Response {
        let mut req = self.client.post(self.url("/api/user-profile")).json(body);
        if let Some(t) = id_token {
            req = req.header("X-Line-Id-Token", t);
        }
        req.send().await.unwrap()
    }

    pub async fn set_avatar(&self, token: &str, file: &str) -> Response {
        self.client
            .put(self.url("/api/user-profile/avatar"))
            .bearer_auth(token)
            .json(&json!({ "avatar": file }))
            .send()
            .await
            .unwrap()
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Response {
        let mut req = self.client.get(self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send().await.unwrap()
    }
}

impl TestApp {
    /// Every row of every table and every stored file: bad input must leave all of it as it was.
    pub async fn snapshot(&self) -> Snapshot {
        let backend = self.db.get_database_backend();
        let mut tables = Vec::new();
        for table in TABLES {
            let columns_sql = match backend {
                sea_orm::DbBackend::Postgres => format!(
                    "SELECT column_name AS name FROM information_schema.columns \
                     WHERE table_name = '{table}' ORDER BY ordinal_position"
                ),
                _ => format!("SELECT name FROM pragma_table_info('{table}') ORDER BY cid"),
            };
            let columns: Vec<String> = self
                .db
                .query_all_raw(sea_orm::Statement::from_string(backend, columns_sql))
                .await
                .unwrap()
                .iter()
                .map(|row| row.try_get::<String>("", "name").unwrap())
                .filter(|c| !WORKER_COLUMNS.contains(&(table, c.as_str())))
                .collect();
            assert!(!columns.is_empty(), "table {table} has no columns");
            let row_sql = columns
                .iter()
                .map(|c| format!("COALESCE(CAST(\"{c}\" AS TEXT), '<null>')"))
                .collect::<Vec<_>>()
                .join(" || '|' || ");
            let mut rows: Vec<String> = self
                .db
                .query_all_raw(sea_orm::Statement::from_string(
                    backend,
                    format!("SELECT {row_sql} AS r FROM {table}"),
                ))
                .await
                .unwrap()
                .iter()
                .map(|row| row.try_get::<String>("", "r").unwrap())
                .collect();
            rows.sort();
            tables.push((table.to_string(), rows));
        }
        let mut files = Vec::new();
        for dir in ["files", "cache", "tmp"] {
            list_files(&self.data_dir, &self.data_dir.join(dir), &mut files);
        }
        files.sort();
        Snapshot { tables, files }
    }
}

/// Every file below `dir`, as a path relative to `root`.
fn list_files(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            list_files(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().display().to_string());
        }
    }
}

/// Columns the push worker moves on its own after a request has ended (a delivery, a retry's
/// time): what a request queued stays in the snapshot, how far its delivery has got does not, or
/// a snapshot taken while an earlier push is on its way would differ from the next for no fault.
const WORKER_COLUMNS: [(&str, &str); 5] = [
    ("push_outbox", "status"),
    ("push_outbox", "attempts"),
    ("push_outbox", "due_at_ms"),
    ("push_outbox", "last_error"),
    ("push_outbox", "finished_at"),
];

const TABLES: [&str; 34] = [
    "users",
    "sessions",
    "files",
    "profiles",
    "profile_photos",
    "profile_tags",
    "profile_conditions",
    "review_history",
    "route_rules",
    "reviewers",
    "push_outbox",
    "line_friendships",
    "line_webhook_events",
    "email_codes",
    "profile_submissions",
    "review_claims",
    "match_pool",
    "introduction_days",
    "introductions",
    "reactions",
    "matches",
    "blocks",
    "reports",
    "chat_messages",
    "chat_marks",
    "chat_presence",
    "chat_events",
    "chat_event_heads",
    "profile_revisions",
    "safety_reviews",
    "removal_notices",
    "appeals",
    "kept_photo_hashes",
    "we_met",
];

/// What is stored: each table's rows (as text, sorted) and every file of the data dir's stores
/// (originals and previews, cached variants, half-written temporary files).
#[derive(Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub tables: Vec<(String, Vec<String>)>,
    pub files: Vec<String>,
}

impl Snapshot {
    pub fn count(&self, table: &str) -> usize {
        self.tables
            .iter()
            .find(|(name, _)| name == table)
            .map(|(_, rows)| rows.len())
            .unwrap_or_else(|| panic!("no table {table} in the snapshot"))
    }
}

/// Declares each `async fn name(backend: Backend)` as two tests, `name::sqlite` and
/// `name::postgres`: the integration tests run against both databases.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn sqlite() {
                super::$name($crate::helpers::Backend::Sqlite).await;
            }

            #[tokio::test]
            async fn postgres() {
                super::$name($crate::helpers::Backend::Postgres).await;
            }
        }
    )+};
}

/// Asserts an error answer's status and code; answers the body.
/// The column `n` of the one row `sql` answers (a `COUNT(*) AS n`, or a value named so).
pub async fn number(app: &TestApp, sql: &str) -> i64 {
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

/// A new user made a reviewer through the mock platform; their session token.
pub async fn reviewer(app: &TestApp) -> String {
    let reviewer = app.new_user().await;
    app.mock_post("/__mock/reviewers", json!({"userId": reviewer.line_id}))
        .await;
    reviewer.token
}

pub async fn assert_error(r: Response, status: u16, code: &str) -> Value {
    let got = r.status();
    let text = r.text().await.unwrap();
    assert_eq!(got, StatusCode::from_u16(status).unwrap(), "body: {text}");
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    assert_eq!(body["code"], code, "body: {text}");
    assert!(body["cause"].is_string(), "body: {text}");
    body
}

/// Asserts a registration refused because both its photos and its verification file are not the
/// caller's to claim.
pub async fn assert_files_unknown(r: Response) {
    let body = assert_error(r, 422, "E002").await;
    assert_eq!(
        body["fields"]["photoNameList"],
        json!(["unknown_file"]),
        "{body}"
    );
    assert_eq!(
        body["fields"]["verifyTempFileName"],
        json!(["unknown_file"]),
        "{body}"
    );
}

/// A complete, valid registration payload (kizuna-core's own fixture) for `line_id`.
pub fn profile_payload(line_id: &str, photos: &[String], verify: &str) -> Value {
    json!({
        "account": line_id,
        "password": line_id,
        "nickname": "Mei", "name": "Lin Mei-Ling", "gender": "FEMALE", "matchGender": "MALE",
        "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Backend engineer",
        "achievement": "Led the payments migration", "height": 163, "incomeRange": "INCOME_100_150",
        "birthday": "1995-03-14", "school": "NTU", "education": "MASTER", "marriageRecord": 0,
        "hasChildren": 0, "smoke": 0, "tattoo": "NONE", "drink": 1,
        "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
        "personalityTagIds": [101, 104], "exerciseTagIds": [204], "hobbyTagIds": [301, 310],
        "marriageTypeTagIds": [402], "fertilityPlanTagIds": [502], "petTagIds": [602],
        "datingQuestion": "Favourite trail?", "dailyLife": "Code, climb, cook.", "surprisePoint": "I can juggle.",
        "city": "TPE", "address": "Da'an District", "latitude": 25.026, "longitude": 121.543,
        "recommendDistanceKm": 30, "feedback": "A friend told me", "mbti": "INTJ",
        "reviewLink": "https://www.linkedin.com/in/mei", "verifyDescription": "Team lead",
        "verifyTempFileName": verify,
        "verifyMethod": "EMPLOYEE_ID", "companyEmail": "mei@tsmc.com",
        "photoNameList": photos,
        "valueItem": [{"type": "HEIGHT", "from": 170, "to": 190}, {"type": "EDUCATION", "value": "BACHELOR"}]
    })
}

/// A `w`×`h` JPEG with a gradient (so that it compresses like a photo, not like a flat colour).
pub fn jpeg(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([
            (x * 255 / w.max(1)) as u8,
            (y * 255 / h.max(1)) as u8,
            ((x + y) % 256) as u8,
        ])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
        .encode_image(&img)
        .unwrap();
    out
}

pub fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(w, h, |x, y| image::Rgba([x as u8, y as u8, 128, 200]));
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// An EXIF block (TIFF, little endian) with an orientation and a GPS IFD holding a latitude.
pub fn exif_with_gps(orientation: u16) -> Vec<u8> {
    let mut t = Vec::new();
    t.extend_from_slice(b"II*\0");
    t.extend_from_slice(&8u32.to_le_bytes());
    // IFD0 at 8: 2 entries.
    t.extend_from_slice(&2u16.to_le_bytes());
    // Orientation: SHORT, count 1, value inline.
    t.extend_from_slice(&0x0112u16.to_le_bytes());
    t.extend_from_slice(&3u16.to_le_bytes());
    t.extend_from_slice(&1u32.to_le_bytes());
    t.extend_from_slice(&orientation.to_le_bytes());
    t.extend_from_slice(&0u16.to_le_bytes());
    // GPS IFD pointer: LONG -> 38.
    t.extend_from_slice(&0x8825u16.to_le_bytes());
    t.extend_from_slice(&4u16.to_le_bytes());
    t.extend_from_slice(&1u32.to_le_bytes());
    t.extend_from_slice(&38u32.to_le_bytes());
    t.extend_from_slice(&0u32.to_le_bytes()); // next IFD
    assert_eq!(t.len(), 38);
    // GPS IFD at 38: 2 entries.
    t.extend_from_slice(&2u16.to_le_bytes());
    t.extend_from_slice(&0x0001u16.to_le_bytes()); // GPSLatitudeRef "N"
    t.extend_from_slice(&2u16.to_le_bytes());
    t.extend_from_slice(&2u32.to_le_bytes());
    t.extend_from_slice(b"N\0\0\0");
    t.extend_from_slice(&0x0002u16.to_le_bytes()); // GPSLatitude, 3 RATIONAL at 68
    t.extend_from_slice(&5u16.to_le_bytes());
    t.extend_from_slice(&3u32.to_le_bytes());
    t.extend_from_slice(&68u32.to_le_bytes());
    t.extend_from_slice(&0u32.to_le_bytes());
    assert_eq!(t.len(), 68);
    for (n, d) in [(25u32, 1u32), (1, 1), (3456, 100)] {
        t.extend_from_slice(&n.to_le_bytes());
        t.extend_from_slice(&d.to_le_bytes());
    }
    t
}

/// A JPEG carrying `exif`.
pub fn jpeg_with_exif(w: u32, h: u32, exif: Vec<u8>) -> Vec<u8> {
    use img_parts::{ImageEXIF, jpeg::Jpeg};
    let mut j = Jpeg::from_bytes(jpeg(w, h).into()).unwrap();
    j.set_exif(Some(exif.into()));
    let mut out = Vec::new();
    j.encoder().write_to(&mut out).unwrap();
    out
}

/// A member's own switch (pausing, hiding from colleagues): `PUT path` with `{ field: on }`, as the
/// member; the answer's body.
pub async fn set_switch(
    app: &TestApp,
    member: &crate::matchmaking::Member,
    path: &str,
    field: &str,
    on: bool,
) -> Value {
    use crate::matchmaking::{ok_json, send};
    let body = json!({ field: on });
    ok_json(
        send(
            app,
            reqwest::Method::PUT,
            path,
            &member.user.token,
            Some(body),
        )
        .await,
    )
    .await
}

/// Who may not flip a member's switch at `path` (`{ field: bool }`): a PENDING member (403 E004),
/// a caller without a session (401 E001), and an approved member only with that body: a field of
/// the wrong type, none, or a `stray` one beside it is a 400. Answers that approved member.
pub async fn assert_switch_only_for_approved(
    app: &TestApp,
    path: &str,
    field: &str,
    stray: (&str, Value),
) -> crate::matchmaking::Member {
    use crate::matchmaking::{approved, register, send};
    use reqwest::Method;
    let (pending, _) = register(app, 0, true).await;
    let on = json!({ field: true });
    let r = send(
        app,
        Method::PUT,
        path,
        &pending.user.token,
        Some(on.clone()),
    )
    .await;
    assert_error(r, 403, "E004").await;
    let r = app
        .client
        .put(app.url(path))
        .json(&on)
        .send()
        .await
        .unwrap();
    assert_error(r, 401, "E001").await;
    let (member, _) = approved(app, 1, true).await;
    let mut with_stray = on.clone();
    with_stray[stray.0] = stray.1;
    for bad in [json!({ field: "yes" }), json!({}), with_stray] {
        let r = send(
            app,
            Method::PUT,
            path,
            &member.user.token,
            Some(bad.clone()),
        )
        .await;
        assert_eq!(r.status(), 400, "{bad}");
    }
    member
}
