use sea_orm::entity::prelude::*;

/// A LINE push waiting for (or done with) delivery; see `crate::line::push`.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "push_outbox")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    /// A UUID sent as `X-Line-Retry-Key`: LINE accepts it once and answers 409 to a replay.
    #[sea_orm(unique)]
    pub retry_key: String,
    pub line_user_id: String,
    /// The push's `messages` array (JSON).
    pub messages: String,
    /// pending, delivered, unfollowed, failed or expired.
    pub status: String,
    pub attempts: i32,
    pub created_at: i64,
    /// Unix milliseconds from which the row may be claimed: the next retry, or the end of the
    /// lease of the worker sending it.
    pub due_at_ms: i64,
    /// Why the last attempt failed (HTTP status or transport error; never message text).
    pub last_error: Option<String>,
    pub finished_at: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
