//! The review flow: a version on each profile (so that a decision made on what a
//! reviewer saw cannot overwrite a newer state), every submission kept as it was sent (the
//! reviewer's "what changed" of a resubmission, and whether the work e-mail was confirmed when it
//! was sent), claims that let one reviewer hold a profile for a while, and who decided what, why,
//! in `review_history`.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Profiles {
    Table,
    Id,
    Version,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum ProfileSubmissions {
    Table,
    Id,
    ProfileId,
    Number,
    Payload,
    EmailConfirmedAt,
    SubmittedAt,
}

#[derive(DeriveIden)]
enum ReviewClaims {
    Table,
    ProfileId,
    ReviewerUserId,
    ClaimedAt,
    ExpiresAt,
}

#[derive(DeriveIden)]
enum ReviewHistory {
    Table,
    Action,
    ReviewerUserId,
    Reasons,
    Note,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // Bumped by every resubmission and decision; a decision names the version it was made on.
        manager
            .alter_table(
                Table::alter()
                    .table(Profiles::Table)
                    .add_column(
                        ColumnDef::new(Profiles::Version)
                            .big_integer()
                            .not_null()
                            .default(1),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ProfileSubmissions::Table)
                    .col(
                        ColumnDef::new(ProfileSubmissions::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(ProfileSubmissions::ProfileId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ProfileSubmissions::Number)
                            .integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ProfileSubmissions::Payload)
                            .text()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ProfileSubmissions::EmailConfirmedAt)
                            .big_integer()
                            .null(),
                    )
                    .col(
                        ColumnDef::new(ProfileSubmissions::SubmittedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ProfileSubmissions::Table, ProfileSubmissions::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_profile_submissions_number")
                    .table(ProfileSubmissions::Table)
                    .col(ProfileSubmissions::ProfileId)
                    .col(ProfileSubmissions::Number)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // Profiles registered before this migration: their one submission is the stored payload.
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO profile_submissions (profile_id, number, payload, submitted_at) \
                 SELECT id, 1, payload, created_at FROM profiles",
            )
            .await?;

        // One claim per profile at most (the key); an expired one may be taken over.
        manager
            .create_table(
                Table::create()
                    .table(ReviewClaims::Table)
                    .col(
                        ColumnDef::new(ReviewClaims::ProfileId)
                            .big_integer()
                            .not_null()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(ReviewClaims::ReviewerUserId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ReviewClaims::ClaimedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ReviewClaims::ExpiresAt)
                            .big_integer()
                            .not_null(),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ReviewClaims::Table, ReviewClaims::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ReviewClaims::Table, ReviewClaims::ReviewerUserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        // SQLite adds one column per statement.
        for column in [
            ColumnDef::new(ReviewHistory::Action)
                .string_len(16)
                .null()
                .to_owned(),
            ColumnDef::new(ReviewHistory::ReviewerUserId)
                .big_integer()
                .null()
                .to_owned(),
            ColumnDef::new(ReviewHistory::Reasons)
                .string_len(1000)
                .null()
                .to_owned(),
            ColumnDef::new(ReviewHistory::Note).text().null().to_owned(),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(ReviewHistory::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            ReviewHistory::Note,
            ReviewHistory::Reasons,
            ReviewHistory::ReviewerUserId,
            ReviewHistory::Action,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(ReviewHistory::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        for table in [
            ReviewClaims::Table.into_iden(),
            ProfileSubmissions::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Profiles::Table)
                    .drop_column(Profiles::Version)
                    .to_owned(),
            )
            .await
    }
}
