//! The HTTP API under /api: one `#[OpenApi]` struct per resource.

pub mod auth;
pub mod body;
pub mod catalogue;
pub mod chat;
pub mod config;
pub mod file;
pub mod health;
pub mod ipx;
pub mod line_webhook;
pub mod logger;
pub mod matchmaking;
pub mod review;
pub mod route_rules;
pub mod user;
pub mod user_profile;
pub mod verification;

use std::sync::Arc;

use poem_openapi::{OpenApiService, Tags};
use sea_orm::DatabaseConnection;
use serde_json::Value;

use crate::{
    configuration::Settings,
    identity::{LineVerifier, SessionStore},
    images::{FileStore, workers::ImageWorkers},
    line::push::PushQueue,
    mail::Mailer,
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
    pub log_limiter: Arc<RateLimiter>,
    /// Session look-ups the logger makes for one address: 120 a minute.
    pub log_lookup_limiter: Arc<RateLimiter>,
    /// Wakes the LINE push worker after a push was committed (`line::push`).
    pub push: PushQueue,
    /// Outgoing mail: SMTP, or the mock outbox (`mail`).
    pub mailer: Mailer,
    /// The approved members in memory for on-demand introductions (`matchmaking`).
    pub pool: crate::matchmaking::PoolCache,
    /// Live chat delivery to the events streams (`chat`).
    pub chat: Arc<crate::chat::ChatHub>,
    /// Chat messages: `CHAT_MESSAGES_PER_MINUTE` per member.
    pub chat_limiter: Arc<RateLimiter>,
}

impl AppState {
    /// Now, by the application's clock (tests move it).
    pub fn now(&self) -> i64 {
        self.settings.clock.now_secs()
    }
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
    /// Work e-mail one-time codes.
    Verification,
    /// Called by the LINE Platform.
    Line,
    /// The reviewer console: the queue, a profile's review, claims and decisions (reviewers
    /// only).
    Review,
    /// Daily introductions, likes, matches, blocks and reports (APPROVED members).
    Matchmaking,
    /// Messages between matched members and their live events stream (APPROVED members).
    Chat,
}

/// Every resource's `#[OpenApi]` struct, in the document's order.
pub type Apis = (
    user::UserApi,
    user_profile::UserProfileApi,
    file::FileApi,
    logger::LoggerApi,
    config::ConfigApi,
    route_rules::RouteRulesApi,
    verification::VerificationApi,
    line_webhook::LineWebhookApi,
    review::ReviewApi,
    catalogue::CatalogueApi,
    matchmaking::IntroductionsApi,
    matchmaking::MembersApi,
    matchmaking::MatchesApi,
    matchmaking::BlocksApi,
    matchmaking::ReportsApi,
    // poem-openapi implements OpenApi for tuples of up to 16: the last entries nest.
    (matchmaking::NotificationsApi, chat::ChatApi),
);

pub fn api_service() -> OpenApiService<Apis, ()> {
    OpenApiService::new(
        (
            user::UserApi,
            user_profile::UserProfileApi,
            file::FileApi,
            logger::LoggerApi,
            config::ConfigApi,
            route_rules::RouteRulesApi,
            verification::VerificationApi,
            line_webhook::LineWebhookApi,
            review::ReviewApi,
            catalogue::CatalogueApi,
            matchmaking::IntroductionsApi,
            matchmaking::MembersApi,
            matchmaking::MatchesApi,
            matchmaking::BlocksApi,
            matchmaking::ReportsApi,
            (matchmaking::NotificationsApi, chat::ChatApi),
        ),
        "Kizuna API",
        env!("CARGO_PKG_VERSION"),
    )
    .description(
        "Kizuna's API. Errors answer {code, cause, fields?} (docs/design.md). Authenticated calls send \
         `Authorization: Bearer {token}` (GET file fetches may use the `kizuna_token` cookie instead) \
         and every authenticated answer carries the renewed token in its `Authorization` header. \
         Calls that speak for a LINE user carry a LINE ID token in `X-Line-Id-Token`.",
    )
    .server("/api")
}

/// The OpenAPI document of /api as served at /api/openapi.json: poem-openapi's, with
/// `additionalProperties: false` on every request body, since each one is read strictly (unknown
/// fields refused) and poem-openapi has no way to write `false` there.
pub fn openapi_json() -> String {
    let mut doc: Value =
        serde_json::from_str(&api_service().spec()).expect("poem-openapi writes JSON");
    close_request_bodies(&mut doc);
    serde_json::to_string_pretty(&doc).expect("a JSON value serialises")
}

fn close_request_bodies(doc: &mut Value) {
    let mut referenced = std::collections::BTreeSet::new();
    let operations = doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|methods| methods.values_mut());
    for operation in operations {
        let Some(content) = operation
            .pointer_mut("/requestBody/content")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        for media in content.values_mut() {
            let schema = &mut media["schema"];
            match schema.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    referenced.insert(
                        reference
                            .trim_start_matches("#/components/schemas/")
                            .to_string(),
                    );
                }
                None if schema["type"] == "object" => {
                    schema["additionalProperties"] = Value::Bool(false);
                }
                None => {}
            }
        }
    }
    for name in referenced {
        if let Some(schema) = doc["components"]["schemas"]
            .get_mut(&name)
            .and_then(Value::as_object_mut)
        {
            schema.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
}

/// The methods of each path of the document, for the `Allow` header of a 405.
#[derive(Debug, Clone, Default)]
pub struct RouteTable(Vec<(Vec<String>, String)>);

impl RouteTable {
    /// Reads the paths and their methods from an OpenAPI document.
    pub fn from_document(doc: &str) -> RouteTable {
        let doc: Value = serde_json::from_str(doc).unwrap_or_default();
        let mut routes = Vec::new();
        for (path, methods) in doc["paths"].as_object().into_iter().flatten() {
            let mut allowed: Vec<String> = methods
                .as_object()
                .into_iter()
                .flat_map(|m| m.keys())
                .map(|m| m.to_ascii_uppercase())
                .collect();
            // poem answers HEAD wherever it answers GET.
            if allowed.iter().any(|m| m == "GET") {
                allowed.push("HEAD".into());
            }
            allowed.sort();
            let segments = path
                .trim_matches('/')
                .split('/')
                .map(str::to_string)
                .collect();
            routes.push((segments, allowed.join(", ")));
        }
        RouteTable(routes)
    }

    /// The `Allow` value of the path (relative to /api) that `path` names, if it is one.
    pub fn allow(&self, path: &str) -> Option<&str> {
        let asked: Vec<&str> = path.trim_matches('/').split('/').collect();
        self.0
            .iter()
            .find(|(segments, _)| {
                segments.len() == asked.len()
                    && segments.iter().zip(&asked).all(|(template, segment)| {
                        template == segment || (template.starts_with('{') && !segment.is_empty())
                    })
            })
            .map(|(_, allow)| allow.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_body_refuses_unknown_fields_in_the_document() {
        let doc: Value = serde_json::from_str(&openapi_json()).unwrap();
        for name in ["LoginBody", "AvatarBody", "LogLine", "UserProfileCreate"] {
            assert_eq!(
                doc["components"]["schemas"][name]["additionalProperties"],
                Value::Bool(false),
                "{name}"
            );
        }
        let upload = &doc["paths"]["/file/tempUpload"]["post"]["requestBody"]["content"]["multipart/form-data"]
            ["schema"];
        assert_eq!(upload["additionalProperties"], Value::Bool(false));
        // Nested objects keep their own rules: a condition is not a body.
        assert!(doc["components"]["schemas"]["UserProfileCreate"]["properties"]["valueItem"]
            ["items"]["oneOf"][0]
            .get("additionalProperties")
            .is_none());
    }

    #[test]
    fn the_route_table_knows_each_paths_methods() {
        let table = RouteTable::from_document(&openapi_json());
        assert_eq!(table.allow("/user/my-info"), Some("GET, HEAD"));
        assert_eq!(table.allow("/user/login"), Some("POST"));
        assert_eq!(table.allow("/user-profile/avatar"), Some("PUT"));
        assert_eq!(
            table.allow("/user/review-status/U4af4980629a1b2c3d4e5f60718293a4b"),
            Some("GET, HEAD")
        );
        assert_eq!(table.allow("/user/review-status/"), None);
        assert_eq!(table.allow("/nope"), None);
    }
}
