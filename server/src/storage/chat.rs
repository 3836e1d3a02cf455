//! Chat's tables: `chat_messages`, `chat_marks` (each member's read marker, push throttle and
//! when they first opened the conversation, per match) and `chat_presence` (open events streams, for every process on the database).
//!
//! Who may chat is `crate::access::chat`'s decision, not this module's.

use std::collections::{HashMap, HashSet};

use anyhow::Context;
use kizuna_core::{access::Ties, rules::SAFETY_YOUNG_MATCH_MESSAGES, safety::Kinds};
use sea_orm::{
    ActiveValue::Set,
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait, FromQueryResult,
    QueryFilter, QueryOrder, QuerySelect, TryInsertResult,
    sea_query::{Expr, Func, OnConflict, Query},
};

use crate::instance::alive_sql;

use super::{
    StorageError,
    chat_events::{Kind, NewEvent},
    entity::{chat_message, pair_match},
    rate_limits::Take,
    statements::sql,
};

/// A match the member may chat in, with the other member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveMatch {
    pub id: i64,
    pub other: i64,
    pub low: i64,
    pub high: i64,
    /// When the match was made (Unix seconds).
    pub matched_at: i64,
}

/// Reads the match row and holds it until the transaction ends (PostgreSQL; SQLite's `BEGIN
/// IMMEDIATE` already runs writers one at a time): a send and an unmatch or block of the same
/// match run one after the other, so no message is stored into a match that has just ended.
pub async fn lock_match(
    db: &impl ConnectionTrait,
    match_id: i64,
) -> Result<Option<pair_match::Model>, StorageError> {
    Ok(pair_match::Entity::find_by_id(match_id)
        .lock_exclusive()
        .one(db)
        .await
        .context("locking a match")?)
}

/// The match row `match_id`, ended or not, whoever it belongs to (the events relay;
/// `crate::access::chat` decides who may chat in it).
pub async fn match_row(
    db: &impl ConnectionTrait,
    match_id: i64,
) -> Result<Option<pair_match::Model>, StorageError> {
    Ok(pair_match::Entity::find_by_id(match_id)
        .one(db)
        .await
        .context("reading a match")?)
}

/// The message a sender stored in a match under a client id, if any.
pub async fn find_message(
    db: &impl ConnectionTrait,
    match_id: i64,
    sender: i64,
    client_message_id: &str,
) -> Result<Option<chat_message::Model>, StorageError> {
    Ok(chat_message::Entity::find()
        .filter(chat_message::Column::MatchId.eq(match_id))
        .filter(chat_message::Column::SenderId.eq(sender))
        .filter(chat_message::Column::ClientMessageId.eq(client_message_id))
        .one(db)
        .await
        .context("reading a message by its client id")?)
}

/// A message by id.
pub async fn message(
    db: &impl ConnectionTrait,
    id: i64,
) -> Result<Option<chat_message::Model>, StorageError> {
    Ok(chat_message::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a message")?)
}

/// The messages of `ids` that exist, in no particular order.
pub async fn messages(
    db: &impl ConnectionTrait,
    ids: &[i64],
) -> Result<Vec<chat_message::Model>, StorageError> {
    Ok(chat_message::Entity::find()
        .filter(chat_message::Column::Id.is_in(ids.iter().copied()))
        .all(db)
        .await
        .context("reading messages")?)
}

/// What a send decides on, read in one statement under the match's lock (so that it sees
/// whatever the sends and ends of the match before it committed): the sender's ties with the
/// other member (`crate::access` asks the core whether they may chat), the screening's context,
/// whether the conversation was queued for review before, and whether the other member has an
/// events stream open on a live process (then no push).
#[derive(Clone, Copy, Debug)]
pub struct SendContext {
    pub ties: Ties,
    /// Messages the sender and the other member sent in the match so far, each counted up to
    /// [`SAFETY_YOUNG_MATCH_MESSAGES`]: the rule asks no more of them (`Conversation::is_young`),
    /// and a send into a conversation of thousands of messages counts no more than that many of
    /// each side's.
    pub sent_by_sender: u32,
    pub sent_by_other: u32,
    /// Every kind found in the sender's earlier messages of the match.
    pub earlier: Kinds,
    /// The conversation is (or was) in the reviewers' queue.
    pub queued_before: bool,
    /// The other member has a live events stream on some live process.
    pub other_present: bool,
}

/// [`send_context`]: what the send decides on, and the message the sender stored under the same
/// client id before, if any.
pub struct SendRead {
    pub context: SendContext,
    pub stored: Option<chat_message::Model>,
    /// When the read took an allowance beside it: `limit_wait`'s answer
    /// (`storage::rate_limits::Take::ctes`).
    pub taken: Option<i64>,
}

/// [`SendContext`] of `sender` writing to `other` in match `match_id`, and the message stored
/// under `client_message_id` before; None when `other` has no profile. Call it in the send's
/// transaction once the match row is locked (`lock_match`). With `take` (PostgreSQL), the same
/// statement takes the sender's message allowance, a round trip less for every send; the
/// transaction gives it back when it rolls back (a retry, a refusal).
#[allow(clippy::too_many_arguments)]
pub async fn send_context(
    txn: &impl ConnectionTrait,
    match_id: i64,
    sender: i64,
    other: i64,
    client_message_id: &str,
    take: Option<&Take>,
    process: i32,
    now: i64,
) -> Result<Option<SendRead>, StorageError> {
    let backend = txn.get_database_backend();
    // The kinds are bits (`Kinds::bits`): their union over the sender's earlier messages, bit
    // by bit, in SQL both databases speak; `safety_kinds <> 0` as the flagged messages' index
    // states it (migration m20261206_000001), so that only those are read.
    let earlier = (0..8)
        .map(|bit| format!("COALESCE(MAX(c.safety_kinds & {}), 0)", 1 << bit))
        .collect::<Vec<_>>()
        .join(" | ");
    // The allowance's parameters follow the read's six.
    let (with, taken) = match take {
        Some(_) => (
            format!("WITH {} ", Take::ctes(7)),
            "(SELECT wait_ms FROM limit_wait)",
        ),
        None => (String::new(), "CAST(NULL AS BIGINT)"),
    };
    let text = format!(
        "{with}SELECT {ties}, {taken} AS taken_wait_ms, \
         (SELECT COUNT(*) FROM (SELECT 1 FROM chat_messages c \
           WHERE c.match_id = $4 AND c.sender_id = $1 LIMIT {cap}) s) AS sent_by_sender, \
         (SELECT COUNT(*) FROM (SELECT 1 FROM chat_messages c \
           WHERE c.match_id = $4 AND c.sender_id = $3 LIMIT {cap}) s) AS sent_by_other, \
         (SELECT {earlier} FROM chat_messages c \
           WHERE c.match_id = $4 AND c.sender_id = $1 AND c.safety_kinds <> 0) AS earlier_kinds, \
         CASE WHEN EXISTS (SELECT 1 FROM safety_reviews r WHERE r.match_id = $4) \
           THEN 1 ELSE 0 END AS queued_before, \
         CASE WHEN EXISTS (SELECT 1 FROM chat_presence pr WHERE pr.member_id = $3 \
           AND pr.expires_at > $5 AND {alive}) THEN 1 ELSE 0 END AS other_present, \
         x.id AS x_id, x.match_id AS x_match_id, x.sender_id AS x_sender_id, \
         x.client_message_id AS x_client_message_id, x.text AS x_text, \
         x.sent_at AS x_sent_at, x.safety_kinds AS x_safety_kinds \
         FROM profiles p LEFT JOIN chat_messages x \
           ON x.match_id = $4 AND x.sender_id = $1 AND x.client_message_id = $6 \
         WHERE p.id = $3",
        ties = super::access::ties_columns(),
        alive = alive_sql(backend, process, "pr.process_id"),
        cap = SAFETY_YOUNG_MATCH_MESSAGES,
    );
    let mut values = super::access::ties_values(sender);
    values.extend([
        other.into(),
        match_id.into(),
        now.into(),
        client_message_id.into(),
    ]);
    values.extend(take.into_iter().flat_map(Take::values));
    let Some(row) = txn
        .query_one_raw(sql(backend, &text, values))
        .await
        .context("reading what a send decides on")?
    else {
        return Ok(None);
    };
    let (_, ties) = super::access::decode_ties(&row, sender)?;
    let count = |column: &str| -> Result<u32, StorageError> {
        let n: i64 = row.try_get("", column).context("decoding a count")?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    };
    let flag = |column: &str| -> Result<bool, StorageError> {
        Ok(row.try_get::<i32>("", column).context("decoding a flag")? == 1)
    };
    let sent_by_sender = count("sent_by_sender")?;
    let earlier: Option<i64> = row.try_get("", "earlier_kinds").context("decoding kinds")?;
    let stored_id: Option<i64> = row.try_get("", "x_id").context("decoding a message")?;
    let stored = match stored_id {
        Some(_) => {
            Some(chat_message::Model::from_query_result(&row, "x_").context("decoding a message")?)
        }
        None => None,
    };
    Ok(Some(SendRead {
        context: SendContext {
            ties,
            sent_by_sender,
            sent_by_other: count("sent_by_other")?,
            earlier: Kinds::from_bits((earlier.unwrap_or(0) & 0xff) as u8),
            queued_before: flag("queued_before")?,
            other_present: flag("other_present")?,
        },
        stored,
        taken: row
            .try_get("", "taken_wait_ms")
            .context("decoding an allowance")?,
    }))
}

/// A message stored by [`insert_message_with_events`], with the numbers of its events.
pub struct Stored {
    pub message: chat_message::Model,
    /// (member, number in their events), for each member the message was an event for.
    pub events: Vec<(i64, i64)>,
}

/// What [`insert_message_with_events`] came to.
pub enum Inserted {
    /// Stored now.
    New(Stored),
    /// The sender stored this one under the same client id before (a retry, or a racing copy
    /// that committed first): nothing was written.
    Before(chat_message::Model),
}

/// Stores a new message and its `Message` event for each of `members` (ascending, numbered as
/// `chat_events::record` numbers them, the heads' row locks held to the commit), unless the
/// sender already stored one under this client id in this match. On PostgreSQL one statement; on SQLite, whose writers take turns anyway, the
/// message and then its events. Call it as the transaction's last write.
#[allow(clippy::too_many_arguments)]
pub async fn insert_message_with_events(
    txn: &impl ConnectionTrait,
    match_id: i64,
    sender: i64,
    client_message_id: &str,
    text: &str,
    safety_kinds: u8,
    now: i64,
    members: [i64; 2],
) -> Result<Inserted, StorageError> {
    let backend = txn.get_database_backend();
    let [low, high] = if members[0] <= members[1] {
        members
    } else {
        [members[1], members[0]]
    };
    if backend != DbBackend::Postgres {
        let (message, created) = insert_message(
            txn,
            match_id,
            sender,
            client_message_id,
            text,
            safety_kinds,
            now,
        )
        .await?;
        if !created {
            return Ok(Inserted::Before(message));
        }
        let events: Vec<NewEvent> = [low, high]
            .into_iter()
            .map(|member| NewEvent {
                member,
                kind: Kind::Message,
                match_id,
                ref_id: message.id,
            })
            .collect();
        let seqs = super::chat_events::record(txn, &events, now).await?;
        return Ok(Inserted::New(Stored {
            message,
            events: [low, high].into_iter().zip(seqs).collect(),
        }));
    }
    // Data-modifying CTEs all see the same snapshot and run to completion: the heads are taken
    // only when the message was inserted (a racing copy's insert answers no row, having waited
    // for the first to commit), in ascending member order as every writer takes them.
    let stmt = sql(
        backend,
        "WITH msg AS ( \
           INSERT INTO chat_messages \
             (match_id, sender_id, client_message_id, text, sent_at, safety_kinds) \
           VALUES ($1, $2, $3, $4, $5, $6) \
           ON CONFLICT (match_id, sender_id, client_message_id) DO NOTHING \
           RETURNING id, match_id, sender_id, client_message_id, text, sent_at, safety_kinds), \
         heads AS ( \
           INSERT INTO chat_event_heads (member_id, seq) \
           SELECT v.member_id, 1 FROM (VALUES (1, $7::bigint), (2, $8::bigint)) AS v(n, member_id) \
           WHERE EXISTS (SELECT 1 FROM msg) ORDER BY v.n \
           ON CONFLICT (member_id) DO UPDATE SET seq = chat_event_heads.seq + excluded.seq \
           RETURNING member_id, seq), \
         events AS ( \
           INSERT INTO chat_events (member_id, seq, kind, match_id, ref_id, created_at) \
           SELECT h.member_id, h.seq, $9, msg.match_id, msg.id, $5 FROM heads h, msg \
           RETURNING member_id, seq) \
         SELECT msg.id, msg.match_id, msg.sender_id, msg.client_message_id, msg.text, \
           msg.sent_at, msg.safety_kinds, \
           (SELECT e.seq FROM events e WHERE e.member_id = $7) AS low_seq, \
           (SELECT e.seq FROM events e WHERE e.member_id = $8) AS high_seq \
         FROM msg",
        vec![
            match_id.into(),
            sender.into(),
            client_message_id.into(),
            text.into(),
            now.into(),
            i64::from(safety_kinds).into(),
            low.into(),
            high.into(),
            Kind::Message.code().into(),
        ],
    );
    let Some(row) = txn
        .query_one_raw(stmt)
        .await
        .context("storing a message and its events")?
    else {
        let stored = find_message(txn, match_id, sender, client_message_id)
            .await?
            .ok_or_else(|| StorageError::Unreadable("chat_messages: a stored message".into()))?;
        return Ok(Inserted::Before(stored));
    };
    let seq = |column: &str| -> Result<i64, StorageError> {
        let seq: Option<i64> = row
            .try_get("", column)
            .context("decoding an event number")?;
        seq.ok_or_else(|| {
            StorageError::Unreadable("chat_event_heads: a member without a number".into())
        })
    };
    let message = chat_message::Model::from_query_result(&row, "").context("decoding a message")?;
    Ok(Inserted::New(Stored {
        events: vec![(low, seq("low_seq")?), (high, seq("high_seq")?)],
        message,
    }))
}

/// Stores a message unless the sender already stored one under this client id in this match;
/// answers the stored row and whether this call wrote it. Two racing calls both end here with
/// the same row: the unique key lets one insert, the other's insert does nothing (on
/// PostgreSQL after waiting for the first to commit) and it reads that row back.
pub async fn insert_message(
    db: &impl ConnectionTrait,
    match_id: i64,
    sender: i64,
    client_message_id: &str,
    text: &str,
    safety_kinds: u8,
    now: i64,
) -> Result<(chat_message::Model, bool), StorageError> {
    let inserted = chat_message::Entity::insert(chat_message::ActiveModel {
        match_id: Set(match_id),
        sender_id: Set(sender),
        client_message_id: Set(client_message_id.to_string()),
        text: Set(text.to_string()),
        sent_at: Set(now),
        safety_kinds: Set(i64::from(safety_kinds)),
        ..Default::default()
    })
    .on_conflict(
        OnConflict::columns([
            chat_message::Column::MatchId,
            chat_message::Column::SenderId,
            chat_message::Column::ClientMessageId,
        ])
        .do_nothing()
        .to_owned(),
    )
    .try_insert()
    // The many-row form: a conflict answers no row (the one-row form takes it for an error).
    .exec_with_returning_many(db)
    .await
    .context("storing a message")?;
    if let TryInsertResult::Inserted(mut rows) = inserted
        && let Some(row) = rows.pop()
    {
        return Ok((row, true));
    }
    let stored = find_message(db, match_id, sender, client_message_id)
        .await?
        .ok_or_else(|| StorageError::Unreadable("chat_messages: a stored message".into()))?;
    Ok((stored, false))
}

/// Up to `limit` messages of a match before `before` (all when None), oldest first, and whether
/// older ones exist.
pub async fn page(
    db: &impl ConnectionTrait,
    match_id: i64,
    before: Option<i64>,
    limit: u64,
) -> Result<(Vec<chat_message::Model>, bool), StorageError> {
    let mut query = chat_message::Entity::find().filter(chat_message::Column::MatchId.eq(match_id));
    if let Some(before) = before {
        query = query.filter(chat_message::Column::Id.lt(before));
    }
    let mut rows = query
        .order_by_desc(chat_message::Column::Id)
        .limit(limit + 1)
        .all(db)
        .await
        .context("reading messages")?;
    let has_more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    rows.reverse();
    Ok((rows, has_more))
}

/// The newest message of a match.
pub async fn last_message(
    db: &impl ConnectionTrait,
    match_id: i64,
) -> Result<Option<chat_message::Model>, StorageError> {
    Ok(page(db, match_id, None, 1).await?.0.pop())
}

/// The newest message of each of `matches` that has one (one statement).
pub async fn last_messages(
    db: &impl ConnectionTrait,
    matches: &[i64],
) -> Result<HashMap<i64, chat_message::Model>, StorageError> {
    if matches.is_empty() {
        return Ok(HashMap::new());
    }
    let newest = Query::select()
        .expr(Func::max(Expr::col(chat_message::Column::Id)))
        .from(chat_message::Entity)
        .and_where(chat_message::Column::MatchId.is_in(matches.iter().copied()))
        .group_by_col(chat_message::Column::MatchId)
        .to_owned();
    Ok(chat_message::Entity::find()
        .filter(chat_message::Column::Id.in_subquery(newest))
        .all(db)
        .await
        .context("reading the newest messages")?
        .into_iter()
        .map(|m| (m.match_id, m))
        .collect())
}

/// The newest message id a member has read in a match (0: none).
pub async fn read_up_to(
    db: &impl ConnectionTrait,
    match_id: i64,
    member: i64,
) -> Result<i64, StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "SELECT read_up_to FROM chat_marks WHERE match_id = $1 AND member_id = $2",
        vec![match_id.into(), member.into()],
    );
    Ok(
        match db
            .query_one_raw(stmt)
            .await
            .context("reading a read marker")?
        {
            Some(row) => row
                .try_get::<i64>("", "read_up_to")
                .context("decoding a read marker")?,
            None => 0,
        },
    )
}

/// For each of `matches` with unread messages: how many the other member sent after
/// `member`'s read marker (one statement).
pub async fn unread_counts(
    db: &impl ConnectionTrait,
    matches: &[i64],
    member: i64,
) -> Result<HashMap<i64, u32>, StorageError> {
    if matches.is_empty() {
        return Ok(HashMap::new());
    }
    let ids: Vec<String> = (0..matches.len()).map(|n| format!("${}", n + 2)).collect();
    let mut values: Vec<sea_orm::Value> = vec![member.into()];
    values.extend(matches.iter().map(|id| sea_orm::Value::from(*id)));
    let stmt = sql(
        db.get_database_backend(),
        &format!(
            "SELECT c.match_id AS match_id, COUNT(*) AS n FROM chat_messages c \
             LEFT JOIN chat_marks k ON k.match_id = c.match_id AND k.member_id = $1 \
             WHERE c.match_id IN ({}) AND c.sender_id <> $1 AND c.id > COALESCE(k.read_up_to, 0) \
             GROUP BY c.match_id",
            ids.join(", ")
        ),
        values,
    );
    db.query_all_raw(stmt)
        .await
        .context("counting unread messages")?
        .iter()
        .map(|row| {
            let id: i64 = row.try_get("", "match_id").context("decoding a count")?;
            let n: i64 = row.try_get("", "n").context("decoding a count")?;
            Ok((id, u32::try_from(n).unwrap_or(u32::MAX)))
        })
        .collect()
}

/// Moves `member`'s read marker forward to `up_to` (never past the match's newest message,
/// never back); answers the new marker when it moved.
pub async fn mark_read(
    db: &impl ConnectionTrait,
    match_id: i64,
    member: i64,
    up_to: i64,
) -> Result<Option<i64>, StorageError> {
    let newest = last_message(db, match_id).await?.map(|m| m.id).unwrap_or(0);
    let up_to = up_to.min(newest);
    if up_to <= 0 {
        return Ok(None);
    }
    let stmt = sql(
        db.get_database_backend(),
        "INSERT INTO chat_marks (match_id, member_id, read_up_to, pushed_at) VALUES ($1, $2, $3, NULL) \
         ON CONFLICT (match_id, member_id) DO UPDATE SET read_up_to = excluded.read_up_to \
         WHERE chat_marks.read_up_to < excluded.read_up_to",
        vec![match_id.into(), member.into(), up_to.into()],
    );
    let done = db.execute_raw(stmt).await.context("moving a read marker")?;
    Ok((done.rows_affected() == 1).then_some(up_to))
}

/// Records that `member` opened the match's conversation (the first time counts): the match is
/// no longer new to them.
pub async fn mark_opened(
    db: &impl ConnectionTrait,
    match_id: i64,
    member: i64,
    now: i64,
) -> Result<(), StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "INSERT INTO chat_marks (match_id, member_id, read_up_to, pushed_at, opened_at) \
         VALUES ($1, $2, 0, NULL, $3) \
         ON CONFLICT (match_id, member_id) DO UPDATE SET opened_at = excluded.opened_at \
         WHERE chat_marks.opened_at IS NULL",
        vec![match_id.into(), member.into(), now.into()],
    );
    db.execute_raw(stmt)
        .await
        .context("marking a conversation opened")?;
    Ok(())
}

/// Which of `matches` `member` has opened (one statement).
pub async fn opened(
    db: &impl ConnectionTrait,
    matches: &[i64],
    member: i64,
) -> Result<HashSet<i64>, StorageError> {
    if matches.is_empty() {
        return Ok(HashSet::new());
    }
    let ids: Vec<String> = (0..matches.len()).map(|n| format!("${}", n + 2)).collect();
    let mut values: Vec<sea_orm::Value> = vec![member.into()];
    values.extend(matches.iter().map(|id| sea_orm::Value::from(*id)));
    let stmt = sql(
        db.get_database_backend(),
        &format!(
            "SELECT match_id FROM chat_marks WHERE member_id = $1 AND opened_at IS NOT NULL \
             AND match_id IN ({})",
            ids.join(", ")
        ),
        values,
    );
    db.query_all_raw(stmt)
        .await
        .context("reading opened conversations")?
        .iter()
        .map(|row| Ok(row.try_get("", "match_id").context("decoding a match id")?))
        .collect()
}

/// Takes the right to push `recipient` about a new message in this match: true when their last
/// such push is older than `interval_secs` (or there was none), and records `now` as the last.
/// One statement, so two racing messages cannot both take it.
pub async fn claim_push(
    db: &impl ConnectionTrait,
    match_id: i64,
    recipient: i64,
    now: i64,
    interval_secs: i64,
) -> Result<bool, StorageError> {
    let stmt = sql(
        db.get_database_backend(),
        "INSERT INTO chat_marks (match_id, member_id, read_up_to, pushed_at) VALUES ($1, $2, 0, $3) \
         ON CONFLICT (match_id, member_id) DO UPDATE SET pushed_at = excluded.pushed_at \
         WHERE chat_marks.pushed_at IS NULL OR chat_marks.pushed_at <= $4",
        vec![
            match_id.into(),
            recipient.into(),
            now.into(),
            (now - interval_secs).into(),
        ],
    );
    let done = db
        .execute_raw(stmt)
        .await
        .context("throttling a chat push")?;
    Ok(done.rows_affected() == 1)
}

/// The last `limit` messages between two members (of their match, ended or not), oldest first.
pub async fn conversation(
    db: &impl ConnectionTrait,
    a: i64,
    b: i64,
    limit: u64,
) -> Result<Vec<chat_message::Model>, StorageError> {
    let Some(pair) = super::matchmaking::pair(db, a, b).await? else {
        return Ok(Vec::new());
    };
    Ok(page(db, pair.id, None, limit).await?.0)
}

// ---------------------------------------------------------------------------------------------
// Presence

/// Records an open events stream of `member`, held by process `process`, until `expires_at`,
/// unless the member already holds `cap` live streams on any process (answers false, writes
/// nothing). Streams count while their row has not expired and their process is alive
/// (`crate::instance`). Racing opens of one member take turns (an advisory lock per member on
/// PostgreSQL; SQLite's `BEGIN IMMEDIATE` queues every writer), so they cannot pass the cap
/// together. Forgets streams that expired long ago on the way.
pub async fn open_presence(
    db: &DatabaseConnection,
    stream_id: &str,
    member: i64,
    process: i32,
    now: i64,
    expires_at: i64,
    cap: u32,
) -> Result<bool, StorageError> {
    let backend = db.get_database_backend();
    let txn = super::begin_write(db)
        .await
        .context("starting to record a stream")?;
    if backend == DbBackend::Postgres {
        txn.execute_raw(sql(
            backend,
            "SELECT pg_advisory_xact_lock(hashtextextended('chat-streams:' || $1::text, 0))",
            vec![member.into()],
        ))
        .await
        .context("taking the member's stream lock")?;
    }
    txn.execute_raw(sql(
        backend,
        "DELETE FROM chat_presence WHERE expires_at < $1",
        vec![(now - 3600).into()],
    ))
    .await
    .context("forgetting old streams")?;
    let open = txn
        .query_one_raw(sql(
            backend,
            &format!(
                "SELECT COUNT(*) AS n FROM chat_presence p \
                 WHERE p.member_id = $1 AND p.expires_at > $2 AND {}",
                alive_sql(backend, process, "p.process_id")
            ),
            vec![member.into(), now.into()],
        ))
        .await
        .context("counting open streams")?
        .map(|row| row.try_get::<i64>("", "n"))
        .transpose()
        .context("decoding a count")?
        .unwrap_or(0);
    if open >= i64::from(cap) {
        return Ok(false);
    }
    txn.execute_raw(sql(
        backend,
        "INSERT INTO chat_presence (stream_id, member_id, expires_at, process_id) \
         VALUES ($1, $2, $3, $4)",
        vec![
            stream_id.into(),
            member.into(),
            expires_at.into(),
            process.into(),
        ],
    ))
    .await
    .context("recording an open stream")?;
    txn.commit().await.context("recording an open stream")?;
    Ok(true)
}

/// Keeps an open stream's row alive.
pub async fn refresh_presence(
    db: &impl ConnectionTrait,
    stream_id: &str,
    expires_at: i64,
) -> Result<(), StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "UPDATE chat_presence SET expires_at = $2 WHERE stream_id = $1",
        vec![stream_id.into(), expires_at.into()],
    ))
    .await
    .context("refreshing an open stream")?;
    Ok(())
}

/// Forgets a closed stream.
pub async fn close_presence(
    db: &impl ConnectionTrait,
    stream_id: &str,
) -> Result<(), StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "DELETE FROM chat_presence WHERE stream_id = $1",
        vec![stream_id.into()],
    ))
    .await
    .context("forgetting a closed stream")?;
    Ok(())
}
