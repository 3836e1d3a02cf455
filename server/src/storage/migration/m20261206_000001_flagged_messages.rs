//! A send reads the kinds its sender's earlier messages carried (`storage::chat::send_context`):
//! an index of the flagged messages alone, by match and sender, makes that read as short in a
//! conversation of thousands of messages as in a new one (few messages are flagged). Built
//! concurrently: the messages are the largest table.

use sea_orm_migration::prelude::*;

use super::run::create_partial_index_concurrently;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    fn use_transaction(&self) -> Option<bool> {
        Some(false)
    }

    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        create_partial_index_concurrently(
            manager,
            "idx_chat_messages_flagged",
            "chat_messages",
            "match_id, sender_id",
            Some("safety_kinds <> 0"),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX IF EXISTS idx_chat_messages_flagged")
            .await?;
        Ok(())
    }
}
