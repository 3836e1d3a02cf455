//! Users: one row per LINE user who ever logged in.

use anyhow::Context;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, sea_query::Expr,
};

use super::{StorageError, entity::user, is_unique_violation};

/// The longest display name kept (LINE's own limit is lower; this only bounds what a forged
/// profile could make us store).
const MAX_DISPLAY_NAME_CHARS: usize = 200;

/// A user row by its id.
pub async fn find(db: &impl ConnectionTrait, id: i64) -> Result<Option<user::Model>, StorageError> {
    Ok(user::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a user")?)
}

/// The user row of a LINE user, if they ever logged in.
pub async fn find_by_line_id(
    db: &impl ConnectionTrait,
    line_user_id: &str,
) -> Result<Option<user::Model>, StorageError> {
    Ok(user::Entity::find()
        .filter(user::Column::LineUserId.eq(line_user_id))
        .one(db)
        .await
        .context("looking up a user")?)
}

/// The user row of a LINE user, created on first sight. Two first logins at once both end with the
/// one row: the loser of the insert race reads the winner's.
pub async fn find_or_create(
    db: &impl ConnectionTrait,
    line_user_id: &str,
    display_name: Option<&str>,
    now: i64,
) -> Result<user::Model, StorageError> {
    if let Some(found) = find_by_line_id(db, line_user_id).await? {
        return Ok(found);
    }
    let inserted = user::Entity::insert(user::ActiveModel {
        line_user_id: Set(line_user_id.to_string()),
        display_name: Set(display_name.map(|n| n.chars().take(MAX_DISPLAY_NAME_CHARS).collect())),
        avatar_file_id: Set(None),
        created_at: Set(now),
        ..Default::default()
    })
    .exec(db)
    .await;
    match inserted {
        Ok(_) => {}
        Err(err) if is_unique_violation(&err) => {}
        Err(err) => return Err(anyhow::Error::new(err).context("creating a user").into()),
    }
    find_by_line_id(db, line_user_id)
        .await?
        .ok_or_else(|| StorageError::Db(anyhow::anyhow!("the new user vanished")))
}

/// The file the user's avatar is now, if any.
pub async fn avatar(
    db: &impl ConnectionTrait,
    user_id: i64,
) -> Result<Option<String>, StorageError> {
    Ok(user::Entity::find_by_id(user_id)
        .one(db)
        .await
        .context("looking up the avatar")?
        .and_then(|u| u.avatar_file_id))
}

/// Points the user's avatar at a file (the caller has checked that the file is theirs).
pub async fn set_avatar(
    db: &impl ConnectionTrait,
    user_id: i64,
    file_id: &str,
) -> Result<(), StorageError> {
    user::Entity::update_many()
        .col_expr(user::Column::AvatarFileId, Expr::value(file_id))
        .filter(user::Column::Id.eq(user_id))
        .exec(db)
        .await
        .context("setting the avatar")?;
    Ok(())
}
