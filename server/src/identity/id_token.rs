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
/// How long after its last successful fetch a key still verifies while LINE's key set cannot be
/// fetched.
const MAX_STALENESS: Duration = Duration::from_secs(3 * 24 * 3600);
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
    /// The last successful fetch.
    fetched_at: Option<Instant>,
    /// The last fetch, successful or not, and whether it failed.
    attempted_at: Option<Instant>,
    failed: bool,
}

pub struct LineVerifier {
    http: reqwest::Client,
    certs_url: String,
    channel_id: String,
    cache: RwLock<KeyCache>,
    refetch: Mutex<()>,
    cache_ttl: Duration,
    refetch_interval: Duration,
    max_staleness: Duration,
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
                attempted_at: None,
                failed: false,
            }),
            refetch: Mutex::new(()),
            cache_ttl: CACHE_TTL,
            refetch_interval: REFETCH_MIN_INTERVAL,
            max_staleness: MAX_STALENESS,
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
        let known = {
            let cache = self.cache.read().await;
            let age = cache.fetched_at.map(|t| t.elapsed());
            match (cache.keys.get(kid), age) {
                (Some(key), Some(age)) if age < self.cache_ttl => return Ok(*key),
                // Stale but not too stale: good while LINE cannot be asked (below).
                (Some(key), Some(age)) if age < self.max_staleness => Some(*key),
                _ => None,
            }
        };
        // Fetch once, serialised, and not more than every 30 s whatever the outcome, so that
        // tokens with made-up kids cannot make us hammer LINE. A caller holding a known key never
        // queues behind a fetch in flight (up to its 10 s timeout while LINE is down).
        let _guard = match (known, self.refetch.try_lock()) {
            (_, Ok(guard)) => guard,
            (Some(key), Err(_)) => return Ok(key),
            (None, Err(_)) => self.refetch.lock().await,
        };
        {
            let cache = self.cache.read().await;
            let fresh = cache
                .fetched_at
                .is_some_and(|t| t.elapsed() < self.cache_ttl);
            if let Some(key) = cache.keys.get(kid)
                && fresh
            {
                return Ok(*key);
            }
            if cache
                .attempted_at
                .is_some_and(|t| t.elapsed() < self.refetch_interval)
            {
                return match (known, cache.keys.get(kid)) {
                    (Some(key), _) => Ok(key),
                    (None, Some(key)) if !cache.failed => Ok(*key),
                    (None, _) if cache.failed => Err(IdTokenError::KeySet(anyhow::anyhow!(
                        "the LINE key set was unreachable moments ago"
                    ))),
                    (None, _) => Err(IdTokenError::UnknownKey),
                };
            }
        }
        let fetched = self.fetch().await;
        let mut cache = self.cache.write().await;
        cache.attempted_at = Some(Instant::now());
        match fetched {
            Ok(keys) => {
                cache.keys = keys;
                cache.fetched_at = cache.attempted_at;
                cache.failed = false;
                cache.keys.get(kid).copied().ok_or(IdTokenError::UnknownKey)
            }
            Err(err) => {
                cache.failed = true;
                // LINE rotates its keys rarely: while its key set cannot be fetched, a key we
                // fetched within `max_staleness` still verifies the tokens it signed. Older keys
                // are not trusted: LINE may have withdrawn them meanwhile.
                match known {
                    Some(key) => {
                        tracing::warn!(error = ?err, "the LINE key set could not be refreshed; using the cached keys");
                        Ok(key)
                    }
                    None => Err(IdTokenError::KeySet(err)),
                }
            }
        }
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

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc, Mutex as StdMutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    };

    use p256::ecdsa::SigningKey;
    use poem::{
        EndpointExt, IntoResponse, Response, Route, Server, get, handler,
        http::StatusCode,
        listener::{Acceptor, Listener, TcpListener},
        web::{Data, Json},
    };
    use serde_json::{Value, json};

    use super::*;
    use crate::mock_line::{jwk_of, sign_es256};

    const CHANNEL: &str = "1234567890";
    const USER: &str = "U0123456789abcdef0123456789abcdef";

    /// A stand-in for LINE's JWKS endpoint that counts its requests and can go down.
    #[derive(Default)]
    struct KeySet {
        keys: StdMutex<Vec<Value>>,
        requests: AtomicUsize,
        down: AtomicBool,
    }

    #[handler]
    fn certs(set: Data<&Arc<KeySet>>) -> Response {
        set.requests.fetch_add(1, Ordering::SeqCst);
        if set.down.load(Ordering::SeqCst) {
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
        Json(json!({"keys": *set.keys.lock().unwrap()})).into_response()
    }

    async fn line(set: Arc<KeySet>) -> String {
        let acceptor = TcpListener::bind("127.0.0.1:0")
            .into_acceptor()
            .await
            .unwrap();
        let addr = acceptor.local_addr()[0].as_socket_addr().copied().unwrap();
        let app = Route::new().at("/oauth2/v2.1/certs", get(certs)).data(set);
        tokio::spawn(Server::new_with_acceptor(acceptor).run(app));
        format!("http://{addr}")
    }

    fn verifier(base: &str) -> LineVerifier {
        LineVerifier::new(reqwest::Client::new(), base, CHANNEL)
    }

    fn claims() -> Value {
        let now = now_secs();
        json!({"iss": LINE_ISSUER, "sub": USER, "aud": CHANNEL, "iat": now, "exp": now + 600})
    }

    fn key_with_kid(set: &KeySet, kid: &str) -> SigningKey {
        let key = SigningKey::random(&mut rand::rngs::OsRng);
        set.keys.lock().unwrap().push(jwk_of(&key, kid));
        key
    }

    #[tokio::test]
    async fn a_genuine_token_speaks_for_its_subject() {
        let set = Arc::new(KeySet::default());
        let key = key_with_kid(&set, "k1");
        let v = verifier(&line(set.clone()).await);
        let who = v
            .verify(Some(&sign_es256(&key, "k1", &claims())))
            .await
            .unwrap();
        assert_eq!(who.user_id.as_str(), USER);
    }

    #[tokio::test]
    async fn every_claim_is_checked() {
        let set = Arc::new(KeySet::default());
        let key = key_with_kid(&set, "k1");
        let v = verifier(&line(set.clone()).await);
        let with = |field: &str, value: Value| {
            let mut c = claims();
            c[field] = value;
            sign_es256(&key, "k1", &c)
        };
        let cases = [
            (
                "wrong issuer",
                with("iss", json!("https://evil.example")),
                "issuer",
            ),
            (
                "other channel",
                with("aud", json!("999")),
                "another channel",
            ),
            (
                "audience list without us",
                with("aud", json!(["1", "2"])),
                "another channel",
            ),
            ("expired", with("exp", json!(now_secs() - 1)), "expired"),
            (
                "issued in the future",
                with("iat", json!(now_secs() + 3600)),
                "expired",
            ),
            (
                "subject not a LINE id",
                with("sub", json!("admin")),
                "subject",
            ),
            (
                "subject upper-case",
                with("sub", json!(USER.to_uppercase())),
                "subject",
            ),
        ];
        for (what, token, expected) in cases {
            let err = v.verify(Some(&token)).await.unwrap_err();
            assert!(err.to_string().contains(expected), "{what}: {err}");
        }
        // An audience list that names the channel is fine (OIDC allows several).
        assert!(
            v.verify(Some(&with("aud", json!(["1", CHANNEL]))))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn headers_other_than_es256_with_a_kid_are_refused() {
        let set = Arc::new(KeySet::default());
        let key = key_with_kid(&set, "k1");
        let v = verifier(&line(set.clone()).await);
        let genuine = sign_es256(&key, "k1", &claims());
        let (_, rest) = genuine.split_once('.').unwrap();
        let header = |h: Value| format!("{}.{rest}", URL_SAFE_NO_PAD.encode(h.to_string()));
        for (what, token) in [
            ("no kid", header(json!({"alg": "ES256"}))),
            ("RS256", header(json!({"alg": "RS256", "kid": "k1"}))),
            ("none", header(json!({"alg": "none", "kid": "k1"}))),
        ] {
            assert!(v.verify(Some(&token)).await.is_err(), "{what}");
        }
        assert!(matches!(v.verify(None).await, Err(IdTokenError::Missing)));
        let huge = "a".repeat(MAX_TOKEN_LEN + 1);
        assert!(matches!(
            v.verify(Some(&huge)).await,
            Err(IdTokenError::Malformed)
        ));
    }

    #[tokio::test]
    async fn a_rotated_key_is_fetched_once_and_made_up_kids_fetch_nothing_more() {
        let set = Arc::new(KeySet::default());
        let old = key_with_kid(&set, "old");
        let v = verifier(&line(set.clone()).await);
        v.verify(Some(&sign_es256(&old, "old", &claims())))
            .await
            .unwrap();
        assert_eq!(set.requests.load(Ordering::SeqCst), 1);

        // LINE publishes a new key; the first token signed with it triggers one refetch.
        let new = key_with_kid(&set, "new");
        let mut v = v;
        v.refetch_interval = Duration::ZERO;
        v.verify(Some(&sign_es256(&new, "new", &claims())))
            .await
            .unwrap();
        assert_eq!(set.requests.load(Ordering::SeqCst), 2);
        v.verify(Some(&sign_es256(&new, "new", &claims())))
            .await
            .unwrap();
        assert_eq!(set.requests.load(Ordering::SeqCst), 2, "cached now");

        // Tokens with invented kids: at most one fetch per interval, however many arrive.
        v.refetch_interval = Duration::from_secs(30);
        let stranger = SigningKey::random(&mut rand::rngs::OsRng);
        for i in 0..20 {
            let token = sign_es256(&stranger, &format!("made-up-{i}"), &claims());
            assert!(matches!(
                v.verify(Some(&token)).await,
                Err(IdTokenError::UnknownKey)
            ));
        }
        assert_eq!(set.requests.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn while_line_is_down_known_keys_still_verify_and_unknown_ones_fail_fast() {
        let set = Arc::new(KeySet::default());
        let key = key_with_kid(&set, "k1");
        let mut v = verifier(&line(set.clone()).await);
        v.verify(Some(&sign_es256(&key, "k1", &claims())))
            .await
            .unwrap();

        set.down.store(true, Ordering::SeqCst);
        // The cache has gone stale and LINE does not answer: the known key still works.
        v.cache_ttl = Duration::ZERO;
        v.refetch_interval = Duration::ZERO;
        let before = set.requests.load(Ordering::SeqCst);
        v.verify(Some(&sign_es256(&key, "k1", &claims())))
            .await
            .unwrap();
        let after_failure = set.requests.load(Ordering::SeqCst);
        assert_eq!(after_failure, before + 1, "it did ask LINE");
        v.refetch_interval = Duration::from_secs(30);
        // An unknown kid is an outage on our side (E500), answered without asking LINE again.
        let stranger = SigningKey::random(&mut rand::rngs::OsRng);
        for _ in 0..5 {
            let token = sign_es256(&stranger, "k2", &claims());
            let err = v.verify(Some(&token)).await.unwrap_err();
            assert!(matches!(err, IdTokenError::KeySet(_)), "{err}");
            assert_eq!(ApiError::from(err).code().as_str(), "E500");
        }
        assert_eq!(set.requests.load(Ordering::SeqCst), after_failure);

        // Past the staleness limit even a known key is refused while LINE cannot confirm it.
        v.max_staleness = Duration::ZERO;
        v.refetch_interval = Duration::ZERO;
        let err = v
            .verify(Some(&sign_es256(&key, "k1", &claims())))
            .await
            .unwrap_err();
        assert!(matches!(err, IdTokenError::KeySet(_)), "{err}");
        // And once LINE answers again, all is well.
        set.down.store(false, Ordering::SeqCst);
        v.max_staleness = MAX_STALENESS;
        v.verify(Some(&sign_es256(&key, "k1", &claims())))
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_known_key_does_not_wait_for_a_fetch_in_flight() {
        let set = Arc::new(KeySet::default());
        let key = key_with_kid(&set, "k1");
        let mut v = verifier(&line(set.clone()).await);
        v.verify(Some(&sign_es256(&key, "k1", &claims())))
            .await
            .unwrap();
        v.cache_ttl = Duration::ZERO;
        // Someone else is fetching (and LINE is slow): the stale key answers at once.
        let _fetching = v.refetch.lock().await;
        let token = sign_es256(&key, "k1", &claims());
        let answer = tokio::time::timeout(Duration::from_millis(500), v.verify(Some(&token))).await;
        assert!(answer.expect("no waiting").is_ok());
    }
}
