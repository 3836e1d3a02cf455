//! Work e-mail one-time codes: a member asks for a code to be sent to a work address and types it
//! back, which proves they read that mailbox (the profile's COMPANY_EMAIL verification).
//!
//! Every rule (the code's format, how long it lives, the waits and the send limits, the lock after
//! wrong tries, how long a confirmation counts) is kizuna-core's `email_code` and `rules`
//! `EMAIL_CODE_*`; this module reads and writes the rows the rules decide on.
//! - The code: drawn from the OS CSPRNG; stored as SHA-256(16-byte random salt ‖ code), never in
//!   clear (nor logged). A slow hash would add nothing: the space is 10^6 either way; what protects
//!   the code is its short life and the lock after the wrong tries.
//! - Only the newest code sent to an address for a member counts (a new code replaces the old one).
//! - [`email_confirmed`] is what profile creation and resubmission check.
//!
//! Checks and the new row are written under the member's row lock (`begin_user_write`) and, on
//! PostgreSQL, a transaction lock on the address (SQLite runs one writer at a time already), so
//! neither one member's parallel requests nor many members racing for one address slip past a
//! limit: the address's count of members is exact when a repeat send is judged.

use anyhow::Context;
use kizuna_core::{
    email::EmailAddress,
    email_code::{CodeCheck, CodeRules, EmailCode, IssuedCode, SendHistory, SendRefusal},
    rules::{EMAIL_CODE_CONFIRMATION_VALID_SECS, EMAIL_CODE_DIGITS, EMAIL_CODE_RETENTION_SECS},
};
use rand::{Rng, RngCore, rngs::OsRng};
use sea_orm::{
    ActiveValue::Set,
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect,
    sea_query::{Expr, Func},
};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::storage::{begin_user_write, entity::email_code};

/// A code to mail. `code` goes into the mail and nowhere else.
pub struct Issued {
    pub id: i64,
    pub code: String,
    pub expires_at: i64,
}

impl std::fmt::Debug for Issued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issued")
            .field("id", &self.id)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    #[error("a code was sent to this address less than {limit} seconds ago")]
    TooSoon { retry_after: i64, limit: i64 },
    #[error("at most {limit} codes a day can be sent for one member")]
    MemberDailyCap { retry_after: i64, limit: u32 },
    #[error(
        "{limit} other members asked for codes to this address today: only a first code can be \
         sent to it"
    )]
    AddressDailyCap { retry_after: i64, limit: u32 },
    #[error(transparent)]
    Storage(#[from] anyhow::Error),
}

impl IssueError {
    fn refused(refusal: SendRefusal, rules: &CodeRules) -> IssueError {
        let retry_after = refusal.retry_after_secs();
        match refusal {
            SendRefusal::TooSoon { .. } => IssueError::TooSoon {
                retry_after,
                limit: rules.resend_wait_secs,
            },
            SendRefusal::MemberLimit { .. } => IssueError::MemberDailyCap {
                retry_after,
                limit: rules.sends_per_window,
            },
            SendRefusal::AddressLimit { .. } => IssueError::AddressDailyCap {
                retry_after,
                limit: rules.sends_per_window,
            },
        }
    }

    /// Seconds until a send can succeed, for a refusal (None for a storage failure).
    pub fn retry_after(&self) -> Option<i64> {
        match self {
            IssueError::TooSoon { retry_after, .. }
            | IssueError::MemberDailyCap { retry_after, .. }
            | IssueError::AddressDailyCap { retry_after, .. } => Some(*retry_after),
            IssueError::Storage(_) => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfirmError {
    #[error("a code has 6 digits")]
    Malformed,
    #[error("no code was sent to this address")]
    NotSent,
    #[error("the code is wrong")]
    Mismatch { tries_left: i32 },
    #[error("too many wrong codes: ask for a new code")]
    Locked,
    #[error("the code has expired: ask for a new code")]
    Expired,
    #[error("this code was already used")]
    Used,
    #[error(transparent)]
    Storage(#[from] anyhow::Error),
}

impl ConfirmError {
    /// The rule code the API reports for the `code` field.
    pub fn rule(&self) -> &'static str {
        match self {
            ConfirmError::Malformed => "invalid",
            ConfirmError::NotSent => "not_sent",
            ConfirmError::Mismatch { .. } => "mismatch",
            ConfirmError::Locked => "locked",
            ConfirmError::Expired => "expired",
            ConfirmError::Used => "used",
            ConfirmError::Storage(_) => "internal",
        }
    }
}

fn hash(salt: &[u8], code: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(salt);
    hasher.update(code.as_bytes());
    hasher.finalize().into()
}

/// A fresh code, uniformly from the OS CSPRNG.
fn new_code() -> EmailCode {
    let n: u32 = OsRng.gen_range(0..10u32.pow(EMAIL_CODE_DIGITS as u32));
    EmailCode::from_number(n).expect("a number below 10^digits has that many digits")
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
async fn lock_address(conn: &impl ConnectionTrait, email: &EmailAddress) -> anyhow::Result<()> {
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

/// Checks the limits and stores a new code for (member, address); the caller mails it, and
/// calls [`withdraw`] if the mail cannot be sent.
pub async fn issue(
    db: &DatabaseConnection,
    user_id: i64,
    email: &EmailAddress,
    now: i64,
    rules: &CodeRules,
) -> Result<Issued, IssueError> {
    let txn = begin_user_write(db, user_id).await?;
    lock_address(&txn, email).await?;
    let last_here = email_code::Entity::find()
        .filter(email_code::Column::UserId.eq(user_id))
        .filter(email_code::Column::Email.eq(email.as_str()))
        .order_by_desc(email_code::Column::CreatedAt)
        .one(&txn)
        .await
        .context("reading the last code")?;
    let since = rules.window_start(now);
    let (member_sends, member_oldest) =
        sends_since(&txn, email_code::Column::UserId, user_id.into(), since).await?;
    let (address_members, address_oldest) =
        other_members_since(&txn, email, user_id, since).await?;
    let history = SendHistory {
        last_sent_here: last_here.map(|row| row.created_at),
        member_sends: u32::try_from(member_sends).unwrap_or(u32::MAX),
        member_oldest,
        address_members: u32::try_from(address_members).unwrap_or(u32::MAX),
        address_oldest,
    };
    rules
        .may_send(history, now)
        .map_err(|refusal| IssueError::refused(refusal, rules))?;
    let code = new_code();
    let mut salt = [0u8; 16];
    OsRng.fill_bytes(&mut salt);
    let expires_at = rules.expires_at(now);
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
    .exec(&txn)
    .await
    .context("storing a code")?;
    txn.commit().await.context("committing a code")?;
    Ok(Issued {
        id: inserted.last_insert_id,
        code: code.as_str().to_string(),
        expires_at,
    })
}

/// Removes a code whose mail could not be sent (it then does not count against the limits).
pub async fn withdraw(db: &impl ConnectionTrait, id: i64) -> anyhow::Result<()> {
    email_code::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("withdrawing a code")?;
    Ok(())
}

/// Checks a typed code against the newest code sent to (member, address). A wrong code counts
/// a try; the correct one confirms the address (once).
pub async fn confirm(
    db: &DatabaseConnection,
    user_id: i64,
    email: &EmailAddress,
    code: &str,
    now: i64,
    rules: &CodeRules,
) -> Result<i64, ConfirmError> {
    let code = EmailCode::parse(code).ok_or(ConfirmError::Malformed)?;
    let txn = begin_user_write(db, user_id).await?;
    let row = email_code::Entity::find()
        .filter(email_code::Column::UserId.eq(user_id))
        .filter(email_code::Column::Email.eq(email.as_str()))
        .order_by_desc(email_code::Column::Id)
        .one(&txn)
        .await
        .context("reading the last code")?
        .ok_or(ConfirmError::NotSent)?;
    let salt = hex::decode(&row.salt).context("decoding a stored salt")?;
    let stored = hex::decode(&row.code_hash).context("decoding a stored code hash")?;
    let matched: bool = hash(&salt, code.as_str()).ct_eq(stored.as_slice()).into();
    let issued = IssuedCode {
        expires_at: row.expires_at,
        wrong_tries: u32::try_from(row.wrong_tries).unwrap_or(0),
        used: row.confirmed_at.is_some(),
    };
    let tries_left = match rules.check(issued, matched, now) {
        CodeCheck::Used => return Err(ConfirmError::Used),
        CodeCheck::Locked => return Err(ConfirmError::Locked),
        CodeCheck::Expired => return Err(ConfirmError::Expired),
        CodeCheck::Accepted => {
            email_code::Entity::update_many()
                .col_expr(email_code::Column::ConfirmedAt, Expr::value(now))
                .filter(email_code::Column::Id.eq(row.id))
                .exec(&txn)
                .await
                .context("confirming a code")?;
            txn.commit().await.context("committing a confirmation")?;
            return Ok(now);
        }
        CodeCheck::Wrong { tries_left } => tries_left,
    };
    let wrong_tries = row.wrong_tries + 1;
    email_code::Entity::update_many()
        .col_expr(email_code::Column::WrongTries, Expr::value(wrong_tries))
        .filter(email_code::Column::Id.eq(row.id))
        .exec(&txn)
        .await
        .context("counting a wrong code")?;
    txn.commit().await.context("committing a wrong try")?;
    Err(ConfirmError::Mismatch {
        tries_left: i32::try_from(tries_left).unwrap_or(0),
    })
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
    fn codes_are_six_digits_and_vary() {
        let codes: std::collections::HashSet<String> =
            (0..50).map(|_| new_code().as_str().to_string()).collect();
        assert!(
            codes
                .iter()
                .all(|c| c.len() == 6 && c.bytes().all(|b| b.is_ascii_digit()))
        );
        assert!(codes.len() > 40, "{codes:?}");
    }

    #[test]
    fn the_hash_depends_on_salt_and_code() {
        assert_eq!(hash(b"salt", "123456"), hash(b"salt", "123456"));
        assert_ne!(hash(b"salt", "123456"), hash(b"pepper", "123456"));
        assert_ne!(hash(b"salt", "123456"), hash(b"salt", "123457"));
    }
}
