//! Copies of a member's data (`data_exports`): asked for by the member, prepared in the
//! background into a zip held in the row (so that any server process can hand it out), and
//! downloaded through a capability link whose token is stored only as a hash. A row goes with
//! its user; the archive is cleared once the link has expired, and the row a day later.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum DataExports {
    Table,
    Id,
    UserId,
    TokenHash,
    Status,
    RequestedAt,
    ReadyAt,
    Archive,
    SizeBytes,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(DataExports::Table)
                    .col(
                        ColumnDef::new(DataExports::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(DataExports::UserId).big_integer().not_null())
                    .col(
                        ColumnDef::new(DataExports::TokenHash)
                            .string_len(64)
                            .not_null()
                            .unique_key(),
                    )
                    // PREPARING, READY or FAILED.
                    .col(
                        ColumnDef::new(DataExports::Status)
                            .string_len(16)
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(DataExports::RequestedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(DataExports::ReadyAt).big_integer().null())
                    .col(ColumnDef::new(DataExports::Archive).blob().null())
                    .col(ColumnDef::new(DataExports::SizeBytes).big_integer().null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(DataExports::Table, DataExports::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_data_exports_user")
                    .table(DataExports::Table)
                    .col(DataExports::UserId)
                    .col(DataExports::RequestedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(DataExports::Table).to_owned())
            .await
    }
}
