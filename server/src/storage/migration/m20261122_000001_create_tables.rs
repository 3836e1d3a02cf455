//! The first schema: users, sessions, files, profiles (every UserProfileCreate field, tags,
//! conditions, photos), review history and route rules. Times are Unix seconds (BIGINT) so that
//! SQLite and PostgreSQL store them the same way.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    LineUserId,
    DisplayName,
    AvatarFileId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Sessions {
    Table,
    TokenHash,
    UserId,
    CreatedAt,
    ExpiresAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum Files {
    Table,
    Id,
    OwnerId,
    Purpose,
    ContentType,
    Width,
    Height,
    SizeBytes,
    ProfileId,
    CreatedAt,
    ClaimedAt,
}

#[derive(DeriveIden)]
enum Profiles {
    Table,
    Id,
    UserId,
    Status,
    StatusReason,
    SubmissionHash,
    Payload,
    Nickname,
    Name,
    Gender,
    MatchGender,
    Birthday,
    Height,
    OccupationType,
    Occupation,
    Achievement,
    IncomeRange,
    School,
    Education,
    MarriageRecord,
    HasChildren,
    Smoke,
    Tattoo,
    Drink,
    Mbti,
    AboutMe,
    DatingQuestion,
    DailyLife,
    SurprisePoint,
    City,
    Address,
    Latitude,
    Longitude,
    RecommendDistanceKm,
    Feedback,
    VerifyMethod,
    CompanyEmail,
    ReviewLink,
    VerifyFileId,
    VerifyDescription,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum ProfilePhotos {
    Table,
    ProfileId,
    Position,
    FileId,
}

#[derive(DeriveIden)]
enum ProfileTags {
    Table,
    ProfileId,
    Kind,
    TagId,
}

#[derive(DeriveIden)]
enum ProfileConditions {
    Table,
    Id,
    ProfileId,
    ConditionType,
    RangeFrom,
    RangeTo,
    Value,
}

#[derive(DeriveIden)]
enum ReviewHistory {
    Table,
    Id,
    ProfileId,
    FromStatus,
    ToStatus,
    Reason,
    Actor,
    CreatedAt,
}

#[derive(DeriveIden)]
enum RouteRules {
    Table,
    Id,
    Path,
    Redirect,
    CreatedAt,
}

fn text_col(col: impl IntoIden) -> ColumnDef {
    ColumnDef::new(col).text().null().to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Users::Table)
                    .col(
                        ColumnDef::new(Users::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(Users::LineUserId)
                            .string_len(64)
                            .not_null()
                            .unique_key(),
                    )
                    .col(ColumnDef::new(Users::DisplayName).string_len(200).null())
                    .col(ColumnDef::new(Users::AvatarFileId).string_len(64).null())
                    .col(ColumnDef::new(Users::CreatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Sessions::Table)
                    .col(
                        ColumnDef::new(Sessions::TokenHash)
                            .string_len(64)
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(Sessions::UserId).big_integer().not_null())
                    .col(ColumnDef::new(Sessions::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Sessions::ExpiresAt).big_integer().not_null())
                    .col(ColumnDef::new(Sessions::RevokedAt).big_integer().null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(Sessions::Table, Sessions::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_sessions_user")
                    .table(Sessions::Table)
                    .col(Sessions::UserId)
                    .to_owned(),
            )
            .await?;

        let mut profiles = Table::create();
        profiles
            .table(Profiles::Table)
            .col(
                ColumnDef::new(Profiles::Id)
                    .big_integer()
                    .not_null()
                    .auto_increment()
                    .primary_key(),
            )
            .col(
                ColumnDef::new(Profiles::UserId)
                    .big_integer()
                    .not_null()
                    .unique_key(),
            )
            .col(ColumnDef::new(Profiles::Status).string_len(16).not_null())
            .col(text_col(Profiles::StatusReason))
            .col(
                ColumnDef::new(Profiles::SubmissionHash)
                    .string_len(64)
                    .not_null(),
            )
            .col(ColumnDef::new(Profiles::Payload).text().not_null())
            .col(text_col(Profiles::Nickname))
            .col(text_col(Profiles::Name))
            .col(text_col(Profiles::Gender))
            .col(text_col(Profiles::MatchGender))
            .col(ColumnDef::new(Profiles::Birthday).string_len(10).null())
            .col(ColumnDef::new(Profiles::Height).integer().null())
            .col(text_col(Profiles::OccupationType))
            .col(text_col(Profiles::Occupation))
            .col(text_col(Profiles::Achievement))
            .col(text_col(Profiles::IncomeRange))
            .col(text_col(Profiles::School))
            .col(text_col(Profiles::Education))
            .col(text_col(Profiles::MarriageRecord))
            .col(text_col(Profiles::HasChildren))
            .col(text_col(Profiles::Smoke))
            .col(text_col(Profiles::Tattoo))
            .col(text_col(Profiles::Drink))
            .col(text_col(Profiles::Mbti))
            .col(text_col(Profiles::AboutMe))
            .col(text_col(Profiles::DatingQuestion))
            .col(text_col(Profiles::DailyLife))
            .col(text_col(Profiles::SurprisePoint))
            .col(text_col(Profiles::City))
            .col(text_col(Profiles::Address))
            .col(ColumnDef::new(Profiles::Latitude).double().null())
            .col(ColumnDef::new(Profiles::Longitude).double().null())
            .col(
                ColumnDef::new(Profiles::RecommendDistanceKm)
                    .integer()
                    .null(),
            )
            .col(text_col(Profiles::Feedback))
            .col(text_col(Profiles::VerifyMethod))
            .col(text_col(Profiles::CompanyEmail))
            .col(text_col(Profiles::ReviewLink))
            .col(ColumnDef::new(Profiles::VerifyFileId).string_len(64).null())
            .col(text_col(Profiles::VerifyDescription))
            .col(ColumnDef::new(Profiles::CreatedAt).big_integer().not_null())
            .col(ColumnDef::new(Profiles::UpdatedAt).big_integer().not_null())
            .foreign_key(
                ForeignKey::create()
                    .from(Profiles::Table, Profiles::UserId)
                    .to(Users::Table, Users::Id)
                    .on_delete(ForeignKeyAction::Cascade),
            );
        manager.create_table(profiles.to_owned()).await?;

        manager
            .create_table(
                Table::create()
                    .table(Files::Table)
                    .col(
                        ColumnDef::new(Files::Id)
                            .string_len(64)
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(Files::OwnerId).big_integer().not_null())
                    .col(ColumnDef::new(Files::Purpose).string_len(16).not_null())
                    .col(ColumnDef::new(Files::ContentType).string_len(32).not_null())
                    .col(ColumnDef::new(Files::Width).integer().not_null())
                    .col(ColumnDef::new(Files::Height).integer().not_null())
                    .col(ColumnDef::new(Files::SizeBytes).big_integer().not_null())
                    .col(ColumnDef::new(Files::ProfileId).big_integer().null())
                    .col(ColumnDef::new(Files::CreatedAt).big_integer().not_null())
                    .col(ColumnDef::new(Files::ClaimedAt).big_integer().null())
                    .foreign_key(
                        ForeignKey::create()
                            .from(Files::Table, Files::OwnerId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(Files::Table, Files::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::SetNull),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_files_unclaimed")
                    .table(Files::Table)
                    .col(Files::ClaimedAt)
                    .col(Files::CreatedAt)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ProfilePhotos::Table)
                    .col(
                        ColumnDef::new(ProfilePhotos::ProfileId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(ProfilePhotos::Position).integer().not_null())
                    .col(
                        ColumnDef::new(ProfilePhotos::FileId)
                            .string_len(64)
                            .not_null()
                            .unique_key(),
                    )
                    .primary_key(
                        Index::create()
                            .col(ProfilePhotos::ProfileId)
                            .col(ProfilePhotos::Position),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ProfilePhotos::Table, ProfilePhotos::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ProfilePhotos::Table, ProfilePhotos::FileId)
                            .to(Files::Table, Files::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ProfileTags::Table)
                    .col(
                        ColumnDef::new(ProfileTags::ProfileId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(ColumnDef::new(ProfileTags::Kind).string_len(32).not_null())
                    .col(ColumnDef::new(ProfileTags::TagId).integer().not_null())
                    .primary_key(
                        Index::create()
                            .col(ProfileTags::ProfileId)
                            .col(ProfileTags::Kind)
                            .col(ProfileTags::TagId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ProfileTags::Table, ProfileTags::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ProfileConditions::Table)
                    .col(
                        ColumnDef::new(ProfileConditions::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(ProfileConditions::ProfileId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ProfileConditions::ConditionType)
                            .string_len(32)
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ProfileConditions::RangeFrom)
                            .integer()
                            .null(),
                    )
                    .col(ColumnDef::new(ProfileConditions::RangeTo).integer().null())
                    .col(text_col(ProfileConditions::Value))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ProfileConditions::Table, ProfileConditions::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ReviewHistory::Table)
                    .col(
                        ColumnDef::new(ReviewHistory::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(ReviewHistory::ProfileId)
                            .big_integer()
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ReviewHistory::FromStatus)
                            .string_len(16)
                            .null(),
                    )
                    .col(
                        ColumnDef::new(ReviewHistory::ToStatus)
                            .string_len(16)
                            .not_null(),
                    )
                    .col(text_col(ReviewHistory::Reason))
                    .col(
                        ColumnDef::new(ReviewHistory::Actor)
                            .string_len(64)
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(ReviewHistory::CreatedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ReviewHistory::Table, ReviewHistory::ProfileId)
                            .to(Profiles::Table, Profiles::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(RouteRules::Table)
                    .col(
                        ColumnDef::new(RouteRules::Id)
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(
                        ColumnDef::new(RouteRules::Path)
                            .string_len(512)
                            .not_null()
                            .unique_key(),
                    )
                    .col(
                        ColumnDef::new(RouteRules::Redirect)
                            .string_len(2048)
                            .not_null(),
                    )
                    .col(
                        ColumnDef::new(RouteRules::CreatedAt)
                            .big_integer()
                            .not_null(),
                    )
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            RouteRules::Table.into_iden(),
            ReviewHistory::Table.into_iden(),
            ProfileConditions::Table.into_iden(),
            ProfileTags::Table.into_iden(),
            ProfilePhotos::Table.into_iden(),
            Files::Table.into_iden(),
            Profiles::Table.into_iden(),
            Sessions::Table.into_iden(),
            Users::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
