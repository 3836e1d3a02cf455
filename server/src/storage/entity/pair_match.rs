use sea_orm::entity::prelude::*;

/// A match between two members (`low_id` < `high_id`); ended by an unmatch, a block, a report,
/// a suspension, a departure, or expiry (`ended_reason` `EXPIRED`: nobody wrote).
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
    /// When both were reminded to say hello (a match where nobody wrote), once.
    pub reminded_at: Option<i64>,
    /// `EXPIRED` for a match closed because nobody wrote; NULL for every other end.
    pub ended_reason: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
