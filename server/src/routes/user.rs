//! /user: login with a verified LINE identity, the caller's own info and review status.

use anyhow::Context;
use poem::Request;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Header, param::Path, payload::Json};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
};

use super::{ApiTags, State, body::JsonBody};
use crate::{
    clock::now_secs,
    error::ApiError,
    identity::{LineIdentity, session::TokenSource},
    storage::{
        entity::{profile, review_history, user},
        is_unique_violation,
    },
};

/// The spec's login body: both fields hold the LINE user id. They are no proof of identity (the ID
/// token is); `account` must equal the token's subject.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct LoginBody {
    pub account: String,
    pub password: String,
}

#[derive(Debug, Object)]
pub struct TokenBody {
    /// The session token: send it as `Authorization: Bearer {token}`.
    pub token: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MyInfo {
    /// The caller's LINE user id.
    pub user_id: String,
    pub display_name: Option<String>,
    /// File name of the avatar, if set (fetch it through /api/file/fetch/{fileName}).
    pub avatar: Option<String>,
    /// PENDING, APPROVED, REJECTED or SUSPENDED; null before registration.
    pub review_status: Option<String>,
    /// The registered profile (normalised UserProfileCreate payload); null before registration.
    pub profile: Option<serde_json::Value>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewStatusBody {
    pub user_id: String,
    /// PENDING, APPROVED, REJECTED or SUSPENDED.
    pub status: String,
    /// The reviewer's reason when REJECTED or SUSPENDED.
    pub reason: Option<String>,
    /// Unix seconds of the last status change.
    pub updated_at: i64,
}

#[derive(ApiResponse)]
pub enum LoginResponse {
    /// Logged in; the same token is also in the `Authorization` header.
    #[oai(status = 200)]
    Ok(Json<TokenBody>),
}

#[derive(ApiResponse)]
pub enum MyInfoResponse {
    /// The caller's user and profile.
    #[oai(status = 200)]
    Ok(Json<MyInfo>),
}

#[derive(ApiResponse)]
pub enum ReviewStatusResponse {
    /// The caller's review status.
    #[oai(status = 200)]
    Ok(Json<ReviewStatusBody>),
}

pub struct UserApi;

/// The user row of a LINE user, if they ever logged in.
pub async fn find_user(
    db: &DatabaseConnection,
    line_user_id: &str,
) -> Result<Option<user::Model>, ApiError> {
    Ok(user::Entity::find()
        .filter(user::Column::LineUserId.eq(line_user_id))
        .one(db)
        .await
        .context("looking up a user")?)
}

/// Finds the user row of a LINE user, creating it on first sight (race-safe).
pub async fn find_or_create_user(
    db: &DatabaseConnection,
    identity: &LineIdentity,
) -> Result<user::Model, ApiError> {
    let line_id = identity.user_id.as_str();
    if let Some(found) = find_user(db, line_id).await? {
        return Ok(found);
    }
    let inserted = user::Entity::insert(user::ActiveModel {
        line_user_id: Set(line_id.to_string()),
        display_name: Set(identity.name.clone().map(|n| n.chars().take(200).collect())),
        avatar_file_id: Set(None),
        created_at: Set(now_secs()),
        ..Default::default()
    })
    .exec(db)
    .await;
    match inserted {
        Ok(_) => {}
        Err(err) if is_unique_violation(&err) => {}
        Err(err) => return Err(anyhow::Error::new(err).context("creating a user").into()),
    }
    find_user(db, line_id)
        .await?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the new user vanished")))
}

pub async fn find_profile(
    db: &DatabaseConnection,
    user_id: i64,
) -> Result<Option<profile::Model>, ApiError> {
    Ok(profile::Entity::find()
        .filter(profile::Column::UserId.eq(user_id))
        .one(db)
        .await
        .context("looking up a profile")?)
}

#[OpenApi(tag = "ApiTags::User")]
impl UserApi {
    /// Log in with a LINE ID token
    ///
    /// Works for any verified LINE user, with or without a profile; creates the user on first
    /// login. `account` must be the ID token's subject.
    #[oai(path = "/user/login", method = "post")]
    async fn login(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        #[oai(name = "X-Line-Id-Token")] id_token: Header<Option<String>>,
        /// `{account, password}`, both the LINE user id (strings).
        body: Json<JsonBody<LoginBody>>,
    ) -> Result<LoginResponse, ApiError> {
        let identity = state.verifier.verify(id_token.0.as_deref()).await?;
        let body = body.0.read()?;
        if body.account != identity.user_id.as_str() {
            return Err(ApiError::Forbidden(
                "account is not the ID token's subject".into(),
            ));
        }
        let user = find_or_create_user(&state.db, &identity).await?;
        let token = state.sessions.create(user.id).await?;
        if let Some(slot) = req
            .extensions()
            .get::<crate::identity::session::RenewSlot>()
        {
            let _ = slot.0.set(token.clone());
        }
        tracing::info!(user = user.id, "login");
        Ok(LoginResponse::Ok(Json(TokenBody { token })))
    }

    /// The caller's user and profile
    #[oai(path = "/user/my-info", method = "get")]
    async fn my_info(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
    ) -> Result<MyInfoResponse, ApiError> {
        let auth = state
            .sessions
            .authenticate(req, TokenSource::Header)
            .await?;
        let (review_status, payload) = match auth.profile {
            Some(p) => (
                Some(p.status),
                Some(serde_json::from_str(&p.payload).context("decoding a stored profile")?),
            ),
            None => (None, None),
        };
        Ok(MyInfoResponse::Ok(Json(MyInfo {
            user_id: auth.user.line_user_id,
            display_name: auth.user.display_name,
            avatar: auth.user.avatar_file_id,
            review_status,
            profile: payload,
        })))
    }

    /// The review status of the caller
    ///
    /// Public: identified by the LINE ID token in `X-Line-Id-Token` (or a session of the same
    /// user). E003 for a user without a profile and for anybody else's id.
    #[oai(path = "/user/review-status/:userId", method = "get")]
    async fn review_status(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        #[oai(name = "userId")] user_id: Path<String>,
        #[oai(name = "X-Line-Id-Token")] id_token: Header<Option<String>>,
    ) -> Result<ReviewStatusResponse, ApiError> {
        let caller_line_id = match id_token.0.as_deref() {
            Some(token) => state
                .verifier
                .verify(Some(token))
                .await?
                .user_id
                .as_str()
                .to_string(),
            None => match state.sessions.authenticate(req, TokenSource::Header).await {
                Ok(auth) => auth.user.line_user_id,
                Err(ApiError::NoSession) => {
                    return Err(ApiError::Forbidden("no LINE ID token".into()));
                }
                Err(other) => return Err(other),
            },
        };
        if caller_line_id != user_id.0 {
            return Err(ApiError::NotFound);
        }
        let user = user::Entity::find()
            .filter(user::Column::LineUserId.eq(caller_line_id.as_str()))
            .one(&state.db)
            .await
            .context("looking up a user")?
            .ok_or(ApiError::NotFound)?;
        let profile = find_profile(&state.db, user.id)
            .await?
            .ok_or(ApiError::NotFound)?;
        let last = review_history::Entity::find()
            .filter(review_history::Column::ProfileId.eq(profile.id))
            .order_by_desc(review_history::Column::Id)
            .one(&state.db)
            .await
            .context("reading the review history")?;
        Ok(ReviewStatusResponse::Ok(Json(ReviewStatusBody {
            user_id: user.line_user_id,
            status: profile.status,
            reason: profile.status_reason,
            updated_at: last.map_or(profile.updated_at, |h| h.created_at),
        })))
    }
}
