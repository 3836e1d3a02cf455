//! GET /api/route-rules?path=…: redirects for the web app's global route guard, from the
//! `route_rules` table. A rule's path matches exactly, or as a prefix when it ends in `*` (the
//! longest prefix wins; an exact rule beats any prefix).

use kizuna_core::rules::ROUTE_PATH;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Query, payload::Json};

use super::{ApiTags, State};
use crate::{error::ApiError, usecases::route_rules};

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

#[derive(Default)]
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
        /// The app path asked about: starts with `/`, at most `rules::ROUTE_PATH` (512)
        /// characters.
        #[oai(validator(pattern = "^/"), example = "register_path")]
        path: Query<String>,
    ) -> Result<RouteRuleResponse, ApiError> {
        let path = path.0;
        let length = path.chars().count();
        if length < ROUTE_PATH.min as usize || length > ROUTE_PATH.max as usize {
            return Err(ApiError::BadFields {
                cause: format!("path must be at most {} characters", ROUTE_PATH.max),
                fields: [("path".to_string(), vec!["too_long".to_string()])].into(),
            });
        }
        let redirect = route_rules::redirect_for(&state.db, &path).await?;
        Ok(RouteRuleResponse::Ok(Json(RouteRule { path, redirect })))
    }
}
