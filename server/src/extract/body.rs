//! JSON request bodies that the OpenAPI document describes but the handler reads itself.
//!
//! poem-openapi's own JSON parsing turns numbers and booleans into strings (`{"account": 5}` would
//! pass as "5") and runs before the handler, so before authentication. A `JsonBody<T>` only holds
//! the raw JSON; the document shows `T`'s schema; the handler reads it strictly (exact types,
//! unknown fields refused) once it has checked who is calling.

use std::{borrow::Cow, marker::PhantomData};

use poem::FromRequest;
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ExtractParamOptions,
    registry::{MetaMediaType, MetaRequest, MetaSchemaRef, Registry},
    types::{ParseFromJSON, ParseResult, Type},
};
use serde_json::Value;

use crate::error::{ApiError, strict_json};

// The routes that read a profile body name its schema beside the extractor.
pub use super::profile_schema::{ProfilePayload, UserProfileCreateSchema};

pub struct JsonBody<T> {
    value: Value,
    schema: PhantomData<fn() -> T>,
}

impl<T> JsonBody<T> {
    pub fn into_value(self) -> Value {
        self.value
    }
}

impl<T: serde::de::DeserializeOwned> JsonBody<T> {
    /// The body as a `T`, or 400 E002 naming what is wrong with it.
    pub fn read(self) -> Result<T, ApiError> {
        strict_json(self.value)
    }
}

impl<T: Type> Type for JsonBody<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl<T: Type> ParseFromJSON for JsonBody<T> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Ok(JsonBody {
            value: value.unwrap_or_default(),
            schema: PhantomData,
        })
    }
}

/// A JSON body the caller may leave out (no body at all, as before it existed); when there is
/// one it must be `application/json`. The document marks the request body as not required.
pub struct OptionalJsonBody<T>(pub Option<JsonBody<T>>);

impl<T: serde::de::DeserializeOwned> OptionalJsonBody<T> {
    /// The body as a `T` (None without a body), or 400 E002 naming what is wrong with it.
    pub fn read(self) -> Result<Option<T>, ApiError> {
        self.0.map(JsonBody::read).transpose()
    }
}

impl<'a, T: Type> ApiExtractor<'a> for OptionalJsonBody<T> {
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
                content_type: "application/json; charset=utf-8",
                schema: T::schema_ref(),
            }],
            required: false,
        })
    }

    async fn from_request(
        request: &'a poem::Request,
        body: &mut poem::RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let data = <Vec<u8> as FromRequest>::from_request(request, body).await?;
        if data.is_empty() {
            return Ok(OptionalJsonBody(None));
        }
        let json = request
            .content_type()
            .and_then(|t| t.split(';').next())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(poem::Error::from_string(
                "the body must be application/json",
                poem::http::StatusCode::BAD_REQUEST,
            ));
        }
        let value = serde_json::from_slice(&data).map_err(|err| {
            poem::Error::from_string(
                format!("malformed JSON: {err}"),
                poem::http::StatusCode::BAD_REQUEST,
            )
        })?;
        Ok(OptionalJsonBody(Some(JsonBody {
            value,
            schema: PhantomData,
        })))
    }
}
