//! The `sessions` table's writes outside a request's own lookup: ending sessions (sign out, sign
//! out everywhere, a suspension) and forgetting the dead ones.

use anyhow::Context;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, sea_query::Expr};

use super::{StorageError, entity::session};

/// How long an ended (expired or revoked) session row is kept before it is forgotten.
pub const KEEP_ENDED_SECS: i64 = 24 * 3600;

/// Revokes the session with this token hash (a second revocation changes nothing).
pub async fn revoke(
    db: &impl ConnectionTrait,
    token_hash: &str,
    now: i64,
) -> Result<(), StorageError> {
    session::Entity::update_many()
        .col_expr(session::Column::RevokedAt, Expr::value(now))
        .filter(session::Column::TokenHash.eq(token_hash))
        .filter(session::Column::RevokedAt.is_null())
        .exec(db)
        .await
        .context("revoking a session")?;
    Ok(())
}

/// Revokes every live session of a user; answers how many.
pub async fn revoke_all(
    db: &impl ConnectionTrait,
    user_id: i64,
    now: i64,
) -> Result<u64, StorageError> {
    let done = session::Entity::update_many()
        .col_expr(session::Column::RevokedAt, Expr::value(now))
        .filter(session::Column::UserId.eq(user_id))
        .filter(session::Column::RevokedAt.is_null())
        .exec(db)
        .await
        .context("revoking a user's sessions")?;
    Ok(done.rows_affected)
}

/// Forgets sessions that expired or were revoked more than [`KEEP_ENDED_SECS`] ago.
pub async fn sweep(db: &impl ConnectionTrait, now: i64) -> Result<u64, StorageError> {
    let before = now - KEEP_ENDED_SECS;
    let done = session::Entity::delete_many()
        .filter(
            Condition::any()
                .add(session::Column::ExpiresAt.lt(before))
                .add(session::Column::RevokedAt.lt(before)),
        )
        .exec(db)
        .await
        .context("forgetting ended sessions")?;
    Ok(done.rows_affected)
}
