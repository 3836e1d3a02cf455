//! /__mock/reviewers: with the mock LINE platform (never in production, where the route does not
//! exist), /dev and the end-to-end tests make a mock user a reviewer or a member again. The real
//! list is managed with `kizuna-server reviewers add|remove|list`.
//!
//! | call | answer |
//! |---|---|
//! | POST /__mock/reviewers {userId} | puts the LINE user on the reviewers list: {userId, reviewer: true, since} |
//! | DELETE /__mock/reviewers {userId} | takes them off: {userId, reviewer: false} |

use kizuna_core::line::LineUserId;
use poem::{
    IntoResponse, Response, Route, handler,
    http::StatusCode,
    post,
    web::{Data, Json},
};
use serde::Deserialize;
use serde_json::json;

use crate::{
    error::{ApiError, ErrorBody, error_response},
    routes::State,
    storage::reviewers,
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReviewerBody {
    user_id: String,
}

pub fn routes() -> impl poem::Endpoint {
    Route::new().at("/", post(add).delete(remove))
}

fn line_user(body: poem::Result<Json<ReviewerBody>>) -> Option<LineUserId> {
    body.ok().and_then(|Json(b)| LineUserId::parse(&b.user_id))
}

fn bad_body() -> Response {
    error_response(
        StatusCode::BAD_REQUEST,
        &ErrorBody {
            code: "E002".into(),
            cause: "expected {userId}: a LINE user id".into(),
            fields: None,
        },
    )
}

fn failed(err: anyhow::Error) -> Response {
    let err = ApiError::Internal(err);
    error_response(StatusCode::INTERNAL_SERVER_ERROR, &err.body())
}

#[handler]
async fn add(state: Data<&State>, body: poem::Result<Json<ReviewerBody>>) -> Response {
    let Some(user) = line_user(body) else {
        return bad_body();
    };
    match reviewers::add(&state.db, &user, state.now()).await {
        Ok(reviewers::Added::Now(period) | reviewers::Added::Already(period)) => Json(json!({
            "userId": user.as_str(), "reviewer": true, "since": period.added_at,
        }))
        .into_response(),
        Err(err) => failed(err),
    }
}

#[handler]
async fn remove(state: Data<&State>, body: poem::Result<Json<ReviewerBody>>) -> Response {
    let Some(user) = line_user(body) else {
        return bad_body();
    };
    match reviewers::remove(&state.db, &user, state.now()).await {
        Ok(_) => Json(json!({ "userId": user.as_str(), "reviewer": false })).into_response(),
        Err(err) => failed(err),
    }
}
