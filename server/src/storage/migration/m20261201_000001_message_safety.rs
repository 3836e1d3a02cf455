//! Safe conversations:
//! - `chat_messages.safety_kinds`: the kinds kizuna-core's screening found in a message when it
//!   was stored (`Kinds::bits`: 1 OFF_PLATFORM, 2 MONEY, 0 none): the recipient's caution, read
//!   without a second copy of the text;
//! - `safety_reviews`: a conversation put in the reviewers' queue by the rule, once per match
//!   (the primary key), with the member whose messages carried the money talk, why, when, and
//!   how it was settled (dismissed or by a suspension). It names no reporter: nobody reported.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        // A constant default: PostgreSQL adds it without rewriting the table.
        db.execute_unprepared(
            "ALTER TABLE chat_messages ADD COLUMN safety_kinds BIGINT NOT NULL DEFAULT 0",
        )
        .await?;
        db.execute_unprepared(
            "CREATE TABLE safety_reviews (\
               match_id BIGINT NOT NULL PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE, \
               member_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE, \
               cause TEXT NOT NULL, \
               created_at BIGINT NOT NULL, \
               settled_at BIGINT NULL, \
               settlement TEXT NULL, \
               settled_by BIGINT NULL)",
        )
        .await?;
        db.execute_unprepared(
            "CREATE INDEX idx_safety_reviews_member ON safety_reviews (member_id)",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("DROP TABLE safety_reviews").await?;
        db.execute_unprepared("ALTER TABLE chat_messages DROP COLUMN safety_kinds")
            .await?;
        Ok(())
    }
}
