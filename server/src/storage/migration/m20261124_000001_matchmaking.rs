//! Matchmaking: the member's activity day and push opt-out on `users`, the matchable
//! snapshot of each profile (`match_pool`), the daily introductions with their per-day marker,
//! likes and passes, matches, blocks and reports.
//!
//! Members are named by their profile id everywhere in these tables (the id the API shows).
//! Days are Asia/Taipei calendar days as days since 1970-01-01; times are Unix seconds.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Users {
    Table,
    LastActiveAt,
    IntroductionPush,
}

#[derive(DeriveIden)]
enum Profiles {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum MatchPool {
    Table,
    ProfileId,
    SourceHash,
    Gender,
    MatchGender,
    Height,
    Birthday,
    IncomeRange,
    Education,
    MarriageRecord,
    HasChildren,
    Smoke,
    Tattoo,
    Drink,
    WantHeightFrom,
    WantHeightTo,
    WantAgeFrom,
    WantAgeTo,
    WantIncomeFrom,
    WantIncomeTo,
    WantEducation,
    WantMarriageRecord,
    WantHasChildren,
    WantSmoke,
    WantTattoo,
    WantDrink,
    HomeRow,
    HomeCol,
    RadiusKm,
    TagIds,
}

#[derive(DeriveIden)]
enum IntroductionDays {
    Table,
    ViewerId,
    Day,
    Picked,
    CreatedAt,
    PushedAt,
}

#[derive(DeriveIden)]
enum Introductions {
    Table,
    ViewerId,
    Day,
    TargetId,
    Rank,
}

#[derive(DeriveIden)]
enum Reactions {
    Table,
    ViewerId,
    TargetId,
    Kind,
    Day,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
    LowId,
    HighId,
    CreatedAt,
    EndedAt,
    EndedBy,
}

#[derive(DeriveIden)]
enum Blocks {
    Table,
    BlockerId,
    BlockedId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Reports {
    Table,
    Id,
    ReporterId,
    TargetId,
    Reasons,
    Text,
    Status,
    CreatedAt,
}

fn big(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).big_integer().not_null().to_owned()
}

fn int(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).integer().not_null().to_owned()
}

fn int_null(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).integer().null().to_owned()
}

fn member_fk(table: impl IntoIden, col: impl IntoIden) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .from(table, col)
        .to(Profiles::Table, Profiles::Id)
        .on_delete(ForeignKeyAction::Cascade)
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
        // The Unix second of the member's last authenticated matchmaking call (the score's
        // activity signal), and whether they want the morning push about new introductions.
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .add_column(ColumnDef::new(Users::LastActiveAt).big_integer().null())
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Users::Table)
                    .add_column(
                        ColumnDef::new(Users::IntroductionPush)
                            .boolean()
                            .not_null()
                            .default(true),
                    )
                    .to_owned(),
            )
            .await?;

        // What kizuna-core's MatchProfile is built from, one row per profile, so the pool loads
        // with one scan and no JSON: choices as their index in the core's `ALL`, the birthday as
        // days since 1970, the conditions packed (0 = open bound, NULL = no condition), the home
        // as its ~1 km grid cell (never the coordinates). `source_hash` is the profile's
        // submission hash: a row whose hash differs is rebuilt from the profile.
        let mut pool = Table::create();
        pool.table(MatchPool::Table)
            .col(big(MatchPool::ProfileId).primary_key())
            .col(
                ColumnDef::new(MatchPool::SourceHash)
                    .string_len(64)
                    .not_null(),
            );
        for col in [
            MatchPool::Gender,
            MatchPool::MatchGender,
            MatchPool::Height,
            MatchPool::Birthday,
            MatchPool::IncomeRange,
            MatchPool::Education,
            MatchPool::MarriageRecord,
            MatchPool::HasChildren,
            MatchPool::Smoke,
            MatchPool::Tattoo,
            MatchPool::Drink,
            MatchPool::WantHeightFrom,
            MatchPool::WantHeightTo,
            MatchPool::WantAgeFrom,
            MatchPool::WantAgeTo,
            MatchPool::WantIncomeFrom,
            MatchPool::WantIncomeTo,
        ] {
            pool.col(int(col));
        }
        for col in [
            MatchPool::WantEducation,
            MatchPool::WantMarriageRecord,
            MatchPool::WantHasChildren,
            MatchPool::WantSmoke,
            MatchPool::WantTattoo,
            MatchPool::WantDrink,
        ] {
            pool.col(int_null(col));
        }
        pool.col(int(MatchPool::HomeRow))
            .col(int(MatchPool::HomeCol))
            .col(int(MatchPool::RadiusKm))
            .col(ColumnDef::new(MatchPool::TagIds).string_len(200).not_null())
            .foreign_key(&mut member_fk(MatchPool::Table, MatchPool::ProfileId));
        manager.create_table(pool.to_owned()).await?;

        // The marker that a member's list for a day exists (possibly empty): asking again answers
        // the stored list; `pushed_at` records the morning push.
        manager
            .create_table(
                Table::create()
                    .table(IntroductionDays::Table)
                    .col(big(IntroductionDays::ViewerId))
                    .col(int(IntroductionDays::Day))
                    .col(int(IntroductionDays::Picked))
                    .col(big(IntroductionDays::CreatedAt))
                    .col(
                        ColumnDef::new(IntroductionDays::PushedAt)
                            .big_integer()
                            .null(),
                    )
                    .primary_key(
                        Index::create()
                            .col(IntroductionDays::ViewerId)
                            .col(IntroductionDays::Day),
                    )
                    .foreign_key(&mut member_fk(
                        IntroductionDays::Table,
                        IntroductionDays::ViewerId,
                    ))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Introductions::Table)
                    .col(big(Introductions::ViewerId))
                    .col(int(Introductions::Day))
                    .col(big(Introductions::TargetId))
                    .col(int(Introductions::Rank))
                    .primary_key(
                        Index::create()
                            .col(Introductions::ViewerId)
                            .col(Introductions::Day)
                            .col(Introductions::TargetId),
                    )
                    .foreign_key(&mut member_fk(
                        Introductions::Table,
                        Introductions::ViewerId,
                    ))
                    .foreign_key(&mut member_fk(
                        Introductions::Table,
                        Introductions::TargetId,
                    ))
                    .to_owned(),
            )
            .await?;
        // Today's appearances per member (the fairness cap) and "was X ever introduced to me".
        manager
            .create_index(index(
                "idx_introductions_day_target",
                Introductions::Table,
                vec![
                    Introductions::Day.into_iden(),
                    Introductions::TargetId.into_iden(),
                ],
            ))
            .await?;
        manager
            .create_index(index(
                "idx_introductions_viewer_target",
                Introductions::Table,
                vec![
                    Introductions::ViewerId.into_iden(),
                    Introductions::TargetId.into_iden(),
                ],
            ))
            .await?;

        // The latest like or pass of a viewer on a target (a pass may later become a like when
        // they are introduced again after the cool-down).
        manager
            .create_table(
                Table::create()
                    .table(Reactions::Table)
                    .col(big(Reactions::ViewerId))
                    .col(big(Reactions::TargetId))
                    .col(ColumnDef::new(Reactions::Kind).string_len(8).not_null())
                    .col(int(Reactions::Day))
                    .col(big(Reactions::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(Reactions::ViewerId)
                            .col(Reactions::TargetId),
                    )
                    .foreign_key(&mut member_fk(Reactions::Table, Reactions::ViewerId))
                    .foreign_key(&mut member_fk(Reactions::Table, Reactions::TargetId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_reactions_target",
                Reactions::Table,
                vec![Reactions::TargetId.into_iden()],
            ))
            .await?;

        // One row per pair ever matched (low id first): the unique pair makes racing likes from
        // both sides end in exactly one match, and an unmatch keeps the row with ended_at.
        manager
            .create_table(
                Table::create()
                    .table(Matches::Table)
                    .col(
                        ColumnDef::new(Matches::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(big(Matches::LowId))
                    .col(big(Matches::HighId))
                    .col(big(Matches::CreatedAt))
                    .col(ColumnDef::new(Matches::EndedAt).big_integer().null())
                    .col(ColumnDef::new(Matches::EndedBy).big_integer().null())
                    .foreign_key(&mut member_fk(Matches::Table, Matches::LowId))
                    .foreign_key(&mut member_fk(Matches::Table, Matches::HighId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                index(
                    "idx_matches_pair",
                    Matches::Table,
                    vec![Matches::LowId.into_iden(), Matches::HighId.into_iden()],
                )
                .unique()
                .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_matches_high",
                Matches::Table,
                vec![Matches::HighId.into_iden()],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Blocks::Table)
                    .col(big(Blocks::BlockerId))
                    .col(big(Blocks::BlockedId))
                    .col(big(Blocks::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(Blocks::BlockerId)
                            .col(Blocks::BlockedId),
                    )
                    .foreign_key(&mut member_fk(Blocks::Table, Blocks::BlockerId))
                    .foreign_key(&mut member_fk(Blocks::Table, Blocks::BlockedId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_blocks_blocked",
                Blocks::Table,
                vec![Blocks::BlockedId.into_iden()],
            ))
            .await?;

        // The reviewer console's report queue reads open reports oldest first.
        manager
            .create_table(
                Table::create()
                    .table(Reports::Table)
                    .col(
                        ColumnDef::new(Reports::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(big(Reports::ReporterId))
                    .col(big(Reports::TargetId))
                    .col(ColumnDef::new(Reports::Reasons).string_len(400).not_null())
                    .col(ColumnDef::new(Reports::Text).text().not_null())
                    .col(ColumnDef::new(Reports::Status).string_len(16).not_null())
                    .col(big(Reports::CreatedAt))
                    .foreign_key(&mut member_fk(Reports::Table, Reports::ReporterId))
                    .foreign_key(&mut member_fk(Reports::Table, Reports::TargetId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_reports_queue",
                Reports::Table,
                vec![Reports::Status.into_iden(), Reports::CreatedAt.into_iden()],
            ))
            .await?;
        manager
            .create_index(index(
                "idx_reports_pair",
                Reports::Table,
                vec![
                    Reports::ReporterId.into_iden(),
                    Reports::TargetId.into_iden(),
                ],
            ))
            .await?;
        manager
            .create_index(index(
                "idx_reports_target",
                Reports::Table,
                vec![Reports::TargetId.into_iden()],
            ))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            Reports::Table.into_iden(),
            Blocks::Table.into_iden(),
            Matches::Table.into_iden(),
            Reactions::Table.into_iden(),
            Introductions::Table.into_iden(),
            IntroductionDays::Table.into_iden(),
            MatchPool::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        for column in [Users::IntroductionPush, Users::LastActiveAt] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Users::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
