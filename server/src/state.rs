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
    rate_limit::Limits,
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
    /// Every rate limit, by kind (`limits.get(LimitKind::Chat)`), with their allowances
    /// (shared by all processes on PostgreSQL).
    pub limits: Limits,
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
    /// Sessions that ended, told to the open events streams of every process
    /// (`identity::ends`).
    pub session_ends: Arc<crate::identity::ends::SessionEnds>,
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
