//! A database outage is a short wait, not an error. While the database cannot be reached, every
//! answer that needs it is 503 E503 with `Retry-After` (and /healthz 503); once it is back the
//! server recovers by itself, nothing was lost, and a write retried after the outage is stored
//! exactly once.
//!
//! PostgreSQL: the server reaches its database through a TCP proxy that the test cuts (live
//! connections closed, new ones reset), makes refuse connections (PostgreSQL down or restarting),
//! or makes lose the reply to one COMMIT (the write is stored, the server cannot know).
//! SQLite: a local file cannot be unreachable; it is unavailable when another process holds its
//! write lock beyond the busy timeout (an operator's `sqlite3` session left in a transaction, a
//! backup tool): writes then answer E503 while reads go on (WAL).

use std::{
    net::SocketAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering::SeqCst},
    },
    time::{Duration, Instant},
};

use reqwest::{Response, header::RETRY_AFTER};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    task::{AbortHandle, JoinHandle},
};

use crate::helpers::{Backend, TestApp, User, jpeg, profile_payload, spawn_app, spawn_app_with};

const POSTGRES: &str = "127.0.0.1:5432";

/// A TCP proxy between the server and PostgreSQL.
struct DbProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Default)]
struct Shared {
    /// New connections are reset as soon as they are accepted.
    reset: AtomicBool,
    /// The next COMMIT reaches PostgreSQL, but its reply never reaches the server.
    lose_commit_reply: AtomicBool,
    /// The forwarding task of every connection (aborting one closes both of its sockets).
    live: Mutex<Vec<AbortHandle>>,
}

impl DbProxy {
    async fn start() -> DbProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let proxy = DbProxy {
            addr: listener.local_addr().unwrap(),
            shared: Arc::default(),
            acceptor: Mutex::new(None),
        };
        proxy.serve(listener);
        proxy
    }

    fn serve(&self, listener: TcpListener) {
        let shared = self.shared.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                if shared.reset.load(SeqCst) {
                    let _ = client.set_zero_linger();
                    drop(client);
                    continue;
                }
                let forward = tokio::spawn(forward(client, shared.clone()));
                shared.live.lock().unwrap().push(forward.abort_handle());
            }
        });
        *self.acceptor.lock().unwrap() = Some(task);
    }

    /// The server's database URL, through the proxy. Without TLS (which sqlx would otherwise
    /// negotiate with a PostgreSQL that offers it), so that the proxy can spot a COMMIT.
    fn route(&self, url: &str) -> String {
        assert!(url.contains(POSTGRES) && !url.contains('?'), "{url}");
        format!(
            "{}?sslmode=disable",
            url.replace(POSTGRES, &self.addr.to_string())
        )
    }

    fn sever_live_connections(&self) {
        for task in self.shared.live.lock().unwrap().drain(..) {
            task.abort();
        }
    }

    /// The network between server and database fails: open connections are closed mid-stream,
    /// new ones are reset.
    fn cut(&self) {
        self.shared.reset.store(true, SeqCst);
        self.sever_live_connections();
    }

    /// PostgreSQL is down: nothing listens, connecting is refused.
    async fn refuse(&self) {
        let acceptor = self.acceptor.lock().unwrap().take();
        if let Some(task) = acceptor {
            task.abort();
            let _ = task.await;
        }
        self.sever_live_connections();
    }

    /// Back to normal: listening (again, on the same port) and forwarding.
    async fn restore(&self) {
        self.shared.reset.store(false, SeqCst);
        if self.acceptor.lock().unwrap().is_none() {
            let listener = TcpListener::bind(self.addr).await.unwrap();
            self.serve(listener);
        }
    }

    fn lose_next_commit_reply(&self) {
        self.shared.lose_commit_reply.store(true, SeqCst);
    }
}

/// Copies bytes both ways until either side closes; drops PostgreSQL's answer to an armed COMMIT
/// (after it has arrived, so the commit surely happened) and then closes both sides.
async fn forward(client: TcpStream, shared: Arc<Shared>) {
    let Ok(upstream) = TcpStream::connect(POSTGRES).await else {
        return;
    };
    let (mut client_read, mut client_write) = client.into_split();
    let (mut db_read, mut db_write) = upstream.into_split();
    let losing = AtomicBool::new(false);
    let to_db = async {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = client_read.read(&mut buf).await?;
            if n == 0 {
                return Ok::<(), std::io::Error>(());
            }
            // A simple-query COMMIT: 'Q', its length, "COMMIT\0".
            if buf[..n].windows(7).any(|w| w == b"COMMIT\0")
                && shared.lose_commit_reply.swap(false, SeqCst)
            {
                losing.store(true, SeqCst);
            }
            db_write.write_all(&buf[..n]).await?;
        }
    };
    let to_client = async {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = db_read.read(&mut buf).await?;
            if n == 0 || losing.load(SeqCst) {
                return Ok(());
            }
            client_write.write_all(&buf[..n]).await?;
        }
    };
    let _ = tokio::select! {
        r = to_db => r,
        r = to_client => r,
    };
}

/// 503, `Retry-After` of a few seconds, `{code: E503, cause: "…temporarily unavailable…"}`.
async fn assert_unavailable(r: Response) {
    let status = r.status();
    let retry_after = r
        .headers()
        .get(RETRY_AFTER)
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    assert_eq!(status, 503, "body: {text}");
    let seconds: u32 = retry_after
        .expect("a Retry-After header")
        .parse()
        .expect("Retry-After in seconds");
    assert!((1..=30).contains(&seconds), "Retry-After: {seconds}");
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    assert_eq!(body["code"], "E503", "{text}");
    assert!(
        body["cause"]
            .as_str()
            .unwrap()
            .contains("temporarily unavailable"),
        "{text}"
    );
}

async fn assert_health_unavailable(r: Response) {
    assert_eq!(r.status(), 503);
    let seconds: u32 = r.headers()[RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((1..=30).contains(&seconds), "Retry-After: {seconds}");
}

/// A user ready to register: logged in, a photo and a verification file uploaded.
async fn registrant(app: &TestApp) -> (User, Value) {
    let user = app.new_user().await;
    let photo = app.upload_ok(&user.token, jpeg(64, 64)).await;
    let verify = app.upload_ok(&user.token, jpeg(64, 40)).await;
    let payload = profile_payload(&user.line_id, &[photo], &verify);
    (user, payload)
}

async fn profile_count(app: &TestApp) -> i64 {
    let row = app
        .db
        .query_one_raw(Statement::from_string(
            app.db.get_database_backend(),
            "SELECT COUNT(*) AS n FROM profiles",
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

async fn database_outage_answers_503_and_recovers(backend: Backend) {
    match backend {
        Backend::Postgres => postgres_outage().await,
        Backend::Sqlite => sqlite_locked_beyond_the_busy_timeout().await,
    }
}

crate::on_both_backends!(database_outage_answers_503_and_recovers);

async fn postgres_outage() {
    let proxy = DbProxy::start().await;
    let app = spawn_app_with(Backend::Postgres, |s| {
        s.database_url = Some(proxy.route(&s.database_url()))
    })
    .await;
    let (a, payload) = registrant(&app).await;
    let before = app.snapshot().await;

    // The network to the database fails.
    proxy.cut();
    assert_health_unavailable(app.get("/healthz", None).await).await;
    let ready = app.get("/readyz", None).await;
    assert_eq!(ready.status(), 503);
    assert_eq!(ready.text().await.unwrap(), "database unavailable");
    // A session read before may still answer from the cache for a second (on PostgreSQL, a second
    // after the last heartbeat it heard); past that the session itself needs the database.
    tokio::time::sleep(kizuna_server::identity::session_cache::SESSION_CACHE_TTL).await;
    assert_unavailable(app.get("/api/user/my-info", Some(&a.token)).await).await;
    assert_unavailable(app.create_profile(Some(&a.id_token), &payload).await).await;
    assert_unavailable(app.upload(&a.token, jpeg(32, 32), "late.jpg").await).await;
    // What needs no database still works, and still says what is wrong with the request.
    assert_eq!(app.get("/api/config", None).await.status(), 200);
    assert_eq!(app.get("/api/user/my-info", None).await.status(), 401);
    assert_eq!(
        app.snapshot().await,
        before,
        "nothing written, nothing lost"
    );

    // Back: the server recovers by itself, the write retried after the outage is stored once.
    proxy.restore().await;
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    crate::operations::until_ready(&app.api).await;
    let r = app.create_profile(Some(&a.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let info: Value = app
        .get("/api/user/my-info", Some(&a.token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info["reviewStatus"], "PENDING");
    let after = app.snapshot().await;
    assert_eq!(after.count("profiles"), 1);
    assert_eq!(after.count("review_history"), 1);
    assert_eq!(after.count("profile_photos"), 1);
    assert_eq!(after.count("files"), before.count("files"));

    // The reply to a COMMIT is lost: the server answers 503 although the profile was stored, and
    // the client's retry gets the stored profile instead of a second one or a conflict.
    let (b, payload_b) = registrant(&app).await;
    proxy.lose_next_commit_reply();
    assert_unavailable(app.create_profile(Some(&b.id_token), &payload_b).await).await;
    assert_eq!(profile_count(&app).await, 2, "the commit went through");
    let r = app.create_profile(Some(&b.id_token), &payload_b).await;
    let status = r.status();
    let created: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["userId"], b.line_id.as_str());
    assert_eq!(created["status"], "PENDING");
    let after = app.snapshot().await;
    assert_eq!(after.count("profiles"), 2);
    assert_eq!(after.count("review_history"), 2);
    assert_eq!(after.count("profile_photos"), 2);

    // PostgreSQL restarts: while it refuses connections the pool keeps trying for its acquire
    // timeout, so an outage shorter than that is only a wait.
    proxy.refuse().await;
    let started = Instant::now();
    let (r, ()) = tokio::join!(app.get("/api/user/my-info", Some(&b.token)), async {
        tokio::time::sleep(Duration::from_secs(2)).await;
        proxy.restore().await;
    });
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    assert!(started.elapsed() >= Duration::from_secs(2));

    // A longer one: /healthz gives up first, the API when the pool does; both answer 503 (once
    // the cache no longer answers for the session read above: a second after the last heartbeat
    // it heard, which stopped with the connections).
    proxy.refuse().await;
    tokio::time::sleep(kizuna_server::identity::session_cache::SESSION_CACHE_TTL).await;
    let (health, info) = tokio::join!(
        app.get("/healthz", None),
        app.get("/api/user/my-info", Some(&b.token))
    );
    assert_health_unavailable(health).await;
    assert_unavailable(info).await;
    proxy.restore().await;
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    let r = app.get("/api/user/my-info", Some(&b.token)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(app.snapshot().await, after, "nothing lost, nothing doubled");
}

async fn sqlite_locked_beyond_the_busy_timeout() {
    use sea_orm::sqlx::{Connection, Executor, sqlite::SqliteConnectOptions};

    let app = spawn_app(Backend::Sqlite).await;
    let (a, payload) = registrant(&app).await;
    let before = app.snapshot().await;

    // Another process takes the database's write lock and keeps it (longer than the server's
    // 10 s busy timeout).
    let mut other = sea_orm::sqlx::SqliteConnection::connect_with(
        &SqliteConnectOptions::new()
            .filename(app.data_dir.join("kizuna.db"))
            .busy_timeout(Duration::from_secs(30)),
    )
    .await
    .unwrap();
    other.execute("BEGIN EXCLUSIVE").await.unwrap();

    // Reads go on (WAL); every write waits out the busy timeout, then answers 503.
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    assert_eq!(
        app.get("/api/user/my-info", Some(&a.token)).await.status(),
        200
    );
    let (created, login) = tokio::join!(
        app.create_profile(Some(&a.id_token), &payload),
        app.login_raw(Some(&a.id_token), &a.line_id)
    );
    assert_unavailable(created).await;
    assert_unavailable(login).await;
    assert_eq!(
        app.snapshot().await,
        before,
        "nothing written, nothing lost"
    );

    // The lock is released: the retried write is stored once.
    other.execute("ROLLBACK").await.unwrap();
    other.close().await.unwrap();
    let r = app.create_profile(Some(&a.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let again = app.create_profile(Some(&a.id_token), &payload).await;
    assert_eq!(again.status(), 200);
    let after = app.snapshot().await;
    assert_eq!(after.count("profiles"), 1);
    assert_eq!(after.count("review_history"), 1);
    assert_eq!(after.count("sessions"), before.count("sessions"));
}
