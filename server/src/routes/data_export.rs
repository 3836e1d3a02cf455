//! A copy of the caller's data: ask for it, follow its preparation, download it by its link.

use poem_openapi::{
    ApiResponse, Enum, Object, OpenApi,
    param::Path,
    payload::{Binary, Json},
};

use super::{ApiTags, State};
use crate::{
    error::ApiError,
    extract::auth::AccountSession,
    usecases::export::{self, ExportStatus, ExportView},
};

/// Where a requested copy stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ExportState {
    /// Being prepared (seconds, usually).
    Preparing,
    /// Ready: its link works until `expiresAt`.
    Ready,
    /// Ready once, but its link has expired: ask again.
    Expired,
    /// It could not be prepared: ask again.
    Failed,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DataExport {
    pub status: ExportState,
    /// Unix seconds.
    pub requested_at: i64,
    /// Unix seconds, once ready.
    #[oai(nullable)]
    pub ready_at: Option<i64>,
    /// Unix seconds: when the download link stops working, once ready.
    #[oai(nullable)]
    pub expires_at: Option<i64>,
    /// The archive's size in bytes, once ready.
    #[oai(nullable)]
    pub size_bytes: Option<i64>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DataExportRequested {
    #[oai(flatten)]
    pub export: DataExport,
    /// The download link (`/api/data-export/{token}`): it works without a session, for this copy
    /// only, for 10 minutes once the copy is ready. Given only here, once.
    pub download_url: String,
}

fn view(export: ExportView) -> DataExport {
    DataExport {
        status: match export.status {
            ExportStatus::Preparing => ExportState::Preparing,
            ExportStatus::Ready => ExportState::Ready,
            ExportStatus::Expired => ExportState::Expired,
            ExportStatus::Failed => ExportState::Failed,
        },
        requested_at: export.requested_at,
        ready_at: export.ready_at,
        expires_at: export.expires_at,
        size_bytes: export.size_bytes,
    }
}

#[derive(ApiResponse)]
pub enum RequestExportResponse {
    /// Asked for: the copy is being prepared; follow it with `GET /user/data-export`.
    #[oai(status = 202)]
    Accepted(Json<DataExportRequested>),
}

#[derive(ApiResponse)]
pub enum ExportStatusResponse {
    /// The caller's latest request.
    #[oai(status = 200)]
    Ok(Json<DataExport>),
    /// The caller has not asked for a copy in the last day.
    #[oai(status = 204)]
    None,
}

#[derive(ApiResponse)]
pub enum DownloadResponse {
    /// The zip: `data.json` and the member's files under `files/`.
    #[oai(status = 200, content_type = "application/zip")]
    Ok(
        Binary<Vec<u8>>,
        #[oai(header = "Content-Disposition")] String,
        #[oai(header = "Cache-Control")] String,
        #[oai(header = "Referrer-Policy")] String,
    ),
}

#[derive(Default)]
pub struct DataExportApi;

#[OpenApi(tag = "ApiTags::User")]
impl DataExportApi {
    /// Ask for a copy of my data
    ///
    /// Prepares, in the background, one zip of everything the service holds about the caller
    /// (account, profile, review decisions and reasons, introductions, likes and passes,
    /// matches with both sides' messages, blocks, reports filed) and their own photos and
    /// files. Other members appear only by member id and nickname. At most 3 a day (429 E007
    /// with `Retry-After`). A suspended member may ask too.
    #[oai(path = "/user/data-export", method = "post")]
    async fn request(
        &self,
        state: poem::web::Data<&State>,
        caller: AccountSession,
    ) -> Result<RequestExportResponse, ApiError> {
        let requested = export::request(&state.db, caller.0.user.id, state.now())
            .await?
            .apply(&state)
            .await;
        Ok(RequestExportResponse::Accepted(Json(DataExportRequested {
            export: view(requested.export),
            download_url: format!("/api/data-export/{}", requested.token),
        })))
    }

    /// My latest copy
    ///
    /// Where the caller's latest request stands (its link is not repeated here).
    #[oai(path = "/user/data-export", method = "get")]
    async fn status(
        &self,
        state: poem::web::Data<&State>,
        caller: AccountSession,
    ) -> Result<ExportStatusResponse, ApiError> {
        Ok(
            match export::latest(&state.db, caller.0.user.id, state.now()).await? {
                Some(export) => ExportStatusResponse::Ok(Json(view(export))),
                None => ExportStatusResponse::None,
            },
        )
    }

    /// Download a copy
    ///
    /// The link from `POST /user/data-export`: no session needed (LIFF's in-app browser may hand
    /// the download to another browser), for that copy only, for 10 minutes once it is ready.
    /// 404 E003 for an unknown, unready or expired link.
    #[oai(path = "/data-export/:token", method = "get")]
    async fn download(
        &self,
        state: poem::web::Data<&State>,
        token: Path<String>,
    ) -> Result<DownloadResponse, ApiError> {
        let (row, archive) = export::download(&state.db, &token.0, state.now())
            .await?
            .ok_or(ApiError::NotFound)?;
        let day = kizuna_core::date::Date::from_days_since_epoch(
            row.ready_at.unwrap_or(row.requested_at).div_euclid(86_400),
        )
        .map(|d| d.to_string())
        .unwrap_or_default();
        Ok(DownloadResponse::Ok(
            Binary(archive),
            format!("attachment; filename=\"kizuna-data-{day}.zip\""),
            "no-store".into(),
            "no-referrer".into(),
        ))
    }
}
