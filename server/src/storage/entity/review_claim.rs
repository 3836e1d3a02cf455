use sea_orm::entity::prelude::*;

/// A reviewer holding a profile until `expires_at`, so that no one else decides it meanwhile.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "review_claims")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub profile_id: i64,
    pub reviewer_user_id: i64,
    pub claimed_at: i64,
    pub expires_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
