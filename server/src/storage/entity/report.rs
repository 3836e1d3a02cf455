use sea_orm::entity::prelude::*;

/// Where a report stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "Text")]
pub enum Status {
    /// Waiting in the reviewers' report queue.
    #[sea_orm(string_value = "OPEN")]
    Open,
    /// A reviewer suspended the reported member.
    #[sea_orm(string_value = "ACTIONED")]
    Actioned,
    /// A reviewer read it and took no action.
    #[sea_orm(string_value = "DISMISSED")]
    Dismissed,
}

/// A member's report of another, for the reviewer console's report queue. Either side may have
/// left (docs/design.md, "Deleting an account"): a reporter who left is NULL, the report stays
/// without naming them; an open report about a member who left has no target but the hash of
/// their LINE user id, and waits for their return.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "reports")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub reporter_id: Option<i64>,
    pub target_id: Option<i64>,
    /// `departures::line_hash` of the reported member who left, while they are away.
    pub target_departed: Option<String>,
    /// kizuna-core report reason codes, comma-separated.
    pub reasons: String,
    pub text: String,
    pub status: Status,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
