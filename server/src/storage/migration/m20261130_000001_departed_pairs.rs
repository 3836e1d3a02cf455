//! What a deleted account leaves, made to hold what was promised:
//! - `push_outbox.about_user_id`: the user a push names (the "new message from …" push names its
//!   sender), so that a deleted account's name goes with it from the rows addressed to others
//!   (the schema cascades from `users`; on PostgreSQL its key is validated by the next migration,
//!   apart, so that neither holds the outbox long; it has no index: the outbox keeps a day of
//!   rows, which a deletion's cascade reads through);
//! - `kept_pairs`: the pairs a departure had with others that ended or were passed, each only as
//!   a SHA-256 of both LINE user ids, with the departure's time (kept a year);
//! - `former_pairs`: such a pair restored between two present profiles when the one who left
//!   registers again, so that they are not introduced to each other again (until the year is
//!   over); it goes with either profile.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum KeptPairs {
    Table,
    PairHash,
    DepartedAt,
}

#[derive(DeriveIden)]
enum FormerPairs {
    Table,
    LowId,
    HighId,
    DepartedAt,
}

#[derive(DeriveIden)]
enum Profiles {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if manager.get_database_backend() == sea_orm::DbBackend::Postgres {
            // Without a long lock on a table that can be large: the key is added NOT VALID here
            // (new rows are checked at once) and validated, with its index built concurrently,
            // by the next migration outside this transaction.
            db.execute_unprepared("ALTER TABLE push_outbox ADD COLUMN about_user_id BIGINT NULL")
                .await?;
            db.execute_unprepared(
                "ALTER TABLE push_outbox ADD CONSTRAINT push_outbox_about_user_id_fkey \
                 FOREIGN KEY (about_user_id) REFERENCES users (id) ON DELETE CASCADE NOT VALID",
            )
            .await?;
        } else {
            // SQLite adds a column's foreign key only in this statement (sea-query will not write
            // one into an ALTER TABLE for SQLite).
            db.execute_unprepared(
                "ALTER TABLE push_outbox ADD COLUMN about_user_id BIGINT NULL \
                 REFERENCES users (id) ON DELETE CASCADE",
            )
            .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(KeptPairs::Table)
                    .col(
                        ColumnDef::new(KeptPairs::PairHash)
                            .text()
                            .not_null()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(KeptPairs::DepartedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(FormerPairs::Table)
                    .col(ColumnDef::new(FormerPairs::LowId).big_integer().not_null())
                    .col(ColumnDef::new(FormerPairs::HighId).big_integer().not_null())
                    .col(
                        ColumnDef::new(FormerPairs::DepartedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .primary_key(
                        Index::create()
                            .col(FormerPairs::LowId)
                            .col(FormerPairs::HighId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(FormerPairs::Table, FormerPairs::LowId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(FormerPairs::Table, FormerPairs::HighId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_former_pairs_high")
                    .table(FormerPairs::Table)
                    .col(FormerPairs::HighId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [FormerPairs::Table.into_iden(), KeptPairs::Table.into_iden()] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        let db = manager.get_connection();
        // SQLite drops no column that a foreign key uses: there it stays, empty from then on.
        if manager.get_database_backend() == sea_orm::DbBackend::Postgres {
            db.execute_unprepared("ALTER TABLE push_outbox DROP COLUMN about_user_id")
                .await?;
        }
        Ok(())
    }
}
