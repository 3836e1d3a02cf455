//! Chat events that streams can replay (`Last-Event-ID`): each member's events (a message in one
//! of their matches, the other's read marker, a match ended) numbered 1, 2, 3, … per member in
//! `chat_events`, the member's last number in `chat_event_heads`. A change writes its events in
//! its own transaction, taking the next numbers under the head row's lock, so a member's events
//! are numbered in the order they committed: a stream that saw number n has seen every event
//! before it, and asks for what came after.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ChatEventHeads {
    Table,
    MemberId,
    Seq,
}

#[derive(DeriveIden)]
enum ChatEvents {
    Table,
    MemberId,
    Seq,
    Kind,
    MatchId,
    RefId,
    CreatedAt,
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
                    .table(ChatEventHeads::Table)
                    .col(
                        ColumnDef::new(ChatEventHeads::MemberId)
                            .big_integer()
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(ChatEventHeads::Seq).big_integer().not_null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(ChatEventHeads::Table, ChatEventHeads::MemberId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ChatEvents::Table)
                    .col(
                        ColumnDef::new(ChatEvents::MemberId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(ChatEvents::Seq).big_integer().not_null())
                    .col(ColumnDef::new(ChatEvents::Kind).small_integer().not_null())
                    .col(ColumnDef::new(ChatEvents::MatchId).big_integer().not_null())
                    .col(ColumnDef::new(ChatEvents::RefId).big_integer().not_null())
                    .col(
                        ColumnDef::new(ChatEvents::CreatedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .primary_key(
                        Index::create()
                            .col(ChatEvents::MemberId)
                            .col(ChatEvents::Seq),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ChatEvents::Table, ChatEvents::MemberId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // A retried message finds its events (to publish them again), the sweep the old ones.
        manager
            .create_index(
                Index::create()
                    .name("idx_chat_events_ref")
                    .table(ChatEvents::Table)
                    .col(ChatEvents::RefId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_chat_events_created")
                    .table(ChatEvents::Table)
                    .col(ChatEvents::CreatedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ChatEvents::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(ChatEventHeads::Table).to_owned())
            .await
    }
}
