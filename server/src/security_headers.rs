//! The security headers of every answer (docs/design.md, "Security headers").
//!
//! The web app's page gets a Content-Security-Policy that names exactly what the app and the LIFF
//! SDK load: the app's own origin, the wasm module (`'wasm-unsafe-eval'`), LINE's API and LIFF
//! servers, LINE's CDN (LIFF's alert script, profile pictures), and the inline `<style>` of
//! index.html (the loading frame painted before any script) by its hash, computed here from the
//! file served, so that the policy cannot drift from the build. Everything else (API JSON, images,
//! scripts, the mock platform) gets a policy that allows nothing: such an answer opened as a page
//! runs no script and cannot be framed.

use base64::Engine;
use poem::{
    Endpoint, IntoResponse, Middleware, Request, Response, Result,
    http::{HeaderMap, HeaderValue, header},
};
use sha2::{Digest, Sha256};

/// No URL of the app (a member id, a match) leaves in a Referer, and no third party (an
/// employer's page a reviewer opens, LINE's CDN) learns that the visitor came from a dating
/// service. Nothing the app or LINE does depends on the header.
pub const REFERRER_POLICY: &str = "no-referrer";

/// Geolocation for the app's own origin (the register form's location step), every other
/// powerful feature off for the page and any frame.
pub const PERMISSIONS_POLICY: &str = "geolocation=(self), camera=(), microphone=(), \
     payment=(), usb=(), serial=(), bluetooth=(), hid=(), midi=(), magnetometer=(), \
     gyroscope=(), accelerometer=(), display-capture=(), browsing-topics=()";

/// Answers that are not the web app's page: nothing may load or run, nobody may frame them.
pub const NOTHING_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; \
     form-action 'none'";

/// The web app's policy without the inline hashes (see [`web_app_policy`]).
///
/// - `script-src`: the app's modules, its wasm module (compiling WebAssembly needs
///   `'wasm-unsafe-eval'`, which allows no JavaScript eval), and LINE's CDN, from which LIFF's
///   `init` loads its alert script (`static.line-scdn.net/lui/...`) when it must tell the user
///   something.
/// - `connect-src`: the app's API and LINE's servers the SDK calls (`api.line.me`: tokens,
///   friendship, profile; `liff.line.me`, `access.line.me`: LIFF's and LINE Login's endpoints).
///   LIFF frames nothing (its sub-window is a window), so frames fall back to `'self'`.
/// - `img-src`: the app's images (photos through /_ipx, blurred placeholders as `data:`, picked
///   photos previewed as `blob:`) and the LINE profile picture shown before a photo is uploaded.
/// - `frame-ancestors 'none'`: the app runs as the top-level page of LINE's in-app browser (and
///   the review console in a normal browser); nobody frames it, so a Like, a report or a block
///   cannot be clickjacked.
const WEB_APP_POLICY: [&str; 12] = [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval' https://static.line-scdn.net",
    "style-src 'self' https://static.line-scdn.net",
    "img-src 'self' data: blob: https://profile.line-scdn.net https://obs.line-scdn.net",
    "font-src 'self'",
    "connect-src 'self' https://api.line.me https://liff.line.me https://access.line.me",
    "worker-src 'none'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
];

/// The CSP source expressions (`'sha256-…'`) of the inline `<script>` and `<style>` elements of
/// an HTML page, in order. An inline script or style that is not hashed here is refused by the
/// browser, so the policy allows what the build inlined and nothing injected later.
pub fn inline_hashes(html: &str) -> (Vec<String>, Vec<String>) {
    let (mut scripts, mut styles) = (Vec::new(), Vec::new());
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(open) = lower[at..].find('<').map(|i| at + i) {
        let rest = &lower[open + 1..];
        let (tag, list) = if rest.starts_with("script") {
            ("script", &mut scripts)
        } else if rest.starts_with("style") {
            ("style", &mut styles)
        } else {
            at = open + 1;
            continue;
        };
        let Some(tag_end) = lower[open..].find('>').map(|i| open + i) else {
            break;
        };
        let attributes = &lower[open + 1 + tag.len()..tag_end];
        let close = format!("</{tag}");
        let Some(body_end) = lower[tag_end..].find(&close).map(|i| tag_end + i) else {
            break;
        };
        let external = tag == "script"
            && attributes
                .split_ascii_whitespace()
                .any(|a| a.starts_with("src="));
        if !external {
            let digest = Sha256::digest(&html.as_bytes()[tag_end + 1..body_end]);
            let encoded = base64::engine::general_purpose::STANDARD.encode(digest);
            list.push(format!("'sha256-{encoded}'"));
        }
        at = body_end + close.len();
    }
    (scripts, styles)
}

/// The web app's Content-Security-Policy for the page `html`: [`WEB_APP_POLICY`] with the hashes
/// of its inline scripts and styles added.
pub fn web_app_policy(html: &str) -> String {
    let (scripts, styles) = inline_hashes(html);
    WEB_APP_POLICY
        .iter()
        .map(|directive| {
            let extra = match directive.split(' ').next() {
                Some("script-src") => &scripts,
                Some("style-src") => &styles,
                _ => return (*directive).to_owned(),
            };
            std::iter::once(*directive)
                .chain(extra.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The headers of the web app's page (with its policy, see [`web_app_policy`]).
pub fn add_page_headers(headers: &mut HeaderMap, policy: &str) {
    if let Ok(value) = HeaderValue::from_str(policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, value);
    }
    headers.insert(
        "permissions-policy",
        HeaderValue::from_static(PERMISSIONS_POLICY),
    );
    // For webviews older than frame-ancestors (the policy says the same).
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// Every answer: no MIME sniffing, no Referer, and [`NOTHING_POLICY`] unless the answer set its
/// own policy (the web app's page, the development API docs).
pub struct SecurityHeaders;

impl<E: Endpoint> Middleware<E> for SecurityHeaders {
    type Output = SecurityHeadersEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        SecurityHeadersEndpoint { inner: ep }
    }
}

pub struct SecurityHeadersEndpoint<E> {
    inner: E,
}

impl<E: Endpoint> Endpoint for SecurityHeadersEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> Result<Response> {
        let mut resp = match self.inner.call(req).await {
            Ok(resp) => resp.into_response(),
            Err(err) => err.into_response(),
        };
        let headers = resp.headers_mut();
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static(REFERRER_POLICY),
        );
        if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(NOTHING_POLICY),
            );
        }
        Ok(resp)
    }
}

#[cfg(test)]
mod tests {
    use super::{inline_hashes, web_app_policy};

    #[test]
    fn inline_scripts_and_styles_are_hashed_and_external_scripts_are_not() {
        let html = "<html><head><style>a{b:c}</style><SCRIPT type=\"module\" src=\"/x.js\"></script>\
                    <script>alert(1)</script></head><body><style media=\"x\">p{}</style></body>";
        let (scripts, styles) = inline_hashes(html);
        // `printf 'alert(1)' | openssl dgst -sha256 -binary | base64`
        assert_eq!(
            scripts,
            ["'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"]
        );
        assert_eq!(
            styles,
            [
                "'sha256-0cRUVYRKwNwnl1hkfkPGjkht16b039TjFdJzmXfFK2o='",
                "'sha256-gG2yISYereRMiG2lMXrbiUgi0Ubw9p7QCeWcroOvy9Y='"
            ]
        );
        let policy = web_app_policy(html);
        assert!(policy.contains(&format!(
            "style-src 'self' https://static.line-scdn.net {} {}",
            styles[0], styles[1]
        )));
        assert!(policy.contains(
            "script-src 'self' 'wasm-unsafe-eval' https://static.line-scdn.net 'sha256-bhHH"
        ));
        assert!(!policy.contains("unsafe-inline"));
    }

    #[test]
    fn unterminated_tags_end_the_scan_without_a_panic() {
        for html in [
            "<style>a",
            "<script",
            "<",
            "<style>x</style><script>y",
            "</style>",
        ] {
            let _ = web_app_policy(html);
        }
    }
}
