//! Temp uploads against an abusive member, a stranger and slow clients: a rate per user, a quota
//! of unclaimed uploads (tighter without a profile, exact under races), replaced avatars let go,
//! and a bound on the uploads in flight (503 with `Retry-After` at once beyond it, without the
//! body being read; a body that trickles is cut off).

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use kizuna_core::rules;
use kizuna_server::{cleanup, file_store::FileStore};
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use crate::helpers::{
    Backend, TestApp, User, assert_error, jpeg, profile_payload, spawn_app, spawn_app_with,
};

/// A photo-like JPEG of about `w`×`h` whose bytes do not compress: the stored re-encode is big.
fn noisy_jpeg(w: u32, h: u32) -> Vec<u8> {
    let mut seed = 0x2545_f491_u32;
    let img = image::RgbImage::from_fn(w, h, |_, _| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let [a, b, c, _] = seed.to_le_bytes();
        image::Rgb([a, b, c])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 95)
        .encode_image(&img)
        .unwrap();
    out
}

async fn file_name(r: reqwest::Response) -> String {
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    body["fileName"].as_str().unwrap().to_string()
}

/// A registered member (PENDING) and their profile's photo: the profile claims two uploads.
async fn registered(app: &TestApp) -> (User, String) {
    let u = app.new_user().await;
    let photo = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let employee_id = app.upload_ok(&u.token, jpeg(64, 64)).await;
    let payload = profile_payload(&u.line_id, std::slice::from_ref(&photo), &employee_id);
    let r = app.create_profile(Some(&u.id_token), &payload).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    (u, photo)
}

/// Someone without a profile uploading in a loop: the quota of unclaimed uploads stops the
/// storing (413 E006 naming the quota), the rate stops the trying (429 E007 with `Retry-After`),
/// and another user uploads meanwhile. A member holds more.
async fn an_upload_loop_meets_the_quota_then_the_rate(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    let quota = rules::UNCLAIMED_UPLOADS_WITHOUT_PROFILE;
    let started = Instant::now();
    for i in 0..quota {
        let r = app.upload(&u.token, jpeg(32, 32), "p.jpg").await;
        assert_eq!(r.status(), 200, "upload {i}: {:?}", r.text().await);
    }
    let refused = assert_error(
        app.upload(&u.token, jpeg(32, 32), "p.jpg").await,
        413,
        "E006",
    )
    .await;
    let cause = refused["cause"].as_str().unwrap();
    assert!(
        cause.contains("quota") && cause.contains("profile"),
        "{cause}"
    );
    let stored = |app: &TestApp| {
        std::fs::read_dir(app.data_dir.join("files"))
            .map(|shards| {
                shards
                    .flatten()
                    .map(|s| std::fs::read_dir(s.path()).unwrap().count())
                    .sum::<usize>()
            })
            .unwrap_or(0)
    };
    assert_eq!(stored(&app), quota as usize, "nothing stored beyond it");

    let mut tries = quota + 1;
    let throttled = loop {
        let r = app.upload(&u.token, jpeg(32, 32), "p.jpg").await;
        if r.status() != 413 {
            break r;
        }
        tries += 1;
        assert!(tries <= 100, "never rate limited");
    };
    assert!(throttled.headers().contains_key("retry-after"));
    let body = assert_error(throttled, 429, "E007").await;
    assert!(
        body["cause"].as_str().unwrap().contains("uploads"),
        "{body}"
    );
    let limit = rules::UPLOADS_PER_MINUTE;
    let refills = (started.elapsed().as_secs_f64() * f64::from(limit) / 60.0).ceil() as u32;
    assert!(
        (limit..=limit + refills).contains(&tries),
        "{tries} uploads tried"
    );

    // Another user's allowance and quota are their own.
    let other = app.new_user().await;
    app.upload_ok(&other.token, jpeg(32, 32)).await;

    // A member (their profile claimed two uploads) may hold more than someone without one.
    let (member, _) = registered(&app).await;
    for i in 0..=quota {
        let r = app.upload(&member.token, jpeg(32, 32), "p.jpg").await;
        assert_eq!(r.status(), 200, "member upload {i}: {:?}", r.text().await);
    }
}

/// The quota counts stored bytes too: big photos reach it before the count does. (The quota's
/// bytes are shortened to 2 MB here: the core's 48 MB would take minutes of decodes.)
async fn the_quota_counts_stored_bytes(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.uploads.quota_without_profile.bytes = 2 * 1024 * 1024;
    })
    .await;
    let u = app.new_user().await;
    let quota = app.state.settings.uploads.quota_without_profile;
    let photo = noisy_jpeg(640, 480);
    let mut stored_bytes = 0u64;
    let mut n = 0;
    let refused = loop {
        let r = app.upload(&u.token, photo.clone(), "big.jpg").await;
        if r.status() != 200 {
            break r;
        }
        n += 1;
        let id = file_name(r).await;
        stored_bytes += app
            .state
            .files
            .size_of(&FileStore::original(&id))
            .await
            .unwrap()
            .unwrap();
        assert!(n < quota.files, "the count came first");
    };
    let body = assert_error(refused, 413, "E006").await;
    assert!(body["cause"].as_str().unwrap().contains("2 MB"), "{body}");
    assert!(
        n >= 2 && stored_bytes <= quota.bytes,
        "{n} photos, {stored_bytes} bytes"
    );
    assert!(
        stored_bytes + stored_bytes / u64::from(n) > quota.bytes,
        "{n} photos, {stored_bytes} bytes: one more would have gone past"
    );
}

/// Two uploads racing for the last place of the quota: one gets it, the other 413.
async fn two_uploads_racing_for_the_last_place_do_not_both_get_it(backend: Backend) {
    let app = spawn_app(backend).await;
    let u = app.new_user().await;
    for _ in 0..rules::UNCLAIMED_UPLOADS_WITHOUT_PROFILE - 1 {
        app.upload_ok(&u.token, jpeg(16, 16)).await;
    }
    // Big enough that both pass the first look before either has stored its row.
    let (a, b) = tokio::join!(
        app.upload(&u.token, jpeg(1200, 900), "a.jpg"),
        app.upload(&u.token, jpeg(1200, 900), "b.jpg"),
    );
    let mut statuses = [a.status().as_u16(), b.status().as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 413], "exactly one took the last place");
    let rows = app.snapshot().await.count("files");
    assert_eq!(rows, rules::UNCLAIMED_UPLOADS_WITHOUT_PROFILE as usize);
    assert_error(
        app.upload(&u.token, jpeg(16, 16), "c.jpg").await,
        413,
        "E006",
    )
    .await;

    // A day later the unclaimed uploads have expired (the sweep's): room again.
    app.clock().advance(cleanup::TEMP_FILE_TTL_SECS + 60);
    app.upload_ok(&u.token, jpeg(16, 16)).await;
}

/// Avatar after avatar stores nothing for good: the replaced one is a temp file again, which the
/// sweep removes a day after its upload; an avatar that is one of the profile's photos stays.
async fn a_replaced_avatar_is_let_go_and_swept(backend: Backend) {
    let app = spawn_app(backend).await;
    let (u, photo) = registered(&app).await;
    let store = app.state.files.clone();
    let first = app.upload_ok(&u.token, jpeg(40, 40)).await;
    assert_eq!(app.set_avatar(&u.token, &first).await.status(), 200);
    // Set again: nothing changes.
    assert_eq!(app.set_avatar(&u.token, &first).await.status(), 200);
    let second = app.upload_ok(&u.token, jpeg(40, 40)).await;
    assert_eq!(app.set_avatar(&u.token, &second).await.status(), 200);

    let now = kizuna_server::clock::now_secs() + cleanup::TEMP_FILE_TTL_SECS + 3600;
    assert_eq!(cleanup::sweep(&app.db, &store, now).await.unwrap(), 1);
    assert!(!app.stored(&first).await, "the replaced avatar is gone");
    assert!(app.stored(&second).await, "the avatar in use stays");
    assert_error(
        app.get(&format!("/api/file/fetch/{first}"), Some(&u.token))
            .await,
        404,
        "E003",
    )
    .await;
    let me: Value = app
        .get("/api/user/my-info", Some(&u.token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(me["avatar"], second.as_str());

    // The profile's photo made the avatar, then replaced by a new upload: the photo belongs to
    // the submission and stays; the upload replaced before it is let go.
    assert_eq!(app.set_avatar(&u.token, &photo).await.status(), 200);
    let third = app.upload_ok(&u.token, jpeg(40, 40)).await;
    assert_eq!(app.set_avatar(&u.token, &third).await.status(), 200);
    assert_eq!(cleanup::sweep(&app.db, &store, now).await.unwrap(), 1);
    assert!(app.stored(&photo).await, "a submission's photo stays");
    assert!(!app.stored(&second).await);
    assert!(app.stored(&third).await);
    assert_eq!(
        app.get(&format!("/api/file/fetch/{photo}"), Some(&u.token))
            .await
            .status(),
        200
    );
}

fn server_address(app: &TestApp) -> SocketAddr {
    app.address
        .trim_start_matches("http://")
        .parse()
        .expect("the test server's address")
}

/// An upload whose head has gone out, with `declared` body bytes announced; with `trickle`, the
/// multipart preamble follows and nothing more (it holds its slot while the rest "arrives"),
/// without, not a byte of the body.
async fn start_upload(
    app: &TestApp,
    token: Option<&str>,
    declared: usize,
    trickle: bool,
) -> TcpStream {
    let mut stream = TcpStream::connect(server_address(app)).await.unwrap();
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST /api/file/tempUpload HTTP/1.1\r\nHost: localhost\r\n{auth}\
         Content-Type: multipart/form-data; boundary=kizunaslow\r\n\
         Content-Length: {declared}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    if trickle {
        let preamble = "--kizunaslow\r\nContent-Disposition: form-data; name=\"file\"; \
                        filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n";
        stream.write_all(preamble.as_bytes()).await.unwrap();
    }
    stream.flush().await.unwrap();
    stream
}

/// The answer on `stream` within `limit`: status, headers (lowercase) and body.
async fn answer_within(stream: &mut TcpStream, limit: Duration) -> Option<(u16, String, String)> {
    let mut out = Vec::new();
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => break,
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => {
                out.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&out);
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length: ")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if out.len() >= end + 4 + len {
                        break;
                    }
                }
            }
        }
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, head.to_ascii_lowercase(), body.to_string()))
}

const SLOTS: usize = 3;
const BODY_TIMEOUT: Duration = Duration::from_secs(3);

/// The uploads in flight are bounded: with every slot taken by bodies still arriving, one more
/// upload is answered 503 E503 with `Retry-After` at once, before any of its body is sent; one
/// user cannot take more than their share (429 E007); a stranger is refused 401 without a slot;
/// the trickling bodies are cut off after their time and the slots come back.
async fn uploads_beyond_the_bound_are_refused_at_once_and_slow_bodies_cut_off(backend: Backend) {
    let app = spawn_app_with(backend, |s| {
        s.uploads.in_flight = SLOTS;
        s.uploads.body_timeout = BODY_TIMEOUT;
    })
    .await;
    let (a, b, c) = (
        app.new_user().await,
        app.new_user().await,
        app.new_user().await,
    );
    let declared = 9 * 1024 * 1024;

    // A stranger: 401 at once, no slot taken, nothing of the body read.
    let mut stranger = start_upload(&app, None, declared, false).await;
    let (status, _, body) = answer_within(&mut stranger, Duration::from_secs(1))
        .await
        .expect("answered at once");
    assert_eq!(status, 401, "{body}");
    assert_eq!(app.state.upload_slots.free(), SLOTS);

    let started = Instant::now();
    let mut held = Vec::new();
    for user in [&a, &a, &b] {
        held.push(start_upload(&app, Some(&user.token), declared, true).await);
    }
    let waited = Instant::now();
    while app.state.upload_slots.free() > 0 {
        assert!(
            waited.elapsed() < Duration::from_secs(2),
            "the slots were never taken"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // One user holds their share already: 429 for their third.
    let mut third = start_upload(&app, Some(&a.token), declared, false).await;
    let (status, head, body) = answer_within(&mut third, Duration::from_secs(1))
        .await
        .expect("answered at once");
    assert_eq!(status, 429, "{body}");
    assert!(head.contains("retry-after: "), "{head}");
    assert!(body.contains("E007"), "{body}");

    // Every slot taken: 503 with Retry-After at once, its body never sent.
    let asked = Instant::now();
    let mut beyond = start_upload(&app, Some(&c.token), declared, false).await;
    let (status, head, body) = answer_within(&mut beyond, Duration::from_secs(1))
        .await
        .expect("answered at once, without the body");
    assert!(asked.elapsed() < Duration::from_secs(1));
    assert_eq!(status, 503, "{body}");
    assert!(head.contains("retry-after: "), "{head}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["code"], "E503");
    assert!(body["cause"].as_str().unwrap().contains("upload"), "{body}");
    // Through a real client as well (a small body, read by the plumbing first).
    assert_error(app.upload(&c.token, jpeg(8, 8), "c.jpg").await, 503, "E503").await;

    // The trickling bodies are cut off after their time: 400 E002, and the slots come back.
    for stream in &mut held {
        let (status, _, body) = answer_within(stream, BODY_TIMEOUT + Duration::from_secs(2))
            .await
            .expect("cut off");
        assert_eq!(status, 400, "{body}");
        assert!(body.contains("did not arrive"), "{body}");
    }
    assert!(started.elapsed() >= BODY_TIMEOUT);
    let waited = Instant::now();
    while app.state.upload_slots.free() < SLOTS {
        assert!(
            waited.elapsed() < Duration::from_secs(2),
            "the slots never came back"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    app.upload_ok(&c.token, jpeg(64, 48)).await;
    app.upload_ok(&a.token, jpeg(64, 48)).await;
}

crate::on_both_backends!(
    an_upload_loop_meets_the_quota_then_the_rate,
    the_quota_counts_stored_bytes,
    two_uploads_racing_for_the_last_place_do_not_both_get_it,
    a_replaced_avatar_is_let_go_and_swept,
    uploads_beyond_the_bound_are_refused_at_once_and_slow_bodies_cut_off,
);
