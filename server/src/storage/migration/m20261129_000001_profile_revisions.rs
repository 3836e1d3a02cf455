//! Edit after approval: `profile_revisions`, a revision of an approved profile kept
//! beside it until a reviewer decides it. One row per profile: the pending revision (saving
//! again replaces it and bumps `number`, which a reviewer's decision names), or the last one
//! decided (a rejected one keeps its reasons for the member's form). The approved profile's
//! columns are what everyone else reads; the revision's payload is read by its member and the
//! reviewers only.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ProfileRevisions {
    Table,
    ProfileId,
    Number,
    Status,
    Payload,
    EmailConfirmedAt,
    SubmittedAt,
    DecidedAt,
    ReviewerUserId,
    Reasons,
    Note,
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
                    .table(ProfileRevisions::Table)
                    .col(
                        ColumnDef::new(ProfileRevisions::ProfileId)
                            .big_integer()
                            .not_null()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(ProfileRevisions::Number)
                            .integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(ProfileRevisions::Status).text().not_null())
                    .col(ColumnDef::new(ProfileRevisions::Payload).text().not_null())
                    .col(
                        ColumnDef::new(ProfileRevisions::EmailConfirmedAt)
                            .big_integer()
                            .null(),
                    )
                    .col(
                        ColumnDef::new(ProfileRevisions::SubmittedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ProfileRevisions::DecidedAt)
                            .big_integer()
                            .null(),
                    )
                    .col(
                        ColumnDef::new(ProfileRevisions::ReviewerUserId)
                            .big_integer()
                            .null(),
                    )
                    .col(ColumnDef::new(ProfileRevisions::Reasons).text().null())
                    .col(ColumnDef::new(ProfileRevisions::Note).text().null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(ProfileRevisions::Table, ProfileRevisions::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // The queue reads the pending ones, the longest waiting first.
        manager
            .create_index(
                Index::create()
                    .name("idx_profile_revisions_status_submitted")
                    .table(ProfileRevisions::Table)
                    .col(ProfileRevisions::Status)
                    .col(ProfileRevisions::SubmittedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ProfileRevisions::Table).to_owned())
            .await
    }
}
