//! `removal_notices`: a member told that someone they were matched with was removed for
//! breaking the rules (kizuna-core's `review::removal_notice_due`), one row per member and match
//! (the primary key: a second suspension of the same member, after a reinstatement or by a
//! racing reviewer, tells nobody twice), with when it was written and when they dismissed it.
//! The row goes with the told member's profile; the match is a bare number, not a reference, so
//! that the notice outlives the removed member's own deletion (the match row goes with them, and
//! the notice then names nobody).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared(
            "CREATE TABLE removal_notices (\
               member_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE, \
               match_id BIGINT NOT NULL, \
               created_at BIGINT NOT NULL, \
               dismissed_at BIGINT NULL, \
               PRIMARY KEY (member_id, match_id))",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP TABLE removal_notices")
            .await?;
        Ok(())
    }
}
