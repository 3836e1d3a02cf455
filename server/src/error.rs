//! The API boundary's error: every failure a handler can answer, mapped to the
//! `{code, cause, fields?}` JSON of docs/design.md with the status of
//! `kizuna_core::error_code::ErrorCode`.
//!
//! Other boundaries (storage, identity, images) have their own error enums and convert into this one;
//! `Internal` carries an `anyhow` chain that is logged, never sent. That chain decides between
//! E500 and E503: when it shows the database cannot be reached (`storage::is_unavailable`), the
//! answer is 503 with `Retry-After`, whoever built the error and however it travelled here.

use std::collections::BTreeMap;

use kizuna_core::error_code::ErrorCode;
use poem::{Response, http::StatusCode};
use poem_openapi::{
    ApiResponse, Object,
    registry::{MetaHeader, MetaMediaType, MetaResponse, MetaResponses, Registry},
    types::ToJSON,
};

/// The body of every error answer.
#[derive(Debug, Clone, Object, serde::Serialize, serde::Deserialize)]
pub struct ErrorBody {
    /// E001, E001A, E001B, E002, E003, E004, E005, E006, E007, E500 or E503 (docs/design.md).
    pub code: String,
    /// A human-readable cause, never internals.
    pub cause: String,
    /// For E002 validation failures: each failing field with its kizuna-core rule codes.
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<BTreeMap<String, Vec<String>>>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no session token")]
    NoSession,
    #[error("session token invalid")]
    InvalidSession,
    #[error("session token expired")]
    ExpiredSession,
    #[error("{0}")]
    BadRequest(String),
    #[error("{cause}")]
    Validation {
        cause: String,
        fields: BTreeMap<String, Vec<String>>,
    },
    /// A body of the wrong shape (wrong types, unknown fields): 400 with `fields`.
    #[error("{cause}")]
    BadFields {
        cause: String,
        fields: BTreeMap<String, Vec<String>>,
    },
    #[error("not found")]
    NotFound,
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Conflict(String),
    /// 409 E005 whose `fields` say which conflict, for a client that answers it with a screen of
    /// its own (a like held for the conversations waiting on the caller: `yourTurn`).
    #[error("{cause}")]
    ConflictFields {
        cause: String,
        fields: BTreeMap<String, Vec<String>>,
    },
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("too many requests")]
    RateLimited,
    /// 429 E007 with its own cause and, when a wait is known, a `Retry-After` (seconds).
    #[error("{cause}")]
    Throttled {
        cause: String,
        retry_after: Option<u64>,
    },
    /// 503 E503 with its own cause and `Retry-After` (seconds): a bounded resource of this
    /// process is taken (the uploads in flight, a client's requests in flight behind the trusted
    /// proxy), so the request was refused without being read.
    #[error("{cause}")]
    Busy { cause: String, retry_after: u64 },
    /// Anything unexpected: E500, or E503 while the database cannot be reached.
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

/// Seconds a client is asked to wait (`Retry-After`) before it retries an E503 answer: about
/// what a PostgreSQL restart takes.
pub const RETRY_AFTER_SECS: u32 = 5;

/// The cause sent with E503.
pub const UNAVAILABLE_CAUSE: &str =
    "the service is temporarily unavailable; retry in a few seconds";

impl From<anyhow::Error> for ApiError {
    fn from(err: anyhow::Error) -> Self {
        ApiError::Internal(err)
    }
}

impl From<crate::storage::StorageError> for ApiError {
    fn from(err: crate::storage::StorageError) -> Self {
        use crate::storage::StorageError;
        match err {
            StorageError::Duplicate => ApiError::Conflict("it exists already".into()),
            StorageError::Unreadable(column) => {
                ApiError::Internal(anyhow::anyhow!("stored data is unreadable: {column}"))
            }
            StorageError::Db(err) => ApiError::Internal(err),
        }
    }
}

impl ApiError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::NoSession => ErrorCode::E001,
            ApiError::InvalidSession => ErrorCode::E001A,
            ApiError::ExpiredSession => ErrorCode::E001B,
            ApiError::BadRequest(_) | ApiError::BadFields { .. } | ApiError::Validation { .. } => {
                ErrorCode::E002
            }
            ApiError::NotFound => ErrorCode::E003,
            ApiError::Forbidden(_) => ErrorCode::E004,
            ApiError::Conflict(_) | ApiError::ConflictFields { .. } => ErrorCode::E005,
            ApiError::TooLarge(_) | ApiError::Unsupported(_) => ErrorCode::E006,
            ApiError::RateLimited | ApiError::Throttled { .. } => ErrorCode::E007,
            ApiError::Busy { .. } => ErrorCode::E503,
            ApiError::Internal(err) if crate::storage::is_unavailable(err) => ErrorCode::E503,
            ApiError::Internal(_) => ErrorCode::E500,
        }
    }

    pub fn status_code(&self) -> StatusCode {
        let status = match self {
            ApiError::Validation { .. } => 422,
            ApiError::TooLarge(_) => 413,
            other => other.code().http_status(),
        };
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    pub fn body(&self) -> ErrorBody {
        let fields = match self {
            ApiError::Validation { fields, .. }
            | ApiError::BadFields { fields, .. }
            | ApiError::ConflictFields { fields, .. } => Some(fields.clone()),
            _ => None,
        };
        let code = self.code();
        ErrorBody {
            code: code.as_str().to_string(),
            cause: if matches!(self, ApiError::Internal(_)) && code == ErrorCode::E503 {
                UNAVAILABLE_CAUSE.to_string()
            } else {
                self.to_string()
            },
            fields,
        }
    }

    /// A validation failure from kizuna-core's `FieldErrors` (or anything serialising as
    /// `{field: [code]}`).
    pub fn validation(cause: &str, fields: impl serde::Serialize) -> ApiError {
        ApiError::Validation {
            cause: cause.to_string(),
            fields: fields_map(&fields),
        }
    }

    pub fn field(cause: &str, field: &str, rule: &str) -> ApiError {
        let mut fields = BTreeMap::new();
        fields.insert(field.to_string(), vec![rule.to_string()]);
        ApiError::Validation {
            cause: cause.to_string(),
            fields,
        }
    }
}

/// `{field: [code]}` from kizuna-core's `FieldErrors` (or anything serialising that way).
pub fn fields_map(fields: &impl serde::Serialize) -> BTreeMap<String, Vec<String>> {
    serde_json::to_value(fields)
        .ok()
        .and_then(|v| serde_json::from_value::<BTreeMap<String, Vec<String>>>(v).ok())
        .unwrap_or_default()
}

/// Builds the JSON answer for a code/status/cause triple.
pub fn error_response(status: StatusCode, body: &ErrorBody) -> Response {
    Response::builder()
        .status(status)
        .content_type("application/json; charset=utf-8")
        .body(body.to_json_string())
}

impl poem::error::ResponseError for ApiError {
    fn status(&self) -> StatusCode {
        self.status_code()
    }

    fn as_response(&self) -> Response {
        let body = self.body();
        if let ApiError::Internal(err) = self {
            if body.code == ErrorCode::E503.as_str() {
                tracing::warn!(error = ?err, "database unavailable");
                metrics::counter!(crate::metric_names::STORE_UNAVAILABLE).increment(1);
            } else {
                tracing::error!(error = ?err, "internal error");
                metrics::counter!(crate::metric_names::INTERNAL_ERRORS).increment(1);
            }
        }
        let mut response = error_response(self.status_code(), &body);
        let retry_after = match self {
            ApiError::Throttled {
                retry_after: Some(secs),
                ..
            }
            | ApiError::Busy {
                retry_after: secs, ..
            } => Some(*secs),
            _ if body.code == ErrorCode::E503.as_str() => Some(u64::from(RETRY_AFTER_SECS)),
            _ => None,
        };
        if let Some(secs) = retry_after {
            response
                .headers_mut()
                .insert(poem::http::header::RETRY_AFTER, secs.into());
        }
        response
    }
}

impl ApiResponse for ApiError {
    fn meta() -> MetaResponses {
        let content = || {
            vec![MetaMediaType {
                content_type: "application/json; charset=utf-8",
                schema: <ErrorBody as poem_openapi::types::Type>::schema_ref(),
            }]
        };
        let row = |status: u16, description: &'static str| MetaResponse {
            description,
            status: Some(status),
            status_range: None,
            content: content(),
            headers: vec![],
        };
        let mut unavailable = row(
            503,
            "E503: temporarily unavailable (the database cannot be reached, an upload finds every upload slot of the server taken, or the client's address has too many requests in flight behind the trusted proxy); retry after `Retry-After` seconds.",
        );
        unavailable.headers.push(MetaHeader {
            name: "Retry-After".into(),
            description: Some("Seconds to wait before retrying.".into()),
            required: true,
            deprecated: false,
            schema: <u32 as poem_openapi::types::Type>::schema_ref(),
        });
        MetaResponses {
            responses: vec![
                row(400, "E002: malformed body or parameters."),
                row(
                    401,
                    "E001 no session token, E001A invalid session token, E001B expired session token.",
                ),
                row(
                    403,
                    "E004: ID token invalid or for another user, or not allowed in this state.",
                ),
                row(
                    404,
                    "E003: not found, also for things that exist but are not the caller's.",
                ),
                row(
                    409,
                    "E005: conflict, such as a profile that already exists.",
                ),
                row(
                    413,
                    "E006: body or file too large, or the caller's unclaimed uploads at their quota.",
                ),
                row(415, "E006: unsupported or undecodable file."),
                row(
                    422,
                    "E002: validation failed; `fields` lists each failing field with its rule codes.",
                ),
                row(
                    429,
                    "E007: rate limited; `Retry-After` (seconds) when the wait is known.",
                ),
                row(500, "E500: internal error."),
                unavailable,
            ],
        }
    }

    fn register(registry: &mut Registry) {
        <ErrorBody as poem_openapi::types::Type>::register(registry);
    }
}

/// Reads a JSON body strictly (exact types, no unknown fields): poem-openapi's own parsing turns
/// numbers and booleans into strings, which would let `{"account": 5}` through as "5".
pub fn strict_json<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, ApiError> {
    serde_json::from_value(value).map_err(|e| {
        let msg: String = e.to_string().chars().take(200).collect();
        ApiError::BadRequest(format!("malformed body: {msg}"))
    })
}

#[cfg(test)]
mod tests {
    use poem::{error::ResponseError, http::header::RETRY_AFTER};
    use sea_orm::{ConnAcquireErr, DbErr};

    use super::*;

    #[test]
    fn an_unreachable_database_answers_503_with_retry_after_and_hides_the_cause() {
        let err = ApiError::from(
            anyhow::Error::new(DbErr::ConnectionAcquire(ConnAcquireErr::Timeout))
                .context("looking up a user"),
        );
        assert_eq!(err.code(), ErrorCode::E503);
        let resp = err.as_response();
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(resp.headers()[RETRY_AFTER], RETRY_AFTER_SECS.to_string());
        let body = err.body();
        assert_eq!(body.code, "E503");
        assert_eq!(body.cause, UNAVAILABLE_CAUSE);
        assert!(!body.cause.contains("pool"), "no internals");
    }

    #[test]
    fn any_other_internal_failure_stays_500_without_retry_after() {
        let err = ApiError::Internal(anyhow::anyhow!("the new user vanished"));
        assert_eq!(err.code(), ErrorCode::E500);
        let resp = err.as_response();
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(resp.headers().get(RETRY_AFTER).is_none());
        assert_eq!(err.body().cause, "internal error");
    }
}
