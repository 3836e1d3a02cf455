//! The review infrastructure: the reviewers list, the LINE push outbox, each LINE
//! user's friendship with the official account, the webhook events already applied, work e-mail
//! one-time codes, and the member's locale on `users`.
//!
//! Times are Unix seconds like the rest of the schema, except where LINE speaks milliseconds
//! (webhook event timestamps) or a retry can be due within a second (`push_outbox.due_at_ms`).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    Locale,
}

#[derive(DeriveIden)]
enum Reviewers {
    Table,
    Id,
    LineUserId,
    AddedAt,
    RemovedAt,
}

#[derive(DeriveIden)]
enum PushOutbox {
    Table,
    Id,
    RetryKey,
    LineUserId,
    Messages,
    Status,
    Attempts,
    CreatedAt,
    DueAtMs,
    LastError,
    FinishedAt,
}

#[derive(DeriveIden)]
enum LineFriendships {
    Table,
    LineUserId,
    Friend,
    EventAtMs,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum LineWebhookEvents {
    Table,
    WebhookEventId,
    EventType,
    ReceivedAt,
}

#[derive(DeriveIden)]
enum EmailCodes {
    Table,
    Id,
    UserId,
    Email,
    Salt,
    CodeHash,
    WrongTries,
    CreatedAt,
    ExpiresAt,
    ConfirmedAt,
}

fn big(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).big_integer().not_null().to_owned()
}

fn id(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col)
        .big_integer()
        .not_null()
        .auto_increment()
        .primary_key()
        .to_owned()
}

fn index(name: &str, table: impl IntoIden, cols: Vec<DynIden>) -> IndexCreateStatement {
    let mut index = Index::create();
    index.name(name).table(table);
    for col in cols {
        index.col(col);
    }
    index.to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // zh-TW, en or ja, from the Accept-Language of the member's last login; null until then.
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .add_column(ColumnDef::new(Users::Locale).string_len(16).null())
                    .to_owned(),
            )
            .await?;

        // One row per period of being a reviewer: removing sets removed_at, adding again starts a
        // new row, so who was a reviewer when stays known.
        manager
            .create_table(
                Table::create()
                    .table(Reviewers::Table)
                    .col(id(Reviewers::Id))
                    .col(
                        ColumnDef::new(Reviewers::LineUserId)
                            .string_len(64)
                            .not_null(),
                    )
                    .col(big(Reviewers::AddedAt))
                    .col(ColumnDef::new(Reviewers::RemovedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        // At most one open period per LINE user, whatever races: a partial unique index (the
        // same SQL on SQLite and PostgreSQL; sea-query has no portable builder for it).
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE UNIQUE INDEX idx_reviewers_active ON reviewers (line_user_id) \
                 WHERE removed_at IS NULL",
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(PushOutbox::Table)
                    .col(id(PushOutbox::Id))
                    .col(
                        ColumnDef::new(PushOutbox::RetryKey)
                            .string_len(36)
                            .not_null()
                            .unique_key(),
                    )
                    .col(
                        ColumnDef::new(PushOutbox::LineUserId)
                            .string_len(64)
                            .not_null(),
                    )
                    .col(ColumnDef::new(PushOutbox::Messages).text().not_null())
                    .col(ColumnDef::new(PushOutbox::Status).string_len(16).not_null())
                    .col(
                        ColumnDef::new(PushOutbox::Attempts)
                            .integer()
                            .not_null()
                            .default(0),
                    )
                    .col(big(PushOutbox::CreatedAt))
                    .col(big(PushOutbox::DueAtMs))
                    .col(ColumnDef::new(PushOutbox::LastError).string_len(300).null())
                    .col(ColumnDef::new(PushOutbox::FinishedAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_push_outbox_due",
                PushOutbox::Table,
                vec![
                    PushOutbox::Status.into_iden(),
                    PushOutbox::DueAtMs.into_iden(),
                ],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(LineFriendships::Table)
                    .col(
                        ColumnDef::new(LineFriendships::LineUserId)
                            .string_len(64)
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(LineFriendships::Friend).boolean().not_null())
                    .col(big(LineFriendships::EventAtMs))
                    .col(big(LineFriendships::UpdatedAt))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(LineWebhookEvents::Table)
                    .col(
                        ColumnDef::new(LineWebhookEvents::WebhookEventId)
                            .string_len(64)
                            .not_null()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(LineWebhookEvents::EventType)
                            .string_len(32)
                            .not_null(),
                    )
                    .col(big(LineWebhookEvents::ReceivedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_line_webhook_events_received",
                LineWebhookEvents::Table,
                vec![LineWebhookEvents::ReceivedAt.into_iden()],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(EmailCodes::Table)
                    .col(id(EmailCodes::Id))
                    .col(big(EmailCodes::UserId))
                    .col(ColumnDef::new(EmailCodes::Email).string_len(320).not_null())
                    .col(ColumnDef::new(EmailCodes::Salt).string_len(32).not_null())
                    .col(
                        ColumnDef::new(EmailCodes::CodeHash)
                            .string_len(64)
                            .not_null(),
                    )
                    .col(ColumnDef::new(EmailCodes::WrongTries).integer().not_null())
                    .col(big(EmailCodes::CreatedAt))
                    .col(big(EmailCodes::ExpiresAt))
                    .col(ColumnDef::new(EmailCodes::ConfirmedAt).big_integer().null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(EmailCodes::Table, EmailCodes::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_email_codes_user",
                EmailCodes::Table,
                vec![
                    EmailCodes::UserId.into_iden(),
                    EmailCodes::CreatedAt.into_iden(),
                ],
            ))
            .await?;
        manager
            .create_index(index(
                "idx_email_codes_email",
                EmailCodes::Table,
                vec![
                    EmailCodes::Email.into_iden(),
                    EmailCodes::CreatedAt.into_iden(),
                ],
            ))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            EmailCodes::Table.into_iden(),
            LineWebhookEvents::Table.into_iden(),
            LineFriendships::Table.into_iden(),
            PushOutbox::Table.into_iden(),
            Reviewers::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .drop_column(Users::Locale)
                    .to_owned(),
            )
            .await
    }
}
