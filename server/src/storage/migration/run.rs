//! Applying migrations so that no member is locked out, and so that processes of the previous
//! build keep serving while the next one migrates (docs/design.md, "Upgrades").
//!
//! - A build serves a database whose migrations it does not all know, as long as every one of its
//!   own is applied: a newer build added the others (expand first, contract in a later release),
//!   so the previous build's processes go on serving, and one of them that restarts starts.
//!   A database that lacks some of the build's own migrations while holding others it does not
//!   know is refused: the order in which they would apply is nobody's.
//! - On PostgreSQL every migration runs on one connection of its own, named in
//!   `pg_stat_activity` (`application_name = 'kizuna migrate <name>'`), with `lock_timeout` and
//!   `statement_timeout` set: a statement that waits for a table lock gives up after
//!   [`Timeouts::lock`] instead of queueing every member's query behind it, and the migration is
//!   tried again a little later ([`Timeouts::attempts`]). A migration runs in a transaction of its
//!   own unless it says otherwise (`use_transaction() -> Some(false)`, for an index built
//!   `CONCURRENTLY` on a table that can be large: [`create_index_concurrently`]).
//! - SQLite runs them as sea-orm-migration does (no transaction unless the migration asks).

use std::time::Duration;

use anyhow::Context;
use sea_orm::{
    ActiveValue, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, EntityTrait, RuntimeErr,
    Statement, TransactionTrait,
};
use sea_orm_migration::{MigrationTrait, MigratorTrait, SchemaManager, seaql_migrations};

/// How long a migration's statements may wait and run on PostgreSQL, and how often a migration
/// that gave up waiting for a lock is tried again.
#[derive(Clone, Debug)]
pub struct Timeouts {
    /// `lock_timeout`: the longest a statement waits for a lock. Members' queries on the same
    /// table queue behind a waiting `ALTER TABLE`, so this is also the longest they wait.
    pub lock: Duration,
    /// `statement_timeout`: the longest one statement runs.
    pub statement: Duration,
    /// Tries of a migration whose statement gave up waiting for a lock (SQLSTATE 55P03).
    pub attempts: u32,
    /// The wait between two tries.
    pub pause: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            lock: Duration::from_secs(2),
            statement: Duration::from_secs(30 * 60),
            attempts: 5,
            pause: Duration::from_secs(3),
        }
    }
}

/// What the database's record of applied migrations says against the build's own list.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    /// The build's migrations not yet applied, in the build's order.
    pub pending: Vec<String>,
    /// Migrations applied that the build does not know (a newer build's).
    pub unknown: Vec<String>,
}

/// A database this build must not migrate nor serve.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the database holds migrations this build does not know ({}) and lacks some of its own ({}): \
     it was migrated by another line of releases; run `kizuna-server migrate` of a build that \
     knows them all",
    unknown.join(", "),
    pending.join(", ")
)]
pub struct Refusal {
    pub pending: Vec<String>,
    pub unknown: Vec<String>,
}

/// What to do, from the build's migrations (`known`, in order) and the applied ones.
pub fn plan(known: &[String], applied: &[String]) -> Result<Plan, Refusal> {
    let pending: Vec<String> = known
        .iter()
        .filter(|name| !applied.contains(name))
        .cloned()
        .collect();
    let mut unknown: Vec<String> = applied
        .iter()
        .filter(|name| !known.contains(name))
        .cloned()
        .collect();
    unknown.sort();
    if !pending.is_empty() && !unknown.is_empty() {
        return Err(Refusal { pending, unknown });
    }
    Ok(Plan { pending, unknown })
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    /// The migrations it applied, in order.
    pub applied: Vec<String>,
    /// Applied migrations this build does not know (a newer build's), left as they are.
    pub unknown: Vec<String>,
}

/// Applies `M`'s pending migrations (see the module's documentation). The caller makes sure that
/// no other process migrates at the same time (`storage::migrate` holds an advisory lock).
pub async fn run<M: MigratorTrait>(
    db: &DatabaseConnection,
    timeouts: &Timeouts,
) -> anyhow::Result<Report> {
    M::install(db)
        .await
        .context("creating the table of applied migrations")?;
    let applied: Vec<String> = M::get_migration_models(db)
        .await
        .context("reading the applied migrations")?
        .into_iter()
        .map(|m| m.version)
        .collect();
    let migrations = M::migrations();
    let known: Vec<String> = migrations.iter().map(|m| m.name().to_string()).collect();
    let plan = plan(&known, &applied)?;
    if !plan.unknown.is_empty() {
        tracing::info!(
            unknown = %plan.unknown.join(", "),
            "the database holds migrations of a newer build; every one of this build's is applied"
        );
    }
    let postgres = db.get_database_backend() == DbBackend::Postgres;
    // One connection for every statement of the run: session settings then hold for a
    // migration that runs outside a transaction.
    let conn = if postgres && !plan.pending.is_empty() {
        Some(single_connection(db).await?)
    } else {
        None
    };
    let mut report = Report {
        applied: Vec::new(),
        unknown: plan.unknown,
    };
    for migration in migrations
        .iter()
        .filter(|m| plan.pending.iter().any(|name| name == m.name()))
    {
        let name = migration.name();
        tracing::info!(migration = name, "applying a migration");
        let outcome = match &conn {
            Some(conn) => apply_postgres(conn, migration.as_ref(), timeouts).await,
            None => apply_sqlite(db, migration.as_ref()).await,
        };
        if let Err(err) = outcome {
            if let Some(conn) = conn {
                conn.close().await.ok();
            }
            return Err(err).with_context(|| format!("applying the migration {name}"));
        }
        report.applied.push(name.to_string());
    }
    if let Some(conn) = conn {
        conn.close().await.ok();
    }
    Ok(report)
}

/// A pool of one connection to the same PostgreSQL database as `db`.
async fn single_connection(db: &DatabaseConnection) -> anyhow::Result<DatabaseConnection> {
    let options = (*db.get_postgres_connection_pool().connect_options()).clone();
    let pool = sea_orm::sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await
        .context("connecting for the migrations")?;
    Ok(sea_orm::SqlxPostgresConnector::from_sqlx_postgres_pool(
        pool,
    ))
}

/// A PostgreSQL migration, tried again while it gives up waiting for a lock.
async fn apply_postgres(
    conn: &DatabaseConnection,
    migration: &dyn MigrationTrait,
    timeouts: &Timeouts,
) -> anyhow::Result<()> {
    let mut attempt = 1;
    loop {
        match apply_postgres_once(conn, migration, timeouts).await {
            Ok(()) => return Ok(()),
            Err(err) if is_lock_timeout(&err) && attempt < timeouts.attempts => {
                tracing::warn!(
                    migration = migration.name(),
                    attempt,
                    "a migration gave up waiting for a lock (a long transaction holds the \
                     table); trying again"
                );
                tokio::time::sleep(timeouts.pause).await;
                attempt += 1;
            }
            Err(err) if is_lock_timeout(&err) => {
                return Err(err).with_context(|| {
                    format!(
                        "{attempt} tries each gave up waiting {} ms for a lock: a long \
                         transaction holds the table (see pg_stat_activity); run \
                         `kizuna-server migrate` again once it has ended",
                        timeouts.lock.as_millis()
                    )
                });
            }
            Err(err) => return Err(err.into()),
        }
    }
}

async fn apply_postgres_once(
    conn: &DatabaseConnection,
    migration: &dyn MigrationTrait,
    timeouts: &Timeouts,
) -> Result<(), DbErr> {
    let name = migration.name();
    let settings = [
        format!("application_name = '{}'", application_name(name)),
        format!("lock_timeout = '{}ms'", timeouts.lock.as_millis()),
        format!("statement_timeout = '{}ms'", timeouts.statement.as_millis()),
    ];
    if migration.use_transaction() == Some(false) {
        for setting in &settings {
            conn.execute_unprepared(&format!("SET {setting}")).await?;
        }
        let outcome = async {
            migration.up(&SchemaManager::new(conn)).await?;
            record(conn, name).await
        }
        .await;
        // The next migration sets its own; a connection that broke is gone with its settings.
        for setting in ["application_name", "lock_timeout", "statement_timeout"] {
            conn.execute_unprepared(&format!("RESET {setting}"))
                .await
                .ok();
        }
        outcome
    } else {
        let txn = conn.begin().await?;
        for setting in &settings {
            txn.execute_unprepared(&format!("SET LOCAL {setting}"))
                .await?;
        }
        migration.up(&SchemaManager::new(&txn)).await?;
        record(&txn, name).await?;
        txn.commit().await
    }
}

async fn apply_sqlite(
    db: &DatabaseConnection,
    migration: &dyn MigrationTrait,
) -> anyhow::Result<()> {
    let name = migration.name();
    if migration.use_transaction() == Some(true) {
        let txn = db.begin().await?;
        migration.up(&SchemaManager::new(&txn)).await?;
        record(&txn, name).await?;
        txn.commit().await?;
    } else {
        migration.up(&SchemaManager::new(db)).await?;
        record(db, name).await?;
    }
    Ok(())
}

/// What `pg_stat_activity` shows while the migration runs.
pub fn application_name(migration: &str) -> String {
    // Migration names are identifiers; anything else would be a bug worth a loud stop.
    assert!(
        migration
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_'),
        "a migration name is made of letters, digits and underscores: {migration}"
    );
    format!("kizuna migrate {migration}")
}

async fn record(db: &impl ConnectionTrait, name: &str) -> Result<(), DbErr> {
    seaql_migrations::Entity::insert(seaql_migrations::ActiveModel {
        version: ActiveValue::Set(name.to_owned()),
        applied_at: ActiveValue::Set(crate::clock::now_secs()),
    })
    .exec(db)
    .await?;
    Ok(())
}

/// Whether a statement gave up waiting for a lock (`lock_timeout`, SQLSTATE 55P03).
fn is_lock_timeout(err: &DbErr) -> bool {
    match err {
        DbErr::Exec(RuntimeErr::SqlxError(e)) | DbErr::Query(RuntimeErr::SqlxError(e)) => e
            .as_database_error()
            .and_then(|e| e.code())
            .is_some_and(|code| code == "55P03"),
        _ => false,
    }
}

/// Builds an index without blocking writes to its table: PostgreSQL's `CREATE INDEX
/// CONCURRENTLY`, for a migration that runs outside a transaction (its `use_transaction()`
/// answers `Some(false)`). A build cut short leaves an invalid index behind, which `IF NOT EXISTS`
/// would take for done: it is dropped (concurrently too) and built again. SQLite builds it as
/// usual. `columns` is the index's column list as SQL (`member_id, created_at`).
pub async fn create_index_concurrently(
    manager: &SchemaManager<'_>,
    name: &str,
    table: &str,
    columns: &str,
) -> Result<(), DbErr> {
    create_partial_index_concurrently(manager, name, table, columns, None).await
}

/// [`create_index_concurrently`] of the rows `predicate` (SQL both databases speak, such as
/// `safety_kinds <> 0`) holds for, when given: a query whose `WHERE` states the same condition
/// reads only those rows' entries.
pub async fn create_partial_index_concurrently(
    manager: &SchemaManager<'_>,
    name: &str,
    table: &str,
    columns: &str,
    predicate: Option<&str>,
) -> Result<(), DbErr> {
    let db = manager.get_connection();
    let backend = db.get_database_backend();
    let predicate = predicate.map(|p| format!(" WHERE {p}")).unwrap_or_default();
    if backend != DbBackend::Postgres {
        db.execute_unprepared(&format!(
            "CREATE INDEX IF NOT EXISTS {name} ON {table} ({columns}){predicate}"
        ))
        .await?;
        return Ok(());
    }
    let invalid = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            "SELECT 1 AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             WHERE c.relname = $1 AND NOT i.indisvalid",
            [name.into()],
        ))
        .await?
        .is_some();
    if invalid {
        db.execute_unprepared(&format!("DROP INDEX CONCURRENTLY IF EXISTS {name}"))
            .await?;
    }
    db.execute_unprepared(&format!(
        "CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {table} ({columns}){predicate}"
    ))
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_database_with_every_migration_of_the_build_applied_needs_nothing() {
        let known = names(&["m1", "m2"]);
        assert_eq!(
            plan(&known, &names(&["m1", "m2"])),
            Ok(Plan {
                pending: vec![],
                unknown: vec![]
            })
        );
    }

    #[test]
    fn a_build_applies_its_own_pending_migrations_in_its_order() {
        let known = names(&["m1", "m2", "m3"]);
        assert_eq!(
            plan(&known, &names(&["m1"])),
            Ok(Plan {
                pending: names(&["m2", "m3"]),
                unknown: vec![]
            })
        );
    }

    #[test]
    fn a_newer_builds_migrations_let_an_older_build_serve_when_its_own_are_applied() {
        let known = names(&["m1", "m2"]);
        assert_eq!(
            plan(&known, &names(&["m3", "m1", "m2"])),
            Ok(Plan {
                pending: vec![],
                unknown: names(&["m3"])
            })
        );
    }

    #[test]
    fn a_database_of_another_line_of_releases_is_refused() {
        let known = names(&["m1", "m2"]);
        let refused = plan(&known, &names(&["m1", "m9"])).unwrap_err();
        assert_eq!(refused.pending, names(&["m2"]));
        assert_eq!(refused.unknown, names(&["m9"]));
        let said = refused.to_string();
        assert!(said.contains("m9") && said.contains("m2"), "{said}");
        assert!(said.contains("kizuna-server migrate"), "{said}");
    }

    #[test]
    fn the_activity_name_carries_the_migration() {
        assert_eq!(
            application_name("m20261129_000001_profile_revisions"),
            "kizuna migrate m20261129_000001_profile_revisions"
        );
    }

    #[test]
    #[should_panic(expected = "letters, digits and underscores")]
    fn a_migration_name_with_a_quote_never_reaches_sql() {
        application_name("m1'; DROP TABLE users; --");
    }
}
