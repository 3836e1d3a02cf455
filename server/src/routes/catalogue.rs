//! GET /api/catalogue/codes: kizuna-core's code catalogues (reject, suspend and report reasons,
//! distance bands) with their translation keys; the web app translates them.

use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::ApiTags;

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CodeEntryBody {
    /// The stable code sent and stored.
    pub code: String,
    /// The translation key of its label.
    pub key: String,
    /// The registration fields (wire names) it concerns; empty when none.
    pub fields: Vec<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CodeCataloguesBody {
    /// Why a profile is sent back.
    pub reject: Vec<CodeEntryBody>,
    /// Why an approved member is suspended.
    pub suspend: Vec<CodeEntryBody>,
    /// Why a member reports another.
    pub report: Vec<CodeEntryBody>,
    /// The distance bands another member is told, near to far.
    pub distance_bands: Vec<CodeEntryBody>,
}

#[derive(ApiResponse)]
pub enum CodesResponse {
    /// The catalogues.
    #[oai(status = 200)]
    Ok(Json<CodeCataloguesBody>),
}

fn entries(list: Vec<kizuna_core::codes::CodeEntry>) -> Vec<CodeEntryBody> {
    list.into_iter()
        .map(|e| CodeEntryBody {
            code: e.code.to_string(),
            key: e.key.to_string(),
            fields: e.fields.iter().map(|f| f.to_string()).collect(),
        })
        .collect()
}

#[derive(Default)]
pub struct CatalogueApi;

#[OpenApi(tag = "ApiTags::Config")]
impl CatalogueApi {
    /// Code catalogues
    ///
    /// Public. Reasons and distance bands as codes with translation keys (the web app's locale
    /// files hold the labels).
    #[oai(path = "/catalogue/codes", method = "get")]
    async fn codes(&self) -> CodesResponse {
        let codes = kizuna_core::codes::all();
        CodesResponse::Ok(Json(CodeCataloguesBody {
            reject: entries(codes.reject),
            suspend: entries(codes.suspend),
            report: entries(codes.report),
            distance_bands: entries(codes.distance_bands),
        }))
    }
}
