//! The usual review time reads the last week of first decisions from `review_history` and, for
//! each, when its submission began: an index by time for the window and one by profile for the
//! submission, each built concurrently (the history grows with every decision).

use sea_orm_migration::prelude::*;

use super::run::create_index_concurrently;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    fn use_transaction(&self) -> Option<bool> {
        Some(false)
    }

    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        create_index_concurrently(
            manager,
            "idx_review_history_created",
            "review_history",
            "created_at",
        )
        .await?;
        create_index_concurrently(
            manager,
            "idx_review_history_profile",
            "review_history",
            "profile_id, id",
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP INDEX IF EXISTS idx_review_history_created")
            .await?;
        db.execute_unprepared("DROP INDEX IF EXISTS idx_review_history_profile")
            .await?;
        Ok(())
    }
}
