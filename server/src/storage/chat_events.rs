//! `chat_events` and `chat_event_heads`: each member's chat events (a message in one of their
//! matches, the other member's read marker, a match ended) numbered 1, 2, 3, … per member in the
//! order they committed, so that a stream that reconnects with the last number it saw
//! (`Last-Event-ID`) gets exactly what came after. Events are kept `KEPT_SECS`.

use std::collections::HashMap;

use anyhow::Context;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::{StorageError, entity::chat_message, statements::sql};

/// How long events stay replayable: a stream away for longer starts afresh (`reset`).
pub const KEPT_SECS: i64 = 24 * 3600;

/// What an event says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A message was stored (`ref_id`: the message).
    Message,
    /// The other member read up to `ref_id`.
    Read,
    /// The match ended.
    Ended,
}

impl Kind {
    pub(crate) fn code(self) -> i16 {
        match self {
            Kind::Message => 1,
            Kind::Read => 2,
            Kind::Ended => 3,
        }
    }

    fn from_code(code: i16) -> Option<Kind> {
        match code {
            1 => Some(Kind::Message),
            2 => Some(Kind::Read),
            3 => Some(Kind::Ended),
            _ => None,
        }
    }
}

/// An event to write for one member.
#[derive(Clone, Copy, Debug)]
pub struct NewEvent {
    pub member: i64,
    pub kind: Kind,
    pub match_id: i64,
    pub ref_id: i64,
}

/// Writes `events` in the caller's transaction and answers each one's number, in the order
/// given. A member's numbers are taken under their head row's lock (held until the commit), so
/// a member's events are numbered in commit order. Heads are taken in ascending member order,
/// as every writer does, so two transactions never wait on each other's heads in a circle; call
/// it as the last write before the commit (after any match row lock).
pub async fn record(
    txn: &impl ConnectionTrait,
    events: &[NewEvent],
    now: i64,
) -> Result<Vec<i64>, StorageError> {
    if events.is_empty() {
        return Ok(Vec::new());
    }
    let backend = txn.get_database_backend();
    let mut members: Vec<i64> = events.iter().map(|e| e.member).collect();
    members.sort_unstable();
    members.dedup();
    // One statement numbers every member's events, taking their heads in member order (so two
    // transactions numbering the same members never wait for each other crosswise).
    let mut values: Vec<sea_orm::Value> = Vec::with_capacity(members.len() * 2);
    let mut rows = Vec::with_capacity(members.len());
    for (n, member) in members.iter().enumerate() {
        let count = events.iter().filter(|e| e.member == *member).count() as i64;
        rows.push(format!("(${}, ${})", 2 * n + 1, 2 * n + 2));
        values.extend([(*member).into(), count.into()]);
    }
    let heads = txn
        .query_all_raw(sql(
            backend,
            &format!(
                "INSERT INTO chat_event_heads (member_id, seq) VALUES {} \
                 ON CONFLICT (member_id) DO UPDATE SET seq = chat_event_heads.seq + excluded.seq \
                 RETURNING member_id, seq",
                rows.join(", ")
            ),
            values,
        ))
        .await
        .context("numbering chat events")?;
    let mut next: HashMap<i64, i64> = HashMap::new();
    for head in heads {
        let member: i64 = head
            .try_get("", "member_id")
            .context("decoding an event head")?;
        let last: i64 = head
            .try_get("", "seq")
            .context("decoding an event number")?;
        let count = events.iter().filter(|e| e.member == member).count() as i64;
        next.insert(member, last - count + 1);
    }
    if next.len() != members.len() {
        return Err(StorageError::Unreadable(
            "chat_event_heads: a member without a number".into(),
        ));
    }
    let mut seqs = Vec::with_capacity(events.len());
    let mut rows = Vec::with_capacity(events.len());
    let mut values: Vec<sea_orm::Value> = Vec::with_capacity(events.len() * 6);
    for (n, event) in events.iter().enumerate() {
        let seq = next.get_mut(&event.member).expect("numbered above");
        seqs.push(*seq);
        let at = n * 6;
        rows.push(format!(
            "(${}, ${}, ${}, ${}, ${}, ${})",
            at + 1,
            at + 2,
            at + 3,
            at + 4,
            at + 5,
            at + 6
        ));
        values.extend([
            event.member.into(),
            (*seq).into(),
            event.kind.code().into(),
            event.match_id.into(),
            event.ref_id.into(),
            now.into(),
        ]);
        *seq += 1;
    }
    txn.execute_raw(sql(
        backend,
        &format!(
            "INSERT INTO chat_events (member_id, seq, kind, match_id, ref_id, created_at) VALUES {}",
            rows.join(", ")
        ),
        values,
    ))
    .await
    .context("storing chat events")?;
    Ok(seqs)
}

/// A stored event as a stream replays it.
#[derive(Clone, Debug)]
pub struct Stored {
    pub seq: i64,
    pub kind: Kind,
    pub match_id: i64,
    pub ref_id: i64,
    /// The message of a `Message` event (None once it is gone: its sender deleted their account).
    pub message: Option<chat_message::Model>,
}

/// Up to `limit` of `member`'s events after number `after`, in order.
pub async fn after(
    db: &impl ConnectionTrait,
    member: i64,
    after: i64,
    limit: u64,
) -> Result<Vec<Stored>, StorageError> {
    let backend = db.get_database_backend();
    let rows = db
        .query_all_raw(sql(
            backend,
            "SELECT seq, kind, match_id, ref_id FROM chat_events \
             WHERE member_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            vec![member.into(), after.into(), (limit as i64).into()],
        ))
        .await
        .context("reading chat events")?;
    let mut events = Vec::with_capacity(rows.len());
    for row in &rows {
        let code: i16 = row.try_get("", "kind").context("decoding an event")?;
        let Some(kind) = Kind::from_code(code) else {
            return Err(StorageError::Unreadable(format!(
                "chat_events: kind {code}"
            )));
        };
        events.push(Stored {
            seq: row.try_get("", "seq").context("decoding an event")?,
            kind,
            match_id: row.try_get("", "match_id").context("decoding an event")?,
            ref_id: row.try_get("", "ref_id").context("decoding an event")?,
            message: None,
        });
    }
    let ids: Vec<i64> = events
        .iter()
        .filter(|e| e.kind == Kind::Message)
        .map(|e| e.ref_id)
        .collect();
    if !ids.is_empty() {
        let messages: HashMap<i64, chat_message::Model> = chat_message::Entity::find()
            .filter(chat_message::Column::Id.is_in(ids))
            .all(db)
            .await
            .context("reading replayed messages")?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        for event in &mut events {
            if event.kind == Kind::Message {
                event.message = messages.get(&event.ref_id).cloned();
            }
        }
    }
    Ok(events)
}

/// `member`'s last event number (0: none yet) and the first one still kept (None: none kept).
pub async fn bounds(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<(i64, Option<i64>), StorageError> {
    let backend = db.get_database_backend();
    let row = db
        .query_one_raw(sql(
            backend,
            "SELECT (SELECT seq FROM chat_event_heads WHERE member_id = $1) AS head, \
             (SELECT MIN(seq) FROM chat_events WHERE member_id = $1) AS oldest",
            vec![member.into()],
        ))
        .await
        .context("reading a member's event numbers")?;
    let Some(row) = row else {
        return Ok((0, None));
    };
    let head: Option<i64> = row.try_get("", "head").context("decoding a head")?;
    let oldest: Option<i64> = row.try_get("", "oldest").context("decoding a head")?;
    Ok((head.unwrap_or(0), oldest))
}

/// The members a stored message was an event for, with its number in each one's events.
pub async fn of_message(
    db: &impl ConnectionTrait,
    message_id: i64,
) -> Result<Vec<(i64, i64)>, StorageError> {
    let backend = db.get_database_backend();
    let rows = db
        .query_all_raw(sql(
            backend,
            "SELECT member_id, seq FROM chat_events WHERE ref_id = $1 AND kind = $2 \
             ORDER BY member_id",
            vec![message_id.into(), Kind::Message.code().into()],
        ))
        .await
        .context("reading a message's events")?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("", "member_id").context("decoding an event")?,
                row.try_get("", "seq").context("decoding an event")?,
            ))
        })
        .collect()
}

/// Forgets events older than `KEPT_SECS`; answers how many.
pub async fn sweep(db: &impl ConnectionTrait, now: i64) -> Result<u64, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "DELETE FROM chat_events WHERE created_at < $1",
            vec![(now - KEPT_SECS).into()],
        ))
        .await
        .context("forgetting old chat events")?;
    Ok(done.rows_affected())
}
