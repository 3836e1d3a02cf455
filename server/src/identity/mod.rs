//! Who is calling: LINE ID tokens (verified against LINE's JWKS) and our own sessions.

pub mod ends;
pub mod id_token;
pub mod session;
pub mod session_cache;

pub use id_token::{IdTokenError, LineIdentity, LineVerifier};
pub use session::{Auth, SessionStore};

/// The header that carries a LINE ID token on the public calls that speak for a LINE user.
pub const ID_TOKEN_HEADER: &str = "x-line-id-token";
/// The cookie that may carry the session token on GET requests for files (so that `<img>` works).
pub const SESSION_COOKIE: &str = "kizuna_token";
