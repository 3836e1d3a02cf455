//! GET /api/config: the public configuration the web app starts from.

use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::{ApiTags, State};

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PublicConfig {
    /// The official account's bot id (for the add-friend link).
    pub line_bot_id: String,
    pub liff_id: String,
    /// True when the server runs the mock LINE platform (the web app then uses the LIFF mock).
    pub mock_enable: bool,
    /// Always "/api".
    pub api_server_path: String,
    /// When the daily introductions come (`KIZUNA_INTRODUCTIONS_AT`): `HH:MM` in Asia/Taipei time
    /// (UTC+08:00, no daylight saving); absent when the server does not run them itself (`off`).
    pub introductions_at: Option<String>,
}

#[derive(ApiResponse)]
pub enum ConfigResponse {
    /// The public configuration.
    #[oai(status = 200)]
    Ok(Json<PublicConfig>),
}

#[derive(Default)]
pub struct ConfigApi;

#[OpenApi(tag = "ApiTags::Config")]
impl ConfigApi {
    /// Public configuration
    #[oai(path = "/config", method = "get")]
    async fn config(&self, state: poem::web::Data<&State>) -> ConfigResponse {
        let line = &state.settings.line;
        ConfigResponse::Ok(Json(PublicConfig {
            line_bot_id: line.bot_id.clone(),
            liff_id: line.liff_id.clone(),
            mock_enable: line.mock,
            api_server_path: "/api".into(),
            introductions_at: state
                .settings
                .introductions
                .as_ref()
                .map(|schedule| schedule.at_text()),
        }))
    }
}
