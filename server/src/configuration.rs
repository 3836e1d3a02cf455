//! Settings from the environment, exactly the operator contract of DESIGN.md.
//!
//! | variable | default |
//! |---|---|
//! | KIZUNA_BIND | 127.0.0.1:8080 |
//! | DATABASE_URL | `sqlite://{data_dir}/kizuna.db?mode=rwc` |
//! | KIZUNA_DATA_DIR | ./data |
//! | KIZUNA_WEB_DIR | web/dist |
//! | KIZUNA_LINE_MOCK | true |
//! | KIZUNA_LINE_API_BASE | https://api.line.me, or `http://{bound address}/__mock/line` when mocked |
//! | KIZUNA_LINE_CHANNEL_ID, KIZUNA_LIFF_ID, KIZUNA_LINE_BOT_ID | mock values |
//! | KIZUNA_LINE_CHANNEL_SECRET, KIZUNA_LINE_CHANNEL_ACCESS_TOKEN | mock values |
//!
//! Extra (not part of the contract, for operators and tests): KIZUNA_IMAGE_WORKERS (concurrent
//! image decodes, default = number of CPUs), KIZUNA_IPX_PREVIEWS (default true: the image proxy
//! decodes the upload-time preview when it suffices), KIZUNA_DB_POOL (pool size; SQLite 8,
//! PostgreSQL 32).

use std::path::PathBuf;

use anyhow::Context;

pub const MOCK_CHANNEL_ID: &str = "2000000000";
pub const MOCK_LIFF_ID: &str = "2000000000-kizunamk";
pub const MOCK_BOT_ID: &str = "@kizuna-mock";
pub const MOCK_CHANNEL_SECRET: &str = "mock-channel-secret";
pub const MOCK_CHANNEL_ACCESS_TOKEN: &str = "mock-channel-access-token";

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

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
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
        let mock = match var("KIZUNA_LINE_MOCK") {
            Some(v) => parse_bool("KIZUNA_LINE_MOCK", &v)?,
            None => true,
        };
        let image_workers = match var("KIZUNA_IMAGE_WORKERS") {
            Some(v) => v
                .parse::<usize>()
                .context("KIZUNA_IMAGE_WORKERS must be a number")?
                .max(1),
            None => default_image_workers(),
        };
        Ok(Settings {
            bind: var("KIZUNA_BIND").unwrap_or_else(|| "127.0.0.1:8080".into()),
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
            },
            image_workers,
            ipx_previews: match var("KIZUNA_IPX_PREVIEWS") {
                Some(v) => parse_bool("KIZUNA_IPX_PREVIEWS", &v)?,
                None => true,
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
