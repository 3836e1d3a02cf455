//! Migrated templates for the tests' databases. Migrating a fresh database is most of a short
//! test's fixed cost (2 to 4 s on PostgreSQL, against a few hundred ms to copy a migrated one),
//! so a test process migrates a template at most once per backend and every test's database is
//! a copy of it. A template is named after a hash of the migrations' sources (and of the
//! sea-orm/sqlx versions that turn them into SQL): a changed migration makes a new template, and
//! a template of other migrations is never used. It gets its name only when it is complete, so
//! a half-made one left by a killed run is never copied; two processes that start at once take
//! turns at building it. The server still migrates at start, and finds nothing to do.

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
    time::{Duration, SystemTime},
};

use anyhow::Context;
use kizuna_server::storage;
use sea_orm::sqlx::{Connection, PgConnection};
use sea_orm_migration::MigratorTrait;
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

use crate::helpers::{Backend, PG_ADMIN_URL, random_hex, scratch_database, scratch_dir};

/// The advisory lock (on the admin database `postgres`) held while a template is built, so that
/// two test processes never build under the same temporary name at once.
const TEMPLATE_LOCK: i64 = 0x6b69_7a75_6e61_7470; // "kizunatp"

/// A half-made SQLite template older than this is a killed run's, and removed.
const STALE_BUILD: Duration = Duration::from_secs(3600);

/// The hash that names this build's templates.
pub fn migrations_key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let lock = std::fs::read_to_string(root.join("../Cargo.lock")).expect("Cargo.lock");
        migrations_key_of(&root.join("src/storage/migration"), &lock).expect("the migrations")
    })
}

/// Every file of the migrations' directory (the runner included: it writes the record of
/// applied migrations), and the versions of the crates that turn them into SQL.
pub fn migrations_key_of(dir: &Path, cargo_lock: &str) -> anyhow::Result<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    let mut hash = Sha256::new();
    for file in files {
        let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        // Lengths first, so that no two different lists of files hash alike.
        hash.update((name.len() as u64).to_le_bytes());
        hash.update(name.as_bytes());
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    }
    let mut package = "";
    for line in cargo_lock.lines() {
        if let Some(name) = line.strip_prefix("name = ") {
            package = name;
        } else if line.starts_with("version = ")
            && ["\"sea-", "\"sqlx"].iter().any(|p| package.starts_with(p))
        {
            hash.update(package.as_bytes());
            hash.update(line.as_bytes());
        }
    }
    Ok(hex::encode(&hash.finalize()[..8]))
}

/// This build's migrated PostgreSQL template, built on first use.
pub async fn pg_template() -> &'static str {
    static TEMPLATE: OnceCell<String> = OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            let name = format!("kizuna_tmpl_{}", migrations_key());
            ensure_pg_template(&name)
                .await
                .expect("a migrated template on PostgreSQL at 127.0.0.1:5432");
            name
        })
        .await
}

/// Makes the template database `name` unless it exists: migrated under `<name>_building`
/// (dropped first: only a killed run leaves one, since builders take turns), closed to
/// connections (`CREATE DATABASE … TEMPLATE` refuses a template anyone is connected to), then
/// renamed, the rename being what marks it complete.
pub async fn ensure_pg_template(name: &str) -> anyhow::Result<()> {
    let mut admin = PgConnection::connect(PG_ADMIN_URL).await?;
    let made: anyhow::Result<()> = async {
        if pg_database_exists(&mut admin, name).await? {
            return Ok(());
        }
        sea_orm::sqlx::query("SELECT pg_advisory_lock($1)")
            .bind(TEMPLATE_LOCK)
            .execute(&mut admin)
            .await?;
        let built = build_pg_template(&mut admin, name).await;
        sea_orm::sqlx::query("SELECT pg_advisory_unlock($1)")
            .bind(TEMPLATE_LOCK)
            .execute(&mut admin)
            .await?;
        built
    }
    .await;
    // Closing the session would let the lock go too, had the unlock not run.
    admin.close().await.ok();
    made
}

async fn build_pg_template(admin: &mut PgConnection, name: &str) -> anyhow::Result<()> {
    // Another process may have built it while this one waited for the lock.
    if pg_database_exists(admin, name).await? {
        return Ok(());
    }
    let building = format!("{name}_building");
    for sql in [
        format!("DROP DATABASE IF EXISTS {building} WITH (FORCE)"),
        format!("CREATE DATABASE {building}"),
    ] {
        ddl(admin, sql).await?;
    }
    let db = storage::connect(
        &format!("postgres://postgres@127.0.0.1:5432/{building}"),
        Some(2),
    )
    .await?;
    let migrated = storage::migrate(&db).await;
    db.close().await?;
    migrated?;
    for sql in [
        format!("ALTER DATABASE {building} WITH ALLOW_CONNECTIONS false"),
        format!("ALTER DATABASE {building} RENAME TO {name}"),
    ] {
        ddl(admin, sql).await?;
    }
    Ok(())
}

/// A statement made of names only this module chose (no outside input reaches it).
async fn ddl(admin: &mut PgConnection, sql: String) -> anyhow::Result<()> {
    sea_orm::sqlx::raw_sql(sea_orm::sqlx::AssertSqlSafe(sql))
        .execute(admin)
        .await?;
    Ok(())
}

pub async fn pg_database_exists(admin: &mut PgConnection, name: &str) -> anyhow::Result<bool> {
    let (exists,): (bool,) =
        sea_orm::sqlx::query_as("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(name)
            .fetch_one(admin)
            .await?;
    Ok(exists)
}

/// This build's migrated SQLite template file, built on first use.
pub async fn sqlite_template() -> &'static Path {
    static TEMPLATE: OnceCell<PathBuf> = OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            let dir = std::env::temp_dir().join("kizuna-test-templates");
            ensure_sqlite_template(&dir, migrations_key())
                .await
                .expect("a migrated SQLite template")
        })
        .await
}

/// The template `<key>.db` in `dir`, made unless it exists: migrated under a name of its own and
/// renamed into place once complete (two processes that build at once each rename a whole file).
pub async fn ensure_sqlite_template(dir: &Path, key: &str) -> anyhow::Result<PathBuf> {
    let path = dir.join(format!("{key}.db"));
    if path.exists() {
        return Ok(path);
    }
    std::fs::create_dir_all(dir)?;
    remove_stale_builds(dir);
    let building = dir.join(format!("{key}.db.{}.building", random_hex(8)));
    let db = storage::connect(&format!("sqlite://{}?mode=rwc", building.display()), None).await?;
    let migrated = storage::migrate(&db).await;
    // Every page in the file itself, so that the file alone is the whole database.
    let checkpointed = storage::checkpoint_wal(&db).await;
    db.close().await?;
    migrated?;
    anyhow::ensure!(
        checkpointed?,
        "the template's log could not be checkpointed"
    );
    for side in ["-wal", "-shm"] {
        let mut file = building.clone().into_os_string();
        file.push(side);
        let file = PathBuf::from(file);
        if file.exists() {
            anyhow::ensure!(
                std::fs::metadata(&file)?.len() == 0 || side == "-shm",
                "the template's log still holds frames"
            );
            std::fs::remove_file(file)?;
        }
    }
    std::fs::rename(&building, &path)?;
    Ok(path)
}

fn remove_stale_builds(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| SystemTime::now().duration_since(at).ok())
            .is_some_and(|age| age > STALE_BUILD);
        if stale && entry.file_name().to_string_lossy().contains(".building") {
            std::fs::remove_file(entry.path()).ok();
        }
    }
}

const LOCK: &str = "[[package]]\nname = \"sea-query\"\nversion = \"1.0.0\"\n\n\
                    [[package]]\nname = \"serde\"\nversion = \"1.0.0\"\n";

/// The same migrations name the same template (it is reused across runs); any change to a
/// migration, a new one, or another sea-orm/sqlx version names another.
#[test]
fn a_changed_migration_names_another_template() {
    let dir = scratch_dir();
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/storage/migration");
    for entry in std::fs::read_dir(&sources).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    let key = migrations_key_of(&dir, LOCK).unwrap();
    assert_eq!(migrations_key_of(&dir, LOCK).unwrap(), key);
    assert_eq!(migrations_key_of(&sources, LOCK).unwrap(), key);
    // What the real key hashes is this build's directory.
    assert_eq!(
        migrations_key(),
        migrations_key_of(
            &sources,
            &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))
                .unwrap()
        )
        .unwrap()
    );

    let serde_bumped = LOCK.replace(
        "\"serde\"\nversion = \"1.0.0\"",
        "\"serde\"\nversion = \"1.0.1\"",
    );
    assert_eq!(migrations_key_of(&dir, &serde_bumped).unwrap(), key);
    let sea_query_bumped = LOCK.replacen("1.0.0", "1.0.1", 1);
    assert_ne!(migrations_key_of(&dir, &sea_query_bumped).unwrap(), key);

    let mut migrations: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('m'))
        .collect();
    migrations.sort();
    let last = migrations.last().unwrap();
    let mut text = std::fs::read_to_string(last).unwrap();
    text.push_str("// edited\n");
    std::fs::write(last, text).unwrap();
    let edited = migrations_key_of(&dir, LOCK).unwrap();
    assert_ne!(edited, key);

    std::fs::write(dir.join("m20991231_000001_later.rs"), "").unwrap();
    let added = migrations_key_of(&dir, LOCK).unwrap();
    assert_ne!(added, edited);
    assert_ne!(added, key);
    std::fs::remove_dir_all(dir).ok();
}

async fn admin() -> PgConnection {
    PgConnection::connect(PG_ADMIN_URL).await.unwrap()
}

async fn oid(admin: &mut PgConnection, name: &str) -> Option<i64> {
    sea_orm::sqlx::query_as::<_, (i64,)>("SELECT oid::bigint FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_optional(admin)
        .await
        .unwrap()
        .map(|(oid,)| oid)
}

async fn drop_database(admin: &mut PgConnection, name: &str) {
    ddl(
        admin,
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
    )
    .await
    .unwrap();
}

/// A half-made template a killed run left is never used: the build drops it and migrates
/// anew; two processes that build at once make one template; once made, it is reused as it
/// is; a copy holds every migration.
#[tokio::test]
async fn a_template_is_built_once_whole_and_then_reused_postgres() {
    let name = format!("kizuna_tmpltest_{}", random_hex(6));
    let mut admin = admin().await;
    ddl(&mut admin, format!("CREATE DATABASE {name}_building"))
        .await
        .unwrap();
    let half = oid(&mut admin, &format!("{name}_building")).await.unwrap();

    // Two builders at once, each on a runtime (and connections) of its own.
    let builders: Vec<_> = (0..2)
        .map(|_| {
            let name = name.clone();
            std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap()
                    .block_on(ensure_pg_template(&name))
            })
        })
        .collect();
    for builder in builders {
        builder.join().unwrap().unwrap();
    }
    let made = oid(&mut admin, &name).await.expect("the template");
    assert_ne!(made, half, "the half-made database was not taken");
    assert_eq!(oid(&mut admin, &format!("{name}_building")).await, None);
    let (allowed,): (bool,) =
        sea_orm::sqlx::query_as("SELECT datallowconn FROM pg_database WHERE datname = $1")
            .bind(&name)
            .fetch_one(&mut admin)
            .await
            .unwrap();
    assert!(!allowed, "nobody connects to a template");

    ensure_pg_template(&name).await.unwrap();
    assert_eq!(oid(&mut admin, &name).await, Some(made), "reused as it is");

    let copy = format!("kizuna_test_{}", random_hex(8));
    ddl(
        &mut admin,
        format!("CREATE DATABASE {copy} TEMPLATE {name}"),
    )
    .await
    .unwrap();
    let db = storage::connect(&format!("postgres://postgres@127.0.0.1:5432/{copy}"), None)
        .await
        .unwrap();
    let applied: Vec<String> = storage::migration::Migrator::get_applied_migrations(&db)
        .await
        .unwrap()
        .iter()
        .map(|m| m.name().to_string())
        .collect();
    db.close().await.unwrap();
    let known: Vec<String> = storage::migration::Migrator::migrations()
        .iter()
        .map(|m| m.name().to_string())
        .collect();
    assert_eq!(applied, known);
    for database in [copy, name] {
        drop_database(&mut admin, &database).await;
    }
    admin.close().await.ok();
}

/// A test's database is a copy of this build's template, with every migration applied, on
/// both databases.
async fn a_scratch_database_is_migrated(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let url = url.unwrap_or_else(|| format!("sqlite://{}/kizuna.db?mode=rwc", data_dir.display()));
    let db = storage::connect(&url, None).await.unwrap();
    let pending = storage::migration::Migrator::get_pending_migrations(&db)
        .await
        .unwrap();
    assert!(pending.is_empty(), "{} pending", pending.len());
    db.close().await.unwrap();
    std::fs::remove_dir_all(data_dir).ok();
}

crate::on_both_backends!(a_scratch_database_is_migrated);

/// A SQLite template is built once and reused; a half-made one is never taken for it.
#[tokio::test]
async fn a_sqlite_template_is_built_once_and_then_reused() {
    let dir = scratch_dir();
    let key = "0123456789abcdef";
    std::fs::write(dir.join(format!("{key}.db.0000.building")), b"half").unwrap();
    let path = ensure_sqlite_template(&dir, key).await.unwrap();
    let made = std::fs::metadata(&path).unwrap().modified().unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(ensure_sqlite_template(&dir, key).await.unwrap(), path);
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), made);
    // A copy, as a test gets it: the template itself is never opened again.
    let copy = dir.join("kizuna.db");
    std::fs::copy(&path, &copy).unwrap();
    let db = storage::connect(&format!("sqlite://{}?mode=rwc", copy.display()), None)
        .await
        .unwrap();
    assert!(
        storage::migration::Migrator::get_pending_migrations(&db)
            .await
            .unwrap()
            .is_empty()
    );
    db.close().await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}
