//! Revoking a member's LINE Login authorisation when they delete their account: LINE's
//! `POST {KIZUNA_LINE_API_BASE}/user/v1/deauthorize` with the LINE Login channel's access token
//! and the member's own access token (which the web app reads from the LIFF SDK and sends with
//! the deletion). Best effort: the deletion never waits for LINE or fails because of it.

use std::time::Duration;

use anyhow::Context;

#[derive(Clone)]
pub struct Deauthorizer {
    http: reqwest::Client,
    endpoint: String,
    channel_token: String,
}

impl Deauthorizer {
    pub fn new(api_base: &str, channel_token: &str) -> anyhow::Result<Deauthorizer> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .no_proxy()
            .build()
            .context("building the HTTP client")?;
        Ok(Deauthorizer {
            http,
            endpoint: format!("{}/user/v1/deauthorize", api_base.trim_end_matches('/')),
            channel_token: channel_token.to_string(),
        })
    }

    /// Asks LINE to revoke the authorisation behind `user_access_token`.
    pub async fn revoke(&self, user_access_token: &str) -> anyhow::Result<()> {
        let answer = self
            .http
            .post(&self.endpoint)
            .bearer_auth(&self.channel_token)
            .json(&serde_json::json!({ "userAccessToken": user_access_token }))
            .send()
            .await
            .context("calling LINE's deauthorize")?;
        anyhow::ensure!(
            answer.status().is_success(),
            "LINE's deauthorize answered {}",
            answer.status()
        );
        Ok(())
    }
}
