//! What every request and background task shares: the settings, the database, the stores and
//! queues the server runs on. Built once by `startup`.

use std::sync::Arc;

use sea_orm::DatabaseConnection;

use crate::{
    configuration::Settings,
    file_store::FileStore,
    identity::{LineVerifier, SessionStore},
    images::{admission::UploadSlots, workers::ImageWorkers},
    line::push::PushQueue,
    mail::Mailer,
    rate_limit::{Limits, RateLimiter},
};

/// Everything a handler needs, shared by reference.
pub struct AppState {
    pub settings: Settings,
    pub db: DatabaseConnection,
    /// This process's id among the processes on the database (`instance`): what it writes about
    /// itself (a chat stream's presence) counts only while it lives.
    pub process: i32,
    pub sessions: SessionStore,
    pub verifier: LineVerifier,
    pub files: FileStore,
    /// The CPU-bound image work (uploads and the proxy), KIZUNA_IMAGE_WORKERS at once.
    pub image_workers: ImageWorkers,
    /// Where every rate limit keeps its allowances (shared by all processes on PostgreSQL); new
    /// limits are made from it (`limits.per_minute(name, n)`).
    pub limits: Limits,
    /// Client log lines of a member: `LOG_LINES_PER_MINUTE_MEMBER` per user.
    pub log_limiter: Arc<RateLimiter>,
    /// Client log lines without a session: `LOG_LINES_PER_MINUTE_ANONYMOUS` per client address.
    pub anonymous_log_limiter: Arc<RateLimiter>,
    /// Session look-ups the logger makes for one address: `LOG_SESSION_LOOKUPS_PER_MINUTE`.
    pub log_lookup_limiter: Arc<RateLimiter>,
    /// Wakes the LINE push worker after a push was committed (`line::push`).
    pub push: PushQueue,
    /// Revokes a leaving member's LINE Login authorisation (`line::deauthorize`).
    pub deauthorizer: crate::line::deauthorize::Deauthorizer,
    /// Outgoing mail: SMTP, or the mock outbox (`mail`).
    pub mailer: Mailer,
    /// The approved members in memory for on-demand introductions (`matchmaking`).
    pub pool: crate::matchmaking::PoolCache,
    /// Live chat delivery to the events streams (`chat`).
    pub chat: Arc<crate::chat::ChatHub>,
    /// Chat messages: `CHAT_MESSAGES_PER_MINUTE` per member.
    pub chat_limiter: Arc<RateLimiter>,
    /// Uncached image proxy renders: `IMAGE_RENDERS_PER_MINUTE` per user.
    pub render_limiter: Arc<RateLimiter>,
    /// Logins: `LOGINS_PER_MINUTE_PER_USER` per user, `LOGINS_PER_MINUTE_PER_ADDRESS` per client
    /// address.
    pub login_user_limiter: Arc<RateLimiter>,
    pub login_address_limiter: Arc<RateLimiter>,
    /// Colleagues switch and employer changes: `SWITCH_CHANGES_PER_MINUTE` per user.
    pub switch_limiter: Arc<RateLimiter>,
    /// Saves of the edit form: `PROFILE_EDITS_PER_MINUTE` per user.
    pub edit_limiter: Arc<RateLimiter>,
    /// Uploads started: `UPLOADS_PER_MINUTE` per user.
    pub upload_limiter: Arc<RateLimiter>,
    /// Uploads in flight in this process: KIZUNA_UPLOADS_IN_FLIGHT in all,
    /// `UPLOADS_IN_FLIGHT_PER_USER` each.
    pub upload_slots: UploadSlots,
}

impl AppState {
    /// Now, by the application's clock (tests move it).
    pub fn now(&self) -> i64 {
        self.settings.clock.now_secs()
    }
}

pub type State = Arc<AppState>;
