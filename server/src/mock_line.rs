//! The mock LINE platform, served under /__mock/line when KIZUNA_LINE_MOCK is on.
//!
//! It mints real ES256 ID tokens in LINE's format with its own key (generated at start), publishes
//! that key as a JWKS, keeps users and their friendship with the official account, and records
//! pushed messages. The server verifies its tokens over HTTP exactly as it verifies LINE's.
//!
//! | call | answer |
//! |---|---|
//! | POST /users {userId, displayName, pictureUrl?, friend} | creates or updates a user (toggle `friend` this way) |
//! | GET /users/{userId} | {userId, displayName, pictureUrl, friend} |
//! | POST /id-token {userId, expiresIn?, audience?} | {idToken}: iss https://access.line.me, aud channel id, sub, iat, exp = iat + 3600, kid (the optional fields mint expired or foreign-audience tokens for tests) |
//! | GET /oauth2/v2.1/certs | the JWKS |
//! | GET /friendship/v1/status?userId= | {friendFlag} |
//! | GET /v2/profile?userId= | {userId, displayName, pictureUrl} |
//! | POST /v2/bot/message/push {to, messages} | records a push (Bearer channel access token); like LINE, it answers 400 `{message}` to messages beyond LINE's limits (kizuna-core's `push::check_messages`: their number, text and altText lengths, bubble and carousel sizes, the bubble count, HTTPS images, URI actions), and an `X-Line-Retry-Key` (a UUID) already accepted answers 409 and records nothing, a malformed one 400 |
//! | GET /messages | every recorded push (with its `retryKey`) |
//! | POST /push-failures {count, status} | the next `count` push calls answer `status` (e.g. 500, 429, 400) and record nothing |
//! | POST /push-delay {count, delayMs} | the next `count` pushes are recorded, then answered after `delayMs` (a slow platform, or an answer lost to a time-out) |
//! | POST /webhook-events {type: follow\|unfollow, userId, timestamp?, webhookEventId?, isRedelivery?} | sets the user's `friend` (if the mock knows them), builds LINE's webhook body for the event, signs it with the channel secret and POSTs it to this server's /api/line/webhook; answers {webhookEventId, body, signature, status, answer} (`body` and `signature` exactly as sent, for replays) |

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
    time::Duration,
};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use kizuna_core::line::LineUserId;
use p256::ecdsa::{Signature, SigningKey, signature::Signer};
use poem::{
    EndpointExt, IntoResponse, Request, Response, Route, get, handler,
    http::StatusCode,
    post,
    web::{Data, Json, Path, Query},
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{
    clock::now_secs,
    error::{ErrorBody, error_response},
    identity::id_token::LINE_ISSUER,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MockUser {
    pub user_id: String,
    pub display_name: String,
    #[serde(default)]
    pub picture_url: Option<String>,
    #[serde(default)]
    pub friend: bool,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PushedMessage {
    pub to: String,
    pub messages: serde_json::Value,
    pub at: i64,
    /// The `X-Line-Retry-Key` it was sent with.
    pub retry_key: Option<String>,
}

/// How the next push calls misbehave (`/push-failures`, `/push-delay`).
#[derive(Default)]
struct PushFaults {
    fail_count: u32,
    fail_status: u16,
    delay_count: u32,
    delay: Duration,
}

/// Where the mock sends webhook events: this server's own endpoint, signed with the secret.
struct WebhookTarget {
    secret: String,
    url: String,
    http: reqwest::Client,
}

pub struct MockLine {
    key: SigningKey,
    kid: String,
    channel_id: String,
    access_token: String,
    users: std::sync::Mutex<HashMap<String, MockUser>>,
    messages: std::sync::Mutex<Vec<PushedMessage>>,
    accepted_retry_keys: std::sync::Mutex<HashSet<String>>,
    faults: std::sync::Mutex<PushFaults>,
    webhook: Option<WebhookTarget>,
    /// The bot's own user id, the `destination` of its webhook bodies.
    bot_user_id: String,
    /// The LINE Login channel's access token (`/user/v1/deauthorize`).
    login_token: String,
    /// The user access tokens revoked through `/user/v1/deauthorize`, in order.
    deauthorized: std::sync::Mutex<Vec<String>>,
}

/// Signs `claims` as an ES256 JWT with the given key and kid (also used by tests to forge tokens).
pub fn sign_es256(key: &SigningKey, kid: &str, claims: &serde_json::Value) -> String {
    let header = json!({"typ": "JWT", "alg": "ES256", "kid": kid});
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature: Signature = key.sign(input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
}

/// The JWKS entry of a public key.
pub fn jwk_of(key: &SigningKey, kid: &str) -> serde_json::Value {
    let point = key.verifying_key().to_encoded_point(false);
    json!({
        "kty": "EC",
        "alg": "ES256",
        "use": "sig",
        "crv": "P-256",
        "kid": kid,
        "x": URL_SAFE_NO_PAD.encode(point.x().expect("uncompressed point")),
        "y": URL_SAFE_NO_PAD.encode(point.y().expect("uncompressed point")),
    })
}

impl MockLine {
    pub fn new(channel_id: &str, access_token: &str) -> MockLine {
        let key = SigningKey::random(&mut rand::rngs::OsRng);
        let mut kid = [0u8; 16];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut kid);
        MockLine {
            key,
            kid: hex::encode(kid),
            channel_id: channel_id.to_string(),
            access_token: access_token.to_string(),
            users: Default::default(),
            messages: Default::default(),
            accepted_retry_keys: Default::default(),
            faults: Default::default(),
            webhook: None,
            bot_user_id: format!("U{}", random_hex(16)),
            login_token: String::new(),
            deauthorized: Default::default(),
        }
    }

    /// The LINE Login channel's token that `/user/v1/deauthorize` accepts.
    pub fn with_login_token(mut self, token: &str) -> MockLine {
        self.login_token = token.to_string();
        self
    }

    /// Lets `/webhook-events` deliver signed events to `url` (this server's /api/line/webhook).
    pub fn with_webhook(mut self, channel_secret: &str, url: String) -> MockLine {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .no_proxy()
            .build()
            .expect("building the mock's HTTP client");
        self.webhook = Some(WebhookTarget {
            secret: channel_secret.to_string(),
            url,
            http,
        });
        self
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub fn mint(&self, user: &MockUser, expires_in: i64, audience: Option<&str>) -> String {
        let now = now_secs();
        let iat = if expires_in <= 0 {
            now + expires_in - 3600
        } else {
            now
        };
        let mut claims = json!({
            "iss": LINE_ISSUER,
            "sub": user.user_id,
            "aud": audience.unwrap_or(&self.channel_id),
            "iat": iat,
            "exp": now + expires_in,
            "amr": ["linesso"],
            "name": user.display_name,
        });
        if let Some(picture) = &user.picture_url {
            claims["picture"] = json!(picture);
        }
        sign_es256(&self.key, &self.kid, &claims)
    }

    pub fn routes(self: Arc<Self>) -> impl poem::Endpoint {
        Route::new()
            .at("/users", post(put_user))
            .at("/users/:user_id", get(get_user))
            .at("/id-token", post(id_token))
            .at("/oauth2/v2.1/certs", get(certs))
            .at("/friendship/v1/status", get(friendship))
            .at("/v2/profile", get(profile))
            .at("/v2/bot/message/push", post(push))
            .at("/messages", get(messages))
            .at("/user/v1/deauthorize", post(deauthorize))
            .at("/deauthorized", get(deauthorized))
            .at("/push-failures", post(push_failures))
            .at("/push-delay", post(push_delay))
            .at("/webhook-events", post(webhook_events))
            .data(self)
    }
}

fn error(status: StatusCode, code: &str, cause: &str) -> Response {
    error_response(
        status,
        &ErrorBody {
            code: code.into(),
            cause: cause.into(),
            fields: None,
        },
    )
}

fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "E003", "no such mock LINE user")
}

#[handler]
fn put_user(mock: Data<&Arc<MockLine>>, body: poem::Result<Json<MockUser>>) -> Response {
    let Ok(Json(user)) = body else {
        return error(
            StatusCode::BAD_REQUEST,
            "E002",
            "expected {userId, displayName, pictureUrl?, friend}",
        );
    };
    if LineUserId::parse(&user.user_id).is_none() {
        return error(
            StatusCode::BAD_REQUEST,
            "E002",
            "userId must be U followed by 32 lowercase hex digits",
        );
    }
    mock.users
        .lock()
        .expect("mock users lock")
        .insert(user.user_id.clone(), user.clone());
    Json(user).into_response()
}

#[handler]
fn get_user(mock: Data<&Arc<MockLine>>, Path(user_id): Path<String>) -> Response {
    match mock.users.lock().expect("mock users lock").get(&user_id) {
        Some(user) => Json(user.clone()).into_response(),
        None => not_found(),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdTokenRequest {
    user_id: String,
    /// Test hook: seconds until expiry (default 3600; negative mints an expired token).
    #[serde(default)]
    expires_in: Option<i64>,
    /// Test hook: another audience than the channel id.
    #[serde(default)]
    audience: Option<String>,
}

#[handler]
fn id_token(mock: Data<&Arc<MockLine>>, body: poem::Result<Json<IdTokenRequest>>) -> Response {
    let Ok(Json(body)) = body else {
        return error(StatusCode::BAD_REQUEST, "E002", "expected {userId}");
    };
    let user = mock
        .users
        .lock()
        .expect("mock users lock")
        .get(&body.user_id)
        .cloned();
    match user {
        Some(user) => Json(json!({
            "idToken": mock.mint(&user, body.expires_in.unwrap_or(3600), body.audience.as_deref())
        }))
        .into_response(),
        None => not_found(),
    }
}

#[handler]
fn certs(mock: Data<&Arc<MockLine>>) -> Json<serde_json::Value> {
    Json(json!({"keys": [jwk_of(&mock.key, &mock.kid)]}))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UserQuery {
    user_id: String,
}

#[handler]
fn friendship(mock: Data<&Arc<MockLine>>, query: poem::Result<Query<UserQuery>>) -> Response {
    let Ok(Query(q)) = query else {
        return error(StatusCode::BAD_REQUEST, "E002", "expected ?userId=");
    };
    match mock.users.lock().expect("mock users lock").get(&q.user_id) {
        Some(user) => Json(json!({"friendFlag": user.friend})).into_response(),
        None => not_found(),
    }
}

#[handler]
fn profile(mock: Data<&Arc<MockLine>>, query: poem::Result<Query<UserQuery>>) -> Response {
    let Ok(Query(q)) = query else {
        return error(StatusCode::BAD_REQUEST, "E002", "expected ?userId=");
    };
    match mock.users.lock().expect("mock users lock").get(&q.user_id) {
        Some(user) => Json(json!({
            "userId": user.user_id,
            "displayName": user.display_name,
            "pictureUrl": user.picture_url,
        }))
        .into_response(),
        None => not_found(),
    }
}

#[derive(Deserialize)]
struct PushRequest {
    to: String,
    messages: serde_json::Value,
}

/// LINE's error body: `{message}`.
fn line_error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
}

#[handler]
async fn push(
    mock: Data<&Arc<MockLine>>,
    req: &Request,
    body: poem::Result<Json<PushRequest>>,
) -> Response {
    let expected = format!("Bearer {}", mock.access_token);
    let authorized = req
        .headers()
        .get(poem::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == expected);
    if !authorized {
        return error(
            StatusCode::UNAUTHORIZED,
            "E001A",
            "invalid channel access token",
        );
    }
    let retry_key = match req.headers().get("x-line-retry-key") {
        None => None,
        Some(v) => match v.to_str().ok().and_then(|k| uuid::Uuid::parse_str(k).ok()) {
            Some(key) => Some(key.hyphenated().to_string()),
            None => {
                return line_error(
                    StatusCode::BAD_REQUEST,
                    "The value for the 'X-Line-Retry-Key' header is invalid",
                );
            }
        },
    };
    let failure = {
        let mut faults = mock.faults.lock().expect("mock faults lock");
        (faults.fail_count > 0).then(|| {
            faults.fail_count -= 1;
            faults.fail_status
        })
    };
    if let Some(status) = failure {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return line_error(status, "Mock failure (POST /__mock/line/push-failures)");
    }
    let Ok(Json(body)) = body else {
        return error(StatusCode::BAD_REQUEST, "E002", "expected {to, messages}");
    };
    // LINE's limits (kizuna-core's `push`, with their source): what LINE would refuse, the mock
    // refuses with LINE's 400 `{message}`.
    if let Err(refusal) = kizuna_core::push::check_messages(&body.messages) {
        return line_error(StatusCode::BAD_REQUEST, &refusal.0);
    }
    let count = body.messages.as_array().map_or(0, Vec::len);
    if let Some(key) = &retry_key {
        let fresh = mock
            .accepted_retry_keys
            .lock()
            .expect("mock retry keys lock")
            .insert(key.clone());
        if !fresh {
            let mut answer = line_error(StatusCode::CONFLICT, "The retry key is already accepted");
            answer.headers_mut().insert(
                "x-line-accepted-request-id",
                key.parse().expect("a UUID header"),
            );
            return answer;
        }
    }
    mock.messages
        .lock()
        .expect("mock messages lock")
        .push(PushedMessage {
            to: body.to,
            messages: body.messages,
            at: now_secs(),
            retry_key,
        });
    let delay = {
        let mut faults = mock.faults.lock().expect("mock faults lock");
        (faults.delay_count > 0).then(|| {
            faults.delay_count -= 1;
            faults.delay
        })
    };
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    Json(json!({"sentMessages": (0..count).map(|i| json!({"id": format!("{}{i}", now_secs())})).collect::<Vec<_>>()}))
        .into_response()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PushFailures {
    count: u32,
    #[serde(default = "default_failure_status")]
    status: u16,
}

fn default_failure_status() -> u16 {
    500
}

#[handler]
fn push_failures(mock: Data<&Arc<MockLine>>, body: poem::Result<Json<PushFailures>>) -> Response {
    let Ok(Json(body)) = body else {
        return error(StatusCode::BAD_REQUEST, "E002", "expected {count, status}");
    };
    if !(400..=599).contains(&body.status) {
        return error(
            StatusCode::BAD_REQUEST,
            "E002",
            "status must be an HTTP error status (400 to 599)",
        );
    }
    let mut faults = mock.faults.lock().expect("mock faults lock");
    faults.fail_count = body.count;
    faults.fail_status = body.status;
    Json(json!({"count": body.count, "status": body.status})).into_response()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PushDelay {
    count: u32,
    delay_ms: u64,
}

#[handler]
fn push_delay(mock: Data<&Arc<MockLine>>, body: poem::Result<Json<PushDelay>>) -> Response {
    let Ok(Json(body)) = body else {
        return error(StatusCode::BAD_REQUEST, "E002", "expected {count, delayMs}");
    };
    let mut faults = mock.faults.lock().expect("mock faults lock");
    faults.delay_count = body.count;
    faults.delay = Duration::from_millis(body.delay_ms.min(120_000));
    Json(json!({"count": body.count, "delayMs": body.delay_ms})).into_response()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WebhookEventRequest {
    #[serde(rename = "type")]
    kind: String,
    user_id: String,
    /// LINE's event time (Unix ms); default now. An older one tests out-of-order delivery.
    #[serde(default)]
    timestamp: Option<i64>,
    /// Default: a fresh ULID-like id. Reusing one tests deduplication.
    #[serde(default)]
    webhook_event_id: Option<String>,
    #[serde(default)]
    is_redelivery: bool,
}

fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut b);
    hex::encode(b)
}

/// 26 characters of Crockford's base32, the shape of LINE's webhook event ids (ULIDs).
fn event_id() -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut b = [0u8; 26];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut b);
    b.iter()
        .map(|x| ALPHABET[(*x % 32) as usize] as char)
        .collect()
}

#[handler]
async fn webhook_events(
    mock: Data<&Arc<MockLine>>,
    body: poem::Result<Json<WebhookEventRequest>>,
) -> Response {
    let Ok(Json(request)) = body else {
        return error(
            StatusCode::BAD_REQUEST,
            "E002",
            "expected {type: follow|unfollow, userId, timestamp?, webhookEventId?, isRedelivery?}",
        );
    };
    let friend = match request.kind.as_str() {
        "follow" => true,
        "unfollow" => false,
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "E002",
                "type must be follow or unfollow",
            );
        }
    };
    if LineUserId::parse(&request.user_id).is_none() {
        return error(
            StatusCode::BAD_REQUEST,
            "E002",
            "userId must be U followed by 32 lowercase hex digits",
        );
    }
    let Some(target) = &mock.webhook else {
        return error(
            StatusCode::NOT_FOUND,
            "E003",
            "this mock has no webhook target",
        );
    };
    if let Some(user) = mock
        .users
        .lock()
        .expect("mock users lock")
        .get_mut(&request.user_id)
    {
        user.friend = friend;
    }
    let webhook_event_id = request.webhook_event_id.unwrap_or_else(event_id);
    let timestamp = request.timestamp.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    });
    let mut event = json!({
        "type": request.kind,
        "mode": "active",
        "timestamp": timestamp,
        "source": {"type": "user", "userId": request.user_id},
        "webhookEventId": webhook_event_id,
        "deliveryContext": {"isRedelivery": request.is_redelivery},
    });
    if friend {
        event["replyToken"] = json!(random_hex(16));
        event["follow"] = json!({"isUnblocked": false});
    }
    let sent = json!({"destination": mock.bot_user_id, "events": [event]}).to_string();
    let signature = crate::line::webhook::signature(&target.secret, sent.as_bytes());
    let delivered = target
        .http
        .post(&target.url)
        .header("content-type", "application/json")
        .header("x-line-signature", &signature)
        .body(sent.clone())
        .send()
        .await;
    let (status, answer) = match delivered {
        Ok(r) => {
            let status = r.status().as_u16();
            (
                status,
                r.json::<serde_json::Value>().await.unwrap_or_default(),
            )
        }
        Err(_) => (0, serde_json::Value::Null),
    };
    Json(json!({
        "webhookEventId": webhook_event_id,
        "body": sent,
        "signature": signature,
        "status": status,
        "answer": answer,
    }))
    .into_response()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct DeauthorizeRequest {
    user_access_token: String,
}

/// LINE's `POST /user/v1/deauthorize`: the LINE Login channel's token, then the user's access
/// token to revoke (recorded for `GET /deauthorized`).
#[handler]
fn deauthorize(
    mock: Data<&Arc<MockLine>>,
    req: &Request,
    body: poem::Result<Json<DeauthorizeRequest>>,
) -> Response {
    let expected = format!("Bearer {}", mock.login_token);
    let authorized = !mock.login_token.is_empty()
        && req
            .headers()
            .get(poem::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v == expected);
    if !authorized {
        return error(
            StatusCode::UNAUTHORIZED,
            "E001A",
            "invalid LINE Login channel access token",
        );
    }
    let Ok(Json(body)) = body else {
        return error(
            StatusCode::BAD_REQUEST,
            "E002",
            "expected {userAccessToken}",
        );
    };
    mock.deauthorized
        .lock()
        .expect("mock deauthorized lock")
        .push(body.user_access_token);
    StatusCode::NO_CONTENT.into_response()
}

#[handler]
fn deauthorized(mock: Data<&Arc<MockLine>>) -> Json<Vec<String>> {
    Json(
        mock.deauthorized
            .lock()
            .expect("mock deauthorized lock")
            .clone(),
    )
}

#[handler]
fn messages(mock: Data<&Arc<MockLine>>) -> Json<Vec<PushedMessage>> {
    Json(mock.messages.lock().expect("mock messages lock").clone())
}
