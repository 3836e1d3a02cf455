//! The rate limits' shared allowances (`crate::rate_limit`): on PostgreSQL one row per key with
//! its theoretical arrival time, UNLOGGED because an allowance is worth no WAL (a crash of the
//! database forgets them all, which only hands out fresh allowances). SQLite keeps allowances in
//! the one process's memory and gets no table.

use sea_orm::{ConnectionTrait, DbBackend};
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE UNLOGGED TABLE rate_allowances (key TEXT PRIMARY KEY, tat_ms BIGINT NOT NULL)",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared("DROP TABLE rate_allowances")
            .await?;
        Ok(())
    }
}
