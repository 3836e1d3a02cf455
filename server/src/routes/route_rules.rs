//! GET /api/route-rules?path=…: redirects for the web app's global route guard, from the
//! `route_rules` table. A rule's path matches exactly, or as a prefix when it ends in `*` (the
//! longest prefix wins; an exact rule beats any prefix).

use anyhow::Context;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Query, payload::Json};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::{ApiTags, State};
use crate::{error::ApiError, storage::entity::route_rule};

#[derive(Debug, Object)]
pub struct RouteRule {
    /// The path asked about.
    pub path: String,
    /// Where to send the user instead: an app path (`/profile`) or an absolute URL (a full page
    /// load); null when the route has no rule.
    pub redirect: Option<String>,
}

#[derive(ApiResponse)]
pub enum RouteRuleResponse {
    /// The rule for the path (redirect null when none).
    #[oai(status = 200)]
    Ok(Json<RouteRule>),
}

pub struct RouteRulesApi;

#[OpenApi(tag = "ApiTags::RouteRules")]
impl RouteRulesApi {
    /// The route rule for a path
    #[oai(path = "/route-rules", method = "get")]
    async fn route_rules(
        &self,
        state: poem::web::Data<&State>,
        path: Query<String>,
    ) -> Result<RouteRuleResponse, ApiError> {
        let path = path.0;
        if !path.starts_with('/') || path.len() > 512 {
            return Err(ApiError::BadRequest(
                "path must start with / (at most 512 characters)".into(),
            ));
        }
        let exact = route_rule::Entity::find()
            .filter(route_rule::Column::Path.eq(path.as_str()))
            .one(&state.db)
            .await
            .context("reading route rules")?;
        let redirect = match exact {
            Some(rule) => Some(rule.redirect),
            None => route_rule::Entity::find()
                .filter(route_rule::Column::Path.like("%*"))
                .all(&state.db)
                .await
                .context("reading route rules")?
                .into_iter()
                .filter(|r| path.starts_with(r.path.trim_end_matches('*')))
                .max_by_key(|r| r.path.len())
                .map(|r| r.redirect),
        };
        Ok(RouteRuleResponse::Ok(Json(RouteRule { path, redirect })))
    }
}
