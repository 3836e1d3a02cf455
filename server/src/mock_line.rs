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
//! | POST /v2/bot/message/push {to, messages} | records a push (Bearer channel access token) |
//! | GET /messages | every recorded push |

use std::{collections::HashMap, sync::Arc};

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
}

pub struct MockLine {
    key: SigningKey,
    kid: String,
    channel_id: String,
    access_token: String,
    users: std::sync::Mutex<HashMap<String, MockUser>>,
    messages: std::sync::Mutex<Vec<PushedMessage>>,
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
        }
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

#[handler]
fn push(
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
    let Ok(Json(body)) = body else {
        return error(StatusCode::BAD_REQUEST, "E002", "expected {to, messages}");
    };
    let count = body.messages.as_array().map_or(0, Vec::len);
    if !(1..=5).contains(&count) {
        return error(
            StatusCode::BAD_REQUEST,
            "E002",
            "Number of messages should be in range 1 to 5.",
        );
    }
    mock.messages
        .lock()
        .expect("mock messages lock")
        .push(PushedMessage {
            to: body.to,
            messages: body.messages,
            at: now_secs(),
        });
    Json(json!({})).into_response()
}

#[handler]
fn messages(mock: Data<&Arc<MockLine>>) -> Json<Vec<PushedMessage>> {
    Json(mock.messages.lock().expect("mock messages lock").clone())
}
