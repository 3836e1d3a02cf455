use sea_orm::entity::prelude::*;

/// A match between two members (`low_id` < `high_id`); ended by an unmatch or a block.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "matches")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub low_id: i64,
    pub high_id: i64,
    pub created_at: i64,
    pub ended_at: Option<i64>,
    pub ended_by: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
