//! POST /api/logger: the web app's log lines, written to the server log (target `client`) at their
//! level. Message at most 2000 characters (the body at most 32 KB), control characters replaced,
//! a LINE user id in it written as `{lineId}` (`telemetry::mask_line_ids`);
//! `LOG_LINES_PER_MINUTE_MEMBER` (30) lines a minute per user of a live session, a tighter
//! `LOG_LINES_PER_MINUTE_ANONYMOUS` (10) per client address without one (the address from the
//! trusted proxy header, `client_address`), and at most `LOG_SESSION_LOOKUPS_PER_MINUTE` (120)
//! session look-ups a minute per address → E007.

use poem::Request;
use poem_openapi::{ApiResponse, Enum, Object, OpenApi, payload::Json};

use super::{ApiTags, State};
use crate::client_address::address_key;
use crate::error::ApiError;
use crate::extract::{auth::OptionalSessionToken, body::JsonBody};
use kizuna_core::rules::LOG_MESSAGE_CHARS;

#[derive(Debug, Clone, Copy, Enum, serde::Deserialize)]
#[oai(rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields, example)]
#[serde(deny_unknown_fields)]
pub struct LogLine {
    /// At most `rules::LOG_MESSAGE_CHARS` (2000) characters.
    pub message: String,
    pub level: LogLevel,
}

impl poem_openapi::types::Example for LogLine {
    fn example() -> LogLine {
        LogLine {
            message: "register: step 3 of 5 shown".into(),
            level: LogLevel::Info,
        }
    }
}

#[derive(ApiResponse)]
pub enum LoggerResponse {
    /// Written to the server log.
    #[oai(status = 204)]
    Written,
}

#[derive(Default)]
pub struct LoggerApi;

/// Whose allowance a line counts against: the user of a live session, else the client address
/// (an unchecked token would let anyone mint fresh allowances by sending random ones). Looking the
/// session up costs a query, so a coarser per-address limit comes first: a flood of made-up tokens
/// is refused before it reaches the database.
async fn allowed(state: &State, req: &Request, token: Option<String>) -> bool {
    let address = address_key(req, state.settings.trusted_proxy_header.as_ref());
    let Some(token) = token else {
        return state
            .limits
            .get(crate::rate_limit::LimitKind::AnonymousLog)
            .allow(&address)
            .await;
    };
    if !state
        .limits
        .get(crate::rate_limit::LimitKind::LogLookup)
        .allow(&address)
        .await
    {
        return false;
    }
    match state.sessions.peek_user(&token).await {
        Some(user) => {
            state
                .limits
                .get(crate::rate_limit::LimitKind::Log)
                .allow(&format!("u:{user}"))
                .await
        }
        None => {
            state
                .limits
                .get(crate::rate_limit::LimitKind::AnonymousLog)
                .allow(&address)
                .await
        }
    }
}

#[OpenApi(tag = "ApiTags::Logger")]
impl LoggerApi {
    /// Write a client log line
    #[oai(path = "/logger", method = "post")]
    async fn log(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        caller: OptionalSessionToken,
        body: Json<JsonBody<LogLine>>,
    ) -> Result<LoggerResponse, ApiError> {
        if !allowed(&state, req, caller.0).await {
            return Err(ApiError::RateLimited);
        }
        let body = body.0.read()?;
        if body.message.chars().count() > LOG_MESSAGE_CHARS as usize {
            return Err(ApiError::BadRequest(format!(
                "message is longer than {LOG_MESSAGE_CHARS} characters"
            )));
        }
        let message: String = body
            .message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        // No LINE user id reaches the log, whatever the client wrote.
        let message = crate::telemetry::mask_line_ids(&message);
        match body.level {
            LogLevel::Trace => tracing::trace!(target: "client", "{message}"),
            LogLevel::Debug => tracing::debug!(target: "client", "{message}"),
            LogLevel::Info => tracing::info!(target: "client", "{message}"),
            LogLevel::Warn => tracing::warn!(target: "client", "{message}"),
            LogLevel::Error => tracing::error!(target: "client", "{message}"),
        }
        Ok(LoggerResponse::Written)
    }
}
