//! The simulated members and the load balancer in front of the serving processes: requests go
//! round the processes that are in rotation, and one that cannot be reached (killed, restarting)
//! is skipped for the next, as a balancer's health check would. Each member has an address of its
//! own, sent in `X-Forwarded-For` (the servers trust that header), so that per-address limits see
//! 2,000 clients, not one loopback address.

use std::{
    sync::{
        Arc, RwLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// How long a member's client keeps retrying one action (the web app retries a message until
/// the member gives up; a minute is longer than any fault of the run).
const GIVE_UP_AFTER: Duration = Duration::from_secs(90);
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Balancer {
    /// The processes in rotation (all, or only one for the one-process phase).
    bases: RwLock<Vec<String>>,
    next: AtomicUsize,
    pub client: reqwest::Client,
}

/// An answer that is not the action's success.
#[derive(Debug)]
pub enum Refused {
    /// A 4xx other than 429: retrying cannot help.
    Status(StatusCode, String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Refused::Status(status, body) = self;
        write!(f, "{status}: {body}")
    }
}

impl Balancer {
    pub fn new(bases: Vec<String>) -> Arc<Balancer> {
        Arc::new(Balancer {
            bases: RwLock::new(bases),
            next: AtomicUsize::new(0),
            client: reqwest::Client::builder()
                .no_proxy()
                .pool_max_idle_per_host(512)
                .timeout(REQUEST_TIMEOUT)
                .build()
                .expect("an HTTP client"),
        })
    }

    pub fn set_rotation(&self, bases: Vec<String>) {
        *self.bases.write().expect("rotation") = bases;
    }

    /// The next process in rotation.
    pub fn pick(&self) -> String {
        let bases = self.bases.read().expect("rotation");
        bases[self.next.fetch_add(1, Ordering::Relaxed) % bases.len()].clone()
    }

    /// Sends one action until it succeeds, as a client that retries: a transport error, a
    /// timeout or a 5xx goes to the next process after a short pause; a 429 waits its
    /// `Retry-After`. Answers the success's status and body, or the refusal.
    pub async fn call(
        &self,
        member: Option<&Member>,
        method: Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> anyhow::Result<Result<(StatusCode, Value), Refused>> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(100);
        loop {
            let base = self.pick();
            let mut req = self.client.request(method.clone(), format!("{base}{path}"));
            if let Some(m) = member {
                req = req
                    .bearer_auth(&m.token)
                    .header("X-Forwarded-For", &m.address);
            }
            for (name, value) in headers {
                req = req.header(*name, *value);
            }
            if let Some(body) = body {
                req = req.json(body);
            }
            let wait = match req.send().await {
                Ok(r) if r.status().is_success() => {
                    let status = r.status();
                    let text = r.text().await.unwrap_or_default();
                    return Ok(Ok((
                        status,
                        serde_json::from_str(&text).unwrap_or(Value::Null),
                    )));
                }
                Ok(r) if r.status() == StatusCode::TOO_MANY_REQUESTS => r
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
                    .map(Duration::from_secs)
                    .unwrap_or(Duration::from_secs(1)),
                Ok(r) if r.status().is_server_error() => pause,
                Ok(r) => {
                    let status = r.status();
                    return Ok(Err(Refused::Status(
                        status,
                        r.text().await.unwrap_or_default(),
                    )));
                }
                Err(_) => pause,
            };
            if started.elapsed() > GIVE_UP_AFTER {
                bail!("{method} {path}: no answer within {GIVE_UP_AFTER:?}");
            }
            tokio::time::sleep(wait).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }

    /// `call`, where anything but success is the run's failure.
    pub async fn ok(
        &self,
        member: Option<&Member>,
        method: Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> anyhow::Result<Value> {
        match self.call(member, method, path, body, headers).await? {
            Ok((_, value)) => Ok(value),
            Err(refused) => bail!("{path}: {refused}"),
        }
    }
}

/// One simulated member.
#[derive(Clone, Debug)]
pub struct Member {
    pub index: usize,
    pub line_id: String,
    pub token: String,
    /// The client address the balancer writes into `X-Forwarded-For`.
    pub address: String,
    pub profile_id: i64,
    pub photo: String,
}

/// A camera-like JPEG (gradients), different for every member.
pub fn photo(seed: usize) -> Vec<u8> {
    let img = image::RgbImage::from_fn(320, 240, |x, y| {
        image::Rgb([
            (x as usize * 255 / 320) as u8,
            (y as usize * 255 / 240) as u8,
            ((x as usize + y as usize + seed * 37) % 256) as u8,
        ])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80)
        .encode_image(&img)
        .expect("encoding a photo");
    out
}

/// The mock LINE platform's base (the third process).
pub struct Line {
    pub base: String,
    pub client: reqwest::Client,
}

impl Line {
    async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        let r = self
            .client
            .post(format!("{}/__mock{path}", self.base))
            .json(&body)
            .send()
            .await?;
        if !r.status().is_success() {
            bail!("mock {path}: {}", r.status());
        }
        Ok(r.json().await?)
    }

    pub async fn id_token(&self, line_id: &str) -> anyhow::Result<String> {
        self.post(
            "/line/users",
            json!({"userId": line_id, "displayName": "Chaos", "friend": true}),
        )
        .await?;
        let token = self
            .post("/line/id-token", json!({"userId": line_id}))
            .await?;
        Ok(token["idToken"]
            .as_str()
            .context("an ID token")?
            .to_string())
    }

    /// Every push the platform recorded.
    pub async fn pushes(&self) -> anyhow::Result<Vec<Value>> {
        Ok(self
            .client
            .get(format!("{}/__mock/line/messages", self.base))
            .send()
            .await?
            .json()
            .await?)
    }
}

async fn upload(lb: &Balancer, member: &Member, bytes: Vec<u8>) -> anyhow::Result<String> {
    let started = Instant::now();
    loop {
        let part = reqwest::multipart::Part::bytes(bytes.clone())
            .file_name("photo.jpg")
            .mime_str("image/jpeg")?;
        let r = lb
            .client
            .post(format!("{}/api/file/tempUpload", lb.pick()))
            .bearer_auth(&member.token)
            .header("X-Forwarded-For", &member.address)
            .multipart(reqwest::multipart::Form::new().part("file", part))
            .send()
            .await;
        match r {
            Ok(r) if r.status().is_success() => {
                let body: Value = r.json().await?;
                return Ok(body["fileName"]
                    .as_str()
                    .context("a file name")?
                    .to_string());
            }
            Ok(r) if r.status().is_client_error() && r.status() != 429 => {
                bail!("upload: {} {}", r.status(), r.text().await?)
            }
            _ if started.elapsed() > GIVE_UP_AFTER => bail!("upload: no answer"),
            _ => tokio::time::sleep(Duration::from_millis(500)).await,
        }
    }
}

/// Where pair `pair` lives: each pair on a cell of its own, 0.2° (about 20 km) from the next,
/// and a 5 km radius, so that each member's only possible introduction is their partner.
fn home(pair: usize) -> (f64, f64) {
    (
        21.0 + (pair / 50) as f64 * 0.2,
        119.0 + (pair % 50) as f64 * 0.2,
    )
}

/// Signs a new member in (a verified ID token from the mock), uploads a photo and a proof and
/// registers (PENDING): `index` even is a woman seeking men, odd her partner.
pub async fn register(lb: &Balancer, line: &Line, index: usize) -> anyhow::Result<Member> {
    let line_id = format!("U{:032x}", 0x00c4_a050_0000_0000_u64 + index as u64);
    let id_token = line.id_token(&line_id).await?;
    let mut member = Member {
        index,
        line_id: line_id.clone(),
        token: String::new(),
        address: format!(
            "10.{}.{}.{}",
            index / 65_536 % 256,
            index / 256 % 256,
            index % 256
        ),
        profile_id: 0,
        photo: String::new(),
    };
    let login = json!({"account": line_id, "password": line_id});
    let session = lb
        .ok(
            Some(&member),
            Method::POST,
            "/api/user/login",
            Some(&login),
            &[("X-Line-Id-Token", &id_token)],
        )
        .await?;
    member.token = session["token"].as_str().context("a session")?.to_string();
    member.photo = upload(lb, &member, photo(index)).await?;
    let proof = upload(lb, &member, photo(index + 1_000_000)).await?;
    let female = index.is_multiple_of(2);
    let (latitude, longitude) = home(index / 2);
    let mut body: Value = serde_json::from_str(include_str!(
        "../../../fuzz/corpus/registration_payload/seed-valid-employee-id.json"
    ))?;
    let fields = [
        ("account", json!(line_id)),
        ("password", json!(line_id)),
        ("nickname", json!(format!("Chaos{index}"))),
        ("gender", json!(if female { "FEMALE" } else { "MALE" })),
        ("matchGender", json!(if female { "MALE" } else { "FEMALE" })),
        ("latitude", json!(latitude)),
        ("longitude", json!(longitude)),
        ("recommendDistanceKm", json!(5)),
        ("valueItem", json!([])),
        ("photoNameList", json!([member.photo])),
        ("verifyTempFileName", json!(proof)),
        (
            "companyEmail",
            json!(format!("member{index}@{}.com", employer(index))),
        ),
    ];
    for (name, value) in fields {
        body[name] = value;
    }
    let created = lb
        .ok(
            Some(&member),
            Method::POST,
            "/api/user-profile",
            Some(&body),
            &[("X-Line-Id-Token", &id_token)],
        )
        .await?;
    let _ = created;
    Ok(member)
}

/// The employer of member `index`: the two of a pair work at different ones (colleagues are
/// never introduced to each other).
fn employer(index: usize) -> &'static str {
    if index.is_multiple_of(2) {
        "tsmc"
    } else {
        "mediatek"
    }
}

/// A reviewer approves the member, as the console does: claim, then decide at the claimed
/// version with the employer on record.
pub async fn approve(lb: &Balancer, reviewer: &Member, member: &Member) -> anyhow::Result<()> {
    let profile_id = member.profile_id;
    let claim = lb
        .ok(
            Some(reviewer),
            Method::POST,
            &format!("/api/review/profiles/{profile_id}/claim"),
            None,
            &[],
        )
        .await?;
    let decision = json!({
        "action": "APPROVE",
        "employer": employer(member.index),
        "version": claim["version"],
    });
    lb.ok(
        Some(reviewer),
        Method::POST,
        &format!("/api/review/profiles/{profile_id}/decision"),
        Some(&decision),
        &[],
    )
    .await?;
    Ok(())
}

/// Both members of a pair open their introductions and like each other: the second like makes
/// the match. Answers the match id.
/// Waits until every process's match pool holds `members` members (its metrics' gauge), for at
/// most 30 s; answers how long it took.
pub async fn pools_hold(
    client: &reqwest::Client,
    metrics_ports: &[u16],
    members: usize,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    loop {
        let mut held = Vec::new();
        for port in metrics_ports {
            let text = client
                .get(format!("http://127.0.0.1:{port}/metrics"))
                .send()
                .await?
                .text()
                .await?;
            held.push(
                text.lines()
                    .find_map(|l| l.strip_prefix("kizuna_match_pool_members "))
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .unwrap_or(0.0) as usize,
            );
        }
        if held.iter().all(|n| *n == members) {
            return Ok(started.elapsed());
        }
        if started.elapsed() > Duration::from_secs(30) {
            bail!("the processes' pools hold {held:?} of {members} members after 30 s");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn match_pair(lb: &Balancer, a: &Member, b: &Member) -> anyhow::Result<i64> {
    for (who, whom) in [(a, b), (b, a)] {
        let list = lb
            .ok(Some(who), Method::GET, "/api/introductions", None, &[])
            .await?;
        let listed = list["introductions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|i| i["member"]["memberId"] == whom.profile_id);
        if !listed {
            bail!(
                "member {} was not introduced to {}: {list}",
                who.index,
                whom.index
            );
        }
    }
    lb.ok(
        Some(a),
        Method::POST,
        &format!("/api/introductions/{}/like", b.profile_id),
        None,
        &[],
    )
    .await?;
    let liked = lb
        .ok(
            Some(b),
            Method::POST,
            &format!("/api/introductions/{}/like", a.profile_id),
            None,
            &[],
        )
        .await?;
    liked["matchId"].as_i64().context("the like made no match")
}
