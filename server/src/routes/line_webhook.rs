//! POST /api/line/webhook: LINE's webhook (see `crate::line::webhook` for what it does).
//!
//! The body is read as raw bytes, because the signature covers exactly those bytes; the OpenAPI
//! document still shows the JSON it carries.

use std::borrow::Cow;

use poem::{Request, RequestBody};
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ApiResponse, ExtractParamOptions, Object, OpenApi,
    param::Header,
    payload::Json,
    registry::{MetaMediaType, MetaRequest, MetaSchema, MetaSchemaRef, Registry},
    types::Type,
};

use super::{ApiTags, State};
use crate::{
    error::{ApiError, ErrorBody},
    line::webhook::{self, WebhookBody},
};

/// The raw bytes of a request body whose document schema is `T`.
pub struct RawBody<T> {
    pub bytes: Vec<u8>,
    schema: std::marker::PhantomData<fn() -> T>,
}

impl<'a, T: Type> ApiExtractor<'a> for RawBody<T> {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: vec![MetaMediaType {
                content_type: "application/json",
                schema: T::schema_ref(),
            }],
            required: true,
        })
    }

    // No content-type check: the signature decides, and a bad request must answer 401.
    async fn from_request(
        request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let bytes = <Vec<u8> as poem::FromRequest>::from_request(request, body).await?;
        Ok(RawBody {
            bytes,
            schema: std::marker::PhantomData,
        })
    }
}

/// The webhook body's schema for the document (LINE's `CallbackRequest`).
pub struct WebhookSchema;

const WEBHOOK_SCHEMA_NAME: &str = "LineWebhook";

impl Type for WebhookSchema {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        WEBHOOK_SCHEMA_NAME.into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Reference(WEBHOOK_SCHEMA_NAME.into())
    }

    fn register(registry: &mut Registry) {
        registry.create_schema::<Self, _>(WEBHOOK_SCHEMA_NAME.into(), |_| {
            let inline = |s: MetaSchema| MetaSchemaRef::Inline(Box::new(s));
            let source = MetaSchema {
                properties: vec![
                    ("type", inline(MetaSchema::new("string"))),
                    ("userId", inline(MetaSchema::new("string"))),
                ],
                ..MetaSchema::new("object")
            };
            let delivery = MetaSchema {
                properties: vec![("isRedelivery", inline(MetaSchema::new("boolean")))],
                ..MetaSchema::new("object")
            };
            let event = MetaSchema {
                description: Some(
                    "A webhook event. `follow` and `unfollow` are applied; other types are \
                     acknowledged and ignored.",
                ),
                required: vec!["type", "timestamp", "webhookEventId"],
                properties: vec![
                    ("type", inline(MetaSchema::new("string"))),
                    ("mode", inline(MetaSchema::new("string"))),
                    (
                        "timestamp",
                        inline(MetaSchema {
                            format: Some("int64"),
                            ..MetaSchema::new("integer")
                        }),
                    ),
                    ("source", inline(source)),
                    ("webhookEventId", inline(MetaSchema::new("string"))),
                    ("deliveryContext", inline(delivery)),
                ],
                ..MetaSchema::new("object")
            };
            MetaSchema {
                description: Some(
                    "LINE's webhook body, signed in `x-line-signature` (base64 HMAC-SHA256 of the \
                     raw body with the channel secret).",
                ),
                required: vec!["events"],
                properties: vec![
                    ("destination", inline(MetaSchema::new("string"))),
                    (
                        "events",
                        inline(MetaSchema {
                            items: Some(Box::new(inline(event))),
                            ..MetaSchema::new("array")
                        }),
                    ),
                ],
                ..MetaSchema::new("object")
            }
        });
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

/// The webhook's acknowledgement.
#[derive(Debug, Object)]
pub struct WebhookAck {
    /// follow / unfollow events applied for the first time.
    pub applied: u32,
    /// Events applied before (redeliveries): skipped.
    pub duplicates: u32,
    /// Other events: acknowledged, not acted on.
    pub ignored: u32,
}

#[derive(ApiResponse)]
pub enum WebhookResponse {
    /// Verified and applied.
    #[oai(status = 200)]
    Ok(Json<WebhookAck>),
    /// E001: no `x-line-signature`; E001A: it is not the body's signature. Nothing is recorded.
    #[oai(status = 401)]
    Unauthorized(Json<ErrorBody>),
}

fn unauthorized(code: &str, cause: &str) -> WebhookResponse {
    WebhookResponse::Unauthorized(Json(ErrorBody {
        code: code.into(),
        cause: cause.into(),
        fields: None,
    }))
}

#[derive(Default)]
pub struct LineWebhookApi;

#[OpenApi(tag = "ApiTags::Line")]
impl LineWebhookApi {
    /// LINE webhook
    ///
    /// Called by the LINE Platform. `follow` / `unfollow` keep each LINE user's friendship with
    /// the official account (no push goes to someone who unfollowed or blocked it); events are
    /// deduplicated on `webhookEventId`. Answers fast: only database writes.
    #[oai(path = "/line/webhook", method = "post")]
    async fn webhook(
        &self,
        state: poem::web::Data<&State>,
        /// base64 HMAC-SHA256 of the raw body, keyed with the channel secret.
        #[oai(name = "x-line-signature")]
        signature: Header<Option<String>>,
        body: RawBody<WebhookSchema>,
    ) -> Result<WebhookResponse, ApiError> {
        let Some(signature) = signature.0 else {
            return Ok(unauthorized("E001", "x-line-signature is missing"));
        };
        let secret = &state.settings.line.channel_secret;
        if !webhook::signature_matches(secret, &body.bytes, &signature) {
            tracing::warn!("webhook: a request with a wrong signature");
            return Ok(unauthorized(
                "E001A",
                "x-line-signature is not the signature of this body",
            ));
        }
        let parsed: WebhookBody = serde_json::from_slice(&body.bytes)
            .map_err(|_| ApiError::BadRequest("the body is not a LINE webhook body".into()))?;
        let outcome = webhook::apply(
            &state.db,
            &parsed,
            state.now(),
            state.settings.clock.now_millis(),
        )
        .await?;
        tracing::info!(
            applied = outcome.applied,
            duplicates = outcome.duplicates,
            ignored = outcome.ignored,
            "webhook"
        );
        Ok(WebhookResponse::Ok(Json(WebhookAck {
            applied: outcome.applied as u32,
            duplicates: outcome.duplicates as u32,
            ignored: outcome.ignored as u32,
        })))
    }
}
