//! POST /api/visits `{via}`: the web app's arrival through a push's link (`?via={kind}` on the
//! permanent link), counted per day and kind for `kizuna-server funnel`. No session is read and
//! nothing about the caller is stored: only the day's count of that kind grows. At most
//! `push::VISITS_PER_MINUTE_PER_ADDRESS` (10) a minute per client address → E007; an unknown kind
//! → E002.

use poem::Request;
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::{ApiTags, State};
use crate::client_address::address_key;
use crate::error::ApiError;
use crate::extract::body::JsonBody;

#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields, example)]
#[serde(deny_unknown_fields)]
pub struct Visit {
    /// The kind of push whose link was opened: `match`, `message`, `introductions` or `review`.
    // The pattern documents the kinds for clients (the handler answers E002 for any other).
    #[oai(validator(pattern = "^(match|message|introductions|review)$"))]
    pub via: String,
}

impl poem_openapi::types::Example for Visit {
    fn example() -> Visit {
        Visit {
            via: "introductions".into(),
        }
    }
}

#[derive(ApiResponse)]
pub enum VisitResponse {
    /// Counted.
    #[oai(status = 204)]
    Counted,
}

#[derive(Default)]
pub struct VisitsApi;

#[OpenApi(tag = "ApiTags::Logger")]
impl VisitsApi {
    /// Count an arrival through a push's link
    #[oai(path = "/visits", method = "post")]
    async fn visit(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        body: Json<JsonBody<Visit>>,
    ) -> Result<VisitResponse, ApiError> {
        let address = address_key(req, state.settings.trusted_proxy_header.as_ref());
        if !state
            .limits
            .get(crate::rate_limit::LimitKind::Visit)
            .allow(&address)
            .await
        {
            return Err(ApiError::RateLimited);
        }
        let body = body.0.read()?;
        let Some(kind) = kizuna_core::push::PushKind::parse(&body.via) else {
            return Err(ApiError::BadRequest(
                "via is match, message, introductions or review".into(),
            ));
        };
        crate::usecases::visits::count(&state.db, kind, state.now()).await?;
        Ok(VisitResponse::Counted)
    }
}
