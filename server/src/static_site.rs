//! The built web app (KIZUNA_WEB_DIR): files as they are, SPA fallback to index.html for page
//! paths. `/assets/*` (content-hashed by Vite) are immutable; index.html and everything else
//! (the build manifest the app polls included) are `no-cache`. A missing file with an extension
//! is a plain 404 rather than the SPA page, so a stale chunk fails loudly.
//!
//! The web build writes `<file>.br` and `<file>.gz` beside each compressible file; the variant the
//! request accepts is sent as it is (no compression work per request), with `Vary:
//! Accept-Encoding`. poem's `StaticFileRequest` does the conditional and range work: a strong
//! ETag per variant file, Last-Modified, 304, 412, Range.
//!
//! HTML pages carry the web app's Content-Security-Policy and Permissions-Policy
//! (`security_headers`); every answer gets nosniff and the Referrer-Policy from the middleware.

use std::path::{Component, Path, PathBuf};

use crate::security_headers;
use poem::{
    Endpoint, FromRequest, IntoResponse, Request, Response, Result,
    error::StaticFileError,
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    web::{Compress, CompressionAlgo, StaticFileRequest},
};

pub struct StaticSite {
    root: PathBuf,
}

impl StaticSite {
    pub fn new(root: PathBuf) -> StaticSite {
        StaticSite { root }
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        // Module scripts are always decoded as UTF-8, whatever the header says.
        "js" | "mjs" => "text/javascript",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The file under root for a URL path, refusing anything that climbs out.
fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let rel = Path::new(url_path.trim_start_matches('/'));
    let mut out = root.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A content coding the build may have stored beside a file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Coding {
    Brotli,
    Gzip,
}

impl Coding {
    fn suffix(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gz",
        }
    }
    fn name(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }
}

/// The codings the request accepts, best first (brotli before gzip at equal weight). `q=0`
/// refuses a coding, and `*` stands for any coding not named.
pub(crate) fn accepted_codings(headers: &HeaderMap) -> Vec<Coding> {
    let mut named: Vec<(String, f32)> = Vec::new();
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            if coding.is_empty() {
                continue;
            }
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q=").map(str::to_owned))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            named.push((coding, q));
        }
    }
    let weight = |name: &str| {
        named
            .iter()
            .find(|(c, _)| c == name)
            .or_else(|| named.iter().find(|(c, _)| c == "*"))
            .map(|(_, q)| *q)
            .unwrap_or(0.0)
    };
    let mut out: Vec<(Coding, f32)> = [Coding::Brotli, Coding::Gzip]
        .into_iter()
        .map(|c| (c, weight(c.name())))
        .filter(|(_, q)| *q > 0.0)
        .collect();
    // A stable sort keeps brotli first among equals.
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out.into_iter().map(|(c, _)| c).collect()
}

fn with_suffix(path: &Path, coding: Coding) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(coding.suffix());
    PathBuf::from(name)
}

async fn file_response(req: &Request, path: &Path, cache: &'static str) -> Option<Response> {
    let meta = tokio::fs::metadata(path).await.ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut chosen = (path.to_path_buf(), None);
    let mut varies = false;
    for coding in [Coding::Brotli, Coding::Gzip] {
        if tokio::fs::metadata(with_suffix(path, coding))
            .await
            .is_ok_and(|m| m.is_file())
        {
            varies = true;
        }
    }
    for coding in accepted_codings(req.headers()) {
        let variant = with_suffix(path, coding);
        if tokio::fs::metadata(&variant)
            .await
            .is_ok_and(|m| m.is_file())
        {
            chosen = (variant, Some(coding));
            break;
        }
    }
    let conditional = StaticFileRequest::from_request_without_body(req)
        .await
        .ok()?;
    let (file, coding) = chosen;
    let mut resp = match conditional.create_response(&file, true, false) {
        Ok(resp) => resp.with_content_type(content_type(path)).into_response(),
        Err(StaticFileError::NotFound) => return None,
        Err(err) => poem::Error::from(err).into_response(),
    };
    let headers = resp.headers_mut();
    if cache == IMMUTABLE {
        // A content-hashed file is never revalidated: its ETag is enough, and the bytes of
        // Last-Modified and Accept-Ranges would be paid on every first visit (Range still works).
        headers.remove(header::LAST_MODIFIED);
        headers.remove(header::ACCEPT_RANGES);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if content_type(path).starts_with("text/html") {
        // The policy is made from the page being served (its inline style's hash), read again
        // on each page load (one per visit, a few KB): a rebuilt app never meets a stale policy.
        if let Ok(html) = tokio::fs::read_to_string(path).await {
            security_headers::add_page_headers(headers, &security_headers::web_app_policy(&html));
        }
    }
    if varies {
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if let Some(coding) = coding {
        headers.insert(
            header::CONTENT_ENCODING,
            HeaderValue::from_static(coding.name()),
        );
    }
    Some(resp)
}

/// Where index.html's frame has its first card's photo (a grey shape): a returning member's
/// /today gets the photo there (`routes::pages`). Markup of the web build's index.html, matched as
/// it is written there.
pub const FRAME_PHOTO_MARK: &str = r#"<i class="p" id="first-photo"></i>"#;

/// An `<img>` in the frame: the attributes the web app's card gives the same photo, so that the
/// browser picks the same file for both.
pub struct FramePhoto {
    pub src: String,
    pub srcset: String,
    pub sizes: String,
}

impl StaticSite {
    /// The web app's page with `photo` in place of the frame's first photo ([`FRAME_PHOTO_MARK`]),
    /// compressed as the request accepts. It is one member's page: `private`, never stored by a
    /// shared cache, and without an ETag (the file's would not name it). None when index.html is
    /// missing or has no mark: the caller then answers the plain page.
    pub async fn page_with_frame_photo(
        &self,
        req: &Request,
        photo: &FramePhoto,
    ) -> Option<Response> {
        let html = tokio::fs::read_to_string(self.root.join("index.html"))
            .await
            .ok()?;
        // The values come from file ids and constants; none can hold a quote, but an attribute
        // is never written from text that could.
        let clean = |v: &str| !v.contains(['"', '<', '>', '&']);
        if !(clean(&photo.src) && clean(&photo.srcset) && clean(&photo.sizes)) {
            return None;
        }
        let img = format!(
            r#"<img class="p" id="first-photo" alt="" fetchpriority="high" src="{}" srcset="{}" sizes="{}">"#,
            photo.src, photo.srcset, photo.sizes
        );
        if !html.contains(FRAME_PHOTO_MARK) {
            return None;
        }
        let page = html.replacen(FRAME_PHOTO_MARK, &img, 1);
        let mut resp = Response::builder()
            .content_type("text/html; charset=utf-8")
            .header(header::CACHE_CONTROL, "private, no-cache")
            .header(header::VARY, "cookie, accept-encoding")
            .body(page.clone());
        security_headers::add_page_headers(
            resp.headers_mut(),
            &security_headers::web_app_policy(&page),
        );
        Some(match accepted_codings(req.headers()).first() {
            Some(Coding::Brotli) => Compress::new(resp, CompressionAlgo::BR).into_response(),
            Some(Coding::Gzip) => Compress::new(resp, CompressionAlgo::GZIP).into_response(),
            None => resp,
        })
    }
}

impl Endpoint for StaticSite {
    type Output = Response;

    async fn call(&self, req: Request) -> Result<Response> {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            return Ok(StatusCode::METHOD_NOT_ALLOWED.into_response());
        }
        let path = req.uri().path();
        let decoded = percent_decode(path);
        if let Some(file) = resolve(&self.root, &decoded)
            && file != self.root
        {
            let cache = if decoded.starts_with("/assets/") {
                IMMUTABLE
            } else {
                "no-cache"
            };
            if let Some(resp) = file_response(&req, &file, cache).await {
                return Ok(resp);
            }
            let last = decoded.rsplit('/').next().unwrap_or("");
            if last.contains('.') {
                return Ok((StatusCode::NOT_FOUND, "not found").into_response());
            }
        }
        match file_response(&req, &self.root.join("index.html"), "no-cache").await {
            Some(resp) => Ok(resp),
            None => Ok((
                StatusCode::NOT_FOUND,
                "the web app is not built (KIZUNA_WEB_DIR has no index.html)",
            )
                .into_response()),
        }
    }
}

pub(crate) fn percent_decode(path: &str) -> String {
    // Works on bytes: the path may hold raw UTF-8, and slicing the str at `%`+2 could cut a
    // character in half.
    fn hex_digit(b: u8) -> Option<u8> {
        (b as char).to_digit(16).map(|d| d as u8)
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex_digit),
                bytes.get(i + 2).copied().and_then(hex_digit),
            )
        {
            out.push((hi << 4) | lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{Coding, accepted_codings, percent_decode};
    use poem::http::{HeaderMap, HeaderValue, header};

    fn accepting(value: &str) -> Vec<Coding> {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        accepted_codings(&headers)
    }

    #[test]
    fn codings_are_picked_by_weight_with_brotli_first_among_equals() {
        assert_eq!(
            accepting("gzip, deflate, br, zstd"),
            [Coding::Brotli, Coding::Gzip]
        );
        assert_eq!(
            accepting("gzip;q=1, br;q=0.5"),
            [Coding::Gzip, Coding::Brotli]
        );
        assert_eq!(accepting("br;q=0, gzip"), [Coding::Gzip]);
        assert_eq!(accepting("*"), [Coding::Brotli, Coding::Gzip]);
        assert_eq!(accepting("*;q=0.1, br;q=0"), [Coding::Gzip]);
        assert_eq!(accepting("identity"), []);
        assert_eq!(accepted_codings(&HeaderMap::new()), []);
    }

    #[test]
    fn percent_escapes_decode_and_raw_utf8_passes_through_whole() {
        assert_eq!(percent_decode("/a%20b"), "/a b");
        assert_eq!(percent_decode("/%E7%B5%86"), "/絆");
        assert_eq!(percent_decode("/%a\u{e9}"), "/%a\u{e9}");
        assert_eq!(percent_decode("/%\u{e9}x"), "/%\u{e9}x");
        assert_eq!(percent_decode("/50%"), "/50%");
        assert_eq!(percent_decode("/%4"), "/%4");
        assert_eq!(percent_decode("/%41"), "/A");
    }
}
