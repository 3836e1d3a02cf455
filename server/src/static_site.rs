//! The built web app (KIZUNA_WEB_DIR): files as they are, SPA fallback to index.html for page
//! paths. `/assets/*` (content-hashed by Vite) are immutable; index.html and everything else
//! (the build manifest the app polls included) are `no-cache`. A missing file with an extension
//! is a plain 404 rather than the SPA page, so a stale chunk fails loudly.

use std::path::{Component, Path, PathBuf};

use poem::{
    Endpoint, IntoResponse, Request, Response, Result,
    http::{Method, StatusCode, header},
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
        "js" | "mjs" => "text/javascript; charset=utf-8",
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

async fn file_response(path: &Path, cache: &'static str) -> Option<Response> {
    let meta = tokio::fs::metadata(path).await.ok()?;
    if !meta.is_file() {
        return None;
    }
    let bytes = tokio::fs::read(path).await.ok()?;
    Some(
        Response::builder()
            .content_type(content_type(path))
            .header(header::CACHE_CONTROL, cache)
            .header("x-content-type-options", "nosniff")
            .body(bytes),
    )
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
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            };
            if let Some(resp) = file_response(&file, cache).await {
                return Ok(resp);
            }
            let last = decoded.rsplit('/').next().unwrap_or("");
            if last.contains('.') {
                return Ok((StatusCode::NOT_FOUND, "not found").into_response());
            }
        }
        match file_response(&self.root.join("index.html"), "no-cache").await {
            Some(resp) => Ok(resp),
            None => Ok((
                StatusCode::NOT_FOUND,
                "the web app is not built (KIZUNA_WEB_DIR has no index.html)",
            )
                .into_response()),
        }
    }
}

fn percent_decode(path: &str) -> String {
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
    use super::percent_decode;

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
