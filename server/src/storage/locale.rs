//! `users.locale`: the member's language for pushes and e-mails.
//!
//! The column is read and written here by name rather than through `entity::user`, so that the
//! session hot path (which builds `user::Model` from its own SQL) is untouched by it.

use anyhow::Context;
use sea_orm::{
    ConnectionTrait,
    sea_query::{Alias, Expr, ExprTrait, Query},
};

use crate::{locale::Locale, storage::entity::user};

fn locale_column() -> Alias {
    Alias::new("locale")
}

/// Stores a member's language (login does this from its `Accept-Language`).
pub async fn set_locale(
    db: &impl ConnectionTrait,
    user_id: i64,
    locale: Locale,
) -> anyhow::Result<()> {
    let stmt = Query::update()
        .table(user::Entity)
        .value(locale_column(), locale.tag())
        .and_where(Expr::col(user::Column::Id).eq(user_id))
        .to_owned();
    db.execute(&stmt).await.context("storing a user's locale")?;
    Ok(())
}

async fn stored(
    db: &impl ConnectionTrait,
    column: user::Column,
    value: sea_orm::Value,
) -> anyhow::Result<Locale> {
    let stmt = Query::select()
        .column(locale_column())
        .from(user::Entity)
        .and_where(Expr::col(column).eq(value))
        .to_owned();
    let row = db
        .query_one(&stmt)
        .await
        .context("reading a user's locale")?;
    let tag = match row {
        Some(row) => row
            .try_get::<Option<String>>("", "locale")
            .context("decoding a user's locale")?,
        None => None,
    };
    Ok(tag
        .as_deref()
        .and_then(Locale::from_tag)
        .unwrap_or(Locale::fallback()))
}

/// The member's language, `Locale::fallback()` when none is stored.
pub async fn locale_of_user(db: &impl ConnectionTrait, user_id: i64) -> anyhow::Result<Locale> {
    stored(db, user::Column::Id, user_id.into()).await
}

/// The language of a LINE user who logged in at least once; `Locale::fallback()` otherwise.
pub async fn locale_of_line_user(
    db: &impl ConnectionTrait,
    line_user_id: &str,
) -> anyhow::Result<Locale> {
    stored(db, user::Column::LineUserId, line_user_id.into()).await
}
