use sea_orm::entity::prelude::*;

/// A profile as the member submitted it (number 1 the registration, then each resubmission).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "profile_submissions")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub profile_id: i64,
    pub number: i32,
    /// The normalised UserProfileCreate payload (JSON text).
    pub payload: String,
    /// When the work e-mail of a COMPANY_EMAIL submission had been confirmed by its code.
    pub email_confirmed_at: Option<i64>,
    pub submitted_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
