//! Runs of scheduled jobs (the daily introductions): one row per job and Asia/Taipei day, claimed
//! by the process that runs it, so that several server processes on one database run each day's
//! job once, and a process starting late sees whether today's run is missing.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum JobRuns {
    Table,
    Job,
    Day,
    Owner,
    Claims,
    StartedAt,
    FinishedAt,
    Lists,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(JobRuns::Table)
                    .col(ColumnDef::new(JobRuns::Job).string().not_null())
                    .col(ColumnDef::new(JobRuns::Day).integer().not_null())
                    // A random token of the process that holds the run.
                    .col(ColumnDef::new(JobRuns::Owner).string().not_null())
                    // How many times the run was claimed (more than once only after a process
                    // died while holding it and its lease ran out).
                    .col(ColumnDef::new(JobRuns::Claims).integer().not_null())
                    .col(ColumnDef::new(JobRuns::StartedAt).big_integer().not_null())
                    .col(ColumnDef::new(JobRuns::FinishedAt).big_integer().null())
                    .col(ColumnDef::new(JobRuns::Lists).big_integer().null())
                    .primary_key(Index::create().col(JobRuns::Job).col(JobRuns::Day))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(JobRuns::Table).to_owned())
            .await
    }
}
