//! `we_met`: a member's private answer about one of their matches ("Did you meet?" and, after a
//! yes, "Would you like to see them again?"), one row per match and asked member (the primary
//! key: the question is asked and pushed once, however many processes run the job). `about_id`
//! is the other member, whom the answer concerns: the daily pick counts, per candidate, the
//! members who met them and want to see them again (`idx_we_met_about`). `asked_at` is when the
//! question was pushed (null when the member answered in the app first), `met` and `see_again`
//! (null until answered). The row goes with the match (which goes with either member's
//! account) and with either profile.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared(
            "CREATE TABLE we_met (\
               match_id BIGINT NOT NULL REFERENCES matches (id) ON DELETE CASCADE, \
               member_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE, \
               about_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE, \
               asked_at BIGINT NULL, \
               met BOOLEAN NULL, \
               see_again BOOLEAN NULL, \
               answered_at BIGINT NULL, \
               PRIMARY KEY (match_id, member_id))",
        )
        .await?;
        db.execute_unprepared("CREATE INDEX idx_we_met_member ON we_met (member_id)")
            .await?;
        db.execute_unprepared("CREATE INDEX idx_we_met_about ON we_met (about_id, see_again)")
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP TABLE we_met")
            .await?;
        Ok(())
    }
}
