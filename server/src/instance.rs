//! This serving process among the others on the database, and how one knows whether another is
//! still alive.
//!
//! On PostgreSQL every `serve` process holds, on a connection of its own for as long as it runs,
//! the advisory lock `(PROCESS_LOCKS, id)` of a random id. When the process dies, even by
//! `kill -9`, the kernel closes that connection, PostgreSQL ends the session and the lock is gone
//! at once: "is process `id` alive?" is a question to the lock manager (SQL fragment
//! [`alive_sql`]), so what a process wrote about itself (a chat stream's presence) is trusted no
//! longer than it lives, whatever expiry the row carries.
//!
//! On SQLite one process serves the database: `serve` holds an exclusive lock on the file
//! `{database}.serve.lock` while it runs, and a second `serve` on the same file refuses to start
//! with a message that says so. The process alive there is this one.

use std::{fs::File, path::PathBuf, time::Duration};

use anyhow::Context;
use rand::Rng;
use sea_orm::{DatabaseConnection, DbBackend};

/// The first key of every process's advisory lock (the second is the process id).
pub const PROCESS_LOCKS: i32 = 0x4b5a_0001;

/// The advisory lock `(MIGRATION_LOCK, 0)` that a process holds while it applies the database
/// migrations (`storage::migrate`), so that processes starting at once take turns and the later
/// ones find the schema migrated. Its first key differs from [`PROCESS_LOCKS`], so it never
/// counts as a live process; the one-key locks (`pg_advisory_xact_lock(bigint)`, per member or
/// address) live in another space of `pg_locks` (`objsubid` 1, not 2) and cannot meet either.
pub const MIGRATION_LOCK: i32 = 0x4b5a_0002;

/// This process: its id, and what keeps it marked alive until it stops.
pub struct Instance {
    id: i32,
    backend: DbBackend,
    _hold: Hold,
}

enum Hold {
    /// The task that holds the advisory lock (and takes it again after a reconnect).
    Postgres(tokio::task::JoinHandle<()>),
    /// The open, locked file: closing it (or dying) lets the lock go.
    Sqlite(#[allow(dead_code)] Option<File>),
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Hold::Postgres(task) = self {
            task.abort();
        }
    }
}

impl Instance {
    /// Marks this process alive on the database (PostgreSQL) or takes the SQLite file for
    /// itself; fails when another process serves that SQLite file.
    pub async fn start(db: &DatabaseConnection, database_url: &str) -> anyhow::Result<Instance> {
        let backend = db.get_database_backend();
        if backend == DbBackend::Postgres {
            let pool = db.get_postgres_connection_pool().clone();
            let (id, conn) = take_new_id(&pool).await?;
            let task = tokio::spawn(hold(pool, id, conn));
            return Ok(Instance {
                id,
                backend,
                _hold: Hold::Postgres(task),
            });
        }
        let file = lock_sqlite(database_url)?;
        Ok(Instance {
            id: rand::thread_rng().gen_range(1..i32::MAX),
            backend,
            _hold: Hold::Sqlite(file),
        })
    }

    pub fn id(&self) -> i32 {
        self.id
    }

    /// An SQL condition, true when the process whose id is in `column` is alive: on PostgreSQL
    /// it holds its advisory lock; on SQLite it is this process.
    pub fn alive_sql(&self, column: &str) -> String {
        alive_sql(self.backend, self.id, column)
    }
}

/// [`Instance::alive_sql`] for a given backend and own id.
///
/// On PostgreSQL the question is a try for the process's lock in shared mode, for the rest of
/// the asking transaction: refused only while a session (the process's own) holds it
/// exclusively. Shared holders never refuse each other, and a process that takes its id again
/// after a reconnect retries until the asking transactions have ended. It was a look at
/// `pg_locks`, which copies the whole lock table under every lock partition at each call: 28 %
/// of PostgreSQL's CPU at 500 chat sends a second (`just chaos`, perf), since every send asks
/// whether the recipient's stream lives.
pub fn alive_sql(backend: DbBackend, own: i32, column: &str) -> String {
    match backend {
        DbBackend::Postgres => {
            format!("NOT pg_try_advisory_xact_lock_shared({PROCESS_LOCKS}, ({column})::int4)")
        }
        _ => format!("({column}) = {own}"),
    }
}

type PgConn = sea_orm::sqlx::pool::PoolConnection<sea_orm::sqlx::Postgres>;

/// Takes the lock of a fresh random id on a connection taken out of the pool for good.
async fn take_new_id(pool: &sea_orm::sqlx::PgPool) -> anyhow::Result<(i32, PgConn)> {
    let mut conn = pool
        .acquire()
        .await
        .context("connecting the process lock")?;
    loop {
        let id = rand::thread_rng().gen_range(1..i32::MAX);
        if try_lock(&mut conn, id).await? {
            return Ok((id, conn));
        }
    }
}

async fn try_lock(conn: &mut PgConn, id: i32) -> anyhow::Result<bool> {
    let (taken,): (bool,) = sea_orm::sqlx::query_as("SELECT pg_try_advisory_lock($1, $2)")
        .bind(PROCESS_LOCKS)
        .bind(id)
        .fetch_one(&mut **conn)
        .await
        .context("taking the process lock")?;
    Ok(taken)
}

/// Keeps the lock: checks its connection every two seconds and, when the connection was lost
/// (the database restarted), takes the same id's lock again on a new one. In between, the other
/// processes take this one for dead (its streams' members get pushes), which is the safe side.
async fn hold(pool: sea_orm::sqlx::PgPool, id: i32, conn: PgConn) {
    // Out of the pool for good: the pool must never hand this session (and its lock) to a query.
    let mut conn = Some(conn.detach());
    loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        if let Some(c) = conn.as_mut() {
            let alive = sea_orm::sqlx::query("SELECT 1")
                .execute(&mut *c)
                .await
                .is_ok();
            if alive {
                continue;
            }
            tracing::warn!(
                process = id,
                "process lock: the connection was lost; taking it again"
            );
            conn = None;
        }
        let Ok(mut fresh) = pool.acquire().await else {
            continue;
        };
        match try_lock(&mut fresh, id).await {
            Ok(true) => conn = Some(fresh.detach()),
            // Held by a transaction asking whether this process lives (`alive_sql`), for the
            // moment it lasts; another process would have had to draw the same random id.
            Ok(false) => tracing::warn!(process = id, "process lock: not free yet; trying again"),
            Err(err) => tracing::warn!(process = id, error = %err, "process lock: not taken yet"),
        }
    }
}

/// The SQLite database's file, from its URL (None: in memory).
fn sqlite_path(url: &str) -> Option<PathBuf> {
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let path = path.split('?').next().unwrap_or_default();
    (!path.is_empty() && path != ":memory:").then(|| PathBuf::from(path))
}

fn lock_sqlite(url: &str) -> anyhow::Result<Option<File>> {
    let Some(db) = sqlite_path(url) else {
        return Ok(None);
    };
    let mut name = db.clone().into_os_string();
    name.push(".serve.lock");
    let lock = PathBuf::from(name);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .with_context(|| format!("opening the lock file {}", lock.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "another kizuna-server process is serving the SQLite database {} (it holds {}). \
             SQLite serves one process only: stop the other one, or put every process on one \
             PostgreSQL database (DATABASE_URL=postgres://…)",
            db.display(),
            lock.display()
        ),
        Err(std::fs::TryLockError::Error(err)) => {
            Err(err).with_context(|| format!("locking {}", lock.display()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sqlite_path_comes_from_the_url() {
        assert_eq!(
            sqlite_path("sqlite:///tmp/x/kizuna.db?mode=rwc"),
            Some(PathBuf::from("/tmp/x/kizuna.db"))
        );
        assert_eq!(
            sqlite_path("sqlite://data/kizuna.db"),
            Some(PathBuf::from("data/kizuna.db"))
        );
        assert_eq!(sqlite_path("sqlite::memory:"), None);
    }

    #[test]
    fn a_second_lock_on_one_sqlite_file_is_refused_until_the_first_is_let_go() {
        let dir = std::env::temp_dir().join(format!("kizuna-lock-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}/kizuna.db?mode=rwc", dir.display());
        let first = lock_sqlite(&url).unwrap();
        let refused = lock_sqlite(&url).unwrap_err().to_string();
        assert!(
            refused.contains("another kizuna-server process"),
            "{refused}"
        );
        assert!(refused.contains("PostgreSQL"), "{refused}");
        drop(first);
        assert!(lock_sqlite(&url).unwrap().is_some());
        std::fs::remove_dir_all(&dir).ok();
    }
}
