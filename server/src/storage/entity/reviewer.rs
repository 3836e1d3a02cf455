use sea_orm::entity::prelude::*;

/// One period of a LINE user being a reviewer; `removed_at` closes it. At most one open period
/// per LINE user (a partial unique index).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "reviewers")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub line_user_id: String,
    pub added_at: i64,
    pub removed_at: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
