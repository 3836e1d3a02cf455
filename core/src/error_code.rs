//! The API's error codes (docs/design.md): one catalogue for the server's answers and the client's toasts.
//!
//! ```
//! use kizuna_core::error_code::ErrorCode;
//!
//! assert_eq!(ErrorCode::parse("E002"), Some(ErrorCode::E002));
//! assert_eq!(ErrorCode::E007.http_status(), 429);
//! assert!(ErrorCode::E001B.clears_session());
//! ```

use serde::{Deserialize, Serialize};

/// An error code of the API's answers (`{code, cause, fields?}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum ErrorCode {
    /// No session token.
    E001,
    /// Session token invalid: unknown, revoked or malformed.
    E001A,
    /// Session token expired.
    E001B,
    /// Malformed body or failed validation.
    E002,
    /// Not found, also for things that exist but are not the caller's.
    E003,
    /// Forbidden: ID token invalid or for another user, or not allowed in this state.
    E004,
    /// Conflict, such as a profile that already exists.
    E005,
    /// File too large, unsupported or undecodable.
    E006,
    /// Rate limited.
    E007,
    /// Internal error; the cause never leaks internals.
    E500,
    /// Temporarily unavailable (the database cannot be reached): retry after the answer's
    /// `Retry-After` seconds.
    E503,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 11] = [
        ErrorCode::E001,
        ErrorCode::E001A,
        ErrorCode::E001B,
        ErrorCode::E002,
        ErrorCode::E003,
        ErrorCode::E004,
        ErrorCode::E005,
        ErrorCode::E006,
        ErrorCode::E007,
        ErrorCode::E500,
        ErrorCode::E503,
    ];

    /// The wire code (`"E002"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::E001 => "E001",
            ErrorCode::E001A => "E001A",
            ErrorCode::E001B => "E001B",
            ErrorCode::E002 => "E002",
            ErrorCode::E003 => "E003",
            ErrorCode::E004 => "E004",
            ErrorCode::E005 => "E005",
            ErrorCode::E006 => "E006",
            ErrorCode::E007 => "E007",
            ErrorCode::E500 => "E500",
            ErrorCode::E503 => "E503",
        }
    }

    /// The usual status. E002 answers 400 for a malformed body and 422 for failed validation, and
    /// E006 413 for a file too large and 415 otherwise: those callers pick the specific status.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::E001 | ErrorCode::E001A | ErrorCode::E001B => 401,
            ErrorCode::E002 => 400,
            ErrorCode::E003 => 404,
            ErrorCode::E004 => 403,
            ErrorCode::E005 => 409,
            ErrorCode::E006 => 415,
            ErrorCode::E007 => 429,
            ErrorCode::E500 => 500,
            ErrorCode::E503 => 503,
        }
    }

    /// Session errors make the client drop its stored token: the token is unknown, revoked or
    /// expired, so sending it again cannot succeed (a missing token, E001, has nothing to drop).
    pub fn clears_session(self) -> bool {
        matches!(self, ErrorCode::E001A | ErrorCode::E001B)
    }

    /// The codes that clear the session ([`ErrorCode::clears_session`]), for the web's client.
    pub fn session_clearing() -> Vec<ErrorCode> {
        ErrorCode::ALL
            .into_iter()
            .filter(|code| code.clears_session())
            .collect()
    }

    /// The code of a wire code, if there is one.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_string() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }

    #[test]
    fn only_invalid_and_expired_sessions_clear_the_token() {
        assert_eq!(
            ErrorCode::session_clearing(),
            [ErrorCode::E001A, ErrorCode::E001B]
        );
    }
}
