//! /file: temp uploads (multipart field `file`) and owner-only fetches.

use super::{ApiTags, State};
use crate::{
    access::Viewer,
    error::ApiError,
    extract::auth::{AccountSessionOrCookie, Session},
    images::{
        self, MAX_UPLOAD_BYTES,
        http::{cache_control_for, cached_image, missing_bytes, visible_file},
    },
    storage::files::{self, NewTempFile},
};
use poem::{IntoResponse, Request, Response};
use poem_openapi::{
    ApiResponse, Multipart, Object, OpenApi,
    param::Path,
    payload::Json,
    registry::{MetaMediaType, MetaResponse, MetaResponses, MetaSchema, MetaSchemaRef, Registry},
    types::multipart::Upload,
};

#[derive(Debug, Multipart)]
#[oai(deny_unknown_fields)]
pub struct UploadForm {
    /// A JPEG, PNG or WebP image, at most 10 MB and 40 megapixels.
    pub file: Upload,
}

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
    #[oai(path = "/file/tempUpload", method = "post")]
    async fn temp_upload(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        form: UploadForm,
    ) -> Result<UploadResponse, ApiError> {
        let auth = caller.0;
        if form.file.size() > MAX_UPLOAD_BYTES {
            return Err(ApiError::TooLarge("the file is larger than 10 MB".into()));
        }
        let bytes = form
            .file
            .into_vec()
            .await
            .map_err(|_| ApiError::BadRequest("the upload could not be read".into()))?;
        let processed = state
            .image_workers
            .run(move || images::process_upload(&bytes))
            .await??;
        let id = images::random_id();
        if let Some(preview) = &processed.preview {
            state
                .files
                .write_atomic(&state.files.preview_path(&id), &preview.bytes)
                .await?;
        }
        state
            .files
            .write_atomic(&state.files.path(&id), &processed.bytes)
            .await?;
        let inserted = files::insert_temp(
            &state.db,
            NewTempFile {
                id: &id,
                owner_id: auth.user.id,
                content_type: processed.kind.content_type(),
                width: processed.width,
                height: processed.height,
                size_bytes: processed.bytes.len(),
                now: state.now(),
            },
        )
        .await;
        if let Err(err) = inserted {
            state.files.remove(&id).await;
            return Err(err.into());
        }
        tracing::info!(
            user = auth.user.id,
            bytes = processed.bytes.len(),
            "temp file stored"
        );
        Ok(UploadResponse::Ok(Json(Uploaded {
            file_name: id,
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
        let bytes = match tokio::fs::read(state.files.path(&row.id)).await {
            Ok(bytes) => bytes,
            // The temp-file sweep removed it since the row was read.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                missing_bytes(&row);
                return Err(ApiError::NotFound);
            }
            Err(err) => {
                return Err(anyhow::Error::new(err)
                    .context(format!("reading stored file {}", row.id))
                    .into());
            }
        };
        Ok(ImageResponse(cached_image(
            req,
            &row.id,
            &row.content_type,
            cache_control_for(&row, &viewer),
            bytes,
        )))
    }
}
