//! GET /healthz: 200 when the database answers, 503 with `Retry-After` otherwise, so that a load
//! balancer sends traffic elsewhere for a while instead of to a server that would answer E503.

use std::time::Duration;

use poem::{IntoResponse, Response, handler, http::StatusCode, web::Data};

use super::State;
use crate::error::RETRY_AFTER_SECS;

/// Longest wait for the database: a health check that hangs for the pool's whole acquire timeout
/// would look like a dead server to a balancer that gives up sooner.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

#[handler]
pub async fn healthz(state: Data<&State>) -> Response {
    let answered = tokio::time::timeout(PING_TIMEOUT, crate::storage::ping(&state.db))
        .await
        .unwrap_or(false);
    if answered {
        (StatusCode::OK, "ok").into_response()
    } else {
        Response::builder()
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .header(poem::http::header::RETRY_AFTER, RETRY_AFTER_SECS)
            .body("database unavailable")
    }
}
