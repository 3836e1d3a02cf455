//! Settings from the environment: the operator contract of docs/design.md.
//!
//! | variable | default |
//! |---|---|
//! | KIZUNA_BIND | 127.0.0.1:8080 |
//! | DATABASE_URL | `sqlite://{data_dir}/kizuna.db?mode=rwc` |
//! | KIZUNA_DATA_DIR | ./data |
//! | KIZUNA_WEB_DIR | web/dist |
//! | KIZUNA_LINE_MOCK | true |
//! | KIZUNA_LINE_API_BASE | https://api.line.me, or `http://{bound address}/__mock/line` when mocked |
//! | KIZUNA_LINE_CHANNEL_ID, KIZUNA_LIFF_ID, KIZUNA_LINE_BOT_ID | mock values; required with the mock off, refused with it on |
//! | KIZUNA_LINE_CHANNEL_SECRET, KIZUNA_LINE_CHANNEL_ACCESS_TOKEN | mock values; required with the mock off, refused with it on |
//! | KIZUNA_LINE_LOGIN_CHANNEL_TOKEN | a mock value; required with the mock off, refused with it on |
//!
//! Extra (not part of the contract, for operators and tests): KIZUNA_IMAGE_WORKERS (concurrent
//! image decodes, default = number of CPUs), KIZUNA_UPLOADS_IN_FLIGHT (uploads received or decoded
//! at once, each holding up to a 10 MB body, 1 to 256, default twice the image workers; beyond it
//! 503 with `Retry-After`), KIZUNA_IPX_PREVIEWS (default true: the image proxy
//! decodes the upload-time preview when it suffices), KIZUNA_DB_POOL (pool size, 1 to 1000;
//! SQLite 8, PostgreSQL 32), KIZUNA_POOL_TTL_SECS (how long the in-memory match pool serves
//! before a whole reload, 1 to 86400, default 3600; changes arrive member by member meanwhile).
//!
//! Files: KIZUNA_FILE_STORE (`local`, under the data dir, or `s3://bucket[/prefix]`) with, for a
//! bucket, KIZUNA_S3_ENDPOINT (an S3-compatible server), KIZUNA_S3_REGION (us-east-1) and the
//! required KIZUNA_S3_ACCESS_KEY_ID and KIZUNA_S3_SECRET_ACCESS_KEY.
//!
//! Connections: KIZUNA_MAX_CONNECTIONS (open connections in all, default the open-file limit less
//! 256 kept for the database and files; at least 16, at most that).
//!
//! Behind a reverse proxy: KIZUNA_TRUSTED_PROXY_HEADER (the header the proxy writes the client's
//! address into, e.g. `X-Forwarded-For`; unset: the connection's peer is the client).
//!
//! Operations: KIZUNA_METRICS_BIND (the address of the Prometheus metrics listener, `GET /metrics`;
//! unset: none; never the public port) and KIZUNA_DRAIN_SECS (after SIGTERM, how long `/readyz`
//! answers 503 while the server still serves, before the graceful shutdown; 0 to 60, default 5).
//!
//! Mail (work e-mail codes): KIZUNA_SMTP_URL (lettre's connection URL, see `crate::mail`: e.g.
//! `smtp://host:25`, `smtp://user:pass@host:587?tls=required`, `smtps://user:pass@host:465`;
//! unset: mail goes to the in-process outbox at `/__mock/mail`, which only exists beside the mock
//! LINE platform, so with KIZUNA_LINE_MOCK=false the server refuses to start without it) and
//! KIZUNA_MAIL_FROM (the sender, default `Kizuna <no-reply@localhost>`).

use std::path::PathBuf;

use crate::{
    line::push::PushSettings,
    mail::{DEFAULT_MAIL_FROM, MailSettings},
};

pub const MOCK_CHANNEL_ID: &str = "2000000000";
pub const MOCK_LIFF_ID: &str = "2000000000-kizunamk";
pub const MOCK_BOT_ID: &str = "@kizuna-mock";
pub const MOCK_CHANNEL_SECRET: &str = "mock-channel-secret";
pub const MOCK_CHANNEL_ACCESS_TOKEN: &str = "mock-channel-access-token";
pub const MOCK_LOGIN_CHANNEL_TOKEN: &str = "mock-login-channel-token";

/// Every LINE identifier and secret with the mock's value: all required with the mock off, none
/// allowed with it on.
const LINE_VARIABLES: [(&str, &str); 6] = [
    ("KIZUNA_LINE_CHANNEL_ID", MOCK_CHANNEL_ID),
    ("KIZUNA_LIFF_ID", MOCK_LIFF_ID),
    ("KIZUNA_LINE_BOT_ID", MOCK_BOT_ID),
    ("KIZUNA_LINE_CHANNEL_SECRET", MOCK_CHANNEL_SECRET),
    (
        "KIZUNA_LINE_CHANNEL_ACCESS_TOKEN",
        MOCK_CHANNEL_ACCESS_TOKEN,
    ),
    ("KIZUNA_LINE_LOGIN_CHANNEL_TOKEN", MOCK_LOGIN_CHANNEL_TOKEN),
];

#[derive(Clone, Debug)]
pub struct Settings {
    pub bind: String,
    /// None: the SQLite file under the data dir.
    pub database_url: Option<String>,
    pub data_dir: PathBuf,
    pub web_dir: PathBuf,
    pub line: LineSettings,
    pub image_workers: usize,
    /// Whether the image proxy may decode the upload-time preview instead of the full file.
    pub ipx_previews: bool,
    /// KIZUNA_SMTP_URL and KIZUNA_MAIL_FROM.
    pub mail: MailSettings,
    /// The push worker's pace (not from the environment: production's defaults; tests shorten).
    pub push: PushSettings,
    /// The work e-mail code limits (not from the environment: the defaults; tests shorten).
    pub email_codes: kizuna_core::email_code::CodeRules,
    /// The application's clock (not from the environment: the system clock; tests move it).
    pub clock: crate::clock::Clock,
    /// KIZUNA_INTRODUCTIONS_AT: when `serve` runs the daily introductions (Asia/Taipei HH:MM,
    /// 06:00 by default; `off` leaves them to the `introductions` command).
    pub introductions: Option<crate::matchmaking::schedule::Schedule>,
    /// The chat events stream's pace (not from the environment: the defaults; tests shorten).
    pub chat: ChatSettings,
    /// KIZUNA_DB_POOL: database connections at most (None: SQLite 8, PostgreSQL 32).
    pub db_pool: Option<u32>,
    /// KIZUNA_POOL_TTL_SECS: how long the in-memory match pool serves before it is reloaded whole
    /// (3600 s); every change of a member's standing reaches it meanwhile, announced.
    pub pool_ttl: std::time::Duration,
    /// KIZUNA_TRUSTED_PROXY_HEADER: the header the reverse proxy writes the client's address into
    /// (`client_address`); None: the connection's peer is the client.
    pub trusted_proxy_header: Option<poem::http::HeaderName>,
    /// The bounds on connections (not from the environment: the defaults; tests shorten).
    pub connections: crate::connections::ConnectionLimits,
    /// KIZUNA_UPLOADS_IN_FLIGHT: uploads received or decoded at once (default twice the image
    /// workers); beyond it 503 with `Retry-After`. Their body's time is not from the environment.
    pub uploads: crate::images::admission::UploadLimits,
    /// KIZUNA_FILE_STORE and KIZUNA_S3_*: where uploaded files, previews and variants live.
    pub file_store: FileStoreSettings,
    /// KIZUNA_METRICS_BIND: where Prometheus scrapes `/metrics` (None: no metrics listener).
    pub metrics_bind: Option<String>,
    /// KIZUNA_DRAIN_SECS: after SIGTERM, how long `/readyz` says "draining" while requests are
    /// still served, so that the load balancer stops sending any before the shutdown (5 s).
    pub drain: std::time::Duration,
}

/// The longest drain KIZUNA_DRAIN_SECS may ask for: a balancer that needs longer to notice is
/// probing too rarely, and an orchestrator kills a process that takes too long to stop.
pub const MAX_DRAIN_SECS: u64 = 60;

/// KIZUNA_METRICS_BIND: an `ip:port`, never the public listener's port (metrics tell the world
/// how the service is doing, and its rate limits would count a scraper as a member).
fn metrics_bind(value: Option<String>, bind: &str) -> anyhow::Result<Option<String>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let addr: std::net::SocketAddr = value.trim().parse().map_err(|_| {
        anyhow::anyhow!("KIZUNA_METRICS_BIND must be an address and port (127.0.0.1:9464)")
    })?;
    let public_port = bind
        .rsplit_once(':')
        .and_then(|(_, port)| port.parse::<u16>().ok());
    if addr.port() != 0 && public_port == Some(addr.port()) {
        anyhow::bail!(
            "KIZUNA_METRICS_BIND is on the port of KIZUNA_BIND ({}): metrics get a listener of              their own, never the public one",
            addr.port()
        );
    }
    Ok(Some(addr.to_string()))
}

/// Where uploaded files live (`crate::file_store`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileStoreSettings {
    /// Files under the data dir: one machine.
    Local,
    /// A private S3 bucket (or an S3-compatible server's): any number of machines.
    S3(S3Settings),
}

#[derive(Clone, PartialEq, Eq)]
pub struct S3Settings {
    pub bucket: String,
    /// Keys go under this prefix (no leading or trailing `/`), to share a bucket.
    pub prefix: Option<String>,
    /// An S3-compatible server's URL; None: AWS's endpoint for the region.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: String,
    pub secret_access_key: String,
}

impl S3Settings {
    /// `s3://bucket/prefix`, for operators' messages.
    pub fn url(&self) -> String {
        match &self.prefix {
            Some(prefix) => format!("s3://{}/{prefix}", self.bucket),
            None => format!("s3://{}", self.bucket),
        }
    }
}

impl std::fmt::Debug for S3Settings {
    // The secret key never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("url", &self.url())
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .finish_non_exhaustive()
    }
}

/// The S3 variables besides KIZUNA_FILE_STORE.
const S3_VARIABLES: [&str; 4] = [
    "KIZUNA_S3_ENDPOINT",
    "KIZUNA_S3_REGION",
    "KIZUNA_S3_ACCESS_KEY_ID",
    "KIZUNA_S3_SECRET_ACCESS_KEY",
];

fn file_store_settings(var: impl Fn(&str) -> Option<String>) -> anyhow::Result<FileStoreSettings> {
    let store = var("KIZUNA_FILE_STORE");
    let s3: Vec<Option<String>> = S3_VARIABLES.iter().map(|name| var(name)).collect();
    let [endpoint, region, access_key_id, secret_access_key] =
        <[Option<String>; 4]>::try_from(s3).expect("four S3 variables");
    let Some(url) = store.as_deref().map(str::trim).filter(|s| *s != "local") else {
        // An S3 setting without the store is a deployment that believes its files are shared.
        let set: Vec<&str> = S3_VARIABLES
            .iter()
            .filter(|name| var(name).is_some())
            .copied()
            .collect();
        if !set.is_empty() {
            anyhow::bail!(
                "{} {} set but KIZUNA_FILE_STORE is not an s3:// URL: files would stay on this \
                 machine. Set KIZUNA_FILE_STORE=s3://bucket, or unset them.",
                set.join(", "),
                if set.len() == 1 { "is" } else { "are" },
            );
        }
        return Ok(FileStoreSettings::Local);
    };
    // The value is not echoed: a mistyped URL may hold a credential.
    let Some(rest) = url.strip_prefix("s3://") else {
        anyhow::bail!("KIZUNA_FILE_STORE must be `local` or s3://bucket (or s3://bucket/prefix)");
    };
    let (bucket, prefix) = match rest.split_once('/') {
        Some((bucket, prefix)) => (bucket, prefix.trim_matches('/')),
        None => (rest, ""),
    };
    // S3's bucket naming rules.
    let valid_bucket = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && bucket.starts_with(|c: char| c.is_ascii_alphanumeric())
        && bucket.ends_with(|c: char| c.is_ascii_alphanumeric());
    if !valid_bucket {
        anyhow::bail!(
            "KIZUNA_FILE_STORE must name a bucket as s3://bucket: 3 to 63 lowercase letters, \
             digits, dots and hyphens"
        );
    }
    if let Some(endpoint) = &endpoint
        && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
    {
        anyhow::bail!("KIZUNA_S3_ENDPOINT must be an http:// or https:// URL");
    }
    let missing: Vec<&str> = [
        ("KIZUNA_S3_ACCESS_KEY_ID", &access_key_id),
        ("KIZUNA_S3_SECRET_ACCESS_KEY", &secret_access_key),
    ]
    .into_iter()
    .filter(|(_, value)| value.is_none())
    .map(|(name, _)| name)
    .collect();
    if !missing.is_empty() {
        anyhow::bail!(
            "KIZUNA_FILE_STORE is an S3 bucket but {} {} not set",
            missing.join(" and "),
            if missing.len() == 1 { "is" } else { "are" },
        );
    }
    Ok(FileStoreSettings::S3(S3Settings {
        bucket: bucket.to_string(),
        prefix: (!prefix.is_empty()).then(|| prefix.to_string()),
        endpoint: endpoint.map(|e| e.trim_end_matches('/').to_string()),
        region: region.unwrap_or_else(|| "us-east-1".into()),
        access_key_id: access_key_id.unwrap_or_default(),
        secret_access_key: secret_access_key.unwrap_or_default(),
    }))
}

/// How often an open chat events stream sends its keep-alive comment and renews its presence
/// row; the row counts as "page open" for three intervals.
#[derive(Clone, Debug)]
pub struct ChatSettings {
    pub keep_alive: std::time::Duration,
}

impl Default for ChatSettings {
    fn default() -> Self {
        ChatSettings {
            keep_alive: std::time::Duration::from_secs(15),
        }
    }
}

impl ChatSettings {
    /// Seconds an open stream's presence row lives without a renewal.
    pub fn presence_ttl_secs(&self) -> i64 {
        (self.keep_alive.as_secs() as i64 * 3).max(3)
    }
}

#[derive(Clone)]
pub struct LineSettings {
    pub mock: bool,
    /// None: the real LINE API, or this server's own mock when `mock` is on.
    pub api_base: Option<String>,
    pub channel_id: String,
    pub liff_id: String,
    pub bot_id: String,
    pub channel_secret: String,
    pub channel_access_token: String,
    /// The LINE Login channel's access token: revokes a member's authorisation when they
    /// delete their account.
    pub login_channel_token: String,
}

impl std::fmt::Debug for LineSettings {
    // The secret and the access token never reach a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineSettings")
            .field("mock", &self.mock)
            .field("api_base", &self.api_base)
            .field("channel_id", &self.channel_id)
            .field("liff_id", &self.liff_id)
            .field("bot_id", &self.bot_id)
            .finish_non_exhaustive()
    }
}

fn parse_bool(name: &str, value: &str) -> anyhow::Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        other => anyhow::bail!("{name} must be true or false, not {other:?}"),
    }
}

impl Settings {
    pub fn from_env() -> anyhow::Result<Settings> {
        Settings::from_vars(|name| std::env::var(name).ok())
    }

    /// Settings from any source of variables (the environment, or a test's table).
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Settings> {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let mock = match var("KIZUNA_LINE_MOCK") {
            Some(v) => parse_bool("KIZUNA_LINE_MOCK", &v)?,
            None => true,
        };
        let image_workers = match var("KIZUNA_IMAGE_WORKERS") {
            Some(v) => match v.parse::<usize>() {
                // Each is a thread holding a decode's memory: a handful per core is plenty.
                Ok(n @ 1..=256) => n,
                _ => anyhow::bail!("KIZUNA_IMAGE_WORKERS must be a number from 1 to 256"),
            },
            None => default_image_workers(),
        };
        let mut uploads = crate::images::admission::UploadLimits::for_workers(image_workers);
        if let Some(v) = var("KIZUNA_UPLOADS_IN_FLIGHT") {
            uploads.in_flight = match v.parse::<usize>() {
                // Each holds up to a 10 MB body: the bound is the point.
                Ok(n @ 1..=256) => n,
                _ => anyhow::bail!("KIZUNA_UPLOADS_IN_FLIGHT must be a number from 1 to 256"),
            };
        }
        // The mock mints ID tokens for anyone who asks: with anything of a real LINE channel
        // around, this is a production deployment that forgot to turn it off, and must not start.
        let real_line_values: Vec<&str> = LINE_VARIABLES
            .iter()
            .filter(|(name, _)| var(name).is_some())
            .map(|(name, _)| *name)
            .collect();
        if mock && !real_line_values.is_empty() {
            anyhow::bail!(
                "KIZUNA_LINE_MOCK is on (its default) while {} {} set: the mock LINE platform \
                 would let anyone sign in as anyone. Set KIZUNA_LINE_MOCK=false to use LINE, or \
                 unset them to run on the mock.",
                real_line_values.join(", "),
                if real_line_values.len() == 1 {
                    "is"
                } else {
                    "are"
                },
            );
        }
        let smtp_url = var("KIZUNA_SMTP_URL");
        // Without SMTP, mail goes to the mock outbox, which a production deployment has not got:
        // the codes would never reach anyone.
        if !mock && smtp_url.is_none() {
            anyhow::bail!(
                "KIZUNA_LINE_MOCK is off but KIZUNA_SMTP_URL is not set: work e-mail codes would \
                 have no way out. Set KIZUNA_SMTP_URL (e.g. smtps://user:password@smtp.example.com) \
                 and KIZUNA_MAIL_FROM."
            );
        }
        // Without the mock, no mock value may stand in for the channel: the mock's secret is
        // public (it is in this file), so a webhook signed with it would be believed.
        if !mock {
            let missing: Vec<&str> = LINE_VARIABLES
                .iter()
                .filter(|(name, mock_value)| var(name).is_none_or(|v| v.trim() == *mock_value))
                .map(|(name, _)| *name)
                .collect();
            if !missing.is_empty() {
                anyhow::bail!(
                    "KIZUNA_LINE_MOCK is off but {} {} not set (or still the mock's value): \
                     every LINE identifier and secret is required without the mock.",
                    missing.join(", "),
                    if missing.len() == 1 { "is" } else { "are" },
                );
            }
        }
        let file_store = file_store_settings(var)?;
        let bind = var("KIZUNA_BIND").unwrap_or_else(|| "127.0.0.1:8080".into());
        Ok(Settings {
            file_store,
            metrics_bind: metrics_bind(var("KIZUNA_METRICS_BIND"), &bind)?,
            drain: match var("KIZUNA_DRAIN_SECS") {
                Some(v) => match v.parse::<u64>() {
                    Ok(n) if n <= MAX_DRAIN_SECS => std::time::Duration::from_secs(n),
                    _ => anyhow::bail!(
                        "KIZUNA_DRAIN_SECS must be a number of seconds from 0 to {MAX_DRAIN_SECS}"
                    ),
                },
                None => std::time::Duration::from_secs(5),
            },
            bind,
            database_url: var("DATABASE_URL"),
            data_dir: PathBuf::from(var("KIZUNA_DATA_DIR").unwrap_or_else(|| "./data".into())),
            web_dir: PathBuf::from(var("KIZUNA_WEB_DIR").unwrap_or_else(|| "web/dist".into())),
            line: LineSettings {
                mock,
                api_base: var("KIZUNA_LINE_API_BASE"),
                channel_id: var("KIZUNA_LINE_CHANNEL_ID").unwrap_or_else(|| MOCK_CHANNEL_ID.into()),
                liff_id: var("KIZUNA_LIFF_ID").unwrap_or_else(|| MOCK_LIFF_ID.into()),
                bot_id: var("KIZUNA_LINE_BOT_ID").unwrap_or_else(|| MOCK_BOT_ID.into()),
                channel_secret: var("KIZUNA_LINE_CHANNEL_SECRET")
                    .unwrap_or_else(|| MOCK_CHANNEL_SECRET.into()),
                channel_access_token: var("KIZUNA_LINE_CHANNEL_ACCESS_TOKEN")
                    .unwrap_or_else(|| MOCK_CHANNEL_ACCESS_TOKEN.into()),
                login_channel_token: var("KIZUNA_LINE_LOGIN_CHANNEL_TOKEN")
                    .unwrap_or_else(|| MOCK_LOGIN_CHANNEL_TOKEN.into()),
            },
            image_workers,
            ipx_previews: match var("KIZUNA_IPX_PREVIEWS") {
                Some(v) => parse_bool("KIZUNA_IPX_PREVIEWS", &v)?,
                None => true,
            },
            mail: MailSettings {
                smtp_url,
                from: var("KIZUNA_MAIL_FROM").unwrap_or_else(|| DEFAULT_MAIL_FROM.into()),
            },
            push: PushSettings::default(),
            clock: crate::clock::Clock::system(),
            email_codes: kizuna_core::email_code::CodeRules::default(),
            chat: ChatSettings::default(),
            db_pool: match var("KIZUNA_DB_POOL") {
                Some(v) => match v.parse::<u32>() {
                    Ok(n @ 1..=1000) => Some(n),
                    _ => anyhow::bail!("KIZUNA_DB_POOL must be a number from 1 to 1000"),
                },
                None => None,
            },
            pool_ttl: match var("KIZUNA_POOL_TTL_SECS") {
                Some(v) => match v.parse::<u64>() {
                    Ok(n @ 1..=86_400) => std::time::Duration::from_secs(n),
                    _ => anyhow::bail!(
                        "KIZUNA_POOL_TTL_SECS must be a number of seconds from 1 to 86400"
                    ),
                },
                None => std::time::Duration::from_secs(3600),
            },
            connections: crate::connections::ConnectionLimits {
                total: crate::connections::total_for_open_files(
                    crate::connections::open_file_limit(),
                    match var("KIZUNA_MAX_CONNECTIONS") {
                        Some(v) => Some(v.parse::<usize>().map_err(|_| {
                            anyhow::anyhow!("KIZUNA_MAX_CONNECTIONS must be a number")
                        })?),
                        None => None,
                    },
                )
                .map_err(|cause| anyhow::anyhow!(cause))?,
                ..crate::connections::ConnectionLimits::default()
            },
            uploads,
            trusted_proxy_header: match var("KIZUNA_TRUSTED_PROXY_HEADER") {
                Some(v) => Some(crate::client_address::parse_header_name(&v)?),
                None => None,
            },
            introductions: match var("KIZUNA_INTRODUCTIONS_AT") {
                Some(v) => crate::matchmaking::schedule::Schedule::parse(&v)?,
                None => Some(crate::matchmaking::schedule::Schedule::default_morning()),
            },
        })
    }

    /// The database URL in force: DATABASE_URL, else the SQLite file under the data dir.
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(url) => url.clone(),
            None => format!("sqlite://{}/kizuna.db?mode=rwc", self.data_dir.display()),
        }
    }
}

pub fn default_image_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> anyhow::Result<Settings> {
        Settings::from_vars(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn the_design_documents_variable_table_lists_exactly_what_settings_reads() {
        let asked = std::sync::Mutex::new(std::collections::BTreeSet::new());
        Settings::from_vars(|name| {
            asked.lock().unwrap().insert(name.to_string());
            None
        })
        .unwrap();
        let mut read = asked.into_inner().unwrap();
        // Read by the tracing subscriber, not by `Settings`.
        read.insert("RUST_LOG".into());
        let design = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/design.md"),
        )
        .unwrap();
        let start = design
            .find("Every variable the server reads")
            .expect("the design names the server's variables");
        let documented: std::collections::BTreeSet<String> = design[start..]
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .filter_map(|l| l.split('`').nth(1))
            .filter(|name| {
                name.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
            .map(str::to_string)
            .collect();
        assert_eq!(documented, read);
    }

    #[test]
    fn no_variables_run_the_whole_product_on_the_embedded_defaults() {
        let s = settings(&[]).unwrap();
        assert!(s.line.mock);
        assert_eq!(s.bind, "127.0.0.1:8080");
        assert_eq!(s.database_url(), "sqlite://./data/kizuna.db?mode=rwc");
        assert_eq!(s.line.channel_id, MOCK_CHANNEL_ID);
    }

    /// A production deployment's variables: the mock off, every LINE value real, SMTP.
    const PRODUCTION: [(&str, &str); 8] = [
        ("KIZUNA_LINE_MOCK", "false"),
        ("KIZUNA_LINE_CHANNEL_ID", "1650000000"),
        ("KIZUNA_LIFF_ID", "1650000000-abcdefgh"),
        ("KIZUNA_LINE_BOT_ID", "@kizuna"),
        ("KIZUNA_LINE_CHANNEL_SECRET", "real-secret"),
        ("KIZUNA_LINE_CHANNEL_ACCESS_TOKEN", "real-token"),
        ("KIZUNA_LINE_LOGIN_CHANNEL_TOKEN", "login-token-secret"),
        ("KIZUNA_SMTP_URL", "smtps://kizuna:hunter2@smtp.example.com"),
    ];

    fn production_without(name: &str) -> Vec<(&'static str, &'static str)> {
        PRODUCTION.into_iter().filter(|(n, _)| *n != name).collect()
    }

    #[test]
    fn the_mock_refuses_to_start_beside_any_line_identifier_or_secret() {
        for (name, value) in LINE_VARIABLES.iter().map(|(name, _)| *name).zip([
            "1650000000",
            "1650000000-abcdefgh",
            "@kizuna",
            "s",
            "t",
            "l",
        ]) {
            let err = settings(&[(name, value)]).unwrap_err().to_string();
            assert!(err.contains("KIZUNA_LINE_MOCK=false"), "{err}");
            assert!(err.contains(name), "{err}");
            let explicit = settings(&[("KIZUNA_LINE_MOCK", "true"), (name, value)]);
            assert!(explicit.is_err(), "{name} beside an explicit mock");
        }
        let production = settings(&PRODUCTION).unwrap();
        assert!(!production.line.mock);
        assert_eq!(production.line.channel_secret, "real-secret");
        assert_eq!(production.line.liff_id, "1650000000-abcdefgh");
    }

    #[test]
    fn without_the_mock_every_line_identifier_and_secret_is_required() {
        for (name, mock_value) in LINE_VARIABLES {
            let err = settings(&production_without(name)).unwrap_err().to_string();
            assert!(err.contains(name), "{name} missing: {err}");
            // The mock's own (public) value is no value at all.
            let mut with_mock_value = production_without(name);
            with_mock_value.push((name, mock_value));
            let err = settings(&with_mock_value).unwrap_err().to_string();
            assert!(err.contains(name), "{name} = the mock's value: {err}");
            assert!(
                !err.contains("real-secret") && !err.contains("hunter2"),
                "{err}"
            );
        }
        // Only SMTP set, as in the issue: everything of LINE is named at once.
        let err = settings(&[
            ("KIZUNA_LINE_MOCK", "false"),
            ("KIZUNA_SMTP_URL", "smtps://smtp.example.com"),
        ])
        .unwrap_err()
        .to_string();
        for (name, _) in LINE_VARIABLES {
            assert!(err.contains(name), "{err}");
        }
        let s = settings(&PRODUCTION).unwrap();
        assert_eq!(s.line.login_channel_token, "login-token-secret");
        assert!(
            !format!("{s:?}").contains("login-token-secret"),
            "the token stays out of logs"
        );
    }

    #[test]
    fn without_the_mock_mail_needs_an_smtp_server() {
        let err = settings(&production_without("KIZUNA_SMTP_URL")).unwrap_err();
        assert!(err.to_string().contains("KIZUNA_SMTP_URL"), "{err}");
        let mut with_sender = PRODUCTION.to_vec();
        with_sender.push(("KIZUNA_MAIL_FROM", "Kizuna <hello@kizuna.example>"));
        let s = settings(&with_sender).unwrap();
        assert_eq!(s.mail.from, "Kizuna <hello@kizuna.example>");
        assert!(
            !format!("{s:?}").contains("hunter2"),
            "the password stays out of logs"
        );
        let embedded = settings(&[]).unwrap();
        assert!(embedded.mail.smtp_url.is_none());
    }

    #[test]
    fn files_stay_local_unless_an_s3_bucket_is_named_with_its_keys() {
        assert_eq!(settings(&[]).unwrap().file_store, FileStoreSettings::Local);
        assert_eq!(
            settings(&[("KIZUNA_FILE_STORE", "local")])
                .unwrap()
                .file_store,
            FileStoreSettings::Local
        );
        let keys = [
            ("KIZUNA_S3_ACCESS_KEY_ID", "kizuna"),
            ("KIZUNA_S3_SECRET_ACCESS_KEY", "s3-secret-value"),
        ];
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut vars = keys.to_vec();
            vars.extend_from_slice(extra);
            settings(&vars)
        };
        let s3 = with(&[
            ("KIZUNA_FILE_STORE", "s3://kizuna-photos/prod/"),
            ("KIZUNA_S3_ENDPOINT", "http://127.0.0.1:9000/"),
        ])
        .unwrap();
        let FileStoreSettings::S3(s3) = s3.file_store else {
            panic!("not S3")
        };
        assert_eq!(s3.bucket, "kizuna-photos");
        assert_eq!(s3.prefix.as_deref(), Some("prod"));
        assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(s3.region, "us-east-1");
        assert_eq!(s3.url(), "s3://kizuna-photos/prod");
        assert!(!format!("{s3:?}").contains("s3-secret-value"));

        // Each mistake stops the start, names what is wrong and prints no secret.
        for (vars, expect) in [
            (
                vec![("KIZUNA_FILE_STORE", "s3://kizuna-photos")],
                "KIZUNA_S3_ACCESS_KEY_ID and KIZUNA_S3_SECRET_ACCESS_KEY are not set",
            ),
            (
                vec![
                    ("KIZUNA_FILE_STORE", "s3://kizuna-photos"),
                    ("KIZUNA_S3_ACCESS_KEY_ID", "kizuna"),
                ],
                "KIZUNA_S3_SECRET_ACCESS_KEY is not set",
            ),
            (
                vec![
                    ("KIZUNA_S3_ENDPOINT", "http://s3.local"),
                    ("KIZUNA_S3_SECRET_ACCESS_KEY", "s3-secret-value"),
                ],
                "KIZUNA_S3_ENDPOINT, KIZUNA_S3_SECRET_ACCESS_KEY are set but KIZUNA_FILE_STORE",
            ),
            (
                vec![("KIZUNA_FILE_STORE", "https://s3-secret-value@bucket")],
                "must be `local` or s3://bucket",
            ),
            (
                vec![("KIZUNA_FILE_STORE", "s3://Kizuna_Photos")],
                "must name a bucket",
            ),
            (vec![("KIZUNA_FILE_STORE", "s3://")], "must name a bucket"),
        ] {
            let err = settings(&vars).unwrap_err().to_string();
            assert!(err.contains(expect), "{vars:?}: {err}");
            assert!(!err.contains("s3-secret-value"), "{err}");
        }
        let err = with(&[
            ("KIZUNA_FILE_STORE", "s3://kizuna-photos"),
            ("KIZUNA_S3_ENDPOINT", "s3.local:9000"),
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("KIZUNA_S3_ENDPOINT must be"), "{err}");
    }

    #[test]
    fn metrics_get_a_listener_of_their_own_only_when_asked() {
        assert_eq!(settings(&[]).unwrap().metrics_bind, None);
        let s = settings(&[("KIZUNA_METRICS_BIND", "127.0.0.1:9464")]).unwrap();
        assert_eq!(s.metrics_bind.as_deref(), Some("127.0.0.1:9464"));
        for (bind, metrics) in [
            ("127.0.0.1:8080", "127.0.0.1:8080"),
            ("0.0.0.0:8080", "10.0.0.5:8080"),
        ] {
            let err = settings(&[("KIZUNA_BIND", bind), ("KIZUNA_METRICS_BIND", metrics)])
                .unwrap_err()
                .to_string();
            assert!(err.contains("never the public one"), "{err}");
        }
        for bad in ["localhost", "9464", "http://127.0.0.1:9464/metrics"] {
            let err = settings(&[("KIZUNA_METRICS_BIND", bad)])
                .unwrap_err()
                .to_string();
            assert!(err.contains("KIZUNA_METRICS_BIND"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_drain_is_a_few_seconds_by_default_and_bounded() {
        assert_eq!(settings(&[]).unwrap().drain.as_secs(), 5);
        assert_eq!(
            settings(&[("KIZUNA_DRAIN_SECS", "0")])
                .unwrap()
                .drain
                .as_secs(),
            0
        );
        for bad in ["61", "-1", "soon"] {
            assert!(settings(&[("KIZUNA_DRAIN_SECS", bad)]).is_err(), "{bad}");
        }
    }

    #[test]
    fn unreadable_switches_are_errors_not_guesses() {
        assert!(settings(&[("KIZUNA_LINE_MOCK", "maybe")]).is_err());
        assert!(settings(&[("KIZUNA_IMAGE_WORKERS", "many")]).is_err());
        assert!(settings(&[("KIZUNA_IMAGE_WORKERS", "0")]).is_err());
        assert!(settings(&[("KIZUNA_IMAGE_WORKERS", "100000")]).is_err());
        assert_eq!(
            settings(&[("KIZUNA_IMAGE_WORKERS", "3")])
                .unwrap()
                .image_workers,
            3
        );
        assert!(settings(&[("KIZUNA_UPLOADS_IN_FLIGHT", "0")]).is_err());
        assert!(settings(&[("KIZUNA_UPLOADS_IN_FLIGHT", "lots")]).is_err());
        let bounded = settings(&[("KIZUNA_IMAGE_WORKERS", "3")]).unwrap();
        assert_eq!(bounded.uploads.in_flight, 6, "twice the workers by default");
        let set = settings(&[("KIZUNA_UPLOADS_IN_FLIGHT", "5")]).unwrap();
        assert_eq!(set.uploads.in_flight, 5);
    }
}
