use sea_orm::entity::prelude::*;

/// `blocker_id` blocked `blocked_id` (a report blocks too).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "blocks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub blocker_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub blocked_id: i64,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
