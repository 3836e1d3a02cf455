//! LINE ID token verification: ES256 only, the key chosen by `kid` from the JWKS at
//! `{KIZUNA_LINE_API_BASE}/oauth2/v2.1/certs` (cached; fetched again once on an unknown kid, at most
//! every 30 s), `iss` = https://access.line.me, `aud` = the channel id, `exp` in the future, `sub` a
//! LINE user id. Anything else is refused.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use anyhow::Context;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use kizuna_core::line::LineUserId;
use p256::ecdsa::{Signature, VerifyingKey, signature::Verifier};
use serde::Deserialize;
use tokio::sync::{Mutex, RwLock};

use crate::{clock::now_secs, error::ApiError};

pub const LINE_ISSUER: &str = "https://access.line.me";
const MAX_TOKEN_LEN: usize = 8 * 1024;
const REFETCH_MIN_INTERVAL: Duration = Duration::from_secs(30);
const CACHE_TTL: Duration = Duration::from_secs(6 * 3600);
/// Accepted clock skew for `iat`.
const IAT_LEEWAY_SECS: i64 = 300;

#[derive(Debug, thiserror::Error)]
pub enum IdTokenError {
    #[error("no LINE ID token")]
    Missing,
    #[error("the ID token is not a JWT")]
    Malformed,
    #[error("the ID token's algorithm is not ES256")]
    Algorithm,
    #[error("the ID token's key id is unknown")]
    UnknownKey,
    #[error("the ID token's signature is invalid")]
    Signature,
    #[error("the ID token's issuer is wrong")]
    Issuer,
    #[error("the ID token is for another channel")]
    Audience,
    #[error("the ID token has expired")]
    Expired,
    #[error("the ID token's subject is not a LINE user id")]
    Subject,
    #[error("the LINE key set could not be fetched")]
    KeySet(#[source] anyhow::Error),
}

impl From<IdTokenError> for ApiError {
    fn from(err: IdTokenError) -> ApiError {
        match err {
            IdTokenError::KeySet(e) => ApiError::Internal(e),
            other => ApiError::Forbidden(format!("Invalid ID_TOKEN: {other}")),
        }
    }
}

/// The verified identity an ID token speaks for.
#[derive(Debug, Clone)]
pub struct LineIdentity {
    pub user_id: LineUserId,
    pub name: Option<String>,
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    kid: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
struct Claims {
    iss: String,
    sub: String,
    aud: Audience,
    exp: i64,
    iat: Option<i64>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct Jwks {
    keys: Vec<Jwk>,
}

#[derive(Deserialize)]
struct Jwk {
    kty: String,
    kid: Option<String>,
    crv: Option<String>,
    x: Option<String>,
    y: Option<String>,
}

struct KeyCache {
    keys: HashMap<String, VerifyingKey>,
    fetched_at: Option<Instant>,
}

pub struct LineVerifier {
    http: reqwest::Client,
    certs_url: String,
    channel_id: String,
    cache: RwLock<KeyCache>,
    refetch: Mutex<()>,
}

impl LineVerifier {
    pub fn new(http: reqwest::Client, api_base: &str, channel_id: &str) -> LineVerifier {
        LineVerifier {
            http,
            certs_url: format!("{}/oauth2/v2.1/certs", api_base.trim_end_matches('/')),
            channel_id: channel_id.to_string(),
            cache: RwLock::new(KeyCache {
                keys: HashMap::new(),
                fetched_at: None,
            }),
            refetch: Mutex::new(()),
        }
    }

    pub async fn verify(&self, token: Option<&str>) -> Result<LineIdentity, IdTokenError> {
        let token = token
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or(IdTokenError::Missing)?;
        if token.len() > MAX_TOKEN_LEN {
            return Err(IdTokenError::Malformed);
        }
        let mut parts = token.split('.');
        let (Some(h), Some(p), Some(s), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(IdTokenError::Malformed);
        };
        let header: Header = decode_json(h)?;
        if header.alg != "ES256" {
            return Err(IdTokenError::Algorithm);
        }
        let kid = header.kid.ok_or(IdTokenError::UnknownKey)?;
        let key = self.key(&kid).await?;
        let sig_bytes = URL_SAFE_NO_PAD
            .decode(s)
            .map_err(|_| IdTokenError::Malformed)?;
        let signature = Signature::from_slice(&sig_bytes).map_err(|_| IdTokenError::Signature)?;
        let signing_input = &token[..h.len() + 1 + p.len()];
        key.verify(signing_input.as_bytes(), &signature)
            .map_err(|_| IdTokenError::Signature)?;

        let claims: Claims = decode_json(p)?;
        if claims.iss != LINE_ISSUER {
            return Err(IdTokenError::Issuer);
        }
        let aud_ok = match &claims.aud {
            Audience::One(a) => *a == self.channel_id,
            Audience::Many(list) => list.contains(&self.channel_id),
        };
        if !aud_ok {
            return Err(IdTokenError::Audience);
        }
        let now = now_secs();
        if claims.exp <= now {
            return Err(IdTokenError::Expired);
        }
        if claims.iat.is_some_and(|iat| iat > now + IAT_LEEWAY_SECS) {
            return Err(IdTokenError::Expired);
        }
        let user_id = LineUserId::parse(&claims.sub).ok_or(IdTokenError::Subject)?;
        Ok(LineIdentity {
            user_id,
            name: claims.name,
        })
    }

    async fn key(&self, kid: &str) -> Result<VerifyingKey, IdTokenError> {
        {
            let cache = self.cache.read().await;
            let fresh = cache.fetched_at.is_some_and(|t| t.elapsed() < CACHE_TTL);
            if let Some(key) = cache.keys.get(kid)
                && fresh
            {
                return Ok(*key);
            }
        }
        // Unknown kid (or a stale cache): fetch once, serialised, and not more than every 30 s.
        let _guard = self.refetch.lock().await;
        {
            let cache = self.cache.read().await;
            let fresh = cache.fetched_at.is_some_and(|t| t.elapsed() < CACHE_TTL);
            if let Some(key) = cache.keys.get(kid)
                && fresh
            {
                return Ok(*key);
            }
            if cache
                .fetched_at
                .is_some_and(|t| t.elapsed() < REFETCH_MIN_INTERVAL)
            {
                return cache.keys.get(kid).copied().ok_or(IdTokenError::UnknownKey);
            }
        }
        let keys = self.fetch().await.map_err(IdTokenError::KeySet)?;
        let mut cache = self.cache.write().await;
        cache.keys = keys;
        cache.fetched_at = Some(Instant::now());
        cache.keys.get(kid).copied().ok_or(IdTokenError::UnknownKey)
    }

    async fn fetch(&self) -> anyhow::Result<HashMap<String, VerifyingKey>> {
        let jwks: Jwks = self
            .http
            .get(&self.certs_url)
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .context("requesting the LINE JWKS")?
            .error_for_status()
            .context("the LINE JWKS answered an error")?
            .json()
            .await
            .context("decoding the LINE JWKS")?;
        let mut keys = HashMap::new();
        for jwk in jwks.keys {
            if jwk.kty != "EC" || jwk.crv.as_deref() != Some("P-256") {
                continue;
            }
            let (Some(kid), Some(x), Some(y)) = (jwk.kid, jwk.x, jwk.y) else {
                continue;
            };
            if let Some(key) = ec_key(&x, &y) {
                keys.insert(kid, key);
            }
        }
        tracing::info!(keys = keys.len(), "fetched the LINE key set");
        Ok(keys)
    }
}

/// A P-256 public key from a JWK's base64url `x` and `y`.
pub fn ec_key(x: &str, y: &str) -> Option<VerifyingKey> {
    let x = URL_SAFE_NO_PAD.decode(x).ok()?;
    let y = URL_SAFE_NO_PAD.decode(y).ok()?;
    if x.len() != 32 || y.len() != 32 {
        return None;
    }
    let mut point = Vec::with_capacity(65);
    point.push(4);
    point.extend_from_slice(&x);
    point.extend_from_slice(&y);
    VerifyingKey::from_sec1_bytes(&point).ok()
}

fn decode_json<T: serde::de::DeserializeOwned>(part: &str) -> Result<T, IdTokenError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| IdTokenError::Malformed)?;
    serde_json::from_slice(&bytes).map_err(|_| IdTokenError::Malformed)
}
