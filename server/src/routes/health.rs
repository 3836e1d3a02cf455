//! GET /healthz: 200 when the database answers, 503 otherwise.

use poem::{IntoResponse, Response, handler, http::StatusCode, web::Data};

use super::State;

#[handler]
pub async fn healthz(state: Data<&State>) -> Response {
    if crate::storage::ping(&state.db).await {
        (StatusCode::OK, "ok").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "database unavailable").into_response()
    }
}
