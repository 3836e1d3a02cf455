//! A chat stream's presence row names the process that holds the stream (`crate::instance`):
//! presence counts only while that process is alive, so a stream that died with its process
//! (kill -9) stops counting at once instead of when its row expires. Rows written before have
//! process 0, which no process has, and so count for nobody.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ChatPresence {
    Table,
    ProcessId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ChatPresence::Table)
                    .add_column(
                        ColumnDef::new(ChatPresence::ProcessId)
                            .integer()
                            .not_null()
                            .default(0),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ChatPresence::Table)
                    .drop_column(ChatPresence::ProcessId)
                    .to_owned(),
            )
            .await
    }
}
