//! Matches (`matches`): one row per pair, live until one of them ends it.

use anyhow::Context;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, sea_query::Expr,
};

use super::{StorageError, entity::pair_match, is_unique_violation};

/// The match row of a pair, ended or not.
pub async fn pair(
    db: &impl ConnectionTrait,
    a: i64,
    b: i64,
) -> Result<Option<pair_match::Model>, StorageError> {
    Ok(pair_match::Entity::find()
        .filter(pair_match::Column::LowId.eq(Ord::min(a, b)))
        .filter(pair_match::Column::HighId.eq(Ord::max(a, b)))
        .one(db)
        .await
        .context("reading a match")?)
}

/// Creates the match of a pair; answers None when the pair has one already.
pub async fn create_match(
    db: &impl ConnectionTrait,
    a: i64,
    b: i64,
    now: i64,
) -> Result<Option<i64>, StorageError> {
    let inserted = pair_match::Entity::insert(pair_match::ActiveModel {
        low_id: Set(Ord::min(a, b)),
        high_id: Set(Ord::max(a, b)),
        created_at: Set(now),
        ended_at: Set(None),
        ended_by: Set(None),
        ..Default::default()
    })
    .exec(db)
    .await;
    match inserted {
        Ok(done) => Ok(Some(done.last_insert_id)),
        Err(err) if is_unique_violation(&err) => Ok(None),
        Err(err) => Err(anyhow::Error::new(err).context("creating a match").into()),
    }
}

/// The member's active matches, newest first, with the other member's id.
pub async fn active_matches(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<Vec<(pair_match::Model, i64)>, StorageError> {
    let rows = pair_match::Entity::find()
        .filter(pair_match::Column::EndedAt.is_null())
        .filter(
            Condition::any()
                .add(pair_match::Column::LowId.eq(member))
                .add(pair_match::Column::HighId.eq(member)),
        )
        .order_by_desc(pair_match::Column::CreatedAt)
        .order_by_desc(pair_match::Column::Id)
        .all(db)
        .await
        .context("reading matches")?;
    Ok(rows
        .into_iter()
        .map(|m| {
            let other = if m.low_id == member {
                m.high_id
            } else {
                m.low_id
            };
            (m, other)
        })
        .collect())
}

/// A match of the member by id (ended or not); None for other people's matches.
pub async fn match_of(
    db: &impl ConnectionTrait,
    member: i64,
    match_id: i64,
) -> Result<Option<pair_match::Model>, StorageError> {
    Ok(pair_match::Entity::find_by_id(match_id)
        .one(db)
        .await
        .context("reading a match")?
        .filter(|m| m.low_id == member || m.high_id == member))
}

/// Ends the pair's active match, if there is one.
pub async fn end_match(
    db: &impl ConnectionTrait,
    a: i64,
    b: i64,
    by: i64,
    now: i64,
) -> Result<(), StorageError> {
    pair_match::Entity::update_many()
        .col_expr(pair_match::Column::EndedAt, Expr::value(now))
        .col_expr(pair_match::Column::EndedBy, Expr::value(by))
        .filter(pair_match::Column::LowId.eq(Ord::min(a, b)))
        .filter(pair_match::Column::HighId.eq(Ord::max(a, b)))
        .filter(pair_match::Column::EndedAt.is_null())
        .exec(db)
        .await
        .context("ending a match")?;
    Ok(())
}

/// Ends every active match of a member (a suspension does this).
pub async fn end_all_matches(
    db: &impl ConnectionTrait,
    member: i64,
    now: i64,
) -> Result<u64, StorageError> {
    let done = pair_match::Entity::update_many()
        .col_expr(pair_match::Column::EndedAt, Expr::value(now))
        .col_expr(pair_match::Column::EndedBy, Expr::value(member))
        .filter(pair_match::Column::EndedAt.is_null())
        .filter(
            Condition::any()
                .add(pair_match::Column::LowId.eq(member))
                .add(pair_match::Column::HighId.eq(member)),
        )
        .exec(db)
        .await
        .context("ending matches")?;
    Ok(done.rows_affected)
}

/// `matches.ended_reason` of a match closed because nobody wrote.
pub const EXPIRED: &str = "EXPIRED";

/// A live match where nobody has written, made at or before the cut-off asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietMatch {
    pub id: i64,
    pub low_id: i64,
    pub high_id: i64,
    pub created_at: i64,
    pub reminded: bool,
}

/// Up to `limit` live matches made at or before `made_by` without any message, oldest first,
/// after the match `after` (a run pages through them by id).
pub async fn quiet_matches(
    db: &impl ConnectionTrait,
    made_by: i64,
    after: i64,
    limit: u64,
) -> Result<Vec<QuietMatch>, StorageError> {
    let stmt = super::statements::sql(
        db.get_database_backend(),
        "SELECT m.id, m.low_id, m.high_id, m.created_at, m.reminded_at FROM matches m \
         WHERE m.ended_at IS NULL AND m.created_at <= $1 AND m.id > $2 \
         AND NOT EXISTS (SELECT 1 FROM chat_messages c WHERE c.match_id = m.id) \
         ORDER BY m.id LIMIT $3",
        vec![made_by.into(), after.into(), (limit as i64).into()],
    );
    let rows = db
        .query_all_raw(stmt)
        .await
        .context("reading quiet matches")?;
    rows.into_iter()
        .map(|row| {
            Ok(QuietMatch {
                id: row.try_get("", "id").context("a match id")?,
                low_id: row.try_get("", "low_id").context("a match member")?,
                high_id: row.try_get("", "high_id").context("a match member")?,
                created_at: row.try_get("", "created_at").context("a match time")?,
                reminded: row
                    .try_get::<Option<i64>>("", "reminded_at")
                    .context("a reminder time")?
                    .is_some(),
            })
        })
        .collect()
}

/// Marks the live match reminded; true only for the one call that marked it (two processes
/// running the job at once: the second finds it marked, on PostgreSQL after waiting for the
/// first's commit).
pub async fn mark_reminded(
    db: &impl ConnectionTrait,
    match_id: i64,
    now: i64,
) -> Result<bool, StorageError> {
    let done = pair_match::Entity::update_many()
        .col_expr(pair_match::Column::RemindedAt, Expr::value(now))
        .filter(pair_match::Column::Id.eq(match_id))
        .filter(pair_match::Column::RemindedAt.is_null())
        .filter(pair_match::Column::EndedAt.is_null())
        .exec(db)
        .await
        .context("marking a match reminded")?;
    Ok(done.rows_affected == 1)
}

/// Ends the live match as expired (ended by nobody); true only for the one call that ended it.
pub async fn expire(
    db: &impl ConnectionTrait,
    match_id: i64,
    now: i64,
) -> Result<bool, StorageError> {
    let done = pair_match::Entity::update_many()
        .col_expr(pair_match::Column::EndedAt, Expr::value(now))
        .col_expr(pair_match::Column::EndedReason, Expr::value(EXPIRED))
        .filter(pair_match::Column::Id.eq(match_id))
        .filter(pair_match::Column::EndedAt.is_null())
        .exec(db)
        .await
        .context("expiring a match")?;
    Ok(done.rows_affected == 1)
}

/// Whether the match is live: made and not ended (false too once it went with an account).
pub async fn is_live(db: &impl ConnectionTrait, match_id: i64) -> Result<bool, StorageError> {
    Ok(pair_match::Entity::find_by_id(match_id)
        .filter(pair_match::Column::EndedAt.is_null())
        .one(db)
        .await
        .context("reading whether a match is live")?
        .is_some())
}

/// Whether any message was ever stored in the match.
pub async fn has_message(db: &impl ConnectionTrait, match_id: i64) -> Result<bool, StorageError> {
    let stmt = super::statements::sql(
        db.get_database_backend(),
        "SELECT 1 AS one FROM chat_messages WHERE match_id = $1 LIMIT 1",
        vec![match_id.into()],
    );
    Ok(db
        .query_one_raw(stmt)
        .await
        .context("reading whether a match has messages")?
        .is_some())
}

/// The member's matches that expired at or after `since`, newest first, with the other member.
pub async fn expired_matches(
    db: &impl ConnectionTrait,
    member: i64,
    since: i64,
) -> Result<Vec<(pair_match::Model, i64)>, StorageError> {
    let rows = pair_match::Entity::find()
        .filter(pair_match::Column::EndedReason.eq(EXPIRED))
        .filter(pair_match::Column::EndedAt.gte(since))
        .filter(
            Condition::any()
                .add(pair_match::Column::LowId.eq(member))
                .add(pair_match::Column::HighId.eq(member)),
        )
        .order_by_desc(pair_match::Column::EndedAt)
        .order_by_desc(pair_match::Column::Id)
        .all(db)
        .await
        .context("reading expired matches")?;
    Ok(rows
        .into_iter()
        .map(|m| {
            let other = if m.low_id == member {
                m.high_id
            } else {
                m.low_id
            };
            (m, other)
        })
        .collect())
}
