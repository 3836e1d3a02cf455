//! /user: login with a verified LINE identity, the caller's own info and review status.

use anyhow::Context;
use kizuna_core::review::ReviewStatus;
use poem::Request;
use poem_openapi::{ApiResponse, Enum, Object, OpenApi, param::Path, payload::Json};

use super::{ApiTags, OwnRevision, ReviewState, State};
use crate::extract::{
    auth::{AccountSession, LineUser, LineUserOrSession},
    body::{JsonBody, ProfilePayload},
};
use crate::{
    error::ApiError,
    identity::session::RenewSlot,
    usecases::{
        login::{self, LoginDeps},
        membership::{self, StandingDecision},
    },
};

/// The spec's login body: both fields hold the LINE user id. They are no proof of identity (the ID
/// token is); `account` must equal the token's subject.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct LoginBody {
    /// The LINE user id: the ID token's subject.
    #[oai(validator(pattern = "^U[0-9a-f]{32}$"))]
    pub account: String,
    /// The LINE user id again (the spec's shape).
    #[oai(validator(pattern = "^U[0-9a-f]{32}$"))]
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
    #[oai(validator(pattern = "^U[0-9a-f]{32}$"))]
    pub user_id: String,
    /// The LINE display name from the ID token of the first login; null when LINE gave none.
    #[oai(nullable)]
    pub display_name: Option<String>,
    /// File name of the avatar (fetch it through /api/file/fetch/{fileName}); null until set.
    #[oai(nullable)]
    pub avatar: Option<String>,
    /// The review status; null before registration.
    #[oai(nullable)]
    pub review_status: Option<ReviewState>,
    /// The registered profile (its normalised UserProfileCreate payload); null before
    /// registration.
    #[oai(nullable)]
    pub profile: Option<ProfilePayload>,
    /// The caller's roles beyond being a member, from the server's own records: `REVIEWER`
    /// while they are on the reviewers list (the review console's calls need it).
    pub roles: Vec<Role>,
    /// The reviewer's last decision, while it stands (null while PENDING and before any):
    /// the member's profile page shows it, reasons translated from their keys
    /// (`GET /catalogue/codes`).
    #[oai(nullable)]
    pub review_decision: Option<ReviewDecision>,
    /// An approved member's revision of their profile: PENDING while a reviewer
    /// has not decided it, REJECTED with the reasons once sent back (the form opens on it and
    /// marks the fields the reasons name); null when none waits. `profile` above stays the
    /// approved version, which everyone else reads.
    #[oai(nullable)]
    pub revision: Option<OwnRevision>,
    /// The member's latest appeal of a suspension (null when they never appealed): PENDING
    /// until a reviewer other than the one who suspended answers it, then UPHELD or REINSTATED.
    #[oai(nullable)]
    pub appeal: Option<OwnAppeal>,
    /// Whether the member may appeal the suspension that stands now (`POST /user/appeal`):
    /// suspended, and not appealed this suspension yet.
    pub may_appeal: bool,
}

/// A member's appeal of a suspension as they see it (never who answered).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct OwnAppeal {
    /// PENDING, UPHELD or REINSTATED.
    pub status: String,
    /// What the member wrote.
    pub text: String,
    /// Unix seconds.
    pub submitted_at: i64,
    /// Unix seconds of the answer; null while PENDING.
    #[oai(nullable)]
    pub decided_at: Option<i64>,
    /// The answering reviewer's note to the member.
    #[oai(nullable)]
    pub note: Option<String>,
}

impl OwnAppeal {
    fn of(appeal: crate::usecases::review::appeals::Appeal) -> OwnAppeal {
        OwnAppeal {
            status: appeal.status.as_str().to_string(),
            text: appeal.text,
            submitted_at: appeal.created_at,
            decided_at: appeal.decided_at,
            note: appeal.note,
        }
    }
}

/// A suspended member's request for a second look.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppealBody {
    /// Why the suspension should be looked at again (`rules::APPEAL_TEXT`: required, at most
    /// 1000 characters, line breaks allowed).
    pub text: Option<String>,
}

#[derive(ApiResponse)]
pub enum AppealResponse {
    /// Sent: a reviewer other than the one who suspended will answer it.
    #[oai(status = 201)]
    Created(Json<OwnAppeal>),
}

/// A reviewer's decision as the member sees it (never who decided).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewDecision {
    /// APPROVE, REJECT, SUSPEND or REINSTATE.
    pub action: String,
    /// Reason codes of the `reject` or `suspend` catalogue (empty for APPROVE, REINSTATE).
    pub reasons: Vec<String>,
    /// The reviewer's note to the member.
    #[oai(nullable)]
    pub note: Option<String>,
    /// Unix seconds.
    pub decided_at: i64,
}

impl ReviewDecision {
    fn of(decision: StandingDecision) -> ReviewDecision {
        ReviewDecision {
            action: decision.action,
            reasons: decision.reasons,
            note: decision.note,
            decided_at: decision.decided_at,
        }
    }
}

/// A role the server grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Role {
    Reviewer,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewStatusBody {
    pub user_id: String,
    /// PENDING, APPROVED, REJECTED or SUSPENDED.
    pub status: String,
    /// The reviewer's reason codes when REJECTED or SUSPENDED, comma-separated (`reasons` has
    /// them as a list).
    #[oai(nullable)]
    pub reason: Option<String>,
    /// The reason codes of the decision that stands (empty while PENDING or APPROVED).
    pub reasons: Vec<String>,
    /// The reviewer's note with that decision.
    #[oai(nullable)]
    pub note: Option<String>,
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

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteAccountBody {
    /// The member's LINE access token (`liff.getAccessToken()`), so that LINE revokes their
    /// authorisation of the app; null when the app has none. At most 1024 characters.
    pub line_access_token: Option<String>,
}

/// The longest LINE access token the deletion accepts (LINE's are a few hundred characters).
const MAX_LINE_ACCESS_TOKEN: usize = 1024;

#[derive(ApiResponse)]
pub enum SignedOutResponse {
    /// Signed out: the session token no longer works (doing it again is 401 E001A).
    #[oai(status = 204)]
    SignedOut,
}

#[derive(ApiResponse)]
pub enum ReviewStatusResponse {
    /// The caller's review status.
    #[oai(status = 200)]
    Ok(Json<ReviewStatusBody>),
    /// The caller has no profile yet: a normal state of a new user, not an error.
    #[oai(status = 204)]
    NoProfile,
}

#[derive(Default)]
pub struct UserApi;

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
        caller: LineUser,
        /// `{account, password}`, both the LINE user id (strings).
        body: Json<JsonBody<LoginBody>>,
    ) -> Result<LoginResponse, ApiError> {
        let identity = caller.0;
        let body = body.0.read()?;
        if body.account != identity.user_id.as_str() {
            return Err(ApiError::Forbidden(
                "account is not the ID token's subject".into(),
            ));
        }
        let address =
            crate::client_address::address_key(req, state.settings.trusted_proxy_header.as_ref());
        let deps = LoginDeps {
            db: &state.db,
            sessions: &state.sessions,
            address_limiter: state.limits.get(crate::rate_limit::LimitKind::LoginAddress),
            user_limiter: state.limits.get(crate::rate_limit::LimitKind::LoginUser),
        };
        // The web app sends its locale: pushes and mails written later speak it.
        let language = crate::locale::of_request(req);
        let token = login::login(&deps, &identity, &address, language, state.now()).await?;
        if let Some(slot) = req.extensions().get::<RenewSlot>() {
            let _ = slot.0.set(token.clone());
        }
        Ok(LoginResponse::Ok(Json(TokenBody { token })))
    }

    /// Sign out of this device
    ///
    /// Ends the caller's session (a suspended member's too), and its open events stream within a
    /// second; other devices stay signed in.
    #[oai(path = "/user/logout", method = "post")]
    async fn logout(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        caller: AccountSession,
    ) -> Result<SignedOutResponse, ApiError> {
        membership::sign_out(&state.db, &caller.0.session, state.now())
            .await?
            .apply(&state)
            .await;
        if let Some(slot) = req.extensions().get::<RenewSlot>() {
            slot.end();
        }
        Ok(SignedOutResponse::SignedOut)
    }

    /// Sign out everywhere
    ///
    /// Ends every session of the caller, on every device (a suspended member's too), and every
    /// open events stream of theirs within a second, on every server process.
    #[oai(path = "/user/logout-all", method = "post")]
    async fn logout_all(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        caller: AccountSession,
    ) -> Result<SignedOutResponse, ApiError> {
        membership::sign_out_everywhere(&state.db, caller.0.user.id, state.now())
            .await?
            .apply(&state)
            .await;
        if let Some(slot) = req.extensions().get::<RenewSlot>() {
            slot.end();
        }
        Ok(SignedOutResponse::SignedOut)
    }

    /// Delete my account
    ///
    /// At once: nobody sees the caller any more, their matches end (the other side's open chat
    /// is told), their sessions end and their pending pushes are cancelled; every row that is
    /// theirs is deleted, and their photos and files are removed from the store within minutes.
    /// Kept, under a hash of the LINE user id: a suspension (such an account cannot register
    /// again) and the blocks between them and others (restored if they register again). The
    /// same LINE user may register afresh afterwards. A suspended member may delete too.
    #[oai(path = "/user/account", method = "delete")]
    async fn delete_account(
        &self,
        state: poem::web::Data<&State>,
        req: &Request,
        caller: AccountSession,
        /// `{lineAccessToken}`.
        body: Json<JsonBody<DeleteAccountBody>>,
    ) -> Result<SignedOutResponse, ApiError> {
        let body = body.0.read()?;
        let token = body.line_access_token.filter(|t| !t.is_empty());
        if token.as_ref().is_some_and(|t| {
            t.len() > MAX_LINE_ACCESS_TOKEN || !t.bytes().all(|b| b.is_ascii_graphic())
        }) {
            return Err(ApiError::field(
                "not a LINE access token",
                "lineAccessToken",
                kizuna_core::rules::RuleCode::Invalid.as_str(),
            ));
        }
        membership::delete_account(&state.db, &caller.0.user, token, state.now())
            .await?
            .apply(&state)
            .await;
        if let Some(slot) = req.extensions().get::<RenewSlot>() {
            slot.end();
        }
        Ok(SignedOutResponse::SignedOut)
    }

    /// The caller's user and profile
    ///
    /// A suspended member reads theirs too (with the reasons), though nothing else.
    #[oai(path = "/user/my-info", method = "get")]
    async fn my_info(
        &self,
        state: poem::web::Data<&State>,
        caller: AccountSession,
    ) -> Result<MyInfoResponse, ApiError> {
        let auth = caller.0;
        let own = match &auth.profile {
            Some(p) => {
                let status = ReviewStatus::parse(&p.status)
                    .with_context(|| format!("a stored review status {:?}", p.status))?;
                let mut own = membership::own_review(&state.db, p.id, status).await?;
                // None: the profile left with its account after the session was read.
                own.payload.take().map(|payload| (status, payload, own))
            }
            None => None,
        };
        let (review_status, payload, revision, review_decision, appeal, may_appeal) = match own {
            Some((status, payload, own)) => {
                let revision = match &own.revision {
                    Some(revision) => OwnRevision::of(&payload, revision)?,
                    None => None,
                };
                (
                    Some(ReviewState::from_core(status)),
                    Some(ProfilePayload(
                        serde_json::from_str(&payload).context("decoding a stored profile")?,
                    )),
                    revision,
                    own.decision.map(ReviewDecision::of),
                    own.appeal.map(OwnAppeal::of),
                    own.may_appeal,
                )
            }
            None => (None, None, None, None, None, false),
        };
        Ok(MyInfoResponse::Ok(Json(MyInfo {
            user_id: auth.user.line_user_id,
            display_name: auth.user.display_name,
            avatar: auth.user.avatar_file_id,
            review_status,
            profile: payload,
            roles: if auth.reviewer {
                vec![Role::Reviewer]
            } else {
                Vec::new()
            },
            review_decision,
            revision,
            appeal,
            may_appeal,
        })))
    }

    /// Ask for a second look at a suspension
    ///
    /// A suspended member (their session still reaches their own account) asks once per
    /// suspension, with a short text (`rules::APPEAL_TEXT`), that the decision be looked at
    /// again; a reviewer other than the one who suspended answers it, and the member is pushed
    /// the answer. 422 E002 `text` for a text outside the rule; 403 E004 for a member who is not
    /// suspended; 409 E005 once this suspension was appealed (two requests at once store one);
    /// 429 E007 beyond `rules::SWITCH_CHANGES_PER_MINUTE` tries a minute.
    #[oai(path = "/user/appeal", method = "post")]
    async fn appeal(
        &self,
        state: poem::web::Data<&State>,
        caller: AccountSession,
        body: Json<JsonBody<AppealBody>>,
    ) -> Result<AppealResponse, ApiError> {
        super::switch_allowed(&state, caller.0.user.id).await?;
        let body = body.0.read()?;
        let profile = caller.0.profile.as_ref().map(|p| p.id);
        let appeal = crate::usecases::review::appeals::ask(
            &state.db,
            state.now(),
            profile,
            body.text.as_deref(),
        )
        .await?;
        Ok(AppealResponse::Created(Json(OwnAppeal::of(appeal))))
    }

    /// The review status of the caller
    ///
    /// Public: identified by the LINE ID token in `X-Line-Id-Token` (or a session of the same
    /// user). 204 for the caller's own id while they have no profile; E003 for anybody else's id.
    #[oai(path = "/user/review-status/:userId", method = "get")]
    async fn review_status(
        &self,
        state: poem::web::Data<&State>,
        caller: LineUserOrSession,
        #[oai(name = "userId")] user_id: Path<String>,
    ) -> Result<ReviewStatusResponse, ApiError> {
        let caller_line_id = caller.0;
        if caller_line_id != user_id.0 {
            return Err(ApiError::NotFound);
        }
        let Some(view) = membership::review_status(&state.db, &caller_line_id).await? else {
            return Ok(ReviewStatusResponse::NoProfile);
        };
        Ok(ReviewStatusResponse::Ok(Json(ReviewStatusBody {
            user_id: view.line_user_id,
            status: view.status.as_str().to_string(),
            reason: view.reason,
            reasons: view
                .decision
                .as_ref()
                .map(|d| d.reasons.clone())
                .unwrap_or_default(),
            note: view.decision.and_then(|d| d.note),
            updated_at: view.updated_at,
        })))
    }
}
