//! Leaving: what is kept of a member who deleted their account, keyed by a SHA-256 of their LINE
//! user id and never the id itself (`departures`: a suspension, so that they cannot register
//! again; `kept_blocks`: the blocks between them and others, restored if they register again),
//! and the stored files still to remove (`file_removals`, worked off by the housekeeping task,
//! so that a removal cut short by a crash is finished by the next process).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Departures {
    Table,
    LineHash,
    Suspended,
    DepartedAt,
}

#[derive(DeriveIden)]
enum KeptBlocks {
    Table,
    Id,
    MemberId,
    DepartedHash,
    DepartedBlocked,
    CreatedAt,
}

#[derive(DeriveIden)]
enum FileRemovals {
    Table,
    FileId,
    QueuedAt,
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
                    .table(Departures::Table)
                    .col(
                        ColumnDef::new(Departures::LineHash)
                            .string_len(64)
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(Departures::Suspended).boolean().not_null())
                    .col(
                        ColumnDef::new(Departures::DepartedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(KeptBlocks::Table)
                    .col(
                        ColumnDef::new(KeptBlocks::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    // The member who stayed.
                    .col(
                        ColumnDef::new(KeptBlocks::MemberId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(KeptBlocks::DepartedHash)
                            .string_len(64)
                            .not_null(),
                    )
                    // True: the member blocked the one who left; false: the other way round.
                    .col(
                        ColumnDef::new(KeptBlocks::DepartedBlocked)
                            .boolean()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(KeptBlocks::CreatedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(KeptBlocks::Table, KeptBlocks::MemberId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_kept_blocks_departed")
                    .table(KeptBlocks::Table)
                    .col(KeptBlocks::DepartedHash)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(FileRemovals::Table)
                    .col(
                        ColumnDef::new(FileRemovals::FileId)
                            .string_len(32)
                            .not_null()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(FileRemovals::QueuedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            FileRemovals::Table.into_iden(),
            KeptBlocks::Table.into_iden(),
            Departures::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
