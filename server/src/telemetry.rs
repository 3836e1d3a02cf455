//! tracing setup and the per-request span with a request id.
//!
//! Logged per request: id, method, path (never the query string, never headers or bodies, so no
//! token, ID token, photo or profile text), status and latency.

use std::time::Instant;

use poem::{Endpoint, IntoResponse, Middleware, Request, Response, Result};
use tracing::Instrument;
use tracing_subscriber::{EnvFilter, fmt};

/// Installs the global subscriber (RUST_LOG, default `info`). Safe to call more than once.
pub fn init_subscriber() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = fmt().with_env_filter(filter).with_target(true).try_init();
}

pub struct RequestTrace;

/// The path as logged: a data export's download link is a credential, so its token is not; and
/// a LINE user id is personal data (`/api/user/review-status/U…`, the mock's `/users/U…`), so any
/// segment shaped like one is written as `{lineId}`.
fn logged_path(path: &str) -> std::borrow::Cow<'_, str> {
    const EXPORT: &str = "/api/data-export/";
    match path.strip_prefix(EXPORT) {
        Some(token) if !token.is_empty() => return format!("{EXPORT}…").into(),
        _ => {}
    }
    if !path.split('/').any(looks_like_a_line_id) {
        return path.into();
    }
    path.split('/')
        .map(|segment| {
            if looks_like_a_line_id(segment) {
                "{lineId}"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
        .into()
}

/// A LINE user id in any case or escaping (`U` + 32 hex digits), or anything long that starts
/// like one: a path segment is never logged when it might be a member's identity.
fn looks_like_a_line_id(segment: &str) -> bool {
    let decoded = crate::static_site::percent_decode(segment);
    let Some(rest) = decoded
        .strip_prefix('U')
        .or_else(|| decoded.strip_prefix('u'))
    else {
        return false;
    };
    rest.len() >= 16 && rest.bytes().all(|b| b.is_ascii_hexdigit())
}

impl<E: Endpoint> Middleware<E> for RequestTrace {
    type Output = RequestTraceEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        RequestTraceEndpoint(ep)
    }
}

pub struct RequestTraceEndpoint<E>(E);

fn request_id(req: &Request) -> String {
    req.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map(str::to_string)
        .unwrap_or_else(|| crate::images::random_id()[..16].to_string())
}

impl<E: Endpoint> Endpoint for RequestTraceEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> Result<Response> {
        let id = request_id(&req);
        let echo = req.headers().contains_key("x-request-id");
        let span = tracing::info_span!(
            "request",
            id = %id,
            method = %req.method(),
            path = %logged_path(req.uri().path()),
        );
        async move {
            let started = Instant::now();
            let mut resp = match self.0.call(req).await {
                Ok(r) => r.into_response(),
                Err(err) => err.into_response(),
            };
            let status = resp.status().as_u16();
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            if status == 503 {
                // The database is away (logged once as a warning where the error was answered):
                // expected during a restart, and the client retries.
                tracing::warn!(status, ms, "request deferred");
            } else if status >= 500 {
                tracing::error!(status, ms, "request failed");
            } else {
                tracing::debug!(status, ms, "request done");
            }
            // The id goes back when the client chose it, and on errors (what a support request
            // quotes); a successful answer would only carry its bytes on every request.
            if (echo || status >= 400)
                && let Ok(v) = id.parse()
            {
                resp.headers_mut().insert("x-request-id", v);
            }
            Ok(resp)
        }
        .instrument(span)
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::logged_path;

    #[test]
    fn a_download_links_token_never_reaches_the_log() {
        assert_eq!(
            logged_path("/api/data-export/abcDEF123_-abcDEF123_-abcDEF123_-abcDEF1234"),
            "/api/data-export/…"
        );
        assert_eq!(
            logged_path("/api/user/data-export"),
            "/api/user/data-export"
        );
        assert_eq!(logged_path("/api/matches/4/read"), "/api/matches/4/read");
    }

    #[test]
    fn a_line_user_id_in_a_path_never_reaches_the_log() {
        let id = "U4af4980629a1b2c3d4e5f60718293a4b";
        assert_eq!(
            logged_path(&format!("/api/user/review-status/{id}")),
            "/api/user/review-status/{lineId}"
        );
        assert_eq!(
            logged_path(&format!("/__mock/line/users/{}", id.to_uppercase())),
            "/__mock/line/users/{lineId}"
        );
        assert_eq!(
            logged_path(&format!("/api/user/review-status/%55{}", &id[1..])),
            "/api/user/review-status/{lineId}"
        );
        assert_eq!(logged_path("/api/user/my-info"), "/api/user/my-info");
        assert_eq!(logged_path("/api/members/12"), "/api/members/12");
        assert_eq!(logged_path("/profile/Upload"), "/profile/Upload");
    }
}
