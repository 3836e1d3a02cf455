use sea_orm::entity::prelude::*;

/// A webhook event already applied, by LINE's `webhookEventId` (redeliveries are skipped).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "line_webhook_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub webhook_event_id: String,
    pub event_type: String,
    pub received_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
