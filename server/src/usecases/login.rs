//! Login with a verified LINE identity: the user row is made on first sight, the allowances of
//! the client's address and of the account are taken (every login makes a session), the
//! language the web app speaks is kept for later pushes and mails, and a session starts.

use crate::{
    identity::{SessionStore, id_token::LineIdentity},
    locale::Locale,
    rate_limit::RateLimiter,
    storage::{StorageError, locale, users},
};

/// What a login reaches beyond the database.
pub struct LoginDeps<'a> {
    pub db: &'a sea_orm::DatabaseConnection,
    pub sessions: &'a SessionStore,
    /// Logins per client address.
    pub address_limiter: &'a RateLimiter,
    /// Logins per account.
    pub user_limiter: &'a RateLimiter,
}

/// Whose allowance of logins is used up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginsOf {
    Address,
    Account,
}

#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// Too many logins of the address or the account; `retry_after` seconds (at least 1).
    #[error("too many logins")]
    Limited { of: LoginsOf, retry_after: u64 },
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// Logs `identity` in from the client `address`; answers the new session's token (shown once).
pub async fn login(
    deps: &LoginDeps<'_>,
    identity: &LineIdentity,
    address: &str,
    language: Option<Locale>,
    now: i64,
) -> Result<String, LoginError> {
    take(deps.address_limiter, address, LoginsOf::Address).await?;
    let user = users::find_or_create(
        deps.db,
        identity.user_id.as_str(),
        identity.name.as_deref(),
        now,
    )
    .await?;
    // Keyed on the row, not the LINE id: no member's identity in the allowances' table.
    take(
        deps.user_limiter,
        &format!("u:{}", user.id),
        LoginsOf::Account,
    )
    .await?;
    if let Some(language) = language {
        locale::set_locale(deps.db, user.id, language).await?;
    }
    let token = deps.sessions.create(user.id).await?;
    tracing::info!(user = user.id, "login");
    Ok(token)
}

async fn take(limiter: &RateLimiter, key: &str, of: LoginsOf) -> Result<(), LoginError> {
    limiter
        .check(key)
        .await
        .map_err(|wait| LoginError::Limited {
            of,
            retry_after: wait.as_secs_f64().ceil().max(1.0) as u64,
        })
}
