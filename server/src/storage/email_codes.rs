//! Work e-mail one-time codes: a member asks for a code to be sent to a work address and types it
//! back, which proves they read that mailbox (the profile's COMPANY_EMAIL verification).
//!
//! - The code: 6 digits from the OS CSPRNG; stored as SHA-256(16-byte random salt ‖ code), never
//!   in clear (nor logged). A slow hash would add nothing: the space is 10^6 either way; what
//!   protects the code is its short life and the lock after [`MAX_WRONG_TRIES`].
//! - Valid [`CODE_TTL_SECS`] (10 min), confirms once, and only the newest code sent to an
//!   address for a member counts (a new code replaces the old one).
//! - Sending is limited: the same address again after [`RESEND_AFTER_SECS`] (60 s); at most
//!   [`MAX_SENDS_PER_MEMBER_PER_DAY`] codes per member and [`MAX_SENDS_PER_ADDRESS_PER_DAY`] per
//!   address (whoever asks) in any 24 hours.
//! - [`email_confirmed`] is what profile creation and resubmission check: the member confirmed
//!   this address within [`CONFIRMATION_VALID_SECS`].
//!
//! Checks and the new row are written under the member's row lock (`begin_user_write`), so one
//! member's parallel requests cannot slip past a limit; two members racing for one address may
//! exceed that address's daily cap by one.

use anyhow::Context;
use kizuna_core::email::EmailAddress;
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

// The limits of issue 14. kizuna-core's rules.rs is getting its own EMAIL_CODE_* constants (in
// parallel); these are to be replaced by them when the branches meet, and must stay the only
// place the server defines them.
/// Digits of a code.
pub const CODE_DIGITS: usize = 6;
/// How long a code is valid.
pub const CODE_TTL_SECS: i64 = 10 * 60;
/// Wrong tries that lock a code (a new one is needed).
pub const MAX_WRONG_TRIES: i32 = 5;
/// The wait before the same address can be sent another code by the same member.
pub const RESEND_AFTER_SECS: i64 = 60;
/// Codes one member may have sent in any 24 hours (all addresses).
pub const MAX_SENDS_PER_MEMBER_PER_DAY: u64 = 5;
/// Codes one address may be sent in any 24 hours (all members).
pub const MAX_SENDS_PER_ADDRESS_PER_DAY: u64 = 5;
/// How long a confirmation counts for a profile submission.
pub const CONFIRMATION_VALID_SECS: i64 = 24 * 3600;
/// Rows older than this are deleted by the periodic cleanup.
pub const RETENTION_SECS: i64 = 30 * 24 * 3600;

const DAY_SECS: i64 = 24 * 3600;

/// The limits in force: [`Default`] is the constants above; tests shorten the times.
#[derive(Clone, Debug)]
pub struct EmailCodeRules {
    pub ttl_secs: i64,
    pub resend_after_secs: i64,
    pub max_wrong_tries: i32,
    pub per_member_per_day: u64,
    pub per_address_per_day: u64,
}

impl Default for EmailCodeRules {
    fn default() -> Self {
        EmailCodeRules {
            ttl_secs: CODE_TTL_SECS,
            resend_after_secs: RESEND_AFTER_SECS,
            max_wrong_tries: MAX_WRONG_TRIES,
            per_member_per_day: MAX_SENDS_PER_MEMBER_PER_DAY,
            per_address_per_day: MAX_SENDS_PER_ADDRESS_PER_DAY,
        }
    }
}

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
    MemberDailyCap { retry_after: i64, limit: u64 },
    #[error("at most {limit} codes a day can be sent to one address")]
    AddressDailyCap { retry_after: i64, limit: u64 },
    #[error(transparent)]
    Storage(#[from] anyhow::Error),
}

impl IssueError {
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

/// A fresh code: `CODE_DIGITS` digits, uniformly from the OS CSPRNG.
fn new_code() -> String {
    let n: u32 = OsRng.gen_range(0..10u32.pow(CODE_DIGITS as u32));
    format!("{n:0width$}", width = CODE_DIGITS)
}

/// The seconds until the oldest of `times` leaves the 24-hour window.
fn until_window_frees(oldest: Option<i64>, now: i64) -> i64 {
    oldest.map_or(1, |t| (t + DAY_SECS - now).max(1))
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

/// Checks the limits and stores a new code for (member, address); the caller mails it, and
/// calls [`withdraw`] if the mail cannot be sent.
pub async fn issue(
    db: &DatabaseConnection,
    user_id: i64,
    email: &EmailAddress,
    now: i64,
    rules: &EmailCodeRules,
) -> Result<Issued, IssueError> {
    let txn = begin_user_write(db, user_id).await?;
    let last_here = email_code::Entity::find()
        .filter(email_code::Column::UserId.eq(user_id))
        .filter(email_code::Column::Email.eq(email.as_str()))
        .order_by_desc(email_code::Column::CreatedAt)
        .one(&txn)
        .await
        .context("reading the last code")?;
    if let Some(last) = last_here
        && now - last.created_at < rules.resend_after_secs
    {
        return Err(IssueError::TooSoon {
            retry_after: last.created_at + rules.resend_after_secs - now,
            limit: rules.resend_after_secs,
        });
    }
    let since = now - DAY_SECS;
    let (member_sends, member_oldest) =
        sends_since(&txn, email_code::Column::UserId, user_id.into(), since).await?;
    if member_sends >= rules.per_member_per_day {
        return Err(IssueError::MemberDailyCap {
            retry_after: until_window_frees(member_oldest, now),
            limit: rules.per_member_per_day,
        });
    }
    let (address_sends, address_oldest) = sends_since(
        &txn,
        email_code::Column::Email,
        email.as_str().into(),
        since,
    )
    .await?;
    if address_sends >= rules.per_address_per_day {
        return Err(IssueError::AddressDailyCap {
            retry_after: until_window_frees(address_oldest, now),
            limit: rules.per_address_per_day,
        });
    }
    let code = new_code();
    let mut salt = [0u8; 16];
    OsRng.fill_bytes(&mut salt);
    let expires_at = now + rules.ttl_secs;
    let inserted = email_code::Entity::insert(email_code::ActiveModel {
        user_id: Set(user_id),
        email: Set(email.as_str().to_string()),
        salt: Set(hex::encode(salt)),
        code_hash: Set(hex::encode(hash(&salt, &code))),
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
        code,
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
    rules: &EmailCodeRules,
) -> Result<i64, ConfirmError> {
    let code = code.trim();
    if code.len() != CODE_DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ConfirmError::Malformed);
    }
    let txn = begin_user_write(db, user_id).await?;
    let row = email_code::Entity::find()
        .filter(email_code::Column::UserId.eq(user_id))
        .filter(email_code::Column::Email.eq(email.as_str()))
        .order_by_desc(email_code::Column::Id)
        .one(&txn)
        .await
        .context("reading the last code")?
        .ok_or(ConfirmError::NotSent)?;
    if row.confirmed_at.is_some() {
        return Err(ConfirmError::Used);
    }
    if row.wrong_tries >= rules.max_wrong_tries {
        return Err(ConfirmError::Locked);
    }
    if now >= row.expires_at {
        return Err(ConfirmError::Expired);
    }
    let salt = hex::decode(&row.salt).context("decoding a stored salt")?;
    let stored = hex::decode(&row.code_hash).context("decoding a stored code hash")?;
    let matches: bool = hash(&salt, code).ct_eq(stored.as_slice()).into();
    if matches {
        email_code::Entity::update_many()
            .col_expr(email_code::Column::ConfirmedAt, Expr::value(now))
            .filter(email_code::Column::Id.eq(row.id))
            .exec(&txn)
            .await
            .context("confirming a code")?;
        txn.commit().await.context("committing a confirmation")?;
        return Ok(now);
    }
    let wrong_tries = row.wrong_tries + 1;
    email_code::Entity::update_many()
        .col_expr(email_code::Column::WrongTries, Expr::value(wrong_tries))
        .filter(email_code::Column::Id.eq(row.id))
        .exec(&txn)
        .await
        .context("counting a wrong code")?;
    txn.commit().await.context("committing a wrong try")?;
    Err(ConfirmError::Mismatch {
        tries_left: (rules.max_wrong_tries - wrong_tries).max(0),
    })
}

/// When the member last confirmed this address, if within [`CONFIRMATION_VALID_SECS`] of `now`.
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
        .filter(email_code::Column::ConfirmedAt.gte(now - CONFIRMATION_VALID_SECS))
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
        .filter(email_code::Column::CreatedAt.lt(now - RETENTION_SECS))
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
        let codes: std::collections::HashSet<String> = (0..50).map(|_| new_code()).collect();
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

    #[test]
    fn a_full_window_frees_when_its_oldest_send_is_a_day_old() {
        assert_eq!(until_window_frees(Some(1000), 1000 + 3600), DAY_SECS - 3600);
        assert_eq!(until_window_frees(None, 5), 1);
    }
}
