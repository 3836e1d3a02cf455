//! `just bench-uploads`: the memory a burst of large uploads costs the server, against the ceiling
//! docs/design.md states (`images::admission::memory_ceiling`).
//!
//! Starts the given kizuna-server binary (mock LINE, SQLite, a temp data dir; traffic only to
//! 127.0.0.1), signs in BENCH_UPLOADS users (60) and has each upload one 40 MP JPEG of about
//! 8.8 MB at once; an upload answered 503 is sent again after its `Retry-After`, as the web app
//! does. Prints what the first tries were answered, the wall time, and the server's resident
//! memory (VmHWM, the peak, from /proc/{pid}/status) above what it had idle; fails when the peak
//! is over the ceiling.
//!
//! `bench_uploads SERVER_BIN` with BENCH_UPLOADS, BENCH_WORKERS (KIZUNA_IMAGE_WORKERS, 2),
//! BENCH_IN_FLIGHT (KIZUNA_UPLOADS_IN_FLIGHT, unset: the server's default), BENCH_NO_CEILING=1
//! (only print: for a binary from before the bound).

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use image::{Rgb, RgbImage};
use kizuna_server::images::{self, MAX_UPLOAD_BODY};
use rand::{Rng, SeedableRng, rngs::StdRng};
use serde_json::{Value, json};

const MB: f64 = 1024.0 * 1024.0;

/// A 40 MP camera-like JPEG (gradients, stripes, sensor noise) of about 8.8 MB.
fn big_photo() -> Vec<u8> {
    let (width, height) = (7300u32, 5470u32);
    let mut rng = StdRng::seed_from_u64(7);
    let img = RgbImage::from_fn(width, height, |x, y| {
        let (fx, fy) = (x as f32, y as f32);
        let wave = ((fx / 37.0).sin() * (fy / 53.0).cos()) * 25.0;
        let stripes = if ((x + y) / 180).is_multiple_of(2) {
            18.0
        } else {
            -18.0
        };
        let mut px = [0u8; 3];
        for (c, v) in px.iter_mut().enumerate() {
            let noise: f32 = rng.gen_range(-9.0..9.0);
            *v = (110.0 + fx / 80.0 - fy / 90.0 + wave * (c as f32 - 1.0) + stripes + noise)
                .clamp(0.0, 255.0) as u8;
        }
        Rgb(px)
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 88)
        .encode_image(&img)
        .expect("encoding the photo");
    out
}

/// (VmRSS, VmHWM) of a process, in bytes.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    body: Value,
    header: Option<(&str, &str)>,
) -> Value {
    let mut req = client.post(url).json(&body);
    if let Some((name, value)) = header {
        req = req.header(name, value);
    }
    let r = req.send().await.expect("the server answers");
    assert!(r.status().is_success(), "{url}: {}", r.status());
    r.json().await.unwrap_or(Value::Null)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let bin = std::env::args()
        .nth(1)
        .expect("usage: bench_uploads SERVER_BIN");
    let env_num = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let uploads = env_num("BENCH_UPLOADS", 60);
    let workers = env_num("BENCH_WORKERS", 2);
    let in_flight = std::env::var("BENCH_IN_FLIGHT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    let in_flight_in_force = in_flight
        .unwrap_or_else(|| images::admission::UploadLimits::for_workers(workers).in_flight);

    let photo = big_photo();
    let (w, h) = image::ImageReader::new(std::io::Cursor::new(&photo))
        .with_guessed_format()?
        .into_dimensions()?;
    assert!(
        photo.len() <= images::MAX_UPLOAD_BYTES
            && u64::from(w) * u64::from(h) <= images::MAX_PIXELS,
        "the photo ({} bytes, {w}×{h}) must be one the server accepts",
        photo.len()
    );

    let data = std::env::temp_dir().join(format!("kizuna-bench-uploads-{}", std::process::id()));
    std::fs::create_dir_all(&data)?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let mut command = Command::new(&bin);
    command
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("KIZUNA_BIND", format!("127.0.0.1:{port}"))
        .env("KIZUNA_DATA_DIR", &data)
        .env("KIZUNA_WEB_DIR", data.join("web"))
        .env("KIZUNA_LINE_MOCK", "true")
        .env("KIZUNA_IMAGE_WORKERS", workers.to_string())
        .env("KIZUNA_INTRODUCTIONS_AT", "off")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(n) = in_flight {
        command.env("KIZUNA_UPLOADS_IN_FLIGHT", n.to_string());
    }
    let server = Server(command.spawn()?);
    let pid = server.0.id();
    let client = reqwest::Client::builder().no_proxy().build()?;
    let started = Instant::now();
    while client.get(format!("{base}/healthz")).send().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the server did not start"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let mut tokens = Vec::new();
    for i in 0..uploads {
        let line_id = format!("U{:032x}", 0xbe0c_0000_u64 + i as u64);
        post(
            &client,
            &format!("{base}/__mock/line/users"),
            json!({"userId": line_id, "displayName": "Bench", "friend": true}),
            None,
        )
        .await;
        let id_token = post(
            &client,
            &format!("{base}/__mock/line/id-token"),
            json!({"userId": line_id}),
            None,
        )
        .await["idToken"]
            .as_str()
            .unwrap()
            .to_string();
        let session = post(
            &client,
            &format!("{base}/api/user/login"),
            json!({"account": line_id, "password": line_id}),
            Some(("X-Line-Id-Token", &id_token)),
        )
        .await;
        tokens.push(session["token"].as_str().unwrap().to_string());
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (idle, _) = memory(pid);

    let started = Instant::now();
    let tasks: Vec<_> = tokens
        .into_iter()
        .map(|token| {
            let client = client.clone();
            let photo = photo.clone();
            let url = format!("{base}/api/file/tempUpload");
            tokio::spawn(async move {
                let mut first = None;
                for _ in 0..200 {
                    let part = reqwest::multipart::Part::bytes(photo.clone())
                        .file_name("big.jpg")
                        .mime_str("image/jpeg")
                        .unwrap();
                    let answer = client
                        .post(&url)
                        .bearer_auth(&token)
                        .multipart(reqwest::multipart::Form::new().part("file", part))
                        .send()
                        .await;
                    let (status, wait) = match answer {
                        Ok(r) => {
                            let wait = r
                                .headers()
                                .get("retry-after")
                                .and_then(|v| v.to_str().ok())
                                .and_then(|v| v.parse::<u64>().ok());
                            (r.status().as_u16(), wait)
                        }
                        // The server answered 503 without reading the body and closed.
                        Err(_) => (0, None),
                    };
                    first.get_or_insert(status);
                    match status {
                        200 => return (first, true),
                        503 | 0 => {
                            tokio::time::sleep(Duration::from_secs(wait.unwrap_or(2))).await;
                        }
                        _ => return (first, false),
                    }
                }
                (first, false)
            })
        })
        .collect();
    let mut firsts = std::collections::BTreeMap::<u16, usize>::new();
    let mut stored = 0;
    for task in tasks {
        let (first, ok) = task.await?;
        *firsts.entry(first.unwrap_or(0)).or_default() += 1;
        stored += usize::from(ok);
    }
    let wall = started.elapsed();
    let (_, peak) = memory(pid);
    drop(server);
    let _ = std::fs::remove_dir_all(&data);

    let ceiling = images::admission::memory_ceiling(in_flight_in_force, workers);
    let grew = peak.saturating_sub(idle);
    println!(
        "{uploads} concurrent uploads of a {w}x{h} JPEG ({:.1} MB), {workers} image workers, {in_flight_in_force} uploads in flight",
        photo.len() as f64 / MB
    );
    println!(
        "  first tries answered: {firsts:?} (0: the connection closed before an answer was read)"
    );
    println!(
        "  stored: {stored} of {uploads} in {:.1} s",
        wall.as_secs_f64()
    );
    println!(
        "  server memory: idle {:.0} MB, peak (VmHWM) {:.0} MB, grew {:.0} MB; ceiling above idle {:.0} MB \
         ({in_flight_in_force} bodies x {:.2} MB + {workers} decodes x {:.0} MB)",
        idle as f64 / MB,
        peak as f64 / MB,
        grew as f64 / MB,
        ceiling as f64 / MB,
        MAX_UPLOAD_BODY as f64 / MB,
        images::admission::DECODE_BYTES as f64 / MB,
    );
    if std::env::var("BENCH_NO_CEILING").is_err() {
        anyhow::ensure!(
            stored == uploads,
            "{} uploads were never stored",
            uploads - stored
        );
        anyhow::ensure!(grew <= ceiling, "the peak is over the ceiling");
    }
    Ok(())
}
