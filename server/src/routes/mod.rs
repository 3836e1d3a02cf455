//! The HTTP API under /api: one `#[OpenApi]` struct per resource.

pub mod catalogue;
pub mod chat;
pub mod config;
pub mod data_export;
mod errors;
pub mod file;
pub mod health;
pub mod ipx;
pub mod line_webhook;
pub mod logger;
pub mod matchmaking;
pub mod pages;
pub mod review;
pub mod route_rules;
pub mod user;
pub mod user_profile;
pub mod verification;
pub mod visits;
pub mod we_met;

use kizuna_core::review::ReviewStatus;
use kizuna_core::{
    report::ReportReason,
    rules::{self, RangeRule},
};
use poem_openapi::{Enum, OpenApiService, Tags};
use serde_json::{Value, json};

use crate::error::ApiError;

pub use crate::state::{AppState, State};

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

/// A review status (kizuna-core's `ReviewStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewState {
    Pending,
    Approved,
    Rejected,
    Suspended,
}

impl ReviewState {
    pub fn from_core(status: ReviewStatus) -> ReviewState {
        match status {
            ReviewStatus::Pending => ReviewState::Pending,
            ReviewStatus::Approved => ReviewState::Approved,
            ReviewStatus::Rejected => ReviewState::Rejected,
            ReviewStatus::Suspended => ReviewState::Suspended,
        }
    }
}

/// A member's own revision of their approved profile, as they read it: only they
/// and the reviewers ever do; everyone else reads the approved profile.
#[derive(Debug, poem_openapi::Object)]
#[oai(rename_all = "camelCase")]
pub struct OwnRevision {
    /// 1 for the first revision, one more with each save.
    pub number: i32,
    /// PENDING (waiting for a reviewer) or REJECTED (sent back: the approved version stands).
    pub status: String,
    /// The fields for review it changes from the approved profile (wire names).
    pub changed_fields: Vec<String>,
    /// The whole proposed profile (the edit form opens on it).
    pub profile: crate::extract::body::ProfilePayload,
    /// The rejection's reason codes (`reject` catalogue of `GET /catalogue/codes`), with the
    /// fields each names: the form marks them.
    pub reasons: Vec<String>,
    /// The reviewer's note with the rejection.
    #[oai(nullable)]
    pub note: Option<String>,
    /// Unix seconds of the save.
    pub submitted_at: i64,
    /// Unix seconds of the decision.
    #[oai(nullable)]
    pub decided_at: Option<i64>,
}

impl OwnRevision {
    /// The member's view of their revision, beside the approved payload (JSON text); None for
    /// an approved one (it is the profile now).
    pub fn of(
        approved: &str,
        revision: &crate::usecases::revisions::Revision,
    ) -> Result<Option<OwnRevision>, ApiError> {
        use kizuna_core::{profile::UserProfileCreate, revision::RevisionStatus};
        if revision.status == RevisionStatus::Approved {
            return Ok(None);
        }
        let read = |json: &str| -> Result<UserProfileCreate, ApiError> {
            serde_json::from_str(json).map_err(|e| {
                ApiError::Internal(anyhow::Error::new(e).context("decoding a stored profile"))
            })
        };
        let changed =
            kizuna_core::revision::revision_changes(&read(approved)?, &read(&revision.payload)?);
        Ok(Some(OwnRevision {
            number: revision.number,
            status: revision.status.as_str().to_string(),
            changed_fields: changed.into_iter().map(str::to_string).collect(),
            profile: crate::extract::body::ProfilePayload(
                serde_json::from_str(&revision.payload).map_err(|e| {
                    ApiError::Internal(anyhow::Error::new(e).context("decoding a revision"))
                })?,
            ),
            reasons: revision.reasons.clone(),
            note: revision.note.clone(),
            submitted_at: revision.submitted_at,
            decided_at: revision.decided_at,
        }))
    }
}

/// Every resource's `#[OpenApi]` struct, in the document's order. Matchmaking's resources nest
/// in one tuple so that the whole stays within the tuple sizes that implement `Default`.
pub type Apis = (
    (
        user::UserApi,
        data_export::DataExportApi,
        visits::VisitsApi,
        we_met::ReviewTimeApi,
    ),
    user_profile::UserProfileApi,
    file::FileApi,
    logger::LoggerApi,
    config::ConfigApi,
    route_rules::RouteRulesApi,
    verification::VerificationApi,
    line_webhook::LineWebhookApi,
    review::ReviewApi,
    catalogue::CatalogueApi,
    (
        matchmaking::IntroductionsApi,
        matchmaking::MembersApi,
        matchmaking::MatchesApi,
        matchmaking::BlocksApi,
        matchmaking::ReportsApi,
        matchmaking::NotificationsApi,
        matchmaking::PauseApi,
        matchmaking::ColleaguesApi,
        we_met::WeMetApi,
    ),
    chat::ChatApi,
);

pub fn api_service() -> OpenApiService<Apis, ()> {
    OpenApiService::new(
        Apis::default(),
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
    state_core_limits(&mut doc);
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

/// A number a query parameter asks for (a page size), within `rule`, or `default` when not given;
/// 400 E002 naming `limit` otherwise.
pub fn page_size(asked: Option<u64>, rule: RangeRule, default: u32) -> Result<u64, ApiError> {
    let size = asked.unwrap_or(u64::from(default));
    if (u64::from(rule.min)..=u64::from(rule.max)).contains(&size) {
        Ok(size)
    } else {
        Err(ApiError::BadFields {
            cause: format!("limit must be from {} to {}", rule.min, rule.max),
            fields: [("limit".to_string(), vec!["out_of_range".to_string()])].into(),
        })
    }
}

/// The limit of the switches a member or reviewer flips (the colleagues switch, an employer set
/// from the console, a removal notice dismissed, an appeal sent; one allowance for all, so the endpoints share it
/// here):
/// `rules::SWITCH_CHANGES_PER_MINUTE` per user, 429 E007 with Retry-After.
pub(crate) async fn switch_allowed(state: &State, user_id: i64) -> Result<(), ApiError> {
    if let Err(wait) = state
        .limits
        .get(crate::rate_limit::LimitKind::Switch)
        .check(&format!("u:{user_id}"))
        .await
    {
        return Err(ApiError::Throttled {
            cause: "too many changes at once; wait a moment".into(),
            retry_after: Some(wait.as_secs_f64().ceil().max(1.0) as u64),
        });
    }
    Ok(())
}

/// Where the document states a limit that a handler (not poem-openapi) enforces.
enum LimitAt {
    /// A property of a component schema.
    Property(&'static str, &'static str),
    /// A query parameter of an operation: path, method, parameter.
    Query(&'static str, &'static str, &'static str),
}

/// The limits the document states for bodies and parameters that handlers read themselves,
/// each from kizuna-core's rules (the registration body's schema is built from the same rules in
/// `body.rs`). poem-openapi's validator attributes take only literals, so the numbers are written
/// into the document here instead, and the handlers check the same rules.
fn core_limits() -> Vec<(LimitAt, &'static str, Value)> {
    use LimitAt::{Property, Query};
    let reasons = ReportReason::ALL.len();
    Vec::from([
        (
            Property("ReportBody", "text"),
            "maxLength",
            json!(rules::REPORT_TEXT.max),
        ),
        (Property("ReportBody", "reasons"), "minItems", json!(1)),
        (
            Property("ReportBody", "reasons"),
            "maxItems",
            json!(reasons),
        ),
        (
            Property("LogLine", "message"),
            "maxLength",
            json!(rules::LOG_MESSAGE_CHARS),
        ),
        (
            Property("AppealBody", "text"),
            "maxLength",
            json!(rules::APPEAL_TEXT.max),
        ),
        (
            Property("AppealDecisionBody", "note"),
            "maxLength",
            json!(rules::REVIEW_NOTE.max),
        ),
        (
            Property("SendBody", "text"),
            "minLength",
            json!(rules::CHAT_MESSAGE.min),
        ),
        (
            Property("SendBody", "text"),
            "maxLength",
            json!(rules::CHAT_MESSAGE.max),
        ),
        (
            Property("LikeCommentBody", "text"),
            "minLength",
            json!(rules::LIKE_COMMENT.min),
        ),
        (
            Property("LikeCommentBody", "text"),
            "maxLength",
            json!(rules::LIKE_COMMENT.max),
        ),
        (
            Property("SendBody", "clientMessageId"),
            "minLength",
            json!(rules::CLIENT_MESSAGE_ID.min),
        ),
        (
            Property("SendBody", "clientMessageId"),
            "maxLength",
            json!(rules::CLIENT_MESSAGE_ID.max),
        ),
        (
            Query("/matches/{matchId}/messages", "get", "limit"),
            "minimum",
            json!(rules::CHAT_PAGE.min),
        ),
        (
            Query("/matches/{matchId}/messages", "get", "limit"),
            "maximum",
            json!(rules::CHAT_PAGE.max),
        ),
        (
            Query("/review/queue", "get", "limit"),
            "minimum",
            json!(rules::REVIEW_PAGE.min),
        ),
        (
            Query("/review/queue", "get", "limit"),
            "maximum",
            json!(rules::REVIEW_PAGE.max),
        ),
        (
            Query("/review/reports", "get", "limit"),
            "minimum",
            json!(rules::REVIEW_PAGE.min),
        ),
        (
            Query("/review/reports", "get", "limit"),
            "maximum",
            json!(rules::REVIEW_PAGE.max),
        ),
        (
            Query("/route-rules", "get", "path"),
            "minLength",
            json!(rules::ROUTE_PATH.min),
        ),
        (
            Query("/route-rules", "get", "path"),
            "maxLength",
            json!(rules::ROUTE_PATH.max),
        ),
    ])
}

fn limit_schema<'a>(doc: &'a mut Value, at: &LimitAt) -> Option<&'a mut Value> {
    match at {
        LimitAt::Property(schema, property) => doc.pointer_mut(&format!(
            "/components/schemas/{schema}/properties/{property}"
        )),
        LimitAt::Query(path, method, name) => doc["paths"][*path][*method]["parameters"]
            .as_array_mut()?
            .iter_mut()
            .find(|p| p["name"] == *name && p["in"] == "query")
            .map(|p| &mut p["schema"]),
    }
}

fn state_core_limits(doc: &mut Value) {
    for (at, keyword, value) in core_limits() {
        let schema =
            limit_schema(doc, &at).expect("every core limit names a place in the document");
        // `$ref`-only schemas (none today) could not carry a limit beside them.
        schema[keyword] = value;
    }
}

/// The methods of each path of the document, for the `Allow` header of a 405, and the path's
/// pattern (`/matches/{matchId}/messages`), which the metrics label a request with.
#[derive(Debug, Clone, Default)]
pub struct RouteTable(Vec<(Vec<String>, String, String)>);

impl RouteTable {
    /// Reads the paths and their methods from an OpenAPI document.
    ///
    /// Only the keys are kept while reading: a `Value` of the whole document (about 450 KB of
    /// JSON) is megabytes of small allocations at every start, which glibc's heap keeps after
    /// they are freed (part of the idle server's resident memory, issue 46). The maps are sorted
    /// as `Value`'s are (serde_json without `preserve_order`), so ties in `find` resolve alike.
    pub fn from_document(doc: &str) -> RouteTable {
        #[derive(serde::Deserialize, Default)]
        struct Paths {
            #[serde(default)]
            paths: std::collections::BTreeMap<
                String,
                std::collections::BTreeMap<String, serde::de::IgnoredAny>,
            >,
        }
        let doc: Paths = serde_json::from_str(doc).unwrap_or_default();
        let mut routes = Vec::new();
        for (path, methods) in doc.paths {
            let mut allowed: Vec<String> = methods.keys().map(|m| m.to_ascii_uppercase()).collect();
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
            routes.push((segments, allowed.join(", "), path));
        }
        RouteTable(routes)
    }

    /// The `Allow` value of the path (relative to /api) that `path` names, if it is one.
    pub fn allow(&self, path: &str) -> Option<&str> {
        self.find(path).map(|(_, allow, _)| allow.as_str())
    }

    /// The document's pattern of the path (relative to /api) that `path` names, if it is one:
    /// ids stay out of it.
    pub fn pattern(&self, path: &str) -> Option<&str> {
        self.find(path).map(|(_, _, pattern)| pattern.as_str())
    }

    fn find(&self, path: &str) -> Option<&(Vec<String>, String, String)> {
        let asked: Vec<&str> = path.trim_matches('/').split('/').collect();
        // A literal segment wins over a parameter (`/matches/read` before `/matches/{id}`).
        self.0
            .iter()
            .filter(|(segments, _, _)| {
                segments.len() == asked.len()
                    && segments.iter().zip(&asked).all(|(template, segment)| {
                        template == segment || (template.starts_with('{') && !segment.is_empty())
                    })
            })
            .min_by_key(|(segments, _, _)| segments.iter().filter(|s| s.starts_with('{')).count())
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

    const LIMIT_KEYWORDS: [&str; 6] = [
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
    ];

    /// Every (JSON pointer, keyword, value) limit the document states.
    fn stated_limits(value: &Value, at: &str, found: &mut Vec<(String, String, f64)>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    if LIMIT_KEYWORDS.contains(&key.as_str()) {
                        found.push((at.to_string(), key.clone(), inner.as_f64().unwrap()));
                    }
                    let key = key.replace('~', "~0").replace('/', "~1");
                    stated_limits(inner, &format!("{at}/{key}"), found);
                }
            }
            Value::Array(items) => {
                for (i, inner) in items.iter().enumerate() {
                    stated_limits(inner, &format!("{at}/{i}"), found);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_limit_in_the_document_is_one_of_the_cores_rules() {
        let doc: Value = serde_json::from_str(&openapi_json()).unwrap();
        let mut found = Vec::new();
        stated_limits(&doc, "", &mut found);

        // What the core says, by place in the document.
        let mut expected: Vec<(String, String, f64)> = Vec::new();
        for (at, keyword, value) in core_limits() {
            let pointer = match at {
                LimitAt::Property(schema, property) => {
                    format!("/components/schemas/{schema}/properties/{property}")
                }
                LimitAt::Query(path, method, name) => {
                    let params = doc["paths"][path][method]["parameters"].as_array().unwrap();
                    let index = params.iter().position(|p| p["name"] == name).unwrap();
                    let path = path.replace('/', "~1");
                    format!("/paths/{path}/{method}/parameters/{index}/schema")
                }
            };
            expected.push((pointer, keyword.into(), value.as_f64().unwrap()));
        }
        let registration = "/components/schemas/UserProfileCreate/properties";
        let mut range = |place: String, rule: RangeRule, keywords: (&str, &str)| {
            expected.push((place.clone(), keywords.0.into(), f64::from(rule.min)));
            expected.push((place, keywords.1.into(), f64::from(rule.max)));
        };
        for (field, rule) in rules::limits() {
            let place = format!("{registration}/{field}");
            let schema = &doc.pointer(&place);
            let Some(schema) = schema else { continue };
            let keywords = match schema["type"].as_str() {
                Some("string") => ("minLength", "maxLength"),
                Some("array") => ("minItems", "maxItems"),
                _ => ("minimum", "maximum"),
            };
            range(place, rule, keywords);
        }
        use kizuna_core::{conditions::CONDITION_TYPES, files::FileName, url::HttpsUrl};
        let ranged = [
            ("HEIGHT", rules::HEIGHT_CM),
            ("AGE", rules::AGE_YEARS),
            ("INCOME", rules::INCOME_CONDITION),
        ];
        for (kind, rule) in ranged {
            let index = CONDITION_TYPES.iter().position(|&t| t == kind).unwrap();
            for bound in ["from", "to"] {
                range(
                    format!(
                        "{registration}/valueItem/items/oneOf/{index}/properties/{bound}/anyOf/1"
                    ),
                    rule,
                    ("minimum", "maximum"),
                );
            }
        }
        let degrees = [
            ("latitude", rules::LATITUDE),
            ("longitude", rules::LONGITUDE),
        ];
        for (field, rule) in degrees {
            let place = format!("{registration}/{field}");
            expected.push((place.clone(), "minimum".into(), rule.min));
            expected.push((place, "maximum".into(), rule.max));
        }
        for (place, keyword, value) in [
            ("valueItem", "maxItems", CONDITION_TYPES.len()),
            ("photoNameList/items", "maxLength", FileName::MAX_LEN),
            ("verifyTempFileName", "maxLength", FileName::MAX_LEN),
            ("reviewLink", "maxLength", HttpsUrl::MAX_LEN),
        ] {
            expected.push((
                format!("{registration}/{place}"),
                keyword.into(),
                value as f64,
            ));
        }
        // Text rules with no minimum state none.
        expected.retain(|(place, keyword, value)| {
            !(keyword == "minLength"
                && *value == 0.0
                && !found.iter().any(|f| &f.0 == place && f.1 == "minLength"))
        });

        for limit in &found {
            assert!(
                expected.contains(limit),
                "the document states {limit:?}, which is no rule of kizuna-core"
            );
        }
        for limit in &expected {
            assert!(found.contains(limit), "the document misses {limit:?}");
        }
        assert_eq!(
            doc["components"]["schemas"]["ReportBody"]["properties"]["text"]["maxLength"],
            json!(rules::REPORT_TEXT.max)
        );
    }

    #[test]
    fn every_operation_but_the_public_ones_names_its_security_in_the_document() {
        // Public by design: the app's start-up configuration, the route guard's rules, the code
        // catalogues, LINE's webhook (signed with the channel secret instead) and a data export's
        // download link (the link is the credential).
        let public = [
            ("get", "/data-export/{token}"),
            ("get", "/config"),
            ("get", "/route-rules"),
            ("get", "/catalogue/codes"),
            ("post", "/line/webhook"),
            // A push link's arrival is counted before any session exists (cold start, new member).
            ("post", "/visits"),
        ];
        let doc: Value = serde_json::from_str(&openapi_json()).unwrap();
        for (path, methods) in doc["paths"].as_object().unwrap() {
            for (method, operation) in methods.as_object().unwrap() {
                let secured = operation["security"]
                    .as_array()
                    .is_some_and(|s| !s.is_empty());
                let is_public = public.contains(&(method.as_str(), path.as_str()));
                assert_eq!(secured, !is_public, "{method} {path}");
            }
        }
        let send = &doc["paths"]["/verification/email-code"]["post"]["security"];
        assert_eq!(send, &json!([{ crate::extract::auth::BEARER_SESSION: [] }]));
    }

    #[test]
    fn the_route_table_of_poem_openapis_document_is_the_served_ones() {
        // The server reads its route table from poem-openapi's document (startup::build_routes).
        let own = format!("{:?}", RouteTable::from_document(&api_service().spec()));
        let served = format!("{:?}", RouteTable::from_document(&openapi_json()));
        assert!(own.len() > 1000, "the table holds the API's paths: {own}");
        assert_eq!(own, served);
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
        assert_eq!(
            table.pattern("/user/review-status/U4af4980629a1b2c3d4e5f60718293a4b"),
            Some("/user/review-status/{userId}")
        );
        assert_eq!(
            table.pattern("/matches/12/messages"),
            Some("/matches/{matchId}/messages")
        );
        assert_eq!(table.pattern("/user/my-info"), Some("/user/my-info"));
        assert_eq!(table.pattern("/nope/12"), None);
    }
}
