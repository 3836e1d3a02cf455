//! Likes and passes (`reactions`), with a like's comment.

use std::collections::HashMap;

use anyhow::Context;
use kizuna_core::{
    date::Date,
    like::{LikeComment, LikedPart},
};
use sea_orm::{
    ActiveValue::Set,
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    sea_query::{Expr, ExprTrait, OnConflict, Query},
};

use super::{
    StorageError,
    entity::{introduction, reaction},
    statements::day_number,
};

/// The viewer's reaction on a target, if any.
pub async fn reaction_of(
    db: &impl ConnectionTrait,
    viewer: i64,
    target: i64,
) -> Result<Option<reaction::Model>, StorageError> {
    Ok(reaction::Entity::find_by_id((viewer, target))
        .one(db)
        .await
        .context("reading a reaction")?)
}

/// The viewer's reactions on each of `targets` that has one (one statement).
pub async fn reactions_on(
    db: &impl ConnectionTrait,
    viewer: i64,
    targets: &[i64],
) -> Result<HashMap<i64, reaction::Model>, StorageError> {
    if targets.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(reaction::Entity::find()
        .filter(reaction::Column::ViewerId.eq(viewer))
        .filter(reaction::Column::TargetId.is_in(targets.iter().copied()))
        .all(db)
        .await
        .context("reading reactions")?
        .into_iter()
        .map(|r| (r.target_id, r))
        .collect())
}

/// Writes the viewer's reaction (replacing an older one), with a like's comment.
pub async fn set_reaction(
    db: &impl ConnectionTrait,
    viewer: i64,
    target: i64,
    kind: &str,
    comment: Option<&LikeComment>,
    day: Date,
    now: i64,
) -> Result<(), StorageError> {
    let (photo, answer) = match comment.map(LikeComment::on) {
        Some(LikedPart::Photo(name)) => (Some(name.to_string()), None),
        Some(LikedPart::Answer(answer)) => (None, Some(answer.as_str().to_string())),
        None => (None, None),
    };
    reaction::Entity::insert(reaction::ActiveModel {
        viewer_id: Set(viewer),
        target_id: Set(target),
        kind: Set(kind.to_string()),
        day: Set(day_number(day)),
        created_at: Set(now),
        comment: Set(comment.map(|c| c.text().to_string())),
        comment_photo: Set(photo),
        comment_answer: Set(answer),
    })
    .on_conflict(
        OnConflict::columns([reaction::Column::ViewerId, reaction::Column::TargetId])
            .update_columns([
                reaction::Column::Kind,
                reaction::Column::Day,
                reaction::Column::CreatedAt,
                reaction::Column::Comment,
                reaction::Column::CommentPhoto,
                reaction::Column::CommentAnswer,
            ])
            .to_owned(),
    )
    .exec(db)
    .await
    .context("writing a reaction")?;
    Ok(())
}

/// Takes back the viewer's pass on a target (their like, if any, stays).
pub async fn delete_pass(
    db: &impl ConnectionTrait,
    viewer: i64,
    target: i64,
) -> Result<(), StorageError> {
    reaction::Entity::delete_many()
        .filter(reaction::Column::ViewerId.eq(viewer))
        .filter(reaction::Column::TargetId.eq(target))
        .filter(reaction::Column::Kind.eq(reaction::PASS))
        .exec(db)
        .await
        .context("taking back a pass")?;
    Ok(())
}

/// The likes each of `likers` gave `viewer`, by liker (one statement).
pub async fn likes_from(
    db: &impl ConnectionTrait,
    viewer: i64,
    likers: &[i64],
) -> Result<HashMap<i64, reaction::Model>, StorageError> {
    if likers.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(reaction::Entity::find()
        .filter(reaction::Column::TargetId.eq(viewer))
        .filter(reaction::Column::ViewerId.is_in(likers.iter().copied()))
        .filter(reaction::Column::Kind.eq(reaction::LIKE))
        .all(db)
        .await
        .context("reading likes of a member")?
        .into_iter()
        .map(|r| (r.viewer_id, r))
        .collect())
}

/// The viewer's newest `limit` likes, newest first.
pub async fn likes_sent(
    db: &impl ConnectionTrait,
    viewer: i64,
    limit: u64,
) -> Result<Vec<reaction::Model>, StorageError> {
    Ok(reaction::Entity::find()
        .filter(reaction::Column::ViewerId.eq(viewer))
        .filter(reaction::Column::Kind.eq(reaction::LIKE))
        .order_by_desc(reaction::Column::CreatedAt)
        .order_by_desc(reaction::Column::TargetId)
        .limit(limit)
        .all(db)
        .await
        .context("reading likes sent")?)
}

/// The newest `limit` likes the viewer received from members who were in one of the viewer's
/// own daily lists, newest first (who may be shown is the caller's to decide).
pub async fn likes_received(
    db: &impl ConnectionTrait,
    viewer: i64,
    limit: u64,
) -> Result<Vec<reaction::Model>, StorageError> {
    let introduced = Query::select()
        .expr(Expr::value(1))
        .from(introduction::Entity)
        .and_where(Expr::col((introduction::Entity, introduction::Column::ViewerId)).eq(viewer))
        .and_where(
            Expr::col((introduction::Entity, introduction::Column::TargetId))
                .equals((reaction::Entity, reaction::Column::ViewerId)),
        )
        .to_owned();
    Ok(reaction::Entity::find()
        .filter(reaction::Column::TargetId.eq(viewer))
        .filter(reaction::Column::Kind.eq(reaction::LIKE))
        .filter(Expr::exists(introduced))
        .order_by_desc(reaction::Column::CreatedAt)
        .order_by_desc(reaction::Column::ViewerId)
        .limit(limit)
        .all(db)
        .await
        .context("reading likes received")?)
}
