use sea_orm::entity::prelude::*;

/// One introduction: `target_id` in `viewer_id`'s list of `day`, at `rank` (0 is the best).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "introductions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub viewer_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub target_id: i64,
    pub rank: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
