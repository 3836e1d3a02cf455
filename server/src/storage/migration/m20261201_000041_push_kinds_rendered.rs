//! Pushes stored as what, not how: `push_outbox.kind` (match, message, introductions,
//! review) and `push_outbox.subject` (kizuna-core's `push::Push` as JSON: its ids and counts) are
//! rendered into a Flex Message in the member's language when the push is sent; `messages` keeps
//! the JSON of a row written before this migration (and is empty for a row with a kind). And
//! `push_days`: per day and kind, the pushes LINE accepted and the visits their links brought
//! (counted on arrival, no member id), which `kizuna-server funnel` prints.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("ALTER TABLE push_outbox ADD COLUMN kind TEXT NULL")
            .await?;
        db.execute_unprepared("ALTER TABLE push_outbox ADD COLUMN subject TEXT NULL")
            .await?;
        db.execute_unprepared(
            "CREATE TABLE push_days (day TEXT NOT NULL, kind TEXT NOT NULL, \
             sent BIGINT NOT NULL DEFAULT 0, visits BIGINT NOT NULL DEFAULT 0, \
             PRIMARY KEY (day, kind))",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP TABLE push_days").await?;
        db.execute_unprepared("ALTER TABLE push_outbox DROP COLUMN subject")
            .await?;
        db.execute_unprepared("ALTER TABLE push_outbox DROP COLUMN kind")
            .await?;
        Ok(())
    }
}
