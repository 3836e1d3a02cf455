//! A member as matchmaking reads them: their profile row by profile id, their activity and their
//! push settings on `users`.

use anyhow::Context;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
    sea_query::{Alias, Expr, ExprTrait, Query},
};

use super::{
    StorageError,
    entity::{profile, user},
};

/// A member's profile row, if the id names one.
pub async fn member(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<profile::Model>, StorageError> {
    Ok(profile::Entity::find_by_id(profile_id)
        .one(db)
        .await
        .context("reading a member")?)
}

/// Records that the member used the app (at most one write an hour).
pub async fn touch_active(
    db: &impl ConnectionTrait,
    user_id: i64,
    now: i64,
) -> Result<(), StorageError> {
    let stmt = Query::update()
        .table(user::Entity)
        .value(Alias::new("last_active_at"), now)
        .and_where(Expr::col(user::Column::Id).eq(user_id))
        .and_where(
            Expr::col(Alias::new("last_active_at"))
                .is_null()
                .or(Expr::col(Alias::new("last_active_at")).lt(now - 3600)),
        )
        .to_owned();
    db.execute(&stmt).await.context("recording activity")?;
    Ok(())
}

/// A kind of LINE push a member may switch off, and its column on `users`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushKind {
    /// The morning "N new introductions today".
    Introductions,
    /// "You have a new match".
    Matches,
    /// "New message from …" while the member is away from the chat.
    Messages,
}

impl PushKind {
    fn column(self) -> &'static str {
        match self {
            PushKind::Introductions => "introduction_push",
            PushKind::Matches => "match_push",
            PushKind::Messages => "message_push",
        }
    }
}

/// Whether the user wants pushes of `kind` (on unless they switched it off).
pub async fn push_wanted(
    db: &impl ConnectionTrait,
    user_id: i64,
    kind: PushKind,
) -> Result<bool, StorageError> {
    let stmt = Query::select()
        .column(Alias::new(kind.column()))
        .from(user::Entity)
        .and_where(Expr::col(user::Column::Id).eq(user_id))
        .to_owned();
    let row = db
        .query_one(&stmt)
        .await
        .context("reading a push setting")?;
    Ok(match row {
        Some(row) => row
            .try_get::<bool>("", kind.column())
            .context("decoding a push setting")?,
        None => true,
    })
}

/// Switches pushes of `kind` on or off.
pub async fn set_push_wanted(
    db: &impl ConnectionTrait,
    user_id: i64,
    kind: PushKind,
    on: bool,
) -> Result<(), StorageError> {
    let stmt = Query::update()
        .table(user::Entity)
        .value(Alias::new(kind.column()), on)
        .and_where(Expr::col(user::Column::Id).eq(user_id))
        .to_owned();
    db.execute(&stmt).await.context("storing a push setting")?;
    Ok(())
}

/// Holds both members' rows until the transaction ends, lower id first: two likes of the same
/// pair run one after the other, so the second sees the first and exactly one match is made.
pub async fn lock_pair(txn: &DatabaseTransaction, a: i64, b: i64) -> Result<(), StorageError> {
    profile::Entity::find()
        .filter(profile::Column::Id.is_in([a, b]))
        .order_by_asc(profile::Column::Id)
        .lock_exclusive()
        .all(txn)
        .await
        .context("locking two members")?;
    Ok(())
}
