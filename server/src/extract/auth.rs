//! Who is calling, as operation parameters: each extractor authenticates the request and declares
//! its OpenAPI security scheme, so the document shows which operation needs which credential and
//! the handler receives the verified caller.
//!
//! Failures keep docs/design.md's codes: sessions answer 401 E001 (none), E001A (invalid) or E001B
//! (expired); a LINE ID token that is missing or fails verification answers 403 E004.

use kizuna_core::{access, review::ReviewStatus};
use poem::{Request, RequestBody};
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ExtractParamOptions,
    registry::{MetaSecurityScheme, Registry},
};

use crate::state::State;
use crate::{
    error::ApiError,
    identity::{
        Auth, ID_TOKEN_HEADER, LineIdentity, SESSION_COOKIE,
        session::{TokenSource, request_token},
    },
};

/// `Authorization: Bearer {session token}`.
pub const BEARER_SESSION: &str = "bearerSession";
/// The session token in the `kizuna_token` cookie (GET file fetches, so that `<img>` works).
pub const SESSION_COOKIE_SCHEME: &str = "sessionCookie";
/// A LINE ID token in `X-Line-Id-Token`.
pub const LINE_ID_TOKEN: &str = "lineIdToken";

fn register_bearer(registry: &mut Registry) {
    registry.create_security_scheme(
        BEARER_SESSION,
        MetaSecurityScheme {
            ty: "http",
            description: Some(
                "The session token of POST /user/login. Missing: 401 E001; unknown, revoked or \
                 malformed: 401 E001A; expired: 401 E001B. Every authenticated answer carries \
                 the renewed token in its `Authorization` header.",
            ),
            name: None,
            key_in: None,
            scheme: Some("bearer"),
            bearer_format: Some("43 base64url characters"),
            flows: None,
            openid_connect_url: None,
        },
    );
}

fn register_cookie(registry: &mut Registry) {
    registry.create_security_scheme(
        SESSION_COOKIE_SCHEME,
        MetaSecurityScheme {
            ty: "apiKey",
            description: Some(
                "The session token in the `kizuna_token` cookie, for GET file fetches from \
                 `<img>`; `Authorization` wins when both are sent.",
            ),
            name: Some(SESSION_COOKIE),
            key_in: Some("cookie"),
            scheme: None,
            bearer_format: None,
            flows: None,
            openid_connect_url: None,
        },
    );
}

fn register_id_token(registry: &mut Registry) {
    registry.create_security_scheme(
        LINE_ID_TOKEN,
        MetaSecurityScheme {
            ty: "apiKey",
            description: Some(
                "A LINE ID token (LIFF `getIDToken()`), verified against LINE's keys: ES256, \
                 issuer https://access.line.me, audience the channel id, not expired. Missing \
                 or invalid: 403 E004.",
            ),
            name: Some("X-Line-Id-Token"),
            key_in: Some("header"),
            scheme: None,
            bearer_format: None,
            flows: None,
            openid_connect_url: None,
        },
    );
}

fn state(req: &Request) -> Result<&State, ApiError> {
    req.data::<State>()
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the application state is missing")))
}

fn id_token_header(req: &Request) -> Option<&str> {
    req.headers()
        .get(ID_TOKEN_HEADER)
        .map(|v| v.to_str().unwrap_or_default())
}

async fn verify_id_token(req: &Request) -> Result<LineIdentity, ApiError> {
    Ok(state(req)?.verifier.verify(id_token_header(req)).await?)
}

/// Implements `ApiExtractor` for a security-scheme parameter: its schemes, what registers them,
/// and how a request yields it.
macro_rules! security_extractor {
    ($ty:ty, [$($scheme:expr),+], fallback = $fallback:expr, register = [$($register:path),+], $from:expr) => {
        impl<'a> ApiExtractor<'a> for $ty {
            const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];
            type ParamType = ();
            type ParamRawType = ();

            fn register(registry: &mut Registry) {
                $($register(registry);)+
            }

            fn security_schemes() -> Vec<&'static str> {
                vec![$($scheme),+]
            }

            fn has_security_fallback() -> bool {
                $fallback
            }

            async fn from_request(
                req: &'a Request,
                _body: &mut RequestBody,
                _param_opts: ExtractParamOptions<Self::ParamType>,
            ) -> poem::Result<Self> {
                Ok(($from)(req).await?)
            }
        }
    };
}

/// The caller, when they may use the service (`kizuna_core::access::may_use_service`): a
/// suspended member is 403 E004 everywhere but their own account.
pub fn in_service(auth: Auth) -> Result<Auth, ApiError> {
    let status = auth
        .profile
        .as_ref()
        .and_then(|p| ReviewStatus::parse(&p.status));
    if access::may_use_service(status) {
        Ok(auth)
    } else {
        Err(ApiError::Forbidden(
            "your account is suspended: your profile says why; you can still sign out".into(),
        ))
    }
}

/// The caller's session, from `Authorization: Bearer` only; a suspended member's is refused
/// ([`in_service`]).
pub struct Session(pub Auth);

security_extractor!(
    Session,
    [BEARER_SESSION],
    fallback = false,
    register = [register_bearer],
    |req| async move {
        let auth = state(req)?
            .sessions
            .authenticate(req, TokenSource::Header)
            .await?;
        Ok::<_, ApiError>(Session(in_service(auth)?))
    }
);

/// The caller's session for their own account (their information, signing out), a suspended
/// member's included, from `Authorization: Bearer` only.
pub struct AccountSession(pub Auth);

security_extractor!(
    AccountSession,
    [BEARER_SESSION],
    fallback = false,
    register = [register_bearer],
    |req| async move {
        let auth = state(req)?
            .sessions
            .authenticate(req, TokenSource::Header)
            .await?;
        Ok::<_, ApiError>(AccountSession(auth))
    }
);

/// A reviewer's session, from `Authorization: Bearer`: a member's answers 403 E004. The role is
/// read from the reviewers list on every call (never from the client).
pub struct Reviewer(pub Auth);

security_extractor!(
    Reviewer,
    [BEARER_SESSION],
    fallback = false,
    register = [register_bearer],
    |req| async move {
        let auth = state(req)?
            .sessions
            .authenticate(req, TokenSource::Header)
            .await?;
        if !auth.reviewer {
            return Err(ApiError::Forbidden("only reviewers may do this".into()));
        }
        Ok::<_, ApiError>(Reviewer(auth))
    }
);

/// The caller's session from `Authorization: Bearer` or, failing that, the `kizuna_token` cookie.
pub struct SessionOrCookie(pub Auth);

security_extractor!(
    SessionOrCookie,
    [BEARER_SESSION, SESSION_COOKIE_SCHEME],
    fallback = false,
    register = [register_bearer, register_cookie],
    |req| async move {
        let auth = state(req)?
            .sessions
            .authenticate(req, TokenSource::HeaderOrCookie)
            .await?;
        Ok::<_, ApiError>(SessionOrCookie(in_service(auth)?))
    }
);

/// The caller's session from `Authorization: Bearer` or the `kizuna_token` cookie, a suspended
/// member's included (file fetches: `access::file` lets them have only their own files).
pub struct AccountSessionOrCookie(pub Auth);

security_extractor!(
    AccountSessionOrCookie,
    [BEARER_SESSION, SESSION_COOKIE_SCHEME],
    fallback = false,
    register = [register_bearer, register_cookie],
    |req| async move {
        let auth = state(req)?
            .sessions
            .authenticate(req, TokenSource::HeaderOrCookie)
            .await?;
        Ok::<_, ApiError>(AccountSessionOrCookie(auth))
    }
);

/// The LINE user a verified ID token speaks for.
pub struct LineUser(pub LineIdentity);

security_extractor!(
    LineUser,
    [LINE_ID_TOKEN],
    fallback = false,
    register = [register_id_token],
    |req| async move { Ok::<_, ApiError>(LineUser(verify_id_token(req).await?)) }
);

/// The LINE user id of the caller: from the ID token when one is sent (a bad one is refused, never
/// passed over for the session), else from a session of the same user.
pub struct LineUserOrSession(pub String);

security_extractor!(
    LineUserOrSession,
    [LINE_ID_TOKEN, BEARER_SESSION],
    fallback = false,
    register = [register_id_token, register_bearer],
    |req| async move {
        if id_token_header(req).is_some() {
            let identity = verify_id_token(req).await?;
            return Ok(LineUserOrSession(identity.user_id.as_str().to_string()));
        }
        match state(req)?
            .sessions
            .authenticate(req, TokenSource::Header)
            .await
        {
            Ok(auth) => Ok(LineUserOrSession(auth.user.line_user_id)),
            Err(ApiError::NoSession) => Err(ApiError::Forbidden("no LINE ID token".into())),
            Err(other) => Err(other),
        }
    }
);

/// The session token a request carries, unchecked (None without one, or with a malformed
/// `Authorization`): for calls that work without a session and only use it to tell callers apart.
pub struct OptionalSessionToken(pub Option<String>);

security_extractor!(
    OptionalSessionToken,
    [BEARER_SESSION],
    fallback = true,
    register = [register_bearer],
    |req| async move {
        Ok::<_, ApiError>(OptionalSessionToken(
            request_token(req, TokenSource::Header).ok().flatten(),
        ))
    }
);
