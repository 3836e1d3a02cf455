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
    /// The `messages` array (JSON) of a row written before pushes were stored by kind; empty for
    /// a row with a `kind`, which is rendered when it is sent.
    pub messages: String,
    pub status: Status,
    pub attempts: i32,
    pub created_at: i64,
    /// Unix milliseconds from which the row may be claimed: the next retry, or the end of the
    /// lease of the worker sending it.
    pub due_at_ms: i64,
    /// Why the last attempt failed (HTTP status or transport error; never message text).
    pub last_error: Option<String>,
    pub finished_at: Option<i64>,
    /// The user the push names (a chat push names its sender): the row goes with their account.
    pub about_user_id: Option<i64>,
    /// kizuna-core's `push::PushKind` (`match`, `message`, `introductions`, `review`).
    pub kind: Option<String>,
    /// kizuna-core's `push::Push` (JSON): its ids and counts, never text another member wrote.
    pub subject: Option<String>,
}

/// Where a push stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "Text")]
pub enum Status {
    /// Waiting for (another) attempt.
    #[sea_orm(string_value = "pending")]
    Pending,
    /// LINE accepted it (2xx), or had already accepted its retry key (409).
    #[sea_orm(string_value = "delivered")]
    Delivered,
    /// Not sent: the member had unfollowed or blocked the official account.
    #[sea_orm(string_value = "unfollowed")]
    Unfollowed,
    /// Not sent: the match it was about ended before it went (`Push::only_while_live`).
    #[sea_orm(string_value = "withdrawn")]
    Withdrawn,
    /// LINE refused it for good (a 4xx other than 409 and 429).
    #[sea_orm(string_value = "failed")]
    Failed,
    /// Still failing when its time was up (24 h after it was written).
    #[sea_orm(string_value = "expired")]
    Expired,
}

impl Status {
    /// The stored text, for logs and raw SQL.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Delivered => "delivered",
            Status::Unfollowed => "unfollowed",
            Status::Withdrawn => "withdrawn",
            Status::Failed => "failed",
            Status::Expired => "expired",
        }
    }
}

/// Lets tests and logs compare with the stored text.
impl PartialEq<&str> for Status {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::{ActiveEnum, Iterable};

    #[test]
    fn each_status_names_itself_as_the_column_stores_it() {
        for status in Status::iter() {
            assert_eq!(status.to_value(), status.as_str());
        }
    }
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
