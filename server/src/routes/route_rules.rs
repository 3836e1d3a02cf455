//! GET /api/route-rules?path=…: redirects for the web app's global route guard, from the
//! `route_rules` table. A rule's path matches exactly, or as a prefix when it ends in `*` (the
//! longest prefix wins; an exact rule beats any prefix).

use poem_openapi::{ApiResponse, Object, OpenApi, param::Query, payload::Json};

use super::{ApiTags, State};
use crate::{error::ApiError, storage::route_rules};

#[derive(Debug, Object)]
pub struct RouteRule {
    /// The path asked about.
    pub path: String,
    /// Where to send the user instead: an app path (`/profile`) or an absolute URL (a full page
    /// load); null when the route has no rule.
    #[oai(nullable)]
    pub redirect: Option<String>,
}

#[derive(ApiResponse)]
pub enum RouteRuleResponse {
    /// The rule for the path (redirect null when none).
    #[oai(status = 200)]
    Ok(Json<RouteRule>),
}

pub struct RouteRulesApi;

fn register_path() -> String {
    "/register".into()
}

#[OpenApi(tag = "ApiTags::RouteRules")]
impl RouteRulesApi {
    /// The route rule for a path
    #[oai(path = "/route-rules", method = "get")]
    async fn route_rules(
        &self,
        state: poem::web::Data<&State>,
        /// The app path asked about: starts with `/`, at most 512 characters.
        #[oai(
            validator(min_length = 1, max_length = 512, pattern = "^/"),
            example = "register_path"
        )]
        path: Query<String>,
    ) -> Result<RouteRuleResponse, ApiError> {
        let path = path.0;
        let redirect = route_rules::redirect_for(&state.db, &path).await?;
        Ok(RouteRuleResponse::Ok(Json(RouteRule { path, redirect })))
    }
}
