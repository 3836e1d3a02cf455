use sea_orm::entity::prelude::*;

/// Whether a LINE user is a friend of the official account, from the newest follow / unfollow
/// webhook event seen (keyed by LINE user id: a follow may come before the first login).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "line_friendships")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub line_user_id: String,
    pub friend: bool,
    /// The applied event's `timestamp` (Unix milliseconds, LINE's clock).
    pub event_at_ms: i64,
    pub updated_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
