//! /file: temp uploads (multipart field `file`) and owner-only fetches.

use super::{ApiTags, State};
use std::sync::Arc;

use crate::{
    access::Viewer,
    error::ApiError,
    extract::{
        auth::{AccountSessionOrCookie, Session},
        upload::UploadBody,
    },
    file_store::FileStore,
    images::{
        admission::{self, Refused},
        http::{cache_control_for, cached_image, missing_bytes, visible_file},
    },
    usecases::uploads,
};
use poem::{IntoResponse, Request, Response};
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::Path,
    payload::Json,
    registry::{MetaMediaType, MetaResponse, MetaResponses, MetaSchema, MetaSchemaRef, Registry},
};

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Uploaded {
    /// The new file's name (32 lowercase hex digits).
    pub file_name: String,
    pub content_type: String,
    pub width: u32,
    pub height: u32,
}

#[derive(ApiResponse)]
pub enum UploadResponse {
    /// Stored as a temp file (removed after 24 h unless a profile claims it).
    #[oai(status = 200)]
    Ok(Json<Uploaded>),
}

/// An image answer (the stored bytes), or 304 when `If-None-Match` matches.
pub struct ImageResponse(pub Response);

impl IntoResponse for ImageResponse {
    fn into_response(self) -> Response {
        self.0
    }
}

impl ApiResponse for ImageResponse {
    fn meta() -> MetaResponses {
        let binary = || {
            MetaSchemaRef::Inline(Box::new(MetaSchema {
                format: Some("binary"),
                ..MetaSchema::new("string")
            }))
        };
        MetaResponses {
            responses: vec![
                MetaResponse {
                    description: "The image, with ETag; `Cache-Control: private, max-age=31536000, immutable` for its owner, `private, no-cache` for anyone else (access can end).",
                    status: Some(200),
                    status_range: None,
                    content: ["image/jpeg", "image/png", "image/webp"]
                        .into_iter()
                        .map(|content_type| MetaMediaType {
                            content_type,
                            schema: binary(),
                        })
                        .collect(),
                    headers: vec![],
                },
                MetaResponse {
                    description: "Not modified (If-None-Match matched the ETag).",
                    status: Some(304),
                    status_range: None,
                    content: vec![],
                    headers: vec![],
                },
            ],
        }
    }

    fn register(_registry: &mut Registry) {}
}

#[derive(Default)]
pub struct FileApi;

#[OpenApi(tag = "ApiTags::File")]
impl FileApi {
    /// Upload a temp image
    ///
    /// The content is sniffed (JPEG, PNG, WebP), capped (10 MB → 413 E006, 40 megapixels → 413
    /// E006), decoded and re-encoded, which applies the EXIF orientation and drops all metadata
    /// (GPS included). Anything else answers 415 E006.
    ///
    /// Limits, checked in this order before the body is read: 20 uploads a minute per user (429
    /// E007 with `Retry-After`); the caller's unclaimed uploads (not yet in a profile, submission
    /// or avatar, under a day old): at most 12 files and 48 MB without a profile, 24 files and
    /// 96 MB with one (413 E006 saying which; counted again when the upload is stored, so two
    /// racing for the last place do not both get it); 2 uploads in flight per user (429 E007 with
    /// `Retry-After`) and a bound on uploads in flight over all users (503 E503 with
    /// `Retry-After`, refused at once). Once admitted, the body must arrive within 60 s (400 E002
    /// otherwise).
    #[oai(path = "/file/tempUpload", method = "post")]
    async fn temp_upload(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        caller: Session,
        body: UploadBody,
    ) -> Result<UploadResponse, ApiError> {
        let auth = caller.0;
        let user_id = auth.user.id;
        let has_profile = auth.profile.is_some();
        if let Err(wait) = state
            .limits
            .get(crate::rate_limit::LimitKind::Upload)
            .check(&format!("u:{user_id}"))
            .await
        {
            return Err(ApiError::Throttled {
                cause: "too many uploads in a minute; wait a moment".into(),
                retry_after: Some(wait.as_secs_f64().ceil().max(1.0) as u64),
            });
        }
        uploads::admit(
            &state.db,
            &state.settings.uploads,
            user_id,
            has_profile,
            state.now(),
        )
        .await?;
        let slot = match state.upload_slots.try_take(user_id) {
            Ok(slot) => Arc::new(slot),
            Err(Refused::UserBusy) => {
                metrics::counter!(
                    crate::metric_names::LIMIT_REFUSALS,
                    "limit" => "uploads-per-member"
                )
                .increment(1);
                return Err(ApiError::Throttled {
                    cause: "two uploads of yours are still arriving; send the next one when \
                            one has finished"
                        .into(),
                    retry_after: Some(admission::RETRY_AFTER_SECS),
                });
            }
            Err(Refused::Busy) => {
                metrics::counter!(
                    crate::metric_names::LIMIT_REFUSALS,
                    "limit" => "uploads-in-flight"
                )
                .increment(1);
                return Err(ApiError::Busy {
                    cause: "the server is receiving as many uploads as it can; retry in a few \
                            seconds"
                        .into(),
                    retry_after: admission::RETRY_AFTER_SECS,
                });
            }
        };
        let timeout = state.settings.uploads.body_timeout;
        let bytes = tokio::time::timeout(timeout, body.read(req))
            .await
            .map_err(|_| {
                ApiError::BadRequest(format!(
                    "the upload did not arrive within {} s",
                    timeout.as_secs()
                ))
            })??;
        let deps = uploads::UploadDeps {
            db: &state.db,
            workers: &state.image_workers,
            files: &state.files,
            limits: &state.settings.uploads,
        };
        let stored = uploads::store(&deps, user_id, has_profile, bytes, slot, state.now()).await?;
        let processed = stored.processed;
        Ok(UploadResponse::Ok(Json(Uploaded {
            file_name: stored.id,
            content_type: processed.kind.content_type().into(),
            width: processed.width,
            height: processed.height,
        })))
    }

    /// Fetch a file the caller may see
    ///
    /// The session comes from `Authorization: Bearer` or the `kizuna_token` cookie (for `<img>`).
    /// The caller's own files, and the profile photos of members among their introductions or
    /// matches (never verification files). E003 for unknown ids and for anything else.
    #[oai(path = "/file/fetch/:fileId", method = "get")]
    async fn fetch(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        caller: AccountSessionOrCookie,
        #[oai(name = "fileId")] file_id: Path<String>,
    ) -> Result<ImageResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        let row = visible_file(&state.db, &viewer, &file_id.0).await?;
        let Some(bytes) = state.files.get(&FileStore::original(&row.id)).await? else {
            // The temp-file sweep removed it since the row was read.
            missing_bytes(&row);
            return Err(ApiError::NotFound);
        };
        Ok(ImageResponse(cached_image(
            req,
            &row.id,
            &row.content_type,
            cache_control_for(&row, &viewer),
            bytes.into(),
        )))
    }
}
