//! A like may carry a comment on one photo or Q&A answer of the member liked
//! (`reactions.comment`, `comment_photo`, `comment_answer`), and a match is new to a member until
//! they open its conversation (`chat_marks.opened_at`).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum Reactions {
    Table,
    Comment,
    CommentPhoto,
    CommentAnswer,
}

#[derive(DeriveIden, Clone, Copy)]
enum ChatMarks {
    Table,
    OpenedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        for column in [
            Reactions::Comment,
            Reactions::CommentPhoto,
            Reactions::CommentAnswer,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Reactions::Table)
                        .add_column(ColumnDef::new(column).string().null())
                        .to_owned(),
                )
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(ChatMarks::Table)
                    .add_column(ColumnDef::new(ChatMarks::OpenedAt).big_integer().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ChatMarks::Table)
                    .drop_column(ChatMarks::OpenedAt)
                    .to_owned(),
            )
            .await?;
        for column in [
            Reactions::Comment,
            Reactions::CommentPhoto,
            Reactions::CommentAnswer,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Reactions::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
