use sea_orm::entity::prelude::*;

/// One chat message of a match, sent by `sender_id` with the client's own id for it.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "chat_messages")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub match_id: i64,
    pub sender_id: i64,
    pub client_message_id: String,
    pub text: String,
    pub sent_at: i64,
    /// kizuna-core's `safety::Kinds::bits` of the message when it was stored (0: none).
    pub safety_kinds: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
