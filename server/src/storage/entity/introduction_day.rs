use sea_orm::entity::prelude::*;

/// A member's list for one Asia/Taipei day exists (possibly empty).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "introduction_days")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub viewer_id: i64,
    /// Days since 1970-01-01 (Asia/Taipei).
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: i32,
    pub picked: i32,
    pub created_at: i64,
    pub pushed_at: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
