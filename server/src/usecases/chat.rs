//! Chat as matched members do it: a page of history, sending (once per client message id), and
//! the read marker. Who may chat in a match is `crate::access::chat`'s decision, asked again
//! inside the send's transaction so that no message lands in a match that has just ended.

use anyhow::Context;
use kizuna_core::{
    chat::{ChatText, ClientMessageId},
    rules::CHAT_PUSH_INTERVAL_SECS,
};

use super::{AfterCommit, Outcome, push_target};
use crate::{
    access::{self, Viewer},
    chat::{ChatEvent, What},
    error::ApiError,
    line::{
        messages::{PushText, liff_url, push_messages},
        push,
    },
    state::AppState,
    storage::{
        self,
        chat::{self, LiveMatch},
        chat_events,
        entity::chat_message,
        matchmaking as store,
    },
};

/// The live match `match_id` of the viewer, or 404 E003.
pub async fn live(state: &AppState, viewer: &Viewer, match_id: i64) -> Result<LiveMatch, ApiError> {
    viewer.approved_member()?;
    access::chat(&state.db, viewer, match_id)
        .await?
        .ok_or(ApiError::NotFound)
}

/// A page of a match's history.
pub struct Page {
    /// Oldest first.
    pub messages: Vec<chat_message::Model>,
    pub has_more: bool,
    /// The newest message id the other member has read (0: none).
    pub their_read_up_to: i64,
}

/// The newest `limit` messages of the viewer's live match before `before`.
pub async fn page(
    state: &AppState,
    viewer: &Viewer,
    match_id: i64,
    before: Option<i64>,
    limit: u64,
) -> Result<Page, ApiError> {
    let live = live(state, viewer, match_id).await?;
    let (messages, has_more) = chat::page(&state.db, live.id, before, limit).await?;
    let their_read_up_to = chat::read_up_to(&state.db, live.id, live.other).await?;
    Ok(Page {
        messages,
        has_more,
        their_read_up_to,
    })
}

/// What a send came to.
pub enum Sent {
    /// Stored now (and delivered to both members' open pages).
    Created(chat_message::Model),
    /// Stored before under this client message id with the same text: nothing new.
    Stored(chat_message::Model),
}

/// A message stored before under the same client id: the same text is a retry, another text is
/// a client bug that must not pass silently (409 E005).
fn stored_before(row: chat_message::Model, text: &ChatText) -> Result<Sent, ApiError> {
    if row.text == text.as_str() {
        Ok(Sent::Stored(row))
    } else {
        Err(ApiError::Conflict(
            "this client message id was used for another text".into(),
        ))
    }
}

/// How long after it was stored a retried message is published again: a retry comes seconds
/// after the send whose answer was lost (its process may have died before publishing).
const REPUBLISH_WITHIN_SECS: i64 = 60;

/// Sends a message into the viewer's live match `match_id`. A retry (or a racing copy) of a
/// stored message stores nothing and is answered before the rate limit; a retry of a recent one
/// publishes its stored events again (within the member's message allowance), since the process
/// that stored it may have died before it published them (streams take each event once, by its
/// number). Who may chat is asked once, inside the transaction, with the match row locked. The
/// other member gets a LINE push when no page of theirs is open, at most one per match every
/// `CHAT_PUSH_INTERVAL_SECS`.
pub async fn send(
    state: &AppState,
    viewer: &Viewer,
    match_id: i64,
    client_id: &ClientMessageId,
    text: &ChatText,
) -> Result<Outcome<Sent>, ApiError> {
    let me = viewer.approved_member()?;
    if let Some(row) = chat::find_message(&state.db, match_id, me, client_id.as_str()).await? {
        let live = live(state, viewer, match_id).await?;
        let sent = stored_before(row, text)?;
        let mut after = AfterCommit::default();
        if let Sent::Stored(row) = &sent
            && row.sent_at >= state.now() - REPUBLISH_WITHIN_SECS
            && state.chat_limiter.allow(&format!("member:{me}")).await
        {
            let to = chat_events::of_message(&state.db, row.id).await?;
            if !to.is_empty() {
                after.tell(ChatEvent {
                    match_id: live.id,
                    what: What::Message(row.clone()),
                    to,
                });
            }
        }
        return Ok(Outcome::new(sent, after));
    }
    if let Err(wait) = state.chat_limiter.check(&format!("member:{me}")).await {
        return Err(ApiError::Throttled {
            cause: "too many messages; wait a moment".into(),
            retry_after: Some(wait.as_secs_f64().ceil().max(1.0) as u64),
        });
    }

    let now = state.now();
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting a message")?;
    let Some(live) = access::chat_locked(&txn, viewer, match_id).await? else {
        return Err(ApiError::NotFound);
    };
    let (row, created) =
        chat::insert_message(&txn, live.id, me, client_id.as_str(), text.as_str(), now).await?;
    if !created {
        return Ok(Outcome::only(stored_before(row, text)?));
    }
    let mut after = AfterCommit::default();
    if !chat::present(&txn, live.other, state.process, now).await?
        && chat::claim_push(&txn, live.id, live.other, now, CHAT_PUSH_INTERVAL_SECS).await?
        && let Some((to, locale)) = push_target(&txn, live.other, store::PushKind::Messages).await?
    {
        let nickname = store::member(&txn, me)
            .await?
            .and_then(|p| p.nickname)
            .unwrap_or_default();
        let url = format!(
            "{}/chat?match={}",
            liff_url(&state.settings.line.liff_id),
            live.id
        );
        let messages = push_messages(
            locale,
            &PushText::NewMessage {
                nickname: &nickname,
            },
            Some(&url),
        );
        push::enqueue(&txn, &to, &messages).await?;
        after.pushed();
    }
    super::record_chat(
        &txn,
        vec![(
            live.id,
            What::Message(row.clone()),
            vec![live.low, live.high],
        )],
        now,
        &mut after,
    )
    .await?;
    txn.commit().await.context("committing a message")?;
    Ok(Outcome::new(Sent::Created(row), after))
}

/// Moves the viewer's read marker forward to `up_to` (never back, never past the newest
/// message); the other member's open page is told when it moved. Any mark, 0 too, records that
/// the viewer opened the conversation: the match is no longer new to them.
pub async fn mark_read(
    state: &AppState,
    viewer: &Viewer,
    match_id: i64,
    up_to: i64,
) -> Result<Outcome<()>, ApiError> {
    let live = live(state, viewer, match_id).await?;
    let me = viewer.approved_member()?;
    chat::mark_opened(&state.db, live.id, me, state.now()).await?;
    let mut after = AfterCommit::default();
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting a read mark")?;
    if let Some(up_to) = chat::mark_read(&txn, live.id, me, up_to).await? {
        super::record_chat(
            &txn,
            vec![(live.id, What::Read { up_to }, vec![live.other])],
            state.now(),
            &mut after,
        )
        .await?;
    }
    txn.commit().await.context("committing a read mark")?;
    Ok(Outcome::new((), after))
}
