use sea_orm::entity::prelude::*;

/// Every review status change of a profile, oldest first by id.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "review_history")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub profile_id: i64,
    pub from_status: Option<String>,
    pub to_status: String,
    pub reason: Option<String>,
    pub actor: String,
    pub created_at: i64,
    /// APPROVE, REJECT, SUSPEND, REINSTATE (a reviewer's) or RESUBMIT (the member's); null on
    /// the first submission's row and on rows older than the review flow.
    pub action: Option<String>,
    /// The reviewer's user id for a decision.
    pub reviewer_user_id: Option<i64>,
    /// The decision's reason codes as a JSON array.
    pub reasons: Option<String>,
    /// The reviewer's note to the member.
    pub note: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
