//! Chat between matched members: the messages, each member's read marker and push
//! throttle per match, and which members have a live events stream open (presence, for the
//! "new message" push), shared by every server process on the database.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Profiles {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum ChatMessages {
    Table,
    Id,
    MatchId,
    SenderId,
    ClientMessageId,
    Text,
    SentAt,
}

#[derive(DeriveIden)]
enum ChatMarks {
    Table,
    MatchId,
    MemberId,
    ReadUpTo,
    PushedAt,
}

#[derive(DeriveIden)]
enum ChatPresence {
    Table,
    StreamId,
    MemberId,
    ExpiresAt,
}

fn big(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).big_integer().not_null().to_owned()
}

fn fk(
    table: impl IntoIden,
    col: impl IntoIden,
    to: impl IntoIden,
    to_col: impl IntoIden,
) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .from(table, col)
        .to(to, to_col)
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One row per message. The id increases (within a match too): history pages backwards
        // by it. The unique (match, sender, client id) is what makes a retried or doubled send
        // store one row, also when two requests race: the second insert conflicts and reads the
        // first back.
        manager
            .create_table(
                Table::create()
                    .table(ChatMessages::Table)
                    .col(
                        ColumnDef::new(ChatMessages::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(big(ChatMessages::MatchId))
                    .col(big(ChatMessages::SenderId))
                    .col(
                        ColumnDef::new(ChatMessages::ClientMessageId)
                            .string_len(64)
                            .not_null(),
                    )
                    .col(ColumnDef::new(ChatMessages::Text).text().not_null())
                    .col(big(ChatMessages::SentAt))
                    .foreign_key(&mut fk(
                        ChatMessages::Table,
                        ChatMessages::MatchId,
                        Matches::Table,
                        Matches::Id,
                    ))
                    .foreign_key(&mut fk(
                        ChatMessages::Table,
                        ChatMessages::SenderId,
                        Profiles::Table,
                        Profiles::Id,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_chat_messages_client_id")
                    .table(ChatMessages::Table)
                    .col(ChatMessages::MatchId)
                    .col(ChatMessages::SenderId)
                    .col(ChatMessages::ClientMessageId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // A page of history, the last message and the unread count all read one match by id.
        manager
            .create_index(
                Index::create()
                    .name("idx_chat_messages_match_id")
                    .table(ChatMessages::Table)
                    .col(ChatMessages::MatchId)
                    .col(ChatMessages::Id)
                    .to_owned(),
            )
            .await?;
        // Per member and match: the newest message id they have read (only moves forward) and
        // when they were last sent a "new message" push (at most one per CHAT_PUSH_INTERVAL_SECS).
        manager
            .create_table(
                Table::create()
                    .table(ChatMarks::Table)
                    .col(big(ChatMarks::MatchId))
                    .col(big(ChatMarks::MemberId))
                    .col(big(ChatMarks::ReadUpTo).default(0))
                    .col(ColumnDef::new(ChatMarks::PushedAt).big_integer().null())
                    .primary_key(
                        Index::create()
                            .col(ChatMarks::MatchId)
                            .col(ChatMarks::MemberId),
                    )
                    .foreign_key(&mut fk(
                        ChatMarks::Table,
                        ChatMarks::MatchId,
                        Matches::Table,
                        Matches::Id,
                    ))
                    .foreign_key(&mut fk(
                        ChatMarks::Table,
                        ChatMarks::MemberId,
                        Profiles::Table,
                        Profiles::Id,
                    ))
                    .to_owned(),
            )
            .await?;

        // One row per open events stream, on whichever process serves it: the stream refreshes
        // `expires_at` with each keep-alive and deletes the row when it closes; a process that
        // dies leaves rows that simply expire. A member with a live row gets no push.
        manager
            .create_table(
                Table::create()
                    .table(ChatPresence::Table)
                    .col(
                        ColumnDef::new(ChatPresence::StreamId)
                            .string_len(36)
                            .not_null()
                            .primary_key(),
                    )
                    .col(big(ChatPresence::MemberId))
                    .col(big(ChatPresence::ExpiresAt))
                    .foreign_key(&mut fk(
                        ChatPresence::Table,
                        ChatPresence::MemberId,
                        Profiles::Table,
                        Profiles::Id,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_chat_presence_member")
                    .table(ChatPresence::Table)
                    .col(ChatPresence::MemberId)
                    .col(ChatPresence::ExpiresAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_chat_presence_expires")
                    .table(ChatPresence::Table)
                    .col(ChatPresence::ExpiresAt)
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            ChatPresence::Table.into_iden(),
            ChatMarks::Table.into_iden(),
            ChatMessages::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
