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
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(v) = u8::from_str_radix(&path[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
