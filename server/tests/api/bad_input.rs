//! Bad bodies: each class answers its code and changes no stored data; nothing answers 500.

use serde_json::{Value, json};

use kizuna_core::rules::{LOG_LINES_PER_MINUTE_ANONYMOUS, LOG_LINES_PER_MINUTE_MEMBER};

use crate::helpers::{Backend, assert_error, jpeg, profile_payload, spawn_app, spawn_app_with};

async fn bad_bodies(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let p = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let v = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let good = profile_payload(&u.line_id, std::slice::from_ref(&p), &v);
    let before = app.snapshot().await;

    let raw = |path: &str, body: &str| {
        app.client
            .post(app.url(path))
            .header("X-Line-Id-Token", &u.id_token)
            .header("content-type", "application/json")
            .body(body.to_string())
    };

    // Malformed JSON.
    for body in ["{", "{\"account\":", "not json", "", "[1,2", "\u{0}"] {
        let r = raw("/api/user-profile", body).send().await.unwrap();
        assert_error(r, 400, "E002").await;
        let r = raw("/api/user/login", body).send().await.unwrap();
        assert_error(r, 400, "E002").await;
    }
    // Not an object.
    for body in ["[]", "42", "\"text\"", "null"] {
        let r = raw("/api/user-profile", body).send().await.unwrap();
        let status = r.status().as_u16();
        assert!(status == 400 || status == 422, "{body}: {status}");
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "E002");
    }
    // Wrong content type.
    let r = app
        .client
        .post(app.url("/api/user-profile"))
        .header("X-Line-Id-Token", &u.id_token)
        .header("content-type", "text/plain")
        .body(good.to_string())
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;

    // Wrong types: every one reported.
    let mut wrong = good.clone();
    wrong["height"] = json!("tall");
    wrong["personalityTagIds"] = json!("101");
    wrong["latitude"] = json!({"x": 1});
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &wrong).await,
        400,
        "E002",
    )
    .await;
    for f in ["height", "personalityTagIds", "latitude"] {
        assert!(body["fields"][f].is_array(), "{f}: {body}");
    }
    // Unknown fields.
    let mut unknown = good.clone();
    unknown["isAdmin"] = json!(true);
    unknown["status"] = json!("APPROVED");
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &unknown).await,
        400,
        "E002",
    )
    .await;
    assert_eq!(
        body["fields"]["isAdmin"],
        json!(["unknown_field"]),
        "{body}"
    );
    // Missing fields: every required one reported.
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &json!({"account": u.line_id}))
            .await,
        422,
        "E002",
    )
    .await;
    for f in ["nickname", "birthday", "gender", "photoNameList"] {
        assert!(body["fields"][f].is_array(), "{f}: {body}");
    }
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("nickname");
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &missing).await,
        422,
        "E002",
    )
    .await;
    assert!(body["fields"]["nickname"].is_array(), "{body}");
    // Rule failures (too young).
    let mut young = good.clone();
    young["birthday"] = json!("2015-01-01");
    assert_error(
        app.create_profile(Some(&u.id_token), &young).await,
        422,
        "E002",
    )
    .await;
    // Unknown / malformed file names.
    let mut ghost = good.clone();
    ghost["photoNameList"] = json!(["0123456789abcdef0123456789abcdef"]);
    let body = assert_error(
        app.create_profile(Some(&u.id_token), &ghost).await,
        422,
        "E002",
    )
    .await;
    assert_eq!(
        body["fields"]["photoNameList"],
        json!(["unknown_file"]),
        "{body}"
    );
    let mut traversal = good.clone();
    traversal["photoNameList"] = json!(["../../etc/passwd"]);
    assert_error(
        app.create_profile(Some(&u.id_token), &traversal).await,
        422,
        "E002",
    )
    .await;

    // Login: missing, unknown and mistyped fields.
    for body in [
        json!({"account": u.line_id}),
        json!({"account": u.line_id, "password": u.line_id, "admin": true}),
        json!({"account": 5, "password": u.line_id}),
    ] {
        let r = app
            .client
            .post(app.url("/api/user/login"))
            .header("X-Line-Id-Token", &u.id_token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_error(r, 400, "E002").await;
    }

    // Oversize bodies.
    let mut huge = good.clone();
    huge["aboutMe"] = json!("x".repeat(400 * 1024));
    assert_error(
        app.create_profile(Some(&u.id_token), &huge).await,
        413,
        "E006",
    )
    .await;
    // ...also without a Content-Length (chunked).
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = vec![
        Ok(b"{\"aboutMe\":\"".to_vec()),
        Ok(vec![b'y'; 300 * 1024]),
        Ok(b"\"}".to_vec()),
    ];
    let r = app
        .client
        .post(app.url("/api/user-profile"))
        .header("X-Line-Id-Token", &u.id_token)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_error(r, 413, "E006").await;
    // Avatar body of the wrong shape.
    let r = app
        .client
        .put(app.url("/api/user-profile/avatar"))
        .bearer_auth(&u.token)
        .json(&json!({"avatar": 12}))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;

    assert_eq!(app.snapshot().await, before);

    // After all that, the good payload still goes through.
    let r = app.create_profile(Some(&u.id_token), &good).await;
    assert_eq!(r.status(), 200);
}

async fn logger_is_capped_and_rate_limited(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let log = |body: Value| {
        app.client
            .post(app.url("/api/logger"))
            .bearer_auth(&u.token)
            .json(&body)
            .send()
    };
    let r = log(json!({"message": "hello from the client", "level": "info"}))
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_error(
        log(json!({"message": "x", "level": "loud"})).await.unwrap(),
        400,
        "E002",
    )
    .await;
    assert_error(
        log(json!({"message": "x".repeat(2001), "level": "info"}))
            .await
            .unwrap(),
        400,
        "E002",
    )
    .await;
    assert_error(
        log(json!({"message": "x".repeat(40_000), "level": "info"}))
            .await
            .unwrap(),
        413,
        "E006",
    )
    .await;
    let mut limited = false;
    for _ in 0..40 {
        let r = log(json!({"message": "spam", "level": "warn"}))
            .await
            .unwrap();
        if r.status() == 429 {
            assert_error(r, 429, "E007").await;
            limited = true;
            break;
        }
        assert_eq!(r.status(), 204);
    }
    assert!(limited);

    // Wrong types are refused, not turned into text.
    let r = app
        .client
        .post(app.url("/api/logger"))
        .json(&json!({"message": 5, "level": "info"}))
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "E002").await;
    // Made-up session tokens do not buy fresh allowances: without a real session the client's
    // address is what counts.
    let mut limited = false;
    for i in 0..40 {
        let fake = format!("{:0>43}", i);
        let r = app
            .client
            .post(app.url("/api/logger"))
            .bearer_auth(&fake)
            .json(&json!({"message": "spam", "level": "warn"}))
            .send()
            .await
            .unwrap();
        if r.status() == 429 {
            limited = true;
            break;
        }
        assert_eq!(r.status(), 204);
    }
    assert!(limited, "forty fake tokens were never limited");
}

/// Behind a proxy every request comes from the proxy: the client is the address the proxy wrote
/// into the configured header. Anonymous lines get a tighter allowance per address than a
/// member's, and one address using it up leaves the others theirs.
async fn anonymous_log_lines_are_capped_per_client_address_behind_the_proxy(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.trusted_proxy_header = Some("x-forwarded-for".parse().unwrap());
    })
    .await;
    let line = json!({"message": "from the login screen", "level": "error"});
    let anonymous = |forwarded: &'static str| {
        app.client
            .post(app.url("/api/logger"))
            .header("x-forwarded-for", forwarded)
            .json(&line)
            .send()
    };
    // One line comes back every 60 / n seconds: a slow machine may be handed a refill or two.
    let started = std::time::Instant::now();
    let refills = |per_minute: u32| {
        (started.elapsed().as_secs_f64() / (60.0 / per_minute as f64)).floor() as u32
    };
    let mut written = 0;
    loop {
        let r = anonymous("10.0.0.1, 203.0.113.7").await.unwrap();
        if r.status() == 429 {
            assert_error(r, 429, "E007").await;
            break;
        }
        assert_eq!(r.status(), 204);
        written += 1;
        assert!(written <= 30, "never limited");
    }
    let most = LOG_LINES_PER_MINUTE_ANONYMOUS + refills(LOG_LINES_PER_MINUTE_ANONYMOUS);
    assert!(
        (LOG_LINES_PER_MINUTE_ANONYMOUS..=most).contains(&written),
        "{written} anonymous lines"
    );
    // What the client claimed before the proxy's own entry buys nothing.
    let r = anonymous("198.51.100.99, 203.0.113.7").await.unwrap();
    if refills(LOG_LINES_PER_MINUTE_ANONYMOUS) == 0 {
        assert_error(r, 429, "E007").await;
    }
    // Another client behind the same proxy has its own allowance.
    assert_eq!(anonymous("203.0.113.8").await.unwrap().status(), 204);

    // A member from the exhausted address writes on their own, larger allowance.
    let u = app.new_user().await;
    let mut member_lines = 0;
    for _ in 0..LOG_LINES_PER_MINUTE_MEMBER {
        let r = app
            .client
            .post(app.url("/api/logger"))
            .header("x-forwarded-for", "203.0.113.7")
            .bearer_auth(&u.token)
            .json(&line)
            .send()
            .await
            .unwrap();
        if r.status() == 204 {
            member_lines += 1;
        }
    }
    assert_eq!(member_lines, LOG_LINES_PER_MINUTE_MEMBER);
}

/// Without a configured proxy header, the header is the client's own claim and is ignored.
async fn a_forwarded_header_buys_nothing_without_a_trusted_proxy(backend: Backend) {
    let app = spawn_app(backend).await;
    let started = std::time::Instant::now();
    let mut written = 0;
    for n in 0..=LOG_LINES_PER_MINUTE_ANONYMOUS {
        let r = app
            .client
            .post(app.url("/api/logger"))
            .header("x-forwarded-for", format!("203.0.113.{n}"))
            .json(&json!({"message": "spam", "level": "error"}))
            .send()
            .await
            .unwrap();
        if r.status() == 204 {
            written += 1;
        }
    }
    let refills = (started.elapsed().as_secs_f64() * LOG_LINES_PER_MINUTE_ANONYMOUS as f64 / 60.0)
        .floor() as u32;
    assert!(
        written <= LOG_LINES_PER_MINUTE_ANONYMOUS + refills,
        "{written} lines from one address"
    );
}

crate::on_both_backends!(
    logger_is_capped_and_rate_limited,
    bad_bodies,
    anonymous_log_lines_are_capped_per_client_address_behind_the_proxy,
    a_forwarded_header_buys_nothing_without_a_trusted_proxy,
);

/// Reads one HTTP/1.1 answer off a kept-alive connection: its status, its headers (lower-case
/// names) and its body by `Content-Length`; `None` when the connection closes first.
async fn read_answer(
    stream: &mut tokio::net::TcpStream,
    buffered: &mut Vec<u8>,
) -> Option<(u16, Vec<(String, String)>)> {
    use tokio::io::AsyncReadExt;
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffered.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffered.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffered[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()?
        .strip_prefix("HTTP/1.1 ")?
        .get(..3)?
        .parse()
        .ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    while buffered.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffered.extend_from_slice(&chunk[..n]);
    }
    buffered.drain(..head_end + length);
    Some((status, headers))
}

/// A request refused before its body is read, whose body arrives a moment after its headers:
/// the connection either stays usable for the next request or the answer says
/// `Connection: close`, so that a keep-alive client never writes into a closed socket.
async fn a_refusal_before_the_body_leaves_the_connection_usable(backend: Backend) {
    use tokio::io::AsyncWriteExt;
    let app = spawn_app(backend).await;
    let host = app.address.trim_start_matches("http://").to_string();
    let line_id = crate::helpers::line_user_id();
    app.mock_user(&line_id, true).await;
    let expired = app
        .id_token_with(json!({"userId": line_id, "expiresIn": -10}))
        .await;
    let cases = [
        ("/api/blocks", String::new(), json!({"memberId": 1}), 401),
        (
            "/api/user/login",
            format!("X-Line-Id-Token: {expired}\r\n"),
            json!({"account": line_id, "password": line_id}),
            403,
        ),
    ];
    for (path, extra, body, status) in cases {
        let body = body.to_string();
        let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n{extra}\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        // The body may meet a socket the server already closed; that is what is tested below.
        let _ = stream.write_all(body.as_bytes()).await;
        let mut buffered = Vec::new();
        let (got, headers) = read_answer(&mut stream, &mut buffered)
            .await
            .unwrap_or_else(|| panic!("{path}: no answer"));
        assert_eq!(got, status, "{path}");
        let closing = headers
            .iter()
            .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
        if closing {
            continue;
        }
        let next = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n");
        let sent = stream.write_all(next.as_bytes()).await;
        assert!(
            sent.is_ok(),
            "{path}: the kept-alive connection was closed: {sent:?}"
        );
        let second = read_answer(&mut stream, &mut buffered).await;
        assert_eq!(
            second.map(|(s, _)| s),
            Some(200),
            "{path}: the next request on the kept-alive connection got no answer"
        );
    }
}

crate::on_both_backends!(a_refusal_before_the_body_leaves_the_connection_usable);
