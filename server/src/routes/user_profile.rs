//! /user-profile: registration (validated by kizuna-core) and the avatar.
//!
//! The registration itself (one transaction, idempotent by the normalised payload's SHA-256) is
//! `usecases::membership::register`; this maps its outcomes to answers: the same payload again (a
//! retry after a lost answer) answers the existing result with 200 and creates nothing; a
//! *different* payload for a user who already has a profile is E005.

use std::collections::BTreeMap;

use anyhow::Context;
use kizuna_core::{profile::UserProfileCreate, rules::RuleCode};
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};
use sha2::{Digest, Sha256};

use super::{ApiTags, OwnRevision, State};
use crate::{
    error::ApiError,
    extract::{
        auth::{LineUser, Session},
        body::{JsonBody, UserProfileCreateSchema},
    },
    usecases::{
        membership::{self, ProfileSubmission, SubmitOutcome, UnknownFiles},
        revisions::{self, SaveOutcome},
    },
};

#[derive(Debug, Object, Clone)]
#[oai(rename_all = "camelCase")]
pub struct ProfileCreated {
    /// The LINE user id of the profile's owner.
    pub user_id: String,
    /// The review status: PENDING after a submission.
    pub status: String,
    /// The claimed photo file names, in order.
    pub photos: Vec<String>,
    /// Unix seconds of the creation.
    pub created_at: i64,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct AvatarBody {
    /// A file name of one of the caller's files.
    #[oai(validator(pattern = "^[0-9a-f]{32}$"))]
    pub avatar: String,
}

#[derive(ApiResponse)]
pub enum CreateProfileResponse {
    /// Created (or this same payload was already submitted: the existing result, nothing
    /// duplicated).
    #[oai(status = 200)]
    Ok(Json<ProfileCreated>),
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ProfileEdited {
    /// The changed fields that took effect at once (wire names): the member's next list is made
    /// with them.
    pub applied: Vec<String>,
    /// The revision waiting for review after this save (or the rejected one, when this save
    /// proposed nothing new); null when nothing awaits review.
    #[oai(nullable)]
    pub revision: Option<OwnRevision>,
}

#[derive(ApiResponse)]
pub enum EditResponse {
    /// Saved: what took effect at once, and the revision for review.
    #[oai(status = 200)]
    Ok(Json<ProfileEdited>),
}

#[derive(ApiResponse)]
pub enum AvatarResponse {
    /// The avatar is set.
    #[oai(status = 200)]
    Ok(Json<AvatarBody>),
}

#[derive(Default)]
pub struct UserProfileApi;

/// E002 naming the fields whose files are not this user's to claim.
fn unknown_files(photos: bool, verification: bool) -> ApiError {
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (field, unknown) in [
        ("photoNameList", photos),
        ("verifyTempFileName", verification),
    ] {
        if unknown {
            fields.insert(field.into(), vec![RuleCode::UnknownFile.as_str().into()]);
        }
    }
    ApiError::Validation {
        cause: "the named files are not temp files of this user".into(),
        fields,
    }
}

/// A submission read, validated by kizuna-core and checked against the caller: the valid profile,
/// its normalised payload and that payload's SHA-256.
struct Checked {
    valid: kizuna_core::profile::ValidProfile,
    payload: String,
    hash: String,
}

fn check_submission(
    state: &State,
    line_user_id: &str,
    body: JsonBody<UserProfileCreateSchema>,
) -> Result<Checked, ApiError> {
    let create =
        UserProfileCreate::from_json(body.into_value()).map_err(|fields| ApiError::BadFields {
            cause: "the body has fields of the wrong type or unknown fields".into(),
            fields: crate::error::fields_map(&fields),
        })?;
    if let Some(account) = &create.account
        && account != line_user_id
    {
        return Err(ApiError::Forbidden(
            "account is not the caller's LINE user id".into(),
        ));
    }
    let valid = create
        .parse(state.settings.clock.today())
        .map_err(|fields| ApiError::validation("the profile failed validation", &fields))?;
    if valid.account.as_str() != line_user_id {
        return Err(ApiError::Forbidden(
            "account is not the caller's LINE user id".into(),
        ));
    }
    // Through a `Value` (keys sorted): the stored payload and its hash keep the form they
    // have always had, so a retry still finds its earlier submission.
    let payload = serde_json::to_value(valid.to_payload())
        .context("serialising a profile")?
        .to_string();
    let hash = hex::encode(Sha256::digest(payload.as_bytes()));
    Ok(Checked {
        valid,
        payload,
        hash,
    })
}

/// The answer to a registration or resubmission.
fn answer(line_user_id: &str, outcome: SubmitOutcome) -> Result<CreateProfileResponse, ApiError> {
    match outcome {
        SubmitOutcome::Done(registration) => Ok(CreateProfileResponse::Ok(Json(ProfileCreated {
            user_id: line_user_id.to_string(),
            status: registration.status.as_str().to_string(),
            photos: registration.photos,
            created_at: registration.created_at,
        }))),
        SubmitOutcome::UnknownFiles(UnknownFiles {
            photos,
            verification,
        }) => Err(unknown_files(photos, verification)),
    }
}

#[OpenApi(tag = "ApiTags::UserProfile")]
impl UserProfileApi {
    /// Register a profile
    ///
    /// Public: the LINE ID token in `X-Line-Id-Token` says who registers; `account` must be its
    /// subject. Validated by kizuna-core (E002 with `fields`: 400 for wrong types or unknown
    /// fields, 422 for rule failures). `photoNameList` and `verifyTempFileName` must name temp
    /// files uploaded by the same user and not yet used. The status becomes PENDING. Sending the
    /// same payload again answers the existing result; a different one answers E005.
    #[oai(path = "/user-profile", method = "post")]
    async fn create(
        &self,
        state: poem::web::Data<&State>,
        caller: LineUser,
        body: Json<JsonBody<UserProfileCreateSchema>>,
    ) -> Result<CreateProfileResponse, ApiError> {
        let identity = caller.0;
        let Checked {
            valid,
            payload,
            hash,
        } = check_submission(&state, identity.user_id.as_str(), body.0)?;
        let submitted = ProfileSubmission {
            valid: &valid,
            payload: &payload,
            hash: &hash,
        };
        let outcome =
            membership::register(&state.db, identity.user_id.as_str(), submitted, state.now())
                .await?
                .apply(&state)
                .await;
        answer(identity.user_id.as_str(), outcome)
    }

    /// Edit and resubmit a rejected profile
    ///
    /// The caller's session says whose profile; `account` must be the caller. The same body,
    /// validation (E002) and photo rules as the registration: `photoNameList` and
    /// `verifyTempFileName` name the caller's temp uploads or files the profile already has.
    /// With COMPANY_EMAIL the address must be confirmed by its code (422 `email_not_confirmed`).
    /// Only a REJECTED profile can be edited (403 E004 otherwise; 404 E003 without a profile);
    /// it becomes PENDING again and reviewers see what changed. Sending the same body again
    /// while it is PENDING answers the stored result and changes nothing.
    #[oai(path = "/user-profile", method = "put")]
    async fn resubmit(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<UserProfileCreateSchema>>,
    ) -> Result<CreateProfileResponse, ApiError> {
        let user = caller.0.user;
        let Checked {
            valid,
            payload,
            hash,
        } = check_submission(&state, &user.line_user_id, body.0)?;
        let submitted = ProfileSubmission {
            valid: &valid,
            payload: &payload,
            hash: &hash,
        };
        let outcome = membership::resubmit(&state.db, &user, submitted, state.now())
            .await?
            .apply(&state)
            .await;
        answer(&user.line_user_id, outcome)
    }

    /// Edit an approved profile
    ///
    /// The registration's form, body, validation (E002) and photo rules: `photoNameList` and
    /// `verifyTempFileName` name the caller's temp uploads or files the profile already has (its
    /// photos, the proof on record, photos of its revision). What each changed field does
    /// (kizuna-core's `revision::on_save`): whom they look for, the partner conditions,
    /// the radius, the home district and location, the income and the "how did you hear of us"
    /// take effect at once (from the member's next list); everything others see of the member
    /// and the verification go to review as one revision, stored beside the approved profile,
    /// which everyone else keeps reading until a reviewer approves the revision. Saving again
    /// replaces the revision (back in the queue; the same proposal again keeps its place);
    /// saving the approved version back withdraws it. The name, birthday and gender cannot be
    /// changed here (422 E002 `not_editable`): the member asks the operator. A new work e-mail
    /// must be confirmed by its code (422 `email_not_confirmed`). Only an APPROVED profile (403
    /// E004 otherwise; 404 E003 without one). `rules::PROFILE_EDITS_PER_MINUTE` (10) saves a
    /// minute per user (429 E007 with Retry-After).
    #[oai(path = "/user-profile/edit", method = "put")]
    async fn edit(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        body: Json<JsonBody<UserProfileCreateSchema>>,
    ) -> Result<EditResponse, ApiError> {
        let user = caller.0.user;
        if let Err(wait) = state
            .limits
            .get(crate::rate_limit::LimitKind::Edit)
            .check(&format!("u:{}", user.id))
            .await
        {
            return Err(ApiError::Throttled {
                cause: "too many saves at once; wait a moment".into(),
                retry_after: Some(wait.as_secs_f64().ceil().max(1.0) as u64),
            });
        }
        let Checked { valid, .. } = check_submission(&state, &user.line_user_id, body.0)?;
        let edited = valid.to_payload();
        let when = (state.settings.clock.today(), state.now());
        match revisions::save(&state.db, &user, &edited, when)
            .await?
            .apply(&state)
            .await
        {
            SaveOutcome::Saved(saved) => {
                let revision = match &saved.revision {
                    Some(revision) => OwnRevision::of(&saved.approved, revision)?,
                    None => None,
                };
                Ok(EditResponse::Ok(Json(ProfileEdited {
                    applied: saved.applied.iter().map(|f| f.to_string()).collect(),
                    revision,
                })))
            }
            SaveOutcome::UnknownFiles(UnknownFiles {
                photos,
                verification,
            }) => Err(unknown_files(photos, verification)),
        }
    }

    /// Set the avatar
    ///
    /// The avatar must be one of the caller's photos or uploads (E003 otherwise), never the
    /// proof of employment (E004). An upload made the avatar no longer expires, and can still
    /// become one of the profile's photos at registration.
    #[oai(path = "/user-profile/avatar", method = "put")]
    async fn avatar(
        &self,
        state: poem::web::Data<&State>,
        caller: Session,
        /// `{avatar}`: a file name of one of the caller's files.
        body: Json<JsonBody<AvatarBody>>,
    ) -> Result<AvatarResponse, ApiError> {
        let auth = caller.0;
        let body = body.0.read()?;
        if !crate::images::is_file_id(&body.avatar) {
            return Err(ApiError::NotFound);
        }
        let avatar = membership::set_avatar(&state.db, auth.user.id, &body.avatar, state.now())
            .await?
            .apply(&state)
            .await;
        Ok(AvatarResponse::Ok(Json(AvatarBody { avatar })))
    }
}
