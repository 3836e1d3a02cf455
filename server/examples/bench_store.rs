//! `just bench-store`: what keeping files in an S3 bucket costs a member's request, against the
//! local disk. Starts the given kizuna-server binary twice (mock LINE, SQLite, a temp data dir,
//! traffic only to 127.0.0.1): once on the local store, once on a bucket of `s3s-fs` (started here
//! on loopback over a temp dir, with credentials). On each, one member uploads a 1280×960 photo
//! (as the web app sends them) and then, one request at a time, asks for:
//!
//! - the file itself (`/api/file/fetch/{id}`): one store read;
//! - a cached variant (`/_ipx/w_400,f_webp/…` again): one store read;
//! - new variants (100 sizes, within the member's render budget): the store read of the source,
//!   the render, the variant count and the write of the result.
//!
//! Prints p50 and p99 per kind and store. `bench_store SERVER_BIN [S3S_FS_BIN]`.

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use image::{Rgb, RgbImage};
use serde_json::{Value, json};

struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A camera-like 1280×960 JPEG (gradients and stripes), as the web app uploads.
fn photo() -> Vec<u8> {
    let img = RgbImage::from_fn(1280, 960, |x, y| {
        let wave = ((x as f32 / 37.0).sin() * (y as f32 / 53.0).cos()) * 40.0;
        let stripe = if ((x + y) / 90).is_multiple_of(2) {
            20.0
        } else {
            -20.0
        };
        Rgb([
            (120.0 + wave + stripe) as u8,
            (100.0 + x as f32 / 12.0) as u8,
            (90.0 + y as f32 / 10.0 - wave) as u8,
        ])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
        .encode_image(&img)
        .expect("encoding the photo");
    out
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

async fn wait_until_up(client: &reqwest::Client, url: &str) {
    let started = Instant::now();
    while client.get(url).send().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{url} did not come up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Times each request of `paths` (200 asserted); answers (p50, p99) in ms.
async fn time(client: &reqwest::Client, base: &str, token: &str, paths: &[String]) -> (f64, f64) {
    let mut took = Vec::new();
    for path in paths {
        let started = Instant::now();
        let r = client
            .get(format!("{base}{path}"))
            .bearer_auth(token)
            .header("accept", "image/webp")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        r.bytes().await.unwrap();
        took.push(started.elapsed());
    }
    took.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(percentile(&took, 0.5)), ms(percentile(&took, 0.99)))
}

async fn run(bin: &str, store: &[(&str, String)], label: &str, photo: &[u8]) -> anyhow::Result<()> {
    let data =
        std::env::temp_dir().join(format!("kizuna-bench-store-{}-{label}", std::process::id()));
    std::fs::create_dir_all(&data)?;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _server = Process(
        Command::new(bin)
            .arg("serve")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("KIZUNA_BIND", format!("127.0.0.1:{port}"))
            .env("KIZUNA_DATA_DIR", &data)
            .env("KIZUNA_WEB_DIR", data.join("web"))
            .env("KIZUNA_INTRODUCTIONS_AT", "off")
            .env("RUST_LOG", "warn")
            .envs(store.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let client = reqwest::Client::builder().no_proxy().build()?;
    wait_until_up(&client, &format!("{base}/healthz")).await;
    let line_id = "U0123456789abcdef0123456789abcdef";
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
    let token = session["token"].as_str().unwrap().to_string();
    let part = reqwest::multipart::Part::bytes(photo.to_vec())
        .file_name("photo.jpg")
        .mime_str("image/jpeg")?;
    let uploaded: Value = client
        .post(format!("{base}/api/file/tempUpload"))
        .bearer_auth(&token)
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await?
        .json()
        .await?;
    let id = uploaded["fileName"].as_str().unwrap().to_string();

    let fetches: Vec<String> = (0..200).map(|_| format!("/api/file/fetch/{id}")).collect();
    let card = format!("/_ipx/w_400,f_webp/api/file/fetch/{id}");
    time(&client, &base, &token, std::slice::from_ref(&card)).await;
    let cached: Vec<String> = (0..200).map(|_| card.clone()).collect();
    let fresh: Vec<String> = (0..100)
        .map(|n| format!("/_ipx/w_{},f_webp/api/file/fetch/{id}", 200 + n))
        .collect();
    let (f50, f99) = time(&client, &base, &token, &fetches).await;
    let (c50, c99) = time(&client, &base, &token, &cached).await;
    let (n50, n99) = time(&client, &base, &token, &fresh).await;
    println!(
        "{label:<6} file p50 {f50:6.2} ms p99 {f99:6.2} ms | cached variant p50 {c50:6.2} ms p99 {c99:6.2} ms | new variant p50 {n50:6.2} ms p99 {n99:6.2} ms"
    );
    let _ = std::fs::remove_dir_all(&data);
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let bin = args
        .next()
        .expect("usage: bench_store SERVER_BIN [S3S_FS_BIN]");
    let s3s = args.next().unwrap_or_else(|| "s3s-fs".into());
    let photo = photo();
    println!(
        "a {} KB 1280x960 JPEG, one request at a time over loopback (200 file reads, 200 cached, 100 new variants)",
        photo.len() / 1024
    );
    run(&bin, &[], "local", &photo).await?;

    let root = std::env::temp_dir().join(format!("kizuna-bench-s3-{}", std::process::id()));
    std::fs::create_dir_all(root.join("kizuna-bench"))?;
    let port = free_port();
    let _s3 = Process(
        Command::new(&s3s)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", "bench", "--secret-key", "bench-secret"])
            .arg(&root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(10),
            "s3s-fs did not listen"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let store = [
        ("KIZUNA_FILE_STORE", "s3://kizuna-bench".to_string()),
        ("KIZUNA_S3_ENDPOINT", format!("http://127.0.0.1:{port}")),
        ("KIZUNA_S3_ACCESS_KEY_ID", "bench".to_string()),
        ("KIZUNA_S3_SECRET_ACCESS_KEY", "bench-secret".to_string()),
    ];
    run(&bin, &store, "s3", &photo).await?;
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}
