//! Server sessions: 32 random bytes (base64url, 43 characters) handed to the client once; the
//! database keeps only their SHA-256. A session lives 7 days from its last renewal.
//!
//! Renewal: every authenticated answer carries the *same* token in its `Authorization` response
//! header, and the stored expiry slides to now + 7 days. The expiry is written at most once an hour
//! per session (a read-mostly hot path), and because the token never changes, parallel requests
//! cannot race each other into a revoked token.
//!
//! A session proved once is kept in memory ([`super::session_cache`]: a second on SQLite, while
//! the process hears its own heartbeat on PostgreSQL): a member's requests that follow prove it
//! with no statement.

use std::sync::{Arc, OnceLock};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use poem::Request;
use rand::RngCore;
use sea_orm::DatabaseConnection;
use sha2::{Digest, Sha256};

use super::{SESSION_COOKIE, session_cache::SessionCache};
use crate::{
    error::ApiError,
    storage::{
        entity::user,
        sessions::{self, SessionRow},
    },
};

pub const SESSION_TTL_SECS: i64 = kizuna_core::rules::SESSION_TTL_SECS;
/// However often it is renewed, a session ends this long after its login.
pub const SESSION_MAX_AGE_SECS: i64 = 30 * 24 * 3600;
const RENEW_EVERY_SECS: i64 = 3600;

/// The authenticated caller, with the headline of their profile and their role (one query reads
/// it all, or the session cache answers it).
#[derive(Debug, Clone)]
pub struct Auth {
    /// The SHA-256 of the session's token (what signing out revokes); never logged.
    pub session: String,
    pub user: user::Model,
    pub profile: Option<ProfileBrief>,
    /// On the reviewers list now: joined from `reviewers` with the session, so that adding or
    /// removing a reviewer takes effect on their next call (within the session cache's second
    /// when done outside the server; on PostgreSQL the database announces it), sessions
    /// unchanged.
    pub reviewer: bool,
    /// When the session ends unless it is renewed (Unix seconds): its sliding expiry, or its
    /// absolute end if that comes first. What outlives the request (an events stream) ends then.
    pub ends_at: i64,
}

/// The caller's profile as every request needs it: which one and its review status. Its payload
/// (some kilobytes of JSON) is read only where it is answered (`membership::own_review`), not
/// with the session on every request that misses the session cache.
#[derive(Debug, Clone)]
pub struct ProfileBrief {
    pub id: i64,
    pub status: String,
}

/// Put into each request's extensions by [`crate::startup`]'s middleware; filled by a successful
/// authentication so that the answer carries the renewed token in `Authorization`.
#[derive(Clone, Default)]
pub struct RenewSlot(
    pub Arc<OnceLock<String>>,
    Arc<std::sync::atomic::AtomicBool>,
);

impl RenewSlot {
    /// The session ended with this request (signed out): its answer must not hand the token
    /// back.
    pub fn end(&self) {
        self.1.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// The token to hand back in the answer's `Authorization`, unless the session ended.
    pub fn token(&self) -> Option<&str> {
        if self.1.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        self.0.get().map(String::as_str)
    }
}

#[derive(Clone)]
pub struct SessionStore {
    db: DatabaseConnection,
    clock: crate::clock::Clock,
    /// Shared with [`super::ends::SessionEnds`], which evicts from it.
    cache: Arc<SessionCache>,
}

pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn well_formed(token: &str) -> bool {
    token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Where the token came from.
pub enum TokenSource {
    /// Only `Authorization: Bearer`.
    Header,
    /// `Authorization: Bearer`, else the `kizuna_token` cookie (GET requests for files).
    HeaderOrCookie,
}

/// The token a request carries: Ok(None) if none, Err(E001A) if the header is not a bearer token.
pub fn request_token(req: &Request, source: TokenSource) -> Result<Option<String>, ApiError> {
    if let Some(value) = req.headers().get(poem::http::header::AUTHORIZATION) {
        let value = value.to_str().map_err(|_| ApiError::InvalidSession)?.trim();
        let (scheme, token) = value.split_once(' ').ok_or(ApiError::InvalidSession)?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(ApiError::InvalidSession);
        }
        return Ok(Some(token.trim().to_string()));
    }
    if let TokenSource::HeaderOrCookie = source {
        for header in req.headers().get_all(poem::http::header::COOKIE) {
            let Ok(header) = header.to_str() else {
                continue;
            };
            for pair in header.split(';') {
                if let Some((name, value)) = pair.trim().split_once('=')
                    && name.trim() == SESSION_COOKIE
                    && !value.trim().is_empty()
                {
                    return Ok(Some(value.trim().trim_matches('"').to_string()));
                }
            }
        }
    }
    Ok(None)
}

/// When the session of `row` ends: its sliding expiry, or its absolute end if that comes first.
fn ends_at(row: &SessionRow) -> i64 {
    Ord::min(
        row.expires_at,
        row.session_created_at + SESSION_MAX_AGE_SECS,
    )
}

impl SessionStore {
    pub fn new(
        db: DatabaseConnection,
        clock: crate::clock::Clock,
        cache: Arc<SessionCache>,
    ) -> SessionStore {
        SessionStore { db, clock, cache }
    }

    /// Forgets every session held in memory, as a restart would: for whoever changed rows behind
    /// the server's back (tests, which otherwise wait out `SESSION_CACHE_TTL`).
    pub fn forget_cached(&self) {
        self.cache.clear();
    }

    async fn lookup(&self, hash: &str) -> anyhow::Result<Option<SessionRow>> {
        sessions::lookup(&self.db, hash).await
    }

    /// Starts a session for a user; answers the token (shown once, never stored).
    pub async fn create(&self, user_id: i64) -> anyhow::Result<String> {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let token = URL_SAFE_NO_PAD.encode(bytes);
        let now = self.clock.now_secs();
        sessions::insert(
            &self.db,
            &hash_token(&token),
            user_id,
            now,
            now + SESSION_TTL_SECS,
        )
        .await?;
        Ok(token)
    }

    /// Authenticates a request: E001 without a token, E001A for an unknown, revoked or malformed
    /// one, E001B for an expired one. On success the renewal slot gets the token.
    pub async fn authenticate(&self, req: &Request, source: TokenSource) -> Result<Auth, ApiError> {
        let token = request_token(req, source)?.ok_or(ApiError::NoSession)?;
        let auth = self.check(&token).await?;
        if let Some(slot) = req.extensions().get::<RenewSlot>() {
            let _ = slot.0.set(token);
        }
        Ok(auth)
    }

    /// The user a token belongs to, if it is a live session; unlike `check`, never renews it (for
    /// callers that only need to know who is asking, such as the logger's rate limit).
    pub async fn peek_user(&self, token: &str) -> Option<i64> {
        if !well_formed(token) {
            return None;
        }
        let row = self.lookup(&hash_token(token)).await.ok()??;
        let now = self.clock.now_secs();
        (row.revoked_at.is_none() && ends_at(&row) > now).then_some(row.user_id)
    }

    /// When the session with this token hash ends (see [`Auth::ends_at`]); None once it has
    /// ended (revoked, expired, or gone with its user). Never renews it.
    pub async fn live_until(&self, hash: &str) -> anyhow::Result<Option<i64>> {
        let Some(row) = sessions::find(&self.db, hash).await? else {
            return Ok(None);
        };
        let ends_at = Ord::min(row.expires_at, row.created_at + SESSION_MAX_AGE_SECS);
        Ok((row.revoked_at.is_none() && ends_at > self.clock.now_secs()).then_some(ends_at))
    }

    pub async fn check(&self, token: &str) -> Result<Auth, ApiError> {
        if !well_formed(token) {
            return Err(ApiError::InvalidSession);
        }
        let hash = hash_token(token);
        let row = match self.cache.get(&hash) {
            Some(row) => row,
            None => {
                let ticket = self.cache.ticket();
                let row = Arc::new(
                    self.lookup(&hash)
                        .await?
                        .filter(|r| r.revoked_at.is_none())
                        .ok_or(ApiError::InvalidSession)?,
                );
                self.cache.fill(&hash, row.clone(), ticket);
                row
            }
        };
        let now = self.clock.now_secs();
        if ends_at(&row) <= now {
            return Err(ApiError::ExpiredSession);
        }
        // Slides to a week from now, never past the session's absolute end.
        let renewed = Ord::min(
            now + SESSION_TTL_SECS,
            row.session_created_at + SESSION_MAX_AGE_SECS,
        );
        let mut expires_at = row.expires_at;
        if row.expires_at < now + SESSION_TTL_SECS - RENEW_EVERY_SECS && renewed > row.expires_at {
            expires_at = renewed;
            sessions::extend(&self.db, &hash, renewed).await?;
            // The held row has the old expiry: the next request reads the renewed one (once an
            // hour per session), rather than writing again.
            self.cache.forget(&hash);
        }
        let profile = match (row.profile_id, &row.profile_status) {
            (Some(id), Some(status)) => Some(ProfileBrief {
                id,
                status: status.clone(),
            }),
            _ => None,
        };
        let user = user::Model {
            id: row.user_id,
            line_user_id: row.line_user_id.clone(),
            display_name: row.display_name.clone(),
            avatar_file_id: row.avatar_file_id.clone(),
            created_at: row.user_created_at,
        };
        Ok(Auth {
            session: hash,
            user,
            profile,
            reviewer: row.reviewer_since.is_some(),
            ends_at: Ord::min(expires_at, row.session_created_at + SESSION_MAX_AGE_SECS),
        })
    }
}
