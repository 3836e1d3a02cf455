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
