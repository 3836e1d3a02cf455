//! The upload form (`multipart/form-data` with the one field `file`), read when the handler says.
//!
//! poem-openapi's own multipart parsing reads the whole body (into a temp file) before the handler
//! runs: before the caller is known, before their rate and quota are checked and before an upload
//! slot bounds how many bodies are held at once. An `UploadBody` only takes the body; the document
//! shows [`UploadForm`]; the handler reads the file once it has admitted the upload.

use poem::{Request, RequestBody};
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ExtractParamOptions, Multipart,
    registry::{MetaRequest, Registry},
    types::multipart::Upload,
};
use tokio::io::AsyncReadExt;

use crate::{error::ApiError, images::MAX_UPLOAD_BYTES};

/// The form as the document describes it (never parsed through poem-openapi).
#[derive(Debug, Multipart)]
#[oai(deny_unknown_fields)]
pub struct UploadForm {
    /// A JPEG, PNG or WebP image, at most 10 MB and 40 megapixels.
    pub file: Upload,
}

/// The request's body, unread.
pub struct UploadBody(Option<poem::Body>);

impl<'a> ApiExtractor<'a> for UploadBody {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        <UploadForm as ApiExtractor>::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        <UploadForm as ApiExtractor>::request_meta()
    }

    async fn from_request(
        _request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        Ok(UploadBody(body.take().ok()))
    }
}

fn malformed(what: &str) -> ApiError {
    ApiError::BadRequest(format!("malformed upload: {what}"))
}

impl UploadBody {
    /// The bytes of the field `file`, in memory (the caller holds an upload slot, which bounds
    /// how many are). 400 E002 for anything but a form with exactly that one field; 413 E006 for
    /// a file over 10 MB.
    pub async fn read(self, req: &Request) -> Result<Vec<u8>, ApiError> {
        let body = self.0.ok_or_else(|| malformed("no body"))?;
        let mut form = <poem::web::Multipart as poem::FromRequest>::from_request(
            req,
            &mut RequestBody::new(body),
        )
        .await
        .map_err(|_| malformed("a multipart/form-data body is expected"))?;
        let mut file = None;
        while let Some(field) = form
            .next_field()
            .await
            .map_err(|_| malformed("the form could not be read"))?
        {
            if field.name() != Some("file") || file.is_some() {
                return Err(malformed("the form has one field, `file`"));
            }
            // Sized from what the client declared, within the cap: no doubling on the way.
            let declared = req
                .header(poem::http::header::CONTENT_LENGTH)
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            let mut bytes = Vec::with_capacity(declared.min(MAX_UPLOAD_BYTES + 1));
            field
                .into_async_read()
                .take(MAX_UPLOAD_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
                .await
                .map_err(|_| malformed("the file could not be read"))?;
            if bytes.len() > MAX_UPLOAD_BYTES {
                return Err(ApiError::TooLarge("the file is larger than 10 MB".into()));
            }
            file = Some(bytes);
        }
        file.ok_or_else(|| malformed("the field `file` is missing"))
    }
}
