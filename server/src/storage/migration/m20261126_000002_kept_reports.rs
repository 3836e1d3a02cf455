//! Reports outlive a member who leaves: the reporter's side becomes NULL when the reporter's
//! profile goes (the report stays for the reviewer without naming them), and an open report
//! about a member who left waits under the hash of their LINE user id (`target_departed`) for
//! their return. SQLite cannot change a column's nullability or a foreign key's action, so the
//! table is rebuilt (the same on both backends): new table, copy, drop, rename, indexes.

use sea_orm::{ConnectionTrait, DbBackend};
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The table's new shape; `{id}` is the backend's auto-increment key.
fn create(id: &str) -> String {
    format!(
        "CREATE TABLE reports_next (\
           id {id}, \
           reporter_id BIGINT NULL REFERENCES profiles (id) ON DELETE SET NULL, \
           target_id BIGINT NULL REFERENCES profiles (id) ON DELETE SET NULL, \
           target_departed VARCHAR(64) NULL, \
           reasons VARCHAR(400) NOT NULL, \
           text TEXT NOT NULL, \
           status VARCHAR(16) NOT NULL, \
           created_at BIGINT NOT NULL)"
    )
}

/// The rebuild after the new table exists. One batch on one connection: SQLite answered a
/// statement split over the pool's connections from a schema that predated the DROP.
const REBUILD: &str = "\
    INSERT INTO reports_next (id, reporter_id, target_id, reasons, text, status, created_at) \
      SELECT id, reporter_id, target_id, reasons, text, status, created_at FROM reports; \
    DROP TABLE reports; \
    ALTER TABLE reports_next RENAME TO reports; \
    CREATE INDEX idx_reports_queue ON reports (status, created_at); \
    CREATE INDEX idx_reports_pair ON reports (reporter_id, target_id); \
    CREATE INDEX idx_reports_target ON reports (target_id); \
    CREATE INDEX idx_reports_departed ON reports (target_departed)";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let batch = if db.get_database_backend() == DbBackend::Postgres {
            // The copied ids were given explicitly: the new sequence must continue after them.
            format!(
                "{}; {REBUILD}; SELECT setval(pg_get_serial_sequence('reports', 'id'), \
                 COALESCE((SELECT MAX(id) FROM reports), 0) + 1, false)",
                create("BIGSERIAL PRIMARY KEY")
            )
        } else {
            format!(
                "BEGIN IMMEDIATE; {}; {REBUILD}; COMMIT",
                create("INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT")
            )
        };
        db.execute_unprepared(&batch).await?;
        Ok(())
    }

    /// Back to reports that always name both members: the ones about or by someone who left
    /// cannot be kept in that shape and are dropped.
    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let (id, begin, end) = if db.get_database_backend() == DbBackend::Postgres {
            ("BIGSERIAL PRIMARY KEY", "", "")
        } else {
            (
                "INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT",
                "BEGIN IMMEDIATE;",
                "; COMMIT",
            )
        };
        let mut batch = format!(
            "{begin} CREATE TABLE reports_before (\
               id {id}, \
               reporter_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE, \
               target_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE, \
               reasons VARCHAR(400) NOT NULL, \
               text TEXT NOT NULL, \
               status VARCHAR(16) NOT NULL, \
               created_at BIGINT NOT NULL); \
             INSERT INTO reports_before (id, reporter_id, target_id, reasons, text, status, created_at) \
               SELECT id, reporter_id, target_id, reasons, text, status, created_at FROM reports \
               WHERE reporter_id IS NOT NULL AND target_id IS NOT NULL; \
             DROP TABLE reports; \
             ALTER TABLE reports_before RENAME TO reports; \
             CREATE INDEX idx_reports_queue ON reports (status, created_at); \
             CREATE INDEX idx_reports_pair ON reports (reporter_id, target_id); \
             CREATE INDEX idx_reports_target ON reports (target_id)"
        );
        if db.get_database_backend() == DbBackend::Postgres {
            batch.push_str(
                "; SELECT setval(pg_get_serial_sequence('reports', 'id'), \
                 COALESCE((SELECT MAX(id) FROM reports), 0) + 1, false)",
            );
        }
        batch.push_str(end);
        db.execute_unprepared(&batch).await?;
        Ok(())
    }
}
