//! /user-profile: registration (validated by kizuna-core) and the avatar.
//!
//! Creation is one transaction: user row, profile row (every field as a column + the normalised
//! payload), photos, tags, conditions, claiming the temp files, and the first review-history row
//! (→ PENDING). Idempotency: the normalised payload's SHA-256 is stored; submitting the same
//! payload again (a retry after a lost answer) answers the existing result with 200 and creates
//! nothing; a *different* payload for a user who already has a profile is E005.

use std::collections::BTreeMap;

use anyhow::Context;
use kizuna_core::{profile::UserProfileCreate, review::ReviewStatus, rules::RuleCode};
use poem::Request;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Header, payload::Json};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, DatabaseConnection, DatabaseTransaction,
    EntityTrait, QueryFilter, sea_query::Expr,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{
    ApiTags, State,
    body::{JsonBody, UserProfileCreateSchema},
    user::find_user,
};
use crate::{
    clock::{now_secs, today},
    error::ApiError,
    identity::session::TokenSource,
    storage::{
        entity::{
            file, profile, profile_condition, profile_photo, profile_tag, review_history, user,
        },
        is_unique_violation,
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
    pub avatar: String,
}

#[derive(ApiResponse)]
pub enum CreateProfileResponse {
    /// Created (or this same payload was already submitted: the existing result, nothing
    /// duplicated).
    #[oai(status = 200)]
    Ok(Json<ProfileCreated>),
}

#[derive(ApiResponse)]
pub enum AvatarResponse {
    /// The avatar is set.
    #[oai(status = 200)]
    Ok(Json<AvatarBody>),
}

pub struct UserProfileApi;

const TAG_LISTS: [&str; 6] = [
    "personalityTagIds",
    "exerciseTagIds",
    "hobbyTagIds",
    "marriageTypeTagIds",
    "fertilityPlanTagIds",
    "petTagIds",
];

fn text(payload: &Value, key: &str) -> Option<String> {
    match payload.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn int(payload: &Value, key: &str) -> Option<i32> {
    payload
        .get(key)?
        .as_i64()
        .and_then(|v| i32::try_from(v).ok())
}

fn float(payload: &Value, key: &str) -> Option<f64> {
    payload.get(key)?.as_f64()
}

fn existing_result(p: &profile::Model, line_user_id: &str, photos: Vec<String>) -> ProfileCreated {
    ProfileCreated {
        user_id: line_user_id.to_string(),
        status: p.status.clone(),
        photos,
        created_at: p.created_at,
    }
}

async fn photos_of(
    db: &impl sea_orm::ConnectionTrait,
    profile_id: i64,
) -> Result<Vec<String>, ApiError> {
    use sea_orm::QueryOrder;
    Ok(profile_photo::Entity::find()
        .filter(profile_photo::Column::ProfileId.eq(profile_id))
        .order_by_asc(profile_photo::Column::Position)
        .all(db)
        .await
        .context("reading profile photos")?
        .into_iter()
        .map(|p| p.file_id)
        .collect())
}

/// The answer for a user who already has a profile: the same result for the same payload, E005
/// otherwise.
async fn answer_existing(
    db: &DatabaseConnection,
    user: &user::Model,
    hash: &str,
) -> Result<ProfileCreated, ApiError> {
    let existing = profile::Entity::find()
        .filter(profile::Column::UserId.eq(user.id))
        .one(db)
        .await
        .context("looking up a profile")?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the conflicting profile vanished")))?;
    if existing.submission_hash == hash {
        let photos = photos_of(db, existing.id).await?;
        Ok(existing_result(&existing, &user.line_user_id, photos))
    } else {
        Err(ApiError::Conflict("the profile already exists".into()))
    }
}

/// Which files a new profile may claim: for photos, this user's unclaimed temp files or the file
/// they already set as their avatar before registering; for the verification, only unclaimed temp
/// files (an avatar is shown to others, proof of employment never).
fn claimable_condition(owner: i64, purpose: &str) -> sea_orm::Condition {
    use sea_orm::Condition;
    let unclaimed = file::Column::ClaimedAt.is_null();
    let free = if purpose == file::PURPOSE_PHOTO {
        Condition::any().add(unclaimed).add(
            Condition::all()
                .add(file::Column::Purpose.eq(file::PURPOSE_AVATAR))
                .add(file::Column::ProfileId.is_null()),
        )
    } else {
        Condition::all().add(unclaimed)
    };
    Condition::all()
        .add(file::Column::OwnerId.eq(owner))
        .add(free)
}

/// For each of `ids`, whether a new profile may claim it for `purpose`.
async fn claimable(
    txn: &DatabaseTransaction,
    owner: i64,
    ids: &[String],
    purpose: &str,
) -> Result<Vec<bool>, ApiError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let found = file::Entity::find()
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .filter(claimable_condition(owner, purpose))
        .all(txn)
        .await
        .context("looking up temp files")?;
    Ok(ids
        .iter()
        .map(|id| found.iter().any(|f| &f.id == id))
        .collect())
}

/// E002 naming the fields whose files are not this user's to claim (None when all are).
fn unknown_files(photos_ok: &[bool], verify_ok: &[bool]) -> Option<ApiError> {
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (field, ok) in [
        ("photoNameList", photos_ok),
        ("verifyTempFileName", verify_ok),
    ] {
        if ok.contains(&false) {
            fields.insert(field.into(), vec![RuleCode::UnknownFile.as_str().into()]);
        }
    }
    (!fields.is_empty()).then(|| ApiError::Validation {
        cause: "the named files are not temp files of this user".into(),
        fields,
    })
}

async fn insert_profile(
    txn: &DatabaseTransaction,
    user: &user::Model,
    payload: &Value,
    hash: &str,
    photos: &[String],
    verify_file: Option<&str>,
) -> Result<profile::Model, ApiError> {
    let now = now_secs();
    let p = &payload;
    let model = profile::ActiveModel {
        user_id: Set(user.id),
        status: Set(ReviewStatus::Pending.as_str().to_string()),
        status_reason: Set(None),
        submission_hash: Set(hash.to_string()),
        payload: Set(payload.to_string()),
        nickname: Set(text(p, "nickname")),
        name: Set(text(p, "name")),
        gender: Set(text(p, "gender")),
        match_gender: Set(text(p, "matchGender")),
        birthday: Set(text(p, "birthday")),
        height: Set(int(p, "height")),
        occupation_type: Set(text(p, "occupationType")),
        occupation: Set(text(p, "occupation")),
        achievement: Set(text(p, "achievement")),
        income_range: Set(text(p, "incomeRange")),
        school: Set(text(p, "school")),
        education: Set(text(p, "education")),
        marriage_record: Set(text(p, "marriageRecord")),
        has_children: Set(text(p, "hasChildren")),
        smoke: Set(text(p, "smoke")),
        tattoo: Set(text(p, "tattoo")),
        drink: Set(text(p, "drink")),
        mbti: Set(text(p, "mbti")),
        about_me: Set(text(p, "aboutMe")),
        dating_question: Set(text(p, "datingQuestion")),
        daily_life: Set(text(p, "dailyLife")),
        surprise_point: Set(text(p, "surprisePoint")),
        city: Set(text(p, "city")),
        address: Set(text(p, "address")),
        latitude: Set(float(p, "latitude")),
        longitude: Set(float(p, "longitude")),
        recommend_distance_km: Set(int(p, "recommendDistanceKm")),
        feedback: Set(text(p, "feedback")),
        verify_method: Set(text(p, "verifyMethod")),
        company_email: Set(text(p, "companyEmail")),
        review_link: Set(text(p, "reviewLink")),
        verify_file_id: Set(verify_file.map(str::to_string)),
        verify_description: Set(text(p, "verifyDescription")),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    };
    let created = model.insert(txn).await.map_err(|e| {
        if is_unique_violation(&e) {
            ApiError::Conflict("the profile already exists".into())
        } else {
            ApiError::Internal(anyhow::Error::new(e).context("inserting a profile"))
        }
    })?;

    let photo_rows: Vec<_> = photos
        .iter()
        .enumerate()
        .map(|(i, id)| profile_photo::ActiveModel {
            profile_id: Set(created.id),
            position: Set(i as i32),
            file_id: Set(id.clone()),
        })
        .collect();
    if !photo_rows.is_empty() {
        profile_photo::Entity::insert_many(photo_rows)
            .exec(txn)
            .await
            .context("inserting profile photos")?;
    }

    let mut tag_rows = Vec::new();
    for kind in TAG_LISTS {
        let mut seen = std::collections::BTreeSet::new();
        for id in p.get(kind).and_then(Value::as_array).into_iter().flatten() {
            if let Some(id) = id.as_i64().and_then(|v| i32::try_from(v).ok())
                && seen.insert(id)
            {
                tag_rows.push(profile_tag::ActiveModel {
                    profile_id: Set(created.id),
                    kind: Set(kind.to_string()),
                    tag_id: Set(id),
                });
            }
        }
    }
    if !tag_rows.is_empty() {
        profile_tag::Entity::insert_many(tag_rows)
            .exec(txn)
            .await
            .context("inserting profile tags")?;
    }

    let conditions: Vec<_> = p
        .get("valueItem")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| profile_condition::ActiveModel {
            profile_id: Set(created.id),
            condition_type: Set(text(c, "type").unwrap_or_default()),
            range_from: Set(int(c, "from")),
            range_to: Set(int(c, "to")),
            value: Set(text(c, "value")),
            ..Default::default()
        })
        .collect();
    if !conditions.is_empty() {
        profile_condition::Entity::insert_many(conditions)
            .exec(txn)
            .await
            .context("inserting profile conditions")?;
    }

    for (ids, purpose) in [
        (photos.to_vec(), file::PURPOSE_PHOTO),
        (
            verify_file.map(|v| vec![v.to_string()]).unwrap_or_default(),
            file::PURPOSE_VERIFY,
        ),
    ] {
        if ids.is_empty() {
            continue;
        }
        let claimed = file::Entity::update_many()
            .col_expr(file::Column::ClaimedAt, Expr::value(now))
            .col_expr(file::Column::Purpose, Expr::value(purpose))
            .col_expr(file::Column::ProfileId, Expr::value(created.id))
            .filter(file::Column::Id.is_in(ids.clone()))
            .filter(claimable_condition(user.id, purpose))
            .exec(txn)
            .await
            .context("claiming temp files")?;
        if claimed.rows_affected != ids.len() as u64 {
            // Claimed concurrently by another request of the same user.
            return Err(ApiError::field(
                "the files are no longer available",
                if purpose == file::PURPOSE_PHOTO {
                    "photoNameList"
                } else {
                    "verifyTempFileName"
                },
                RuleCode::UnknownFile.as_str(),
            ));
        }
    }

    review_history::Entity::insert(review_history::ActiveModel {
        profile_id: Set(created.id),
        from_status: Set(None),
        to_status: Set(ReviewStatus::Pending.as_str().to_string()),
        reason: Set(None),
        actor: Set("user".into()),
        created_at: Set(now),
        ..Default::default()
    })
    .exec(txn)
    .await
    .context("recording the review history")?;
    Ok(created)
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
        #[oai(name = "X-Line-Id-Token")] id_token: Header<Option<String>>,
        body: Json<JsonBody<UserProfileCreateSchema>>,
    ) -> Result<CreateProfileResponse, ApiError> {
        let identity = state.verifier.verify(id_token.0.as_deref()).await?;
        let create = UserProfileCreate::from_json(body.0.into_value()).map_err(|fields| {
            ApiError::BadFields {
                cause: "the body has fields of the wrong type or unknown fields".into(),
                fields: crate::error::fields_map(&fields),
            }
        })?;
        if let Some(account) = &create.account
            && account != identity.user_id.as_str()
        {
            return Err(ApiError::Forbidden(
                "account is not the ID token's subject".into(),
            ));
        }
        let valid = create
            .parse(today())
            .map_err(|fields| ApiError::validation("the profile failed validation", &fields))?;
        if valid.account.as_str() != identity.user_id.as_str() {
            return Err(ApiError::Forbidden(
                "account is not the ID token's subject".into(),
            ));
        }
        let payload = serde_json::to_value(valid.to_payload()).context("serialising a profile")?;
        let hash = hex::encode(Sha256::digest(payload.to_string().as_bytes()));
        let photos: Vec<String> = valid
            .photos
            .iter()
            .map(|f| f.as_str().to_string())
            .collect();
        let verify_file = valid
            .verification
            .temp_file
            .as_ref()
            .map(|f| f.as_str().to_string());

        let Some(user) = find_user(&state.db, identity.user_id.as_str()).await? else {
            // Uploading takes a session, so someone who never logged in has no files to claim;
            // and a refused request must not leave a user row behind.
            let none = |n: usize| vec![false; n];
            return Err(
                unknown_files(&none(photos.len()), &none(verify_file.iter().count()))
                    .unwrap_or_else(|| ApiError::BadRequest("no photos".into())),
            );
        };
        // Holding the user's row, so a parallel duplicate waits for the first to commit and then
        // finds its profile (and does not mistake the files it claimed for someone else's). The
        // unique user_id is the last line of defence.
        let txn = crate::storage::begin_user_write(&state.db, user.id).await?;
        let exists = profile::Entity::find()
            .filter(profile::Column::UserId.eq(user.id))
            .one(&txn)
            .await
            .context("looking up a profile")?
            .is_some();
        if exists {
            txn.rollback().await.ok();
            return answer_existing(&state.db, &user, &hash)
                .await
                .map(|r| CreateProfileResponse::Ok(Json(r)));
        }
        let photos_ok = claimable(&txn, user.id, &photos, file::PURPOSE_PHOTO).await?;
        let verify_ids: Vec<String> = verify_file.iter().cloned().collect();
        let verify_ok = claimable(&txn, user.id, &verify_ids, file::PURPOSE_VERIFY).await?;
        if let Some(err) = unknown_files(&photos_ok, &verify_ok) {
            txn.rollback().await.ok();
            return Err(err);
        }
        match insert_profile(
            &txn,
            &user,
            &payload,
            &hash,
            &photos,
            verify_file.as_deref(),
        )
        .await
        {
            Ok(created) => {
                txn.commit().await.context("committing a profile")?;
                tracing::info!(user = user.id, profile = created.id, "profile submitted");
                Ok(CreateProfileResponse::Ok(Json(existing_result(
                    &created,
                    &user.line_user_id,
                    photos,
                ))))
            }
            Err(ApiError::Conflict(_)) => {
                txn.rollback().await.ok();
                answer_existing(&state.db, &user, &hash)
                    .await
                    .map(|r| CreateProfileResponse::Ok(Json(r)))
            }
            Err(other) => {
                txn.rollback().await.ok();
                Err(other)
            }
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
        req: &Request,
        /// `{avatar}`: a file name of one of the caller's files.
        body: Json<JsonBody<AvatarBody>>,
    ) -> Result<AvatarResponse, ApiError> {
        let auth = state
            .sessions
            .authenticate(req, TokenSource::Header)
            .await?;
        let body = body.0.read()?;
        if !crate::images::is_file_id(&body.avatar) {
            return Err(ApiError::NotFound);
        }
        let txn = crate::storage::begin_user_write(&state.db, auth.user.id).await?;
        let file = file::Entity::find_by_id(body.avatar.clone())
            .one(&txn)
            .await
            .context("looking up a file")?
            .filter(|f| f.owner_id == auth.user.id)
            .ok_or(ApiError::NotFound)?;
        if file.purpose == file::PURPOSE_VERIFY {
            return Err(ApiError::Forbidden(
                "the proof of employment cannot be the avatar: others see the avatar".into(),
            ));
        }
        let now = now_secs();
        if file.claimed_at.is_none() {
            file::Entity::update_many()
                .col_expr(file::Column::ClaimedAt, Expr::value(now))
                .col_expr(file::Column::Purpose, Expr::value(file::PURPOSE_AVATAR))
                .filter(file::Column::Id.eq(file.id.clone()))
                .exec(&txn)
                .await
                .context("claiming the avatar file")?;
        }
        user::Entity::update_many()
            .col_expr(user::Column::AvatarFileId, Expr::value(file.id.clone()))
            .filter(user::Column::Id.eq(auth.user.id))
            .exec(&txn)
            .await
            .context("setting the avatar")?;
        txn.commit().await.context("committing the avatar")?;
        Ok(AvatarResponse::Ok(Json(AvatarBody { avatar: file.id })))
    }
}
