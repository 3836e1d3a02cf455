use sea_orm::entity::prelude::*;

pub const OPEN: &str = "OPEN";
/// A reviewer suspended the reported member.
pub const ACTIONED: &str = "ACTIONED";
/// A reviewer read it and took no action.
pub const DISMISSED: &str = "DISMISSED";

/// A member's report of another, for the reviewer console's report queue.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "reports")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub reporter_id: i64,
    pub target_id: i64,
    /// kizuna-core report reason codes, comma-separated.
    pub reasons: String,
    pub text: String,
    pub status: String,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
