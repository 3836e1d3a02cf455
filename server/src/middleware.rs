//! Request plumbing for /api and the image proxy: body size caps, the session renewal header, and
//! turning every error (ours, poem's, poem-openapi's parse errors) into the error JSON of
//! docs/design.md.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use futures_util::StreamExt;
use poem::{
    Body, Endpoint, IntoResponse, Middleware, Request, Response, Result,
    http::{HeaderValue, StatusCode, header},
};

use crate::{
    error::{ApiError, ErrorBody, error_response},
    identity::session::RenewSlot,
    routes::RouteTable,
};

/// Default cap of a request body under /api.
pub const MAX_JSON_BODY: usize = 256 * 1024;
/// Cap of a /logger body: room for any valid line (2000 characters, each up to 12 bytes once
/// JSON-escaped as a surrogate pair), so that only an invalid one can meet the cap.
pub const MAX_LOG_BODY: usize = 32 * 1024;
/// Cap of a multipart upload body (the file's 10 MB plus the multipart framing).
pub use crate::images::MAX_UPLOAD_BODY;
/// How much of an oversize body is read and discarded so that the client sees the 413 instead of
/// a reset connection.
const MAX_DRAIN: u64 = 64 * 1024 * 1024;

fn body_limit(path: &str) -> usize {
    if path == "/api/file/tempUpload" {
        MAX_UPLOAD_BODY
    } else if path == "/api/logger" {
        MAX_LOG_BODY
    } else {
        MAX_JSON_BODY
    }
}

fn too_large() -> Response {
    let body = ApiError::TooLarge("the request body is too large".into()).body();
    error_response(StatusCode::PAYLOAD_TOO_LARGE, &body)
}

async fn drain(body: Body) {
    let mut stream = body.into_bytes_stream();
    let mut seen: u64 = 0;
    while let Some(Ok(chunk)) = stream.next().await {
        seen += chunk.len() as u64;
        if seen > MAX_DRAIN {
            break;
        }
    }
}

/// The /api middleware: caps, renewal header, JSON errors, and the `Allow` header of a 405 (from
/// the route table of the OpenAPI document).
pub struct ApiPlumbing {
    routes: Arc<RouteTable>,
}

impl ApiPlumbing {
    pub fn new(routes: RouteTable) -> ApiPlumbing {
        ApiPlumbing {
            routes: Arc::new(routes),
        }
    }
}

impl<E: Endpoint> Middleware<E> for ApiPlumbing {
    type Output = ApiPlumbingEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        ApiPlumbingEndpoint {
            inner: ep,
            routes: self.routes.clone(),
        }
    }
}

pub struct ApiPlumbingEndpoint<E> {
    inner: E,
    routes: Arc<RouteTable>,
}

impl<E: Endpoint> Endpoint for ApiPlumbingEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut req: Request) -> Result<Response> {
        let limit = body_limit(req.original_uri().path());
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|len| len > limit as u64) {
            drain(req.take_body()).await;
            return Ok(too_large());
        }
        // Without a (truthful) Content-Length, count while the handler reads.
        let exceeded = Arc::new(AtomicBool::new(false));
        let may_have_body = !matches!(
            *req.method(),
            poem::http::Method::GET | poem::http::Method::HEAD | poem::http::Method::OPTIONS
        );
        // A handler that refuses before reading the body (no session, a bad ID token) leaves it
        // unread, and hyper then drops the connection without saying so: the client's next
        // request on it fails. So a small body is read before the handler runs, and an answer
        // that may leave a larger one unread says `Connection: close`.
        let buffered = may_have_body && declared.is_some_and(|len| len <= MAX_JSON_BODY as u64);
        if buffered && declared != Some(0) {
            match req.take_body().into_bytes().await {
                Ok(bytes) => req.set_body(bytes),
                Err(_) => {
                    let body =
                        ApiError::BadRequest("the request body did not arrive".into()).body();
                    return Ok(error_response(StatusCode::BAD_REQUEST, &body));
                }
            }
        }
        if declared.is_none() && may_have_body {
            let flag = exceeded.clone();
            let mut seen = 0usize;
            let stream = req.take_body().into_bytes_stream().map(move |chunk| {
                let chunk = chunk?;
                seen += chunk.len();
                if seen > limit {
                    flag.store(true, Ordering::SeqCst);
                    return Err(std::io::Error::other("request body too large"));
                }
                Ok(chunk)
            });
            req.set_body(Body::from_bytes_stream(stream));
        }

        let slot = RenewSlot::default();
        req.extensions_mut().insert(slot.clone());
        let allow = self
            .routes
            .allow(req.original_uri().path().trim_start_matches("/api"))
            .and_then(|methods| HeaderValue::from_str(methods).ok());
        let resp = match self.inner.call(req).await {
            Ok(r) => r.into_response(),
            Err(err) => api_error_response(err),
        };
        if exceeded.load(Ordering::SeqCst) {
            return Ok(too_large());
        }
        let mut resp = resp;
        if may_have_body && !buffered && !resp.status().is_success() {
            resp.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if resp.status() == StatusCode::METHOD_NOT_ALLOWED
            && let Some(allow) = allow
        {
            resp.headers_mut().insert(header::ALLOW, allow);
        }
        if let Some(token) = slot.token()
            && resp.status() != StatusCode::UNAUTHORIZED
            && let Ok(v) = token.parse()
        {
            resp.headers_mut().insert(header::AUTHORIZATION, v);
            resp.headers_mut().insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                "Authorization".parse().expect("static header"),
            );
        }
        if resp.headers().get(header::CACHE_CONTROL).is_none() {
            resp.headers_mut().insert(
                header::CACHE_CONTROL,
                "no-store".parse().expect("static header"),
            );
        }
        Ok(resp)
    }
}

/// Any error under /api as `{code, cause}`.
pub fn api_error_response(err: poem::Error) -> Response {
    if let Some(api) = err.downcast_ref::<ApiError>() {
        return poem::error::ResponseError::as_response(api);
    }
    let status = err.status();
    let (code, cause, status) = match status.as_u16() {
        404 => ("E003", "not found".to_string(), status),
        405 => ("E003", "method not allowed".to_string(), status),
        413 => ("E006", "the request body is too large".to_string(), status),
        401 => ("E001", "no session token".to_string(), status),
        400 | 415 | 422 => (
            "E002",
            clean_cause(&err.to_string()),
            StatusCode::BAD_REQUEST,
        ),
        s if s >= 500 => {
            tracing::error!(error = %err, "internal error");
            (
                "E500",
                "internal error".to_string(),
                StatusCode::INTERNAL_SERVER_ERROR,
            )
        }
        _ => ("E002", clean_cause(&err.to_string()), status),
    };
    error_response(
        status,
        &ErrorBody {
            code: code.into(),
            cause,
            fields: None,
        },
    )
}

/// poem-openapi's parse messages are safe to show, but keep them short.
fn clean_cause(msg: &str) -> String {
    let msg: String = msg.chars().take(300).collect();
    if msg.is_empty() {
        "malformed request".into()
    } else {
        msg
    }
}
