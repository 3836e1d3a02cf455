//! What an operator runs on (docs/operations.md): `/readyz` apart from `/healthz`, turning
//! not-ready first under a real SIGTERM of the binary; the Prometheus metrics on their own
//! listener, labelled by route pattern and never by anything a member is or wrote; the alert
//! rules through promtool's own checks and tests; and a real Prometheus scraping a running server.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use reqwest::StatusCode;
use serde_json::{Value, json};

use reqwest::Method;

use crate::{
    chat::{Events, client_id, match_of, matched, post},
    colleagues::approve,
    export::{download, ready_copy},
    helpers::{
        Api, Backend, TestApp, jpeg, profile_payload, scratch_database, scratch_dir, spawn_app_with,
    },
    matchmaking::{ok_json, register, send},
    on_both_backends,
    process::{Server, free_port},
    review::make_reviewer,
};

/// Waits until `/readyz` answers 200 (the match pool loaded), 10 s at most.
pub async fn until_ready(api: &Api) {
    let started = Instant::now();
    loop {
        let r = api.get("/readyz", None).await;
        if r.status() == StatusCode::OK {
            assert_eq!(r.text().await.unwrap(), "ready");
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never ready: {}",
            r.text().await.unwrap()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A real SIGTERM: `/readyz` answers 503 "draining" at once while `/healthz` and the API still
/// answer for the drain (KIZUNA_DRAIN_SECS); then new connections are refused, and the process
/// exits cleanly, having logged each step.
async fn a_sigterm_turns_the_process_not_ready_before_it_stops(backend: Backend) {
    let data_dir = scratch_dir();
    let (url, _db) = scratch_database(backend, &data_dir).await;
    let mut server = Server::start_with(
        &data_dir,
        url.as_deref(),
        "info",
        &[("KIZUNA_DRAIN_SECS", "2")],
    )
    .await;
    let api = Api::new(server.base.clone());
    until_ready(&api).await;
    let user = api.new_user().await;

    server.terminate();
    let signalled = Instant::now();
    loop {
        let r = api.get("/readyz", None).await;
        if r.status() == StatusCode::SERVICE_UNAVAILABLE {
            assert!(r.headers().contains_key("retry-after"));
            assert_eq!(r.text().await.unwrap(), "draining");
            break;
        }
        assert!(
            signalled.elapsed() < Duration::from_millis(1000),
            "still ready"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Alive, and still serving members while the balancer takes it out of rotation.
    assert_eq!(api.get("/healthz", None).await.status(), 200);
    let me = api.get("/api/user/my-info", Some(&user.token)).await;
    assert_eq!(me.status(), 200);
    assert!(
        signalled.elapsed() < Duration::from_secs(2),
        "the checks ran within the drain"
    );
    // Then the graceful shutdown as before: no new connection, a clean exit.
    let refused_after = loop {
        let fresh = reqwest::Client::builder().no_proxy().build().unwrap();
        if fresh
            .get(api.url("/healthz"))
            .timeout(Duration::from_secs(1))
            .send()
            .await
            .is_err()
        {
            break signalled.elapsed();
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(10),
            "never stopped"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        refused_after >= Duration::from_millis(1900),
        "stopped accepting after {refused_after:?}, before the drain"
    );
    assert!(server.wait(Duration::from_secs(30)).await, "a clean exit");
    let log = server.log_text();
    let draining = log.find("draining").expect("the drain is logged");
    let stopping = log
        .find("shutting down: finishing in-flight requests")
        .expect("the shutdown is logged");
    assert!(draining < stopping, "{log}");
    std::fs::remove_dir_all(&data_dir).ok();
}

/// A bucket that can no longer be reached: alive (the database answers) but not ready, until it
/// is back.
#[tokio::test]
async fn a_process_whose_file_store_cannot_be_reached_is_not_ready() {
    let s3 = crate::s3::S3Server::start();
    let app = crate::helpers::spawn_app_on_s3(Backend::Sqlite, &s3, |_| {}).await;
    until_ready(&app.api).await;
    s3.stop();
    assert_eq!(app.get("/healthz", None).await.status(), 200);
    let r = app.get("/readyz", None).await;
    assert_eq!(r.status(), 503);
    assert_eq!(r.text().await.unwrap(), "file store unavailable");
}

/// One sample of the Prometheus text format: name, labels, value.
#[derive(Debug)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

/// The samples of a scrape (the format's escapes do not occur in Kizuna's labels: a label
/// carrying a quote or a backslash fails the parse, and the test with it).
pub fn samples(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("a sample has a value");
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => {
                    let body = rest.strip_suffix('}').expect("labels end with }");
                    let labels = body
                        .split("\",")
                        .filter(|p| !p.is_empty())
                        .map(|pair| {
                            let (k, v) = pair.split_once("=\"").expect("label=\"value\"");
                            assert!(!v.contains('\\'), "an escaped label: {line}");
                            (k.to_string(), v.trim_end_matches('"').to_string())
                        })
                        .collect();
                    (name.to_string(), labels)
                }
                None => (series.to_string(), Vec::new()),
            };
            Sample {
                name,
                labels,
                value: value.parse().expect("a number"),
            }
        })
        .collect()
}

/// The value of the sample `name` with exactly these labels among others, if scraped.
pub fn value_of(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.iter().any(|(lk, lv)| lk == k && lv == v))
        })
        .map(|s| s.value)
}

/// The words a label may be besides a route pattern and a status: methods, limits, push
/// outcomes and codes, histogram bounds.
fn allowed_label(key: &str, value: &str, patterns: &BTreeSet<String>) -> bool {
    match key {
        "route" => {
            patterns.contains(value)
                || [
                    "/healthz",
                    "/readyz",
                    "/_ipx/{modifiers}/{source}",
                    "/__mock/{development}",
                    "/{web app}",
                    "/api/{unknown}",
                ]
                .contains(&value)
        }
        "method" => [
            "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER",
        ]
        .contains(&value),
        "status" | "code" => {
            (value.len() == 3 && value.bytes().all(|b| b.is_ascii_digit()))
                || ["timeout", "connect", "transport", "unreadable", "none"].contains(&value)
        }
        "outcome" => [
            "sent",
            "retried",
            "refused",
            "expired",
            "unfollowed",
            "withdrawn",
        ]
        .contains(&value),
        "decision" => [
            "approve",
            "reject",
            "suspend",
            "reinstate",
            "approve-revision",
            "reject-revision",
            "appeal-upheld",
            "appeal-reinstated",
        ]
        .contains(&value),
        "why" => ["sign-out", "everywhere", "suspension", "deletion"].contains(&value),
        "stage" => ["requested", "ready", "failed"].contains(&value),
        "limit" => value.len() <= 20 && value.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
        "le" | "quantile" => value == "+Inf" || value.parse::<f64>().is_ok(),
        _ => false,
    }
}

/// Real traffic through the binary, ids and personal details in paths and bodies, then a
/// scrape of its metrics listener: every label is a route pattern of the API document, a
/// method, a status or another word of a fixed set; no LINE user id, member id, file name,
/// token or profile text appears anywhere in it; the counts and gauges say what happened; and
/// the public port does not serve the metrics.
#[tokio::test]
async fn the_metrics_carry_no_member_and_no_text_only_patterns() {
    let data_dir = scratch_dir();
    let metrics_port = free_port();
    let metrics_bind = format!("127.0.0.1:{metrics_port}");
    let server = Server::start_with(
        &data_dir,
        None,
        "warn",
        &[("KIZUNA_METRICS_BIND", &metrics_bind)],
    )
    .await;
    let api = Api::new(server.base.clone());
    until_ready(&api).await;
    let mut secrets: Vec<String> = Vec::new();
    let mut registered = 0;
    for n in 0..2 {
        let user = api.new_user().await;
        let photo = api.upload_ok(&user.token, jpeg(64, 64)).await;
        let verify = api.upload_ok(&user.token, jpeg(64, 40)).await;
        let mut payload = profile_payload(&user.line_id, std::slice::from_ref(&photo), &verify);
        payload["nickname"] = json!(format!("Quillon{n}"));
        payload["aboutMe"] = json!("I restore antique barometers on weekends.");
        let r = api.create_profile(Some(&user.id_token), &payload).await;
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        registered += 1;
        for path in [
            format!("/api/user/review-status/{}", user.line_id),
            format!("/api/file/fetch/{photo}"),
            format!("/_ipx/w_32/api/file/fetch/{photo}"),
            "/api/user/my-info".to_string(),
        ] {
            assert_eq!(
                api.get(&path, Some(&user.token)).await.status(),
                200,
                "{path}"
            );
        }
        // Refused ones too: a stranger's member page, an unknown path with an id in it.
        assert_ne!(
            api.get("/api/members/987654", Some(&user.token))
                .await
                .status(),
            200
        );
        assert_eq!(
            api.get(&format!("/api/nope/{}", user.line_id), None)
                .await
                .status(),
            404
        );
        secrets.extend([
            user.line_id.clone(),
            user.line_id[1..].to_string(),
            user.token.clone(),
            user.id_token.clone(),
            photo,
            verify,
            format!("Quillon{n}"),
        ]);
    }
    // A rate limit reached: client log lines, 30 a minute.
    let member = api.new_user().await;
    let mut refused = 0;
    for _ in 0..35 {
        let r = api
            .client
            .post(api.url("/api/logger"))
            .bearer_auth(&member.token)
            .json(&json!({"level": "info", "message": "antique barometers"}))
            .send()
            .await
            .unwrap();
        refused += usize::from(r.status() == 429);
    }
    assert!(refused > 0);

    let scrape = |base: String| async move {
        let r = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .get(format!("{base}/metrics"))
            .send()
            .await
            .unwrap();
        (r.status(), r.text().await.unwrap())
    };
    let (status, text) = scrape(format!("http://{metrics_bind}")).await;
    assert_eq!(status, 200);
    let (_, public) = scrape(server.base.clone()).await;
    assert!(
        !public.contains("kizuna_http_requests_total"),
        "the public port serves no metrics"
    );

    let patterns: BTreeSet<String> = {
        let doc: Value = serde_json::from_str(&kizuna_server::routes::openapi_json()).unwrap();
        doc["paths"]
            .as_object()
            .unwrap()
            .keys()
            .map(|p| format!("/api{p}"))
            .collect()
    };
    let scraped = samples(&text);
    assert!(scraped.len() > 20, "{text}");
    let mut bad = Vec::new();
    for sample in &scraped {
        for (key, value) in &sample.labels {
            if !allowed_label(key, value, &patterns) {
                bad.push(format!("{}: {key}={value:?}", sample.name));
            }
        }
    }
    assert!(bad.is_empty(), "labels outside the fixed sets: {bad:#?}");
    let leaked: Vec<&String> = secrets
        .iter()
        .filter(|s| text.contains(s.as_str()))
        .collect();
    assert!(leaked.is_empty(), "the metrics hold {leaked:?}");
    for word in ["barometers", "Quillon", "tsmc"] {
        assert!(!text.contains(word), "{word}");
    }

    // What happened is there, under the pattern.
    let count = |route: &str, status: &str| {
        value_of(
            &scraped,
            "kizuna_http_requests_total",
            &[("route", route), ("status", status)],
        )
        .unwrap_or(0.0)
    };
    assert_eq!(
        count("/api/user/review-status/{userId}", "200"),
        2.0,
        "{text}"
    );
    assert_eq!(count("/api/file/fetch/{fileId}", "200"), 2.0, "{text}");
    assert_eq!(count("/_ipx/{modifiers}/{source}", "200"), 2.0);
    assert_eq!(count("/api/{unknown}", "404"), 2.0);
    assert_eq!(count("/api/user-profile", "200"), 2.0);
    assert!(
        value_of(
            &scraped,
            "kizuna_http_request_duration_seconds_count",
            &[("route", "/api/user/my-info")]
        )
        .unwrap_or(0.0)
            >= 2.0
    );
    assert_eq!(
        value_of(
            &scraped,
            "kizuna_rate_limit_refusals_total",
            &[("limit", "log")]
        ),
        Some(refused as f64)
    );
    assert_eq!(
        value_of(&scraped, "kizuna_review_queue_length", &[]),
        Some(registered as f64)
    );
    let oldest = value_of(&scraped, "kizuna_review_queue_oldest_age_seconds", &[]).unwrap();
    assert!((0.0..120.0).contains(&oldest), "{oldest}");
    for gauge in [
        "kizuna_push_outbox_pending",
        "kizuna_chat_streams_open",
        "kizuna_match_pool_members",
        "kizuna_match_pool_update_age_seconds",
        "kizuna_uploads_in_flight",
        "kizuna_db_pool_connections",
        "kizuna_db_pool_max",
    ] {
        assert!(value_of(&scraped, gauge, &[]).is_some(), "{gauge}: {text}");
    }
    assert_eq!(value_of(&scraped, "kizuna_gauges_read", &[]), Some(1.0));
    assert_eq!(
        value_of(&scraped, "kizuna_uploads_in_flight", &[]),
        Some(0.0)
    );
    drop(server);
    std::fs::remove_dir_all(&data_dir).ok();
}

/// A scrape of a test application's metrics listener, parsed.
async fn scrape_app(app: &TestApp) -> (String, Vec<Sample>) {
    let address = app.metrics.expect("the test set metrics_bind");
    let r = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(format!("http://{address}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    let parsed = samples(&text);
    (text, parsed)
}

/// Every metric a use-case, the chat relay or the image proxy records is on a real scrape after
/// the action that records it, its labels from their fixed sets and nothing of the members in
/// it: a reviewer's approvals, a message posted through one process and taken by a stream open
/// on another (the delivery lag, its publishing time carried by the NOTIFY), an image rendered,
/// a copy of the data made, a sign-out, an account deleted, the write transactions' waits. Both
/// applications run in this test's process and so record into its one recorder, which other
/// tests running meanwhile record into too: each count is compared with the scrape before.
#[tokio::test]
async fn each_recorded_metric_is_on_a_real_scrape_after_its_action() {
    let first = spawn_app_with(Backend::Postgres, |s| {
        s.metrics_bind = Some("127.0.0.1:0".into())
    })
    .await;
    let url = first.database_url.clone();
    let second = spawn_app_with(Backend::Postgres, |s| s.database_url = Some(url)).await;
    let (_, before) = scrape_app(&first).await;

    let reviewer = make_reviewer(&first.api).await;
    let (mei, _) = register(&first, 0, true).await;
    let (kai, _) = register(&first, 1, false).await;
    approve(&first, &reviewer, &mei, "tsmc").await;
    approve(&first, &reviewer, &kai, "mediatek").await;
    matched(&first, &mei, &kai).await;
    let match_id = match_of(&first, &mei, &kai).await;
    let mut kai_events = Events::open(&second, &kai).await;
    let text = "Meet me by the antique barometers";
    ok_json(post(&first, &mei, match_id, &client_id(1), text).await).await;
    assert_eq!(kai_events.expect("message").await["message"]["text"], text);
    let rendered = first
        .get(
            &format!("/_ipx/w_37/api/file/fetch/{}", mei.photo),
            Some(&mei.user.token),
        )
        .await;
    assert_eq!(rendered.status(), 200);
    let link = ready_copy(&first, &mei).await;
    assert!(!download(&first, &link).await.is_empty());
    // Refused by their limits: a fourth copy in a day, a sixth open stream.
    for _ in 0..2 {
        let r = send(
            &first,
            Method::POST,
            "/api/user/data-export",
            &mei.user.token,
            None,
        )
        .await;
        assert_eq!(r.status(), 202);
    }
    let r = send(
        &first,
        Method::POST,
        "/api/user/data-export",
        &mei.user.token,
        None,
    )
    .await;
    assert_eq!(r.status(), 429);
    let mut mei_streams = Vec::new();
    for _ in 0..5 {
        mei_streams.push(Events::open(&first, &mei).await);
    }
    let r = first.get("/api/chat/events", Some(&mei.user.token)).await;
    assert_eq!(r.status(), 429);
    drop(mei_streams);
    let signed_out = send(
        &first,
        Method::POST,
        "/api/user/logout",
        &reviewer.token,
        None,
    )
    .await;
    assert!(signed_out.status().is_success());
    let deleted = send(
        &first,
        Method::DELETE,
        "/api/user/account",
        &kai.user.token,
        Some(json!({"lineAccessToken": null})),
    )
    .await;
    assert!(deleted.status().is_success());

    let (text_after, after) = scrape_app(&first).await;
    let grew = |name: &str, labels: &[(&str, &str)]| {
        value_of(&after, name, labels).unwrap_or(0.0)
            - value_of(&before, name, labels).unwrap_or(0.0)
    };
    for (name, labels, at_least) in [
        (
            "kizuna_review_decisions_total",
            &[("decision", "approve")][..],
            2.0,
        ),
        ("kizuna_chat_delivery_lag_seconds_count", &[], 1.0),
        ("kizuna_image_renders_total", &[], 1.0),
        ("kizuna_data_exports_total", &[("stage", "requested")], 1.0),
        ("kizuna_data_exports_total", &[("stage", "ready")], 1.0),
        ("kizuna_sessions_revoked_total", &[("why", "sign-out")], 1.0),
        ("kizuna_sessions_revoked_total", &[("why", "deletion")], 1.0),
        ("kizuna_accounts_deleted_total", &[], 1.0),
        ("kizuna_db_begin_wait_seconds_count", &[], 5.0),
        (
            "kizuna_rate_limit_refusals_total",
            &[("limit", "data-exports")],
            1.0,
        ),
        (
            "kizuna_rate_limit_refusals_total",
            &[("limit", "chat-streams")],
            1.0,
        ),
    ] {
        assert!(
            grew(name, labels) >= at_least,
            "{name} {labels:?} grew by {} only: {text_after}",
            grew(name, labels)
        );
    }
    // The lag of a message between two processes on this machine: well under a second.
    let within_a_second = |samples: &[Sample]| {
        samples
            .iter()
            .find(|s| {
                s.name == "kizuna_chat_delivery_lag_seconds_bucket"
                    && s.labels
                        .iter()
                        .any(|(k, v)| k == "le" && v.parse::<f64>().ok() == Some(1.0))
            })
            .map_or(0.0, |s| s.value)
    };
    assert!(
        within_a_second(&after) - within_a_second(&before) >= 1.0,
        "{text_after}"
    );
    assert!(value_of(&after, "kizuna_image_renders_in_flight", &[]).is_some());

    let patterns: BTreeSet<String> = {
        let doc: Value = serde_json::from_str(&kizuna_server::routes::openapi_json()).unwrap();
        doc["paths"]
            .as_object()
            .unwrap()
            .keys()
            .map(|p| format!("/api{p}"))
            .collect()
    };
    let bad: Vec<String> = after
        .iter()
        .flat_map(|s| {
            s.labels
                .iter()
                .filter(|(k, v)| !allowed_label(k, v, &patterns))
                .map(move |(k, v)| format!("{}: {k}={v:?}", s.name))
        })
        .collect();
    assert!(bad.is_empty(), "labels outside the fixed sets: {bad:#?}");
    for secret in [
        mei.user.line_id.as_str(),
        kai.user.line_id.as_str(),
        mei.user.token.as_str(),
        mei.photo.as_str(),
        link.as_str(),
        "barometers",
    ] {
        assert!(!text_after.contains(secret), "the metrics hold {secret}");
    }
}

/// The repository's Prometheus files (`ops/prometheus/`).
fn prometheus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops/prometheus")
}

/// A tool of Debian's `prometheus` package, which `scripts/dev.sh` installs.
fn prometheus_tool(name: &str) -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!(
            "{name} is not installed: Debian's `prometheus` package (scripts/dev.sh installs it)"
        )
    })
}

/// `promtool check rules` passes on the alert rules, and `promtool test rules` on their unit
/// tests (each alert fires on the series it is meant for, and not on healthy ones).
#[test]
fn the_alert_rules_pass_promtools_own_checks_and_tests() {
    let dir = prometheus_dir();
    for args in [
        vec!["check", "rules", "kizuna-rules.yml"],
        vec![
            "test",
            "rules",
            "kizuna-rules.test.yml",
            "kizuna-rules.daily.test.yml",
        ],
    ] {
        let out = Command::new(prometheus_tool("promtool"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "promtool {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A real Prometheus, with the repository's rules loaded, scrapes a running server's metrics
/// listener; a metric of the server reads back through Prometheus' query API.
#[tokio::test]
async fn a_real_prometheus_scrapes_the_server_and_answers_its_metrics() {
    let data_dir = scratch_dir();
    let metrics_bind = format!("127.0.0.1:{}", free_port());
    let server = Server::start_with(
        &data_dir,
        None,
        "warn",
        &[("KIZUNA_METRICS_BIND", &metrics_bind)],
    )
    .await;
    let api = Api::new(server.base.clone());
    until_ready(&api).await;
    for _ in 0..3 {
        assert_eq!(api.get("/api/config", None).await.status(), 200);
    }

    let home = scratch_dir();
    std::fs::copy(
        prometheus_dir().join("kizuna-rules.yml"),
        home.join("kizuna-rules.yml"),
    )
    .unwrap();
    std::fs::write(
        home.join("prometheus.yml"),
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - \
             kizuna-rules.yml\nscrape_configs:\n  - job_name: kizuna\n    static_configs:\n      \
             - targets: ['{metrics_bind}']\n"
        ),
    )
    .unwrap();
    let port = free_port();
    let log = std::fs::File::create(home.join("prometheus.log")).unwrap();
    let mut prometheus = Command::new(prometheus_tool("prometheus"))
        .arg(format!(
            "--config.file={}",
            home.join("prometheus.yml").display()
        ))
        .arg(format!(
            "--storage.tsdb.path={}",
            home.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let query = |q: &'static str| {
        let client = client.clone();
        async move {
            let r = client
                .get(format!("http://127.0.0.1:{port}/api/v1/query"))
                .query(&[("query", q)])
                .send()
                .await
                .ok()?;
            let body: Value = r.json().await.ok()?;
            body["data"]["result"].as_array().cloned()
        }
    };
    let started = Instant::now();
    let found = loop {
        let result =
            query("sum(kizuna_http_requests_total{route=\"/api/config\",status=\"200\"})").await;
        if let Some(value) = result
            .as_ref()
            .and_then(|r| r.first())
            .and_then(|s| s["value"][1].as_str())
            .and_then(|v| v.parse::<f64>().ok())
        {
            break value;
        }
        if let Some(status) = prometheus.try_wait().unwrap() {
            panic!(
                "prometheus exited ({status}): {}",
                std::fs::read_to_string(home.join("prometheus.log")).unwrap_or_default()
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "prometheus never had the metric: {}",
            std::fs::read_to_string(home.join("prometheus.log")).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(found, 3.0);
    let up = query("up{job=\"kizuna\"}").await.unwrap();
    assert_eq!(up[0]["value"][1], "1");
    // The rules loaded: their recording rules answer.
    let rules: Value = client
        .get(format!("http://127.0.0.1:{port}/api/v1/rules"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let groups = rules["data"]["groups"].as_array().unwrap();
    assert!(!groups.is_empty(), "{rules}");
    let _ = prometheus.kill();
    let _ = prometheus.wait();
    drop(server);
    std::fs::remove_dir_all(&home).ok();
    std::fs::remove_dir_all(&data_dir).ok();
}

on_both_backends!(a_sigterm_turns_the_process_not_ready_before_it_stops);
