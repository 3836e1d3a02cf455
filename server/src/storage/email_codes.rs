//! The rows of work e-mail one-time codes: a member asks for a code to be sent to a work address
//! and types it back, which proves they read that mailbox (the profile's COMPANY_EMAIL
//! verification).
//!
//! The rules (the code's format, how long it lives, the waits and the send limits, the lock after
//! wrong tries, how long a confirmation counts) are kizuna-core's `email_code` and `rules`
//! `EMAIL_CODE_*`, applied by `usecases::verification`; this module reads the facts they decide
//! on and writes what they decided.
//! - The code is stored as SHA-256(16-byte random salt ‖ code), never in clear (nor logged). A
//!   slow hash would add nothing: the space is 10^6 either way; what protects the code is its
//!   short life and the lock after the wrong tries.
//! - [`email_confirmed`] is what profile creation and resubmission check.
//!
//! The use-case writes under the member's row lock (`begin_user_write`) and, on PostgreSQL, a
//! transaction lock on the address ([`lock_address`]; SQLite runs one writer at a time already),
//! so neither one member's parallel requests nor many members racing for one address slip past a
//! limit: the address's count of members is exact when a repeat send is judged.

use anyhow::Context;
use kizuna_core::{
    email::EmailAddress,
    email_code::{EmailCode, IssuedCode, SendHistory},
    rules::{EMAIL_CODE_CONFIRMATION_VALID_SECS, EMAIL_CODE_RETENTION_SECS},
};
use rand::{RngCore, rngs::OsRng};
use sea_orm::{
    ActiveValue::Set,
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
    sea_query::{Expr, Func},
};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::storage::entity::email_code;

fn hash(salt: &[u8], code: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(salt);
    hasher.update(code.as_bytes());
    hasher.finalize().into()
}

async fn sends_since(
    conn: &impl ConnectionTrait,
    column: email_code::Column,
    value: sea_orm::Value,
    since: i64,
) -> anyhow::Result<(u64, Option<i64>)> {
    let filter = || {
        email_code::Entity::find()
            .filter(column.eq(value.clone()))
            .filter(email_code::Column::CreatedAt.gt(since))
    };
    let count = filter().count(conn).await.context("counting sent codes")?;
    let oldest: Option<Option<i64>> = filter()
        .select_only()
        .expr(Func::min(Expr::col(email_code::Column::CreatedAt)))
        .into_tuple()
        .one(conn)
        .await
        .context("finding the oldest sent code")?;
    Ok((count, oldest.flatten()))
}

/// The members other than `user_id` sent a code for `email` after `since` (each once), and the
/// oldest of their sends.
async fn other_members_since(
    conn: &impl ConnectionTrait,
    email: &EmailAddress,
    user_id: i64,
    since: i64,
) -> anyhow::Result<(u64, Option<i64>)> {
    let sends: Vec<(i64, i64)> = email_code::Entity::find()
        .select_only()
        .column(email_code::Column::UserId)
        .column(email_code::Column::CreatedAt)
        .filter(email_code::Column::Email.eq(email.as_str()))
        .filter(email_code::Column::UserId.ne(user_id))
        .filter(email_code::Column::CreatedAt.gt(since))
        .into_tuple()
        .all(conn)
        .await
        .context("reading the members sent codes for an address")?;
    let members: std::collections::HashSet<i64> = sends.iter().map(|(user, _)| *user).collect();
    let oldest = sends.iter().map(|(_, at)| *at).min();
    Ok((members.len() as u64, oldest))
}

/// Serialises the sends for one address on PostgreSQL until the transaction ends (SQLite's
/// `BEGIN IMMEDIATE` already runs one writer at a time).
pub async fn lock_address(conn: &impl ConnectionTrait, email: &EmailAddress) -> anyhow::Result<()> {
    if conn.get_database_backend() != sea_orm::DbBackend::Postgres {
        return Ok(());
    }
    conn.execute_raw(sea_orm::Statement::from_sql_and_values(
        sea_orm::DbBackend::Postgres,
        "SELECT pg_advisory_xact_lock(hashtextextended('email-code-address:' || $1, 0))",
        [email.as_str().into()],
    ))
    .await
    .context("locking the address")?;
    Ok(())
}

/// What the send limits decide on for a new code to `email` for `user_id`: the last code sent to
/// (member, address), and the sends after `since` by the member and by other members to the
/// address.
pub async fn send_history(
    conn: &impl ConnectionTrait,
    user_id: i64,
    email: &EmailAddress,
    since: i64,
) -> anyhow::Result<SendHistory> {
    let last_here = email_code::Entity::find()
        .filter(email_code::Column::UserId.eq(user_id))
        .filter(email_code::Column::Email.eq(email.as_str()))
        .order_by_desc(email_code::Column::CreatedAt)
        .one(conn)
        .await
        .context("reading the last code")?;
    let (member_sends, member_oldest) =
        sends_since(conn, email_code::Column::UserId, user_id.into(), since).await?;
    let (address_members, address_oldest) =
        other_members_since(conn, email, user_id, since).await?;
    Ok(SendHistory {
        last_sent_here: last_here.map(|row| row.created_at),
        member_sends: u32::try_from(member_sends).unwrap_or(u32::MAX),
        member_oldest,
        address_members: u32::try_from(address_members).unwrap_or(u32::MAX),
        address_oldest,
    })
}

/// Stores a new code for (member, address) under a fresh salt; answers its row id.
pub async fn insert(
    conn: &impl ConnectionTrait,
    user_id: i64,
    email: &EmailAddress,
    code: &EmailCode,
    now: i64,
    expires_at: i64,
) -> anyhow::Result<i64> {
    let mut salt = [0u8; 16];
    OsRng.fill_bytes(&mut salt);
    let inserted = email_code::Entity::insert(email_code::ActiveModel {
        user_id: Set(user_id),
        email: Set(email.as_str().to_string()),
        salt: Set(hex::encode(salt)),
        code_hash: Set(hex::encode(hash(&salt, code.as_str()))),
        wrong_tries: Set(0),
        created_at: Set(now),
        expires_at: Set(expires_at),
        confirmed_at: Set(None),
        ..Default::default()
    })
    .exec(conn)
    .await
    .context("storing a code")?;
    Ok(inserted.last_insert_id)
}

/// Removes a code whose mail could not be sent (it then does not count against the limits).
pub async fn withdraw(db: &impl ConnectionTrait, id: i64) -> anyhow::Result<()> {
    email_code::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("withdrawing a code")?;
    Ok(())
}

/// The newest code sent to (member, address), as the rules see it, and whether `typed` is it.
pub struct Newest {
    pub id: i64,
    pub issued: IssuedCode,
    pub wrong_tries: i32,
    pub matched: bool,
}

/// The newest code sent to (member, address), compared with `typed` in constant time.
pub async fn newest(
    conn: &impl ConnectionTrait,
    user_id: i64,
    email: &EmailAddress,
    typed: &EmailCode,
) -> anyhow::Result<Option<Newest>> {
    let Some(row) = email_code::Entity::find()
        .filter(email_code::Column::UserId.eq(user_id))
        .filter(email_code::Column::Email.eq(email.as_str()))
        .order_by_desc(email_code::Column::Id)
        .one(conn)
        .await
        .context("reading the last code")?
    else {
        return Ok(None);
    };
    let salt = hex::decode(&row.salt).context("decoding a stored salt")?;
    let stored = hex::decode(&row.code_hash).context("decoding a stored code hash")?;
    let matched: bool = hash(&salt, typed.as_str()).ct_eq(stored.as_slice()).into();
    Ok(Some(Newest {
        id: row.id,
        issued: IssuedCode {
            expires_at: row.expires_at,
            wrong_tries: u32::try_from(row.wrong_tries).unwrap_or(0),
            used: row.confirmed_at.is_some(),
        },
        wrong_tries: row.wrong_tries,
        matched,
    }))
}

/// Marks the code as having confirmed its address at `now`.
pub async fn mark_confirmed(conn: &impl ConnectionTrait, id: i64, now: i64) -> anyhow::Result<()> {
    email_code::Entity::update_many()
        .col_expr(email_code::Column::ConfirmedAt, Expr::value(now))
        .filter(email_code::Column::Id.eq(id))
        .exec(conn)
        .await
        .context("confirming a code")?;
    Ok(())
}

/// Records the code's count of wrong tries.
pub async fn set_wrong_tries(
    conn: &impl ConnectionTrait,
    id: i64,
    wrong_tries: i32,
) -> anyhow::Result<()> {
    email_code::Entity::update_many()
        .col_expr(email_code::Column::WrongTries, Expr::value(wrong_tries))
        .filter(email_code::Column::Id.eq(id))
        .exec(conn)
        .await
        .context("counting a wrong code")?;
    Ok(())
}

/// When the member last confirmed this address, if within `EMAIL_CODE_CONFIRMATION_VALID_SECS`
/// of `now`.
pub async fn email_confirmed_at(
    db: &impl ConnectionTrait,
    user_id: i64,
    email: &str,
    now: i64,
) -> anyhow::Result<Option<i64>> {
    let Some(email) = EmailAddress::parse(email) else {
        return Ok(None);
    };
    let confirmed: Option<Option<i64>> = email_code::Entity::find()
        .select_only()
        .expr(Func::max(Expr::col(email_code::Column::ConfirmedAt)))
        .filter(email_code::Column::UserId.eq(user_id))
        .filter(email_code::Column::Email.eq(email.as_str()))
        .filter(email_code::Column::ConfirmedAt.gte(now - EMAIL_CODE_CONFIRMATION_VALID_SECS))
        .into_tuple()
        .one(db)
        .await
        .context("looking up an e-mail confirmation")?;
    Ok(confirmed.flatten())
}

/// Whether the member confirmed this work address (by its code) within the last 24 hours: what
/// profile creation and resubmission require for COMPANY_EMAIL.
pub async fn email_confirmed(
    db: &impl ConnectionTrait,
    user_id: i64,
    email: &str,
    now: i64,
) -> anyhow::Result<bool> {
    Ok(email_confirmed_at(db, user_id, email, now).await?.is_some())
}

/// Deletes codes older than the retention.
pub async fn sweep(db: &impl ConnectionTrait, now: i64) -> anyhow::Result<u64> {
    let result = email_code::Entity::delete_many()
        .filter(email_code::Column::CreatedAt.lt(now - EMAIL_CODE_RETENTION_SECS))
        .exec(db)
        .await
        .context("deleting old e-mail codes")?;
    Ok(result.rows_affected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_depends_on_salt_and_code() {
        assert_eq!(hash(b"salt", "123456"), hash(b"salt", "123456"));
        assert_ne!(hash(b"salt", "123456"), hash(b"pepper", "123456"));
        assert_ne!(hash(b"salt", "123456"), hash(b"salt", "123457"));
    }
}
