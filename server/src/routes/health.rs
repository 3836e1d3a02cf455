//! GET /healthz: 200 when the database answers, 503 with `Retry-After` otherwise, so that a load
//! balancer sends traffic elsewhere for a while instead of to a server that would answer E503.
//! GET /readyz: whether this process should get traffic at all (`readiness`): 503 while it starts
//! or drains, or while its database or file store cannot be reached.

use std::time::Duration;

use poem::{IntoResponse, Response, handler, http::StatusCode, web::Data};

use super::State;
use crate::{
    error::RETRY_AFTER_SECS,
    readiness::{Readiness, Stage},
};

/// Longest wait for the database: a health check that hangs for the pool's whole acquire timeout
/// would look like a dead server to a balancer that gives up sooner.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// Longest wait for the file store's answer in `/readyz`.
const STORE_TIMEOUT: Duration = Duration::from_secs(5);

fn unavailable(why: &'static str) -> Response {
    Response::builder()
        .status(StatusCode::SERVICE_UNAVAILABLE)
        .header(poem::http::header::RETRY_AFTER, RETRY_AFTER_SECS)
        .body(why)
}

async fn database_answers(state: &State) -> bool {
    crate::usecases::health::database_answers(&state.db, PING_TIMEOUT).await
}

#[handler]
pub async fn healthz(state: Data<&State>) -> Response {
    if database_answers(&state).await {
        (StatusCode::OK, "ok").into_response()
    } else {
        unavailable("database unavailable")
    }
}

#[handler]
pub async fn readyz(state: Data<&State>, readiness: Data<&Readiness>) -> Response {
    match readiness.stage() {
        Stage::Starting => return unavailable("starting"),
        Stage::Draining => return unavailable("draining"),
        Stage::Ready => {}
    }
    if !database_answers(&state).await {
        return unavailable("database unavailable");
    }
    // One look-up of a key that is never written: an answer either way is a store that works.
    let probe = object_store::path::Path::from("readyz-probe");
    let store = tokio::time::timeout(STORE_TIMEOUT, state.files.exists(&probe)).await;
    if !matches!(store, Ok(Ok(_))) {
        return unavailable("file store unavailable");
    }
    (StatusCode::OK, "ready").into_response()
}
