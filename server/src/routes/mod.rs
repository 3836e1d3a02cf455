//! The HTTP API under /api: one `#[OpenApi]` struct per resource.

pub mod body;
pub mod config;
pub mod file;
pub mod health;
pub mod ipx;
pub mod logger;
pub mod route_rules;
pub mod user;
pub mod user_profile;

use std::sync::Arc;

use poem_openapi::{OpenApiService, Tags};
use sea_orm::DatabaseConnection;

use crate::{
    configuration::Settings,
    identity::{LineVerifier, SessionStore},
    images::{FileStore, workers::ImageWorkers},
    rate_limit::RateLimiter,
};

/// Everything a handler needs, shared by reference.
pub struct AppState {
    pub settings: Settings,
    pub db: DatabaseConnection,
    pub sessions: SessionStore,
    pub verifier: LineVerifier,
    pub files: FileStore,
    /// The CPU-bound image work (uploads and the proxy), KIZUNA_IMAGE_WORKERS at once.
    pub image_workers: ImageWorkers,
    /// Client log lines: 30 a minute per user (or address).
    pub log_limiter: RateLimiter,
    /// Session look-ups the logger makes for one address: 120 a minute.
    pub log_lookup_limiter: RateLimiter,
}

pub type State = Arc<AppState>;

#[derive(Tags)]
pub enum ApiTags {
    /// Login, the caller's own info and review status.
    User,
    /// Registration and the avatar.
    UserProfile,
    /// Temp uploads and private file fetches.
    File,
    /// Client log lines written to the server log.
    Logger,
    /// Public configuration.
    Config,
    /// Redirect rules for the web app's route guard.
    RouteRules,
}

pub fn api_service() -> OpenApiService<
    (
        user::UserApi,
        user_profile::UserProfileApi,
        file::FileApi,
        logger::LoggerApi,
        config::ConfigApi,
        route_rules::RouteRulesApi,
    ),
    (),
> {
    OpenApiService::new(
        (
            user::UserApi,
            user_profile::UserProfileApi,
            file::FileApi,
            logger::LoggerApi,
            config::ConfigApi,
            route_rules::RouteRulesApi,
        ),
        "Kizuna API",
        env!("CARGO_PKG_VERSION"),
    )
    .description(
        "Kizuna's API. Errors answer {code, cause, fields?} (DESIGN.md). Authenticated calls send \
         `Authorization: Bearer {token}` (GET file fetches may use the `kizuna_token` cookie instead) \
         and every authenticated answer carries the renewed token in its `Authorization` header. \
         Calls that speak for a LINE user carry a LINE ID token in `X-Line-Id-Token`.",
    )
    .server("/api")
}
