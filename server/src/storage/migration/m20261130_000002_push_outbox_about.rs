//! The rest of `push_outbox.about_user_id` (the previous migration) on PostgreSQL: its foreign
//! key, added NOT VALID there, is validated in a transaction of its own, which reads the table
//! holding only a lock that lets pushes be queued and sent meanwhile.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() == sea_orm::DbBackend::Postgres {
            manager
                .get_connection()
                .execute_unprepared(
                    "ALTER TABLE push_outbox VALIDATE CONSTRAINT push_outbox_about_user_id_fkey",
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, _manager: &SchemaManager) -> Result<(), DbErr> {
        Ok(())
    }
}
