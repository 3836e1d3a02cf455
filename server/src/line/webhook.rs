//! LINE's webhook: the signature check and what the server does with the events.
//!
//! LINE signs the raw request body with the channel secret: `x-line-signature` is the base64 of
//! its HMAC-SHA256. It is checked on the bytes as received (before any JSON parsing), compared in
//! constant time (`hmac`'s `verify_slice`).
//!
//! Events: `follow` and `unfollow` (unfollow also means blocked) set the LINE user's friendship
//! (`storage::line_events`), applied only when newer than the one stored, since webhooks can
//! arrive out of order; an event dated after its arrival counts as of its arrival (kizuna-core's
//! `line::friendship_event_at_ms`), so no event outranks the ones still to come. Each applied event's `webhookEventId` is recorded in the same
//! transaction, so a redelivery (`deliveryContext.isRedelivery`, or any replay) is skipped.
//! Every other event type (message, postback, join, …) is acknowledged and otherwise ignored:
//! nothing stored, nothing but its type logged (at debug).

use base64::{Engine, engine::general_purpose::STANDARD};
use hmac::{Hmac, Mac};
use kizuna_core::line::LineUserId;
use sea_orm::DatabaseConnection;
use serde::Deserialize;
use sha2::Sha256;

use crate::storage::{begin_write, line_events};

type HmacSha256 = Hmac<Sha256>;

/// The `x-line-signature` of a body: base64(HMAC-SHA256(channel secret, body)).
pub fn signature(channel_secret: &str, body: &[u8]) -> String {
    let mut mac =
        HmacSha256::new_from_slice(channel_secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    STANDARD.encode(mac.finalize().into_bytes())
}

/// Whether `header` is the signature of `body` (constant-time comparison).
pub fn signature_matches(channel_secret: &str, body: &[u8], header: &str) -> bool {
    let Ok(claimed) = STANDARD.decode(header.trim()) else {
        return false;
    };
    let mut mac =
        HmacSha256::new_from_slice(channel_secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    mac.verify_slice(&claimed).is_ok()
}

/// A webhook request body (only what the server reads; LINE adds fields over time).
#[derive(Debug, Deserialize)]
pub struct WebhookBody {
    #[serde(default)]
    pub destination: Option<String>,
    pub events: Vec<serde_json::Value>,
}

/// The fields of one event that matter here.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    timestamp: i64,
    webhook_event_id: String,
    #[serde(default)]
    source: Option<Source>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Source {
    #[serde(default)]
    user_id: Option<String>,
}

/// What one webhook request came to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// follow / unfollow events applied for the first time.
    pub applied: usize,
    /// Events already applied before (redeliveries, replays).
    pub duplicates: usize,
    /// Events of other types, or without what they need (a LINE user id, an event id).
    pub ignored: usize,
}

/// Applies the events of a verified body.
pub async fn apply(
    db: &DatabaseConnection,
    body: &WebhookBody,
    now: i64,
    now_ms: i64,
) -> anyhow::Result<Outcome> {
    let mut outcome = Outcome::default();
    for raw in &body.events {
        let Ok(event) = Event::deserialize(raw) else {
            tracing::warn!("webhook: an event without type, timestamp or webhookEventId");
            outcome.ignored += 1;
            continue;
        };
        let friend = match event.kind.as_str() {
            "follow" => true,
            "unfollow" => false,
            other => {
                tracing::debug!(event_type = other, "webhook: event ignored");
                outcome.ignored += 1;
                continue;
            }
        };
        let Some(user) = event
            .source
            .and_then(|s| s.user_id)
            .and_then(|id| LineUserId::parse(&id))
        else {
            tracing::warn!(event_type = %event.kind, "webhook: event without a LINE user id");
            outcome.ignored += 1;
            continue;
        };
        let txn = begin_write(db).await?;
        if !line_events::first_delivery(&txn, &event.webhook_event_id, &event.kind, now).await? {
            txn.rollback().await?;
            outcome.duplicates += 1;
            continue;
        }
        let event_at_ms = kizuna_core::line::friendship_event_at_ms(event.timestamp, now_ms);
        let newer =
            line_events::record_friendship(&txn, user.as_str(), friend, event_at_ms, now).await?;
        txn.commit().await?;
        outcome.applied += 1;
        if !newer {
            tracing::info!(event_type = %event.kind, "webhook: an older event than the one applied; kept the newer");
        }
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_matches_only_its_body_and_secret() {
        let body = br#"{"destination":"U0","events":[]}"#;
        let sig = signature("secret", body);
        assert!(signature_matches("secret", body, &sig));
        assert!(!signature_matches("other", body, &sig));
        assert!(!signature_matches(
            "secret",
            b"{\"destination\":\"U0\",\"events\":[] }",
            &sig
        ));
        assert!(!signature_matches("secret", body, "not base64!"));
        assert!(!signature_matches("secret", body, ""));
        assert!(!signature_matches("secret", body, &sig[..sig.len() - 4]));
    }

    #[test]
    fn the_signature_is_lines_documented_hmac() {
        // HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog"), base64.
        assert_eq!(
            signature("key", b"The quick brown fox jumps over the lazy dog"),
            "97yD9DBThCSxMpjmqm+xQ+9NWaFJRhdZl0edvC0aPNg="
        );
    }
}
