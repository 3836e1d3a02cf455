//! Members taking a break (`pauses`): out of everyone's introductions, no lists of their own,
//! their matches go on. A row per paused profile; resuming deletes it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Pauses {
    Table,
    ProfileId,
    PausedAt,
}

#[derive(DeriveIden)]
enum Profiles {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Pauses::Table)
                    .col(
                        ColumnDef::new(Pauses::ProfileId)
                            .big_integer()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(Pauses::PausedAt).big_integer().not_null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(Pauses::Table, Pauses::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Pauses::Table).to_owned())
            .await
    }
}
