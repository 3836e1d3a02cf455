//! Matches where nobody writes close gently: `matches.reminded_at` (when both members were
//! reminded to say hello, once) and `matches.ended_reason` (`EXPIRED` for a match closed because
//! nobody wrote; NULL for every other end: unmatch, block, report, suspension, departure).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum Matches {
    Table,
    RemindedAt,
    EndedReason,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time. Both NULL by default: adding them
        // rewrites nothing on PostgreSQL.
        manager
            .alter_table(
                Table::alter()
                    .table(Matches::Table)
                    .add_column(ColumnDef::new(Matches::RemindedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Matches::Table)
                    .add_column(ColumnDef::new(Matches::EndedReason).text().null())
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Matches::EndedReason, Matches::RemindedAt] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Matches::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
