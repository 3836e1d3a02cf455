//! Config, health, route rules, unknown API paths, OpenAPI, the mock platform and static hosting.

use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};

use crate::helpers::{Backend, assert_error, line_user_id, spawn_app};

async fn public_endpoints_and_unknown_api_paths(backend: Backend) {
    let app = spawn_app(backend).await;
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    let config: Value = app.get("/api/config", None).await.json().await.unwrap();
    assert_eq!(config["apiServerPath"], "/api");
    assert_eq!(config["mockEnable"], true);
    assert!(config["liffId"].is_string() && config["lineBotId"].is_string());
    // The tests' settings run no schedule (KIZUNA_INTRODUCTIONS_AT=off): nothing to announce.
    assert!(
        config.get("introductionsAt").is_none_or(Value::is_null),
        "{config}"
    );

    for path in [
        "/api/nope",
        "/api/user",
        "/api/file/fetch",
        "/api/",
        "/api/user/my-info/extra",
    ] {
        assert_error(app.get(path, None).await, 404, "E003").await;
    }
    let r = app
        .client
        .delete(app.url("/api/user/my-info"))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    assert!(status == 404 || status == 405);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "E003");

    let spec: Value = app
        .get("/api/openapi.json", None)
        .await
        .json()
        .await
        .unwrap();
    for path in [
        "/user/login",
        "/user/my-info",
        "/user/review-status/{userId}",
        "/user-profile",
        "/user-profile/avatar",
        "/file/tempUpload",
        "/file/fetch/{fileId}",
        "/logger",
        "/config",
        "/route-rules",
    ] {
        assert!(
            spec["paths"][path].is_object(),
            "{path} missing from the OpenAPI document"
        );
    }
    assert_eq!(app.get("/api/docs", None).await.status(), 200);

    // The request bodies are documented too, the registration with every core field.
    let body_schema = |path: &str, method: &str| {
        spec["paths"][path][method]["requestBody"]["content"]["application/json; charset=utf-8"]
            ["schema"]["$ref"]
            .as_str()
            .map(|r| r.trim_start_matches("#/components/schemas/").to_string())
    };
    for (path, method, schema) in [
        ("/user-profile", "post", "UserProfileCreate"),
        ("/user/login", "post", "LoginBody"),
        ("/user-profile/avatar", "put", "AvatarBody"),
        ("/logger", "post", "LogLine"),
    ] {
        assert_eq!(
            body_schema(path, method).as_deref(),
            Some(schema),
            "{method} {path}: {}",
            spec["paths"][path][method]["requestBody"]
        );
    }
    let profile = &spec["components"]["schemas"]["UserProfileCreate"]["properties"];
    for field in kizuna_core::profile::FIELDS {
        assert!(
            profile[field].is_object(),
            "{field} missing from UserProfileCreate"
        );
    }
    assert!(
        profile["gender"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("FEMALE"))
    );
}

async fn route_rules_come_from_the_database(backend: Backend) {
    let app = spawn_app(backend).await;
    let backend = app.db.get_database_backend();
    for (path, redirect) in [
        ("/old", "/profile"),
        ("/legacy/*", "https://example.com/"),
        ("/legacy/keep", "/kept"),
    ] {
        app.db
            .execute_raw(Statement::from_string(
                backend,
                format!("INSERT INTO route_rules (path, redirect, created_at) VALUES ('{path}', '{redirect}', 0)"),
            ))
            .await
            .unwrap();
    }
    let rule = |p: &'static str| {
        let app = &app;
        async move {
            app.client
                .get(app.url("/api/route-rules"))
                .query(&[("path", p)])
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    assert_eq!(rule("/old").await["redirect"], "/profile");
    assert_eq!(
        rule("/legacy/page").await["redirect"],
        "https://example.com/"
    );
    assert_eq!(rule("/legacy/keep").await["redirect"], "/kept");
    assert!(rule("/register").await["redirect"].is_null());
    assert_error(app.get("/api/route-rules", None).await, 400, "E002").await;
    assert_error(
        app.get("/api/route-rules?path=nope", None).await,
        400,
        "E002",
    )
    .await;
}

async fn mock_line_platform(backend: Backend) {
    let app = spawn_app(backend).await;
    let id = line_user_id();
    app.mock_user(&id, false).await;
    let u: Value = app
        .get(&format!("/__mock/line/users/{id}"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(u["friend"], false);
    let f: Value = app
        .get(
            &format!("/__mock/line/friendship/v1/status?userId={id}"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(f["friendFlag"], false);
    app.mock_user(&id, true).await;
    let f: Value = app
        .get(
            &format!("/__mock/line/friendship/v1/status?userId={id}"),
            None,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(f["friendFlag"], true);
    assert_eq!(
        app.get("/__mock/line/users/Uffffffffffffffffffffffffffffffff", None)
            .await
            .status(),
        404
    );
    let r = app
        .client
        .post(app.url("/__mock/line/users"))
        .json(&json!({"userId": "bob", "displayName": "Bob", "friend": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let token = app.id_token(&id).await;
    assert_eq!(token.split('.').count(), 3);
    let r = app
        .client
        .post(app.url("/__mock/line/v2/bot/message/push"))
        .bearer_auth(kizuna_server::configuration::MOCK_CHANNEL_ACCESS_TOKEN)
        .json(&json!({"to": id, "messages": [{"type": "text", "text": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let msgs: Value = app
        .get("/__mock/line/messages", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(msgs[0]["to"], id.as_str());
}

async fn serves_the_web_app_with_spa_fallback(backend: Backend) {
    let app = spawn_app(backend).await;
    let web = app.data_dir.join("web");
    std::fs::create_dir_all(web.join("assets")).unwrap();
    std::fs::write(
        web.join("index.html"),
        "<!doctype html><title>Kizuna</title>",
    )
    .unwrap();
    std::fs::write(web.join("assets/app-1234abcd.js"), "console.log(1)").unwrap();

    for path in ["/", "/register", "/profile/deep/link"] {
        let r = app.get(path, None).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()[CACHE_CONTROL], "no-cache");
        assert!(r.text().await.unwrap().contains("Kizuna"));
    }
    let r = app.get("/assets/app-1234abcd.js", None).await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    assert_eq!(
        r.headers()[CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(app.get("/assets/missing-0000.js", None).await.status(), 404);
    assert_eq!(app.get("/../../etc/passwd", None).await.status(), 200); // normalised to the SPA
    let r = app.get("/api/unknown", None).await;
    assert_eq!(r.status(), 404);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "E003");

    // Raw UTF-8 right after a '%' (clients do send such paths): an answer, not a dropped
    // connection.
    for path in ["/%a\u{e9}", "/%\u{e9}", "/assets/%\u{7d6}x.js"] {
        let status = raw_get(&app.address, path).await;
        assert!(status.is_some_and(|s| s < 500), "{path}: {status:?}");
    }
}

/// The status of a GET sent byte for byte as given (reqwest would percent-encode the path), or
/// None when the server hangs up without answering.
async fn raw_get(address: &str, path: &str) -> Option<u16> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.ok()?;
    let head = String::from_utf8_lossy(&answer);
    head.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(bytes, 4096), &mut out).unwrap();
    out
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out).unwrap();
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut enc, bytes).unwrap();
    enc.finish().unwrap()
}

async fn get_with(
    app: &crate::helpers::TestApp,
    path: &str,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut req = app.client.get(app.url(path));
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.send().await.unwrap()
}

/// The build writes `.br` and `.gz` beside each asset; the server sends the one the request
/// accepts, says so, varies on it, and answers a repeated request with its ETag by 304.
async fn sends_the_precompressed_variant_the_request_accepts(backend: Backend) {
    let app = spawn_app(backend).await;
    let web = app.data_dir.join("web");
    std::fs::create_dir_all(web.join("assets")).unwrap();
    let js = "export const greeting = 'kizuna';\n".repeat(40);
    // Marked variants: the test can tell which file was sent, not only that it decodes.
    let br_body = brotli_compress(format!("{js}// br").as_bytes());
    std::fs::write(web.join("assets/app-1234abcd.js"), &js).unwrap();
    std::fs::write(web.join("assets/app-1234abcd.js.br"), &br_body).unwrap();
    std::fs::write(
        web.join("assets/app-1234abcd.js.gz"),
        gzip(format!("{js}// gz").as_bytes()),
    )
    .unwrap();
    std::fs::write(
        web.join("index.html"),
        "<!doctype html><title>Kizuna</title>",
    )
    .unwrap();
    std::fs::write(
        web.join("index.html.br"),
        brotli_compress(b"<!doctype html><title>Kizuna</title>"),
    )
    .unwrap();
    let path = "/assets/app-1234abcd.js";

    let r = get_with(&app, path, &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "br");
    assert_eq!(r.headers()["vary"], "accept-encoding");
    assert!(
        r.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    assert_eq!(
        r.headers()[CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    let br_etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let body = r.bytes().await.unwrap();
    assert_eq!(body.as_ref(), br_body.as_slice());
    assert_eq!(unbrotli(&body), format!("{js}// br").as_bytes());

    let r = get_with(&app, path, &[("accept-encoding", "gzip;q=1, br;q=0.5")]).await;
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert_eq!(r.headers()["vary"], "accept-encoding");
    let gz_etag = r.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(
        gunzip(&r.bytes().await.unwrap()),
        format!("{js}// gz").as_bytes()
    );
    assert_ne!(br_etag, gz_etag, "each representation has its own ETag");

    for accept in [None, Some("identity"), Some("br;q=0, gzip;q=0")] {
        let headers: Vec<(&str, &str)> =
            accept.map(|a| ("accept-encoding", a)).into_iter().collect();
        let r = get_with(&app, path, &headers).await;
        assert_eq!(r.status(), 200);
        assert!(r.headers().get("content-encoding").is_none(), "{accept:?}");
        assert_eq!(r.headers()["vary"], "accept-encoding");
        assert_eq!(r.text().await.unwrap(), js);
    }

    // Revalidation: the same variant's ETag is a 304 without a body; another variant's is not.
    let r = get_with(
        &app,
        path,
        &[("accept-encoding", "br"), ("if-none-match", &br_etag)],
    )
    .await;
    assert_eq!(r.status(), 304);
    assert!(r.bytes().await.unwrap().is_empty());
    let r = get_with(
        &app,
        path,
        &[("accept-encoding", "gzip"), ("if-none-match", &br_etag)],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");

    // A range of a hashed asset is still served, from the chosen variant.
    let r = get_with(
        &app,
        path,
        &[("accept-encoding", "gzip"), ("range", "bytes=0-1")],
    )
    .await;
    assert_eq!(r.status(), 206);
    assert_eq!(r.bytes().await.unwrap().as_ref(), &[0x1f, 0x8b]);

    // The SPA fallback is served precompressed too, revalidated by ETag or date; a file without
    // variants does not vary.
    let r = get_with(&app, "/register", &[("accept-encoding", "br")]).await;
    assert_eq!(r.headers()["content-encoding"], "br");
    assert_eq!(r.headers()[CACHE_CONTROL], "no-cache");
    assert!(r.headers().contains_key("last-modified"));
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let again = get_with(
        &app,
        "/profile",
        &[("accept-encoding", "br"), ("if-none-match", &etag)],
    )
    .await;
    assert_eq!(again.status(), 304);
    assert_eq!(
        unbrotli(&r.bytes().await.unwrap()),
        b"<!doctype html><title>Kizuna</title>"
    );
    std::fs::write(web.join("assets/plain-0000.css"), "a{}").unwrap();
    let r = get_with(&app, "/assets/plain-0000.css", &[("accept-encoding", "br")]).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("content-encoding").is_none());
    assert!(r.headers().get("vary").is_none());
}

fn brotli_compress(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 11, 22);
        std::io::Write::write_all(&mut w, bytes).unwrap();
    }
    out
}

/// JSON answers from 1 KB on are compressed for a client that accepts it; small ones are not;
/// both vary on Accept-Encoding.
async fn compresses_json_answers_above_a_kilobyte(backend: Backend) {
    let app = spawn_app(backend).await;
    let plain = get_with(&app, "/api/openapi.json", &[]).await;
    assert!(plain.headers().get("content-encoding").is_none());
    let plain = plain.bytes().await.unwrap();
    assert!(plain.len() > 1024);

    let r = get_with(
        &app,
        "/api/openapi.json",
        &[("accept-encoding", "br, gzip")],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "br");
    assert!(
        r.headers()["vary"]
            .to_str()
            .unwrap()
            .contains("accept-encoding")
    );
    let body = r.bytes().await.unwrap();
    assert!(
        body.len() < plain.len() / 3,
        "{} of {}",
        body.len(),
        plain.len()
    );
    assert_eq!(unbrotli(&body), plain.as_ref());

    let r = get_with(&app, "/api/openapi.json", &[("accept-encoding", "gzip")]).await;
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert_eq!(gunzip(&r.bytes().await.unwrap()), plain.as_ref());

    let r = get_with(&app, "/api/config", &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("content-encoding").is_none());
    assert!(
        r.headers()["vary"]
            .to_str()
            .unwrap()
            .contains("accept-encoding")
    );
    let small: Value = r.json().await.unwrap();
    assert_eq!(small["apiServerPath"], "/api");

    // Error answers are JSON too and keep their code through the plumbing.
    let r = get_with(&app, "/api/nope", &[("accept-encoding", "br")]).await;
    assert_eq!(r.status(), 404);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "E003");
}

/// /api/config tells the web app when the daily introductions come (its empty /today says so),
/// as KIZUNA_INTRODUCTIONS_AT names it; nothing when they are left to the command.
async fn config_tells_when_the_daily_introductions_come(backend: Backend) {
    use kizuna_server::matchmaking::schedule::Schedule;
    let app = crate::helpers::spawn_app_with(backend, |s| {
        s.introductions = Schedule::parse("07:30").unwrap();
    })
    .await;
    let config: Value = app.get("/api/config", None).await.json().await.unwrap();
    assert_eq!(config["introductionsAt"], "07:30");
    let off = crate::helpers::spawn_app_with(backend, |s| {
        s.introductions = Schedule::parse("off").unwrap();
    })
    .await;
    let config: Value = off.get("/api/config", None).await.json().await.unwrap();
    assert!(
        config.get("introductionsAt").is_none_or(Value::is_null),
        "{config}"
    );
}

/// The request id comes back on errors and when the client sent one, not on every answer.
async fn request_ids_come_back_on_errors_and_when_asked(backend: Backend) {
    let app = spawn_app(backend).await;
    let r = get_with(&app, "/api/config", &[]).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("x-request-id").is_none());
    let r = get_with(&app, "/api/config", &[("x-request-id", "trace-42")]).await;
    assert_eq!(r.headers()["x-request-id"], "trace-42");
    let r = get_with(&app, "/api/nope", &[]).await;
    assert_eq!(r.status(), 404);
    let id = r.headers()["x-request-id"].to_str().unwrap();
    assert_eq!(id.len(), 16);
}

/// The web app's page carries its Content-Security-Policy (with the hash of the
/// inline style of the index.html served, and no 'unsafe-inline'), the Permissions-Policy and no
/// framing; every other answer (API JSON, an error, a stored image, a proxied image, an asset)
/// carries nosniff, no Referer and a policy that allows nothing.
async fn security_headers_on_the_page_and_on_every_other_answer(backend: Backend) {
    use base64::Engine;
    use sha2::Digest;
    let app = spawn_app(backend).await;
    let web = app.data_dir.join("web");
    std::fs::create_dir_all(web.join("assets")).unwrap();
    let style = "html,body{margin:0}";
    std::fs::write(
        web.join("index.html"),
        format!("<!doctype html><head><style>{style}</style></head><title>Kizuna</title>"),
    )
    .unwrap();
    std::fs::write(web.join("assets/app-1234abcd.js"), "console.log(1)").unwrap();
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(style));

    let header = |r: &reqwest::Response, name: &str| {
        r.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_else(|| panic!("{} has no {name}", r.url()))
    };
    for path in ["/", "/register", "/chat?match=1", "/index.html"] {
        let r = app.get(path, None).await;
        assert_eq!(r.status(), 200);
        let csp = header(&r, "content-security-policy");
        for directive in [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval' https://static.line-scdn.net",
            "connect-src 'self' https://api.line.me https://liff.line.me https://access.line.me",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ] {
            assert!(
                csp.split("; ").any(|d| d == directive),
                "{path}: {directive} in {csp}"
            );
        }
        assert!(
            csp.contains(&format!(
                "style-src 'self' https://static.line-scdn.net 'sha256-{hash}'"
            )),
            "{csp}"
        );
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains(" 'unsafe-eval'"),
            "{csp}"
        );
        let permissions = header(&r, "permissions-policy");
        assert!(
            permissions.starts_with("geolocation=(self), camera=()"),
            "{permissions}"
        );
        assert_eq!(header(&r, "x-frame-options"), "DENY");
        assert_eq!(header(&r, "x-content-type-options"), "nosniff");
        assert_eq!(header(&r, "referrer-policy"), "no-referrer");
    }

    let user = app.new_user().await;
    let file = app
        .upload_ok(&user.token, crate::helpers::png(40, 30))
        .await;
    for (path, token, status) in [
        ("/api/config", None, 200),
        ("/api/nope", None, 404),
        ("/healthz", None, 200),
        ("/assets/app-1234abcd.js", None, 200),
        ("/assets/missing-0000.js", None, 404),
        (&*format!("/api/file/fetch/{file}"), Some(&*user.token), 200),
        (
            &*format!("/_ipx/w_20/api/file/fetch/{file}"),
            Some(&*user.token),
            200,
        ),
        ("/__mock/line/messages", None, 200),
    ] {
        let r = app.get(path, token).await;
        assert_eq!(r.status(), status, "{path}");
        assert_eq!(header(&r, "x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header(&r, "referrer-policy"), "no-referrer", "{path}");
        assert_eq!(
            header(&r, "content-security-policy"),
            "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            "{path}"
        );
        assert!(r.headers().get("permissions-policy").is_none(), "{path}");
    }
}

crate::on_both_backends!(
    config_tells_when_the_daily_introductions_come,
    request_ids_come_back_on_errors_and_when_asked,
    sends_the_precompressed_variant_the_request_accepts,
    compresses_json_answers_above_a_kilobyte,
    public_endpoints_and_unknown_api_paths,
    route_rules_come_from_the_database,
    mock_line_platform,
    serves_the_web_app_with_spa_fallback,
    security_headers_on_the_page_and_on_every_other_answer,
);

/// The web's API types are generated from a committed copy of the document: a change on the
/// server that is not regenerated there fails here.
#[test]
fn the_web_has_the_current_openapi_document() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../web/src/lib/api/openapi.json"
    );
    let committed = std::fs::read_to_string(path).unwrap();
    assert!(
        committed.trim_end() == kizuna_server::routes::openapi_json().trim_end(),
        "web/src/lib/api/openapi.json is stale: run `just openapi`"
    );
}
