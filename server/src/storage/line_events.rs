//! What LINE's webhook tells us: each LINE user's friendship with the official account (from
//! `follow` / `unfollow`, newest event wins) and which webhook events were already applied
//! (LINE redelivers, and may deliver out of order).

use anyhow::Context;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    sea_query::{Alias, Expr, ExprTrait, OnConflict, Query},
};

use crate::storage::entity::{line_friendship, line_webhook_event};

/// How long applied event ids are remembered: LINE redelivers a failed webhook for a while, not
/// for weeks.
pub const EVENT_ID_RETENTION_SECS: i64 = 7 * 24 * 3600;

/// Records a webhook event id; true the first time, false for a redelivery (run it in the
/// transaction that applies the event, so that the two commit together).
pub async fn first_delivery(
    conn: &impl ConnectionTrait,
    webhook_event_id: &str,
    event_type: &str,
    now: i64,
) -> anyhow::Result<bool> {
    let stmt = Query::insert()
        .into_table(line_webhook_event::Entity)
        .columns([
            line_webhook_event::Column::WebhookEventId,
            line_webhook_event::Column::EventType,
            line_webhook_event::Column::ReceivedAt,
        ])
        .values_panic([
            webhook_event_id.into(),
            event_type.chars().take(32).collect::<String>().into(),
            now.into(),
        ])
        .on_conflict(
            OnConflict::column(line_webhook_event::Column::WebhookEventId)
                .do_nothing()
                .to_owned(),
        )
        .to_owned();
    let result = conn
        .execute(&stmt)
        .await
        .context("recording a webhook event")?;
    Ok(result.rows_affected() == 1)
}

/// Sets a LINE user's friendship as of `event_at_ms` (LINE's event timestamp), unless a newer
/// event was already applied. Answers whether it was applied.
pub async fn record_friendship(
    conn: &impl ConnectionTrait,
    line_user_id: &str,
    friend: bool,
    event_at_ms: i64,
    now: i64,
) -> anyhow::Result<bool> {
    use line_friendship::Column;
    let stmt = Query::insert()
        .into_table(line_friendship::Entity)
        .columns([
            Column::LineUserId,
            Column::Friend,
            Column::EventAtMs,
            Column::UpdatedAt,
        ])
        .values_panic([
            line_user_id.into(),
            friend.into(),
            event_at_ms.into(),
            now.into(),
        ])
        .on_conflict(
            OnConflict::column(Column::LineUserId)
                .update_columns([Column::Friend, Column::EventAtMs, Column::UpdatedAt])
                // Webhooks arrive out of order: an older event never overwrites a newer one.
                .action_and_where(
                    Expr::col((line_friendship::Entity, Column::EventAtMs))
                        .lt(Expr::col((Alias::new("excluded"), Column::EventAtMs))),
                )
                .to_owned(),
        )
        .to_owned();
    let result = conn
        .execute(&stmt)
        .await
        .context("recording a friendship")?;
    Ok(result.rows_affected() == 1)
}

/// The friendship LINE last told us about: Some(false) after an unfollow (or block), Some(true)
/// after a follow, None if no event about this user was ever received.
pub async fn friendship(
    conn: &impl ConnectionTrait,
    line_user_id: &str,
) -> anyhow::Result<Option<bool>> {
    Ok(
        line_friendship::Entity::find_by_id(line_user_id.to_string())
            .one(conn)
            .await
            .context("reading a friendship")?
            .map(|f| f.friend),
    )
}

/// Forgets event ids older than the retention.
pub async fn sweep(conn: &impl ConnectionTrait, now: i64) -> anyhow::Result<u64> {
    let result = line_webhook_event::Entity::delete_many()
        .filter(line_webhook_event::Column::ReceivedAt.lt(now - EVENT_ID_RETENTION_SECS))
        .exec(conn)
        .await
        .context("forgetting old webhook event ids")?;
    Ok(result.rows_affected)
}
