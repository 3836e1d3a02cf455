//! tracing setup and the per-request span with a request id.
//!
//! Logged per request: id, method, path (never the query string, never headers or bodies, so no
//! token, ID token, photo or profile text), status and latency.

use std::{borrow::Cow, time::Instant};

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
/// a LINE user id is personal data (`/api/user/review-status/U…`, the mock's `/users/U…`), so it
/// is written as `{lineId}` ([`mask_line_ids`]).
fn logged_path(path: &str) -> Cow<'_, str> {
    const EXPORT: &str = "/api/data-export/";
    match path.strip_prefix(EXPORT) {
        Some(token) if !token.is_empty() => format!("{EXPORT}…").into(),
        _ => mask_line_ids(path),
    }
}

/// Hex digits after the `U` that make a LINE user id as far as the log is concerned: a real one
/// has 32, anything this long that starts like one is treated as one.
const LINE_ID_MIN_HEX: usize = 16;

/// `text` with every LINE user id in it written as `{lineId}`, for anything that reaches the log
/// (a request's path, a client's log line): a `U` or `u` followed by at least
/// [`LINE_ID_MIN_HEX`] hex digits in either case, each character plain or percent-escaped
/// (`%55…`), wherever it stands (a path segment, a word, inside quotes or JSON); a longer run of
/// digits is masked whole. Nothing else changes; text without one is borrowed as it is.
pub fn mask_line_ids(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut masked: Option<String> = None;
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        // Every match starts at an ASCII byte and ends after one: the slices stay on characters.
        match matches!(bytes[i], b'U' | b'u' | b'%')
            .then(|| line_id_end(bytes, i))
            .flatten()
        {
            Some(end) => {
                let out = masked.get_or_insert_with(|| String::with_capacity(text.len()));
                out.push_str(&text[copied..i]);
                out.push_str("{lineId}");
                (copied, i) = (end, end);
            }
            None => i += 1,
        }
    }
    match masked {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// The byte at `i` as it reads once percent-decoded, and where the next one starts.
fn decoded_at(bytes: &[u8], i: usize) -> Option<(u8, usize)> {
    let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
    match *bytes.get(i)? {
        b'%' => match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
            (Some(hi), Some(lo)) => Some(((hi << 4 | lo) as u8, i + 3)),
            _ => Some((b'%', i + 1)),
        },
        b => Some((b, i + 1)),
    }
}

/// Where a LINE user id starting at `start` ends, if one does.
fn line_id_end(bytes: &[u8], start: usize) -> Option<usize> {
    let (first, mut i) = decoded_at(bytes, start)?;
    if !matches!(first, b'U' | b'u') {
        return None;
    }
    let mut digits = 0;
    while let Some((c, next)) = decoded_at(bytes, i)
        && c.is_ascii_hexdigit()
    {
        digits += 1;
        i = next;
    }
    (digits >= LINE_ID_MIN_HEX).then_some(i)
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
    use super::{logged_path, mask_line_ids};

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
        assert_eq!(
            logged_path(&format!(
                "/api/user/review-status/%55{}",
                id[1..].to_uppercase()
            )),
            "/api/user/review-status/{lineId}"
        );
        assert_eq!(logged_path("/api/user/my-info"), "/api/user/my-info");
        assert_eq!(logged_path("/api/members/12"), "/api/members/12");
        assert_eq!(logged_path("/profile/Upload"), "/profile/Upload");
    }

    #[test]
    fn a_line_user_id_anywhere_in_a_text_is_masked() {
        let id = "U4af4980629a1b2c3d4e5f60718293a4b";
        for (text, masked) in [
            (
                format!("login failed for {id}"),
                "login failed for {lineId}".to_string(),
            ),
            (
                format!("{{\"userId\":\"{id}\"}}"),
                "{\"userId\":\"{lineId}\"}".to_string(),
            ),
            (format!("a{id}b {id}"), "a{lineId} {lineId}".to_string()),
            (
                format!("u{} and %55{}", &id[1..].to_uppercase(), &id[1..]),
                "{lineId} and {lineId}".to_string(),
            ),
            (format!("id={id}."), "id={lineId}.".to_string()),
        ] {
            assert_eq!(mask_line_ids(&text), masked, "{text}");
        }
        // Text without one is left as it is, multi-byte characters and stray escapes included.
        for text in [
            "Upload of 3 photos, 100% done 編集 U+1F600 %zz %",
            "file 0123456789abcdef0123456789abcdef",
            "Uabc",
        ] {
            assert!(
                matches!(mask_line_ids(text), std::borrow::Cow::Borrowed(_)),
                "{text}"
            );
        }
    }
}
