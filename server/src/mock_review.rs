//! /__mock/reviewers: with the mock LINE platform (never in production, where the route does not
//! exist), /dev and the end-to-end tests make a mock user a reviewer or a member again. The real
//! list is managed with `kizuna-server reviewers add|remove|list`.
//!
//! | call | answer |
//! |---|---|
//! | POST /__mock/reviewers {userId} | puts the LINE user on the reviewers list: {userId, reviewer: true, since} |
//! | DELETE /__mock/reviewers {userId} | takes them off: {userId, reviewer: false} |
//!
//! And /__mock/clock, so that an end-to-end run can see tomorrow (the next day's introductions):
//!
//! | call | answer |
//! |---|---|
//! | POST /__mock/clock {advanceSecs} | moves the server's clock forward (0 to 30 days): {now} |
//!
//! And /__mock/introductions, so that it need not wait for the scheduler's next look (a minute)
//! to see the morning run and its pushes:
//!
//! | call | answer |
//! |---|---|
//! | POST /__mock/introductions | runs the daily job now for the clock's Asia/Taipei day, as `kizuna-server introductions` does, and wakes the push worker: {day, lists, introductions, pushes} |
//!
//! And /__mock/quiet-matches, so that a run that moved the clock need not wait for the job's next
//! look (five minutes):
//!
//! | call | answer |
//! |---|---|
//! | POST /__mock/quiet-matches | reminds and expires the matches where nobody wrote, as of the clock, now: {reminded, expired} |

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
    storage::{reviewers, users},
};

/// The user's sessions carry their role: every process reads them again (the real list's
/// changes, made by the CLI, take effect within the session cache's second; on PostgreSQL the
/// database announces them).
async fn role_changed(state: &State, line_user_id: &LineUserId) -> anyhow::Result<()> {
    if let Some(user) = users::find_by_line_id(&state.db, line_user_id.as_str()).await? {
        state
            .session_ends
            .announce(&state.db, &[], &[user.id])
            .await;
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReviewerBody {
    user_id: String,
}

pub fn routes() -> impl poem::Endpoint {
    Route::new().at("/", post(add).delete(remove))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AdvanceBody {
    advance_secs: i64,
}

/// The longest step /__mock/clock takes at once.
const MAX_ADVANCE_SECS: i64 = 30 * 24 * 3600;

pub fn clock_routes() -> impl poem::Endpoint {
    Route::new().at("/", post(advance))
}

#[handler]
async fn advance(state: Data<&State>, body: poem::Result<Json<AdvanceBody>>) -> Response {
    match body {
        Ok(Json(AdvanceBody { advance_secs }))
            if (0..=MAX_ADVANCE_SECS).contains(&advance_secs) =>
        {
            state.settings.clock.advance(advance_secs);
            // Lists made from now on read a pool of the new day.
            state.pool.invalidate().await;
            Json(json!({ "now": state.now() })).into_response()
        }
        _ => error_response(
            StatusCode::BAD_REQUEST,
            &ErrorBody {
                code: "E002".into(),
                cause: "expected {advanceSecs}: 0 to 30 days in seconds".into(),
                fields: None,
            },
        ),
    }
}

pub fn introductions_routes() -> impl poem::Endpoint {
    Route::new().at("/", post(introductions))
}

#[handler]
async fn introductions(state: Data<&State>) -> Response {
    let day = state.settings.clock.taipei_today();
    let liff_id = &state.settings.line.liff_id;
    match crate::matchmaking::job::run(&state.db, day, state.now(), liff_id).await {
        Ok(report) => {
            if report.pushes > 0 {
                state.push.wake();
            }
            Json(json!({
                "day": day.to_string(),
                "lists": report.lists,
                "introductions": report.introductions,
                "pushes": report.pushes,
            }))
            .into_response()
        }
        Err(err) => failed(err.into()),
    }
}

pub fn quiet_matches_routes() -> impl poem::Endpoint {
    Route::new().at("/", post(quiet_matches))
}

#[handler]
async fn quiet_matches(state: Data<&State>) -> Response {
    match crate::matchmaking::quiet::run(&state).await {
        Ok(run) => {
            Json(json!({ "reminded": run.reminded, "expired": run.expired })).into_response()
        }
        Err(err) => failed(err),
    }
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
    let added = match reviewers::add(&state.db, &user, state.now()).await {
        Ok(added) => role_changed(state.0, &user).await.map(|()| added),
        Err(err) => Err(err),
    };
    match added {
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
    let removed = match reviewers::remove(&state.db, &user, state.now()).await {
        Ok(_) => role_changed(state.0, &user).await,
        Err(err) => Err(err),
    };
    match removed {
        Ok(()) => Json(json!({ "userId": user.as_str(), "reviewer": false })).into_response(),
        Err(err) => failed(err),
    }
}
