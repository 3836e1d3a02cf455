//! Profiles: kizuna-core's `ValidProfile` written to its row (every field in its own typed column,
//! plus the normalised payload for exact echo), its photos, tags and conditions, and read back into
//! a `ValidProfile` for the review and matchmaking work.
//!
//! Registration is one transaction that holds the user's row (`begin_user_write`): the profile,
//! its photos, tags and conditions, the file claims, and the first review-history row (PENDING).
//! A retry of the same submission (same normalised payload, by SHA-256) answers the existing
//! result and creates nothing; a different one for a user who has a profile is a conflict.

use std::collections::HashMap;

use anyhow::Context;
use kizuna_core::{
    Drink, Education, Gender, HasChildren, IncomeRange, MarriageRecord, MatchGender, Mbti,
    NumericChoice, OccupationType, Smoke, Tattoo, VerifyMethod, catalogue,
    conditions::{Bounds, Condition},
    date::Date,
    email::EmailAddress,
    files::FileName,
    line::LineUserId,
    profile::{Coordinates, ProfileTags, ValidProfile, Verification},
    review::{ReviewAction, ReviewStatus},
    url::HttpsUrl,
};
use sea_orm::{
    ActiveModelTrait,
    ActiveValue::{NotSet, Set},
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder,
};

use super::{
    StorageError, begin_user_write,
    entity::{
        profile, profile_condition, profile_photo, profile_submission, profile_tag, review_history,
        user,
    },
    files::{self, Purpose},
    is_unique_violation,
};

/// A profile as stored: the validated profile read back from its columns, with its review state.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredProfile {
    pub id: i64,
    pub user_id: i64,
    pub status: ReviewStatus,
    pub status_reason: Option<String>,
    pub profile: ValidProfile,
    /// Unix seconds.
    pub created_at: i64,
    pub updated_at: i64,
}

/// What a registration answers: the profile's status, its photos in order, when it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Registration {
    pub status: ReviewStatus,
    pub photos: Vec<String>,
    pub created_at: i64,
}

/// Why a registration was refused.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// Files named by the submission that are not this user's to claim (expired, claimed,
    /// someone else's, never uploaded).
    #[error("the named files are not temp files of this user")]
    UnknownFiles { photos: bool, verification: bool },
    /// The user has a profile already, made from another submission.
    #[error("the profile already exists")]
    Exists,
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl From<anyhow::Error> for RegisterError {
    fn from(err: anyhow::Error) -> Self {
        RegisterError::Storage(StorageError::Db(err))
    }
}

/// A validated submission: the profile and its normalised payload (JSON text) with its SHA-256.
pub struct Submission<'a> {
    pub profile: &'a ValidProfile,
    pub payload: &'a str,
    pub hash: &'a str,
    /// When the member confirmed the work e-mail by its code (COMPANY_EMAIL), kept with the
    /// submission for the reviewer.
    pub email_confirmed_at: Option<i64>,
}

/// The tag lists of a profile by their wire name, which is also `profile_tags.kind`.
const PERSONALITY: &str = "personalityTagIds";
const EXERCISE: &str = "exerciseTagIds";
const HOBBY: &str = "hobbyTagIds";
const MARRIAGE_TYPE: &str = "marriageTypeTagIds";
const FERTILITY_PLAN: &str = "fertilityPlanTagIds";
const PET: &str = "petTagIds";

fn tag_lists(tags: &ProfileTags) -> [(&'static str, Vec<u32>); 6] {
    [
        (PERSONALITY, tags.personality.clone()),
        (EXERCISE, tags.exercise.clone()),
        (HOBBY, tags.hobby.clone()),
        (MARRIAGE_TYPE, tags.marriage_type.clone()),
        (FERTILITY_PLAN, vec![tags.fertility_plan]),
        (PET, tags.pet.clone()),
    ]
}

fn int(value: u32, what: &str) -> Result<i32, StorageError> {
    Ok(i32::try_from(value).with_context(|| format!("{what} does not fit a column"))?)
}

fn code(value: u8) -> Option<String> {
    Some(value.to_string())
}

/// The row of a new profile. Every column is named (no `..Default::default()`), so a column added
/// to the entity does not compile until it is mapped here.
fn new_row(
    user_id: i64,
    p: &ValidProfile,
    submission: &Submission<'_>,
    now: i64,
) -> Result<profile::ActiveModel, StorageError> {
    let v = &p.verification;
    Ok(profile::ActiveModel {
        id: NotSet,
        user_id: Set(user_id),
        status: Set(ReviewStatus::INITIAL.into()),
        status_reason: Set(None),
        submission_hash: Set(submission.hash.to_string()),
        payload: Set(submission.payload.to_string()),
        nickname: Set(Some(p.nickname.clone())),
        name: Set(Some(p.name.clone())),
        gender: Set(Some(p.gender.as_str().into())),
        match_gender: Set(Some(p.match_gender.as_str().into())),
        birthday: Set(Some(p.birthday.to_string())),
        height: Set(Some(int(p.height_cm, "height")?)),
        occupation_type: Set(Some(p.occupation_type.as_str().into())),
        occupation: Set(Some(p.occupation.clone())),
        achievement: Set(p.achievement.clone()),
        income_range: Set(Some(p.income_range.as_str().into())),
        school: Set(p.school.clone()),
        education: Set(Some(p.education.as_str().into())),
        marriage_record: Set(code(p.marriage_record.code())),
        has_children: Set(code(p.has_children.code())),
        smoke: Set(code(p.smoke.code())),
        tattoo: Set(Some(p.tattoo.as_str().into())),
        drink: Set(code(p.drink.code())),
        mbti: Set(p.mbti.map(|m| m.as_str().into())),
        about_me: Set(Some(p.about_me.clone())),
        dating_question: Set(p.dating_question.clone()),
        daily_life: Set(p.daily_life.clone()),
        surprise_point: Set(p.surprise_point.clone()),
        city: Set(Some(p.city.clone())),
        address: Set(p.address.clone()),
        latitude: Set(p.location.map(|c| c.latitude)),
        longitude: Set(p.location.map(|c| c.longitude)),
        recommend_distance_km: Set(Some(int(p.recommend_distance_km, "recommendDistanceKm")?)),
        feedback: Set(p.feedback.clone()),
        verify_method: Set(Some(v.method.as_str().into())),
        company_email: Set(v.company_email.as_ref().map(ToString::to_string)),
        review_link: Set(v.review_link.as_ref().map(ToString::to_string)),
        verify_file_id: Set(v.temp_file.as_ref().map(ToString::to_string)),
        verify_description: Set(v.description.clone()),
        created_at: Set(now),
        updated_at: Set(now),
        version: Set(1),
    })
}

/// One `profile_conditions` row's type, bounds and value.
fn condition_columns(condition: Condition) -> (Option<u32>, Option<u32>, Option<String>) {
    let name = |s: &str| Some(s.to_string());
    match condition {
        Condition::Height(b) | Condition::Age(b) | Condition::Income(b) => {
            (Some(b.from), Some(b.to), None)
        }
        Condition::Education { value } => (None, None, name(value.as_str())),
        Condition::MarriageRecord { value } => (None, None, code(value.code())),
        Condition::HasChildren { value } => (None, None, code(value.code())),
        Condition::Smoke { value } => (None, None, code(value.code())),
        Condition::Tattoo { value } => (None, None, name(value.as_str())),
        Condition::Drink { value } => (None, None, code(value.code())),
    }
}

/// Inserts a validated profile with its photos, tags, conditions and first review-history row.
async fn insert(
    db: &impl ConnectionTrait,
    user_id: i64,
    submission: &Submission<'_>,
    now: i64,
) -> Result<profile::Model, StorageError> {
    let created = new_row(user_id, submission.profile, submission, now)?
        .insert(db)
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                StorageError::Duplicate
            } else {
                StorageError::Db(anyhow::Error::new(e).context("inserting a profile"))
            }
        })?;
    insert_children(db, created.id, submission.profile).await?;
    record_submission(db, created.id, 1, submission, now).await?;
    review_history::Entity::insert(review_history::ActiveModel {
        id: NotSet,
        profile_id: Set(created.id),
        from_status: Set(None),
        to_status: Set(ReviewStatus::INITIAL.as_str().to_string()),
        reason: Set(None),
        actor: Set("user".into()),
        created_at: Set(now),
        action: Set(None),
        reviewer_user_id: Set(None),
        reasons: Set(None),
        note: Set(None),
    })
    .exec(db)
    .await
    .context("recording the review history")?;
    Ok(created)
}

/// Keeps a submission as it was sent (number 1 is the registration).
async fn record_submission(
    db: &impl ConnectionTrait,
    profile_id: i64,
    number: i32,
    submission: &Submission<'_>,
    now: i64,
) -> Result<(), StorageError> {
    profile_submission::Entity::insert(profile_submission::ActiveModel {
        id: NotSet,
        profile_id: Set(profile_id),
        number: Set(number),
        payload: Set(submission.payload.to_string()),
        email_confirmed_at: Set(submission.email_confirmed_at),
        submitted_at: Set(now),
    })
    .exec(db)
    .await
    .context("keeping the submission")?;
    Ok(())
}

/// Inserts a profile's photos, tags and conditions.
async fn insert_children(
    db: &impl ConnectionTrait,
    profile_id: i64,
    p: &ValidProfile,
) -> Result<(), StorageError> {
    let created_id = profile_id;
    let mut photos = Vec::with_capacity(p.photos.len());
    for (position, file) in p.photos.iter().enumerate() {
        photos.push(profile_photo::ActiveModel {
            profile_id: Set(created_id),
            position: Set(i32::try_from(position).context("photo position")?),
            file_id: Set(file.to_string()),
        });
    }
    if !photos.is_empty() {
        profile_photo::Entity::insert_many(photos)
            .exec(db)
            .await
            .context("inserting profile photos")?;
    }

    let mut tags = Vec::new();
    for (kind, ids) in tag_lists(&p.tags) {
        for id in ids {
            tags.push(profile_tag::ActiveModel {
                profile_id: Set(created_id),
                kind: Set(kind.to_string()),
                tag_id: Set(int(id, kind)?),
            });
        }
    }
    if !tags.is_empty() {
        profile_tag::Entity::insert_many(tags)
            .exec(db)
            .await
            .context("inserting profile tags")?;
    }

    let mut conditions = Vec::with_capacity(p.conditions.len());
    for &condition in &p.conditions {
        let (from, to, value) = condition_columns(condition);
        conditions.push(profile_condition::ActiveModel {
            id: NotSet,
            profile_id: Set(created_id),
            condition_type: Set(condition.type_name().to_string()),
            range_from: Set(from.map(|b| int(b, "a condition bound")).transpose()?),
            range_to: Set(to.map(|b| int(b, "a condition bound")).transpose()?),
            value: Set(value),
        });
    }
    if !conditions.is_empty() {
        profile_condition::Entity::insert_many(conditions)
            .exec(db)
            .await
            .context("inserting profile conditions")?;
    }
    Ok(())
}

/// The stored names of a profile's photos and of its proof-of-employment upload, if any.
fn file_names(p: &ValidProfile) -> (Vec<String>, Vec<String>) {
    let photos = p.photos.iter().map(ToString::to_string).collect();
    let verify = p
        .verification
        .temp_file
        .iter()
        .map(ToString::to_string)
        .collect();
    (photos, verify)
}

/// Registers `submission` as `user`'s profile, claiming its photos and verification file.
pub async fn register(
    db: &DatabaseConnection,
    user: &user::Model,
    submission: Submission<'_>,
    now: i64,
) -> Result<Registration, RegisterError> {
    let p = submission.profile;
    let (photos, verify) = file_names(p);
    // Holding the user's row, so a parallel duplicate waits for the first to commit and then
    // finds its profile (and does not mistake the files it claimed for someone else's). The
    // unique user_id is the last line of defence.
    let txn = begin_user_write(db, user.id).await?;
    if find_row(&txn, user.id).await?.is_some() {
        txn.rollback().await.ok();
        return answer_existing(db, user.id, submission.hash).await;
    }
    let photos_ok = files::claimable(&txn, user.id, &photos, Purpose::Photo).await?;
    let verify_ok = files::claimable(&txn, user.id, &verify, Purpose::Verification).await?;
    if photos_ok.contains(&false) || verify_ok.contains(&false) {
        txn.rollback().await.ok();
        return Err(RegisterError::UnknownFiles {
            photos: photos_ok.contains(&false),
            verification: verify_ok.contains(&false),
        });
    }
    let created = match insert(&txn, user.id, &submission, now).await {
        Ok(created) => created,
        Err(StorageError::Duplicate) => {
            txn.rollback().await.ok();
            return answer_existing(db, user.id, submission.hash).await;
        }
        Err(other) => {
            txn.rollback().await.ok();
            return Err(other.into());
        }
    };
    // Claimed concurrently by another request of the same user: nothing of this one stays.
    for (ids, purpose) in [(&photos, Purpose::Photo), (&verify, Purpose::Verification)] {
        if !files::claim_for_profile(&txn, user.id, ids, purpose, created.id, now).await? {
            txn.rollback().await.ok();
            return Err(RegisterError::UnknownFiles {
                photos: purpose == Purpose::Photo,
                verification: purpose == Purpose::Verification,
            });
        }
    }
    txn.commit().await.context("committing a profile")?;
    tracing::info!(user = user.id, profile = created.id, "profile submitted");
    Ok(Registration {
        status: created.status.into(),
        photos,
        created_at: created.created_at,
    })
}

/// Why a resubmission was refused.
#[derive(Debug, thiserror::Error)]
pub enum ResubmitError {
    /// The user has no profile to resubmit.
    #[error("there is no profile to resubmit")]
    NoProfile,
    /// The profile's status allows no editing (only REJECTED does).
    #[error("a {0} profile cannot be edited")]
    NotEditable(&'static str),
    /// Files named that are neither this user's temp uploads nor the profile's own.
    #[error("the named files are not temp files of this user")]
    UnknownFiles { photos: bool, verification: bool },
    /// The profile changed while this was being written.
    #[error("the profile changed meanwhile")]
    Changed,
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl From<anyhow::Error> for ResubmitError {
    fn from(err: anyhow::Error) -> Self {
        ResubmitError::Storage(StorageError::Db(err))
    }
}

/// A REJECTED member's edited profile: replaces every field, photo, tag and condition, claims the
/// new uploads (photos and the proof already the profile's stay), keeps the submission, records
/// RESUBMIT in the history and puts the profile back to PENDING, in one transaction holding the
/// user's row. The same submission again while it is PENDING (a retry after a lost answer)
/// answers the stored result and writes nothing.
pub async fn resubmit(
    db: &DatabaseConnection,
    user: &user::Model,
    submission: Submission<'_>,
    now: i64,
) -> Result<Registration, ResubmitError> {
    let p = submission.profile;
    let (photos, verify) = file_names(p);
    let txn = begin_user_write(db, user.id).await?;
    let Some(row) = find_row(&txn, user.id).await? else {
        txn.rollback().await.ok();
        return Err(ResubmitError::NoProfile);
    };
    let status = ReviewStatus::from(row.status);
    if status == ReviewStatus::Pending && row.submission_hash == submission.hash {
        let photos = photo_names(&txn, row.id).await?;
        txn.rollback().await.ok();
        return Ok(Registration {
            status,
            photos,
            created_at: row.created_at,
        });
    }
    let Ok(next) = status.apply(ReviewAction::Resubmit) else {
        txn.rollback().await.ok();
        return Err(ResubmitError::NotEditable(status.as_str()));
    };
    let photo_use =
        files::usable_for_resubmission(&txn, user.id, &photos, Purpose::Photo, row.id).await?;
    let verify_use =
        files::usable_for_resubmission(&txn, user.id, &verify, Purpose::Verification, row.id)
            .await?;
    let refused = |uses: &[(bool, bool)]| uses.iter().any(|(usable, _)| !usable);
    if refused(&photo_use) || refused(&verify_use) {
        txn.rollback().await.ok();
        return Err(ResubmitError::UnknownFiles {
            photos: refused(&photo_use),
            verification: refused(&verify_use),
        });
    }

    let mut fields = new_row(user.id, p, &submission, now)?;
    fields.id = NotSet;
    fields.created_at = NotSet;
    fields.status = Set(next.into());
    fields.version = Set(row.version + 1);
    let updated = profile::Entity::update_many()
        .set(fields)
        .filter(profile::Column::Id.eq(row.id))
        .filter(profile::Column::Version.eq(row.version))
        .exec(&txn)
        .await
        .context("updating a resubmitted profile")?;
    if updated.rows_affected != 1 {
        txn.rollback().await.ok();
        return Err(ResubmitError::Changed);
    }
    profile_photo::Entity::delete_many()
        .filter(profile_photo::Column::ProfileId.eq(row.id))
        .exec(&txn)
        .await
        .context("replacing profile photos")?;
    profile_tag::Entity::delete_many()
        .filter(profile_tag::Column::ProfileId.eq(row.id))
        .exec(&txn)
        .await
        .context("replacing profile tags")?;
    profile_condition::Entity::delete_many()
        .filter(profile_condition::Column::ProfileId.eq(row.id))
        .exec(&txn)
        .await
        .context("replacing profile conditions")?;
    insert_children(&txn, row.id, p).await?;
    for (ids, uses, purpose) in [
        (&photos, &photo_use, Purpose::Photo),
        (&verify, &verify_use, Purpose::Verification),
    ] {
        let new: Vec<String> = ids
            .iter()
            .zip(uses.iter())
            .filter(|(_, (_, kept))| !kept)
            .map(|(id, _)| id.clone())
            .collect();
        if !files::claim_for_profile(&txn, user.id, &new, purpose, row.id, now).await? {
            txn.rollback().await.ok();
            return Err(ResubmitError::UnknownFiles {
                photos: purpose == Purpose::Photo,
                verification: purpose == Purpose::Verification,
            });
        }
    }
    let number = profile_submission::Entity::find()
        .filter(profile_submission::Column::ProfileId.eq(row.id))
        .count(&txn)
        .await
        .context("counting submissions")?;
    let number = i32::try_from(number + 1).context("a submission number")?;
    record_submission(&txn, row.id, number, &submission, now).await?;
    review_history::Entity::insert(review_history::ActiveModel {
        id: NotSet,
        profile_id: Set(row.id),
        from_status: Set(Some(status.as_str().to_string())),
        to_status: Set(next.as_str().to_string()),
        reason: Set(None),
        actor: Set("user".into()),
        created_at: Set(now),
        action: Set(Some(ReviewAction::Resubmit.as_str().to_string())),
        reviewer_user_id: Set(None),
        reasons: Set(None),
        note: Set(None),
    })
    .exec(&txn)
    .await
    .context("recording the resubmission")?;
    txn.commit().await.context("committing a resubmission")?;
    tracing::info!(user = user.id, profile = row.id, "profile resubmitted");
    Ok(Registration {
        status: next,
        photos,
        created_at: row.created_at,
    })
}

/// Rewrites an approved profile's fields, photos, tags and conditions from `submission`, in the caller's transaction holding the member's row; the status stays. `bump` makes
/// the version one more (a reviewer's swap-in: a decision taken on the version before answers a
/// conflict); an at-once change keeps it (a reviewer about to suspend is not held up by a radius).
/// Answers false, writing nothing, when the version is no longer `row.version`.
pub async fn rewrite(
    txn: &impl ConnectionTrait,
    row: &profile::Model,
    submission: &Submission<'_>,
    now: i64,
    bump: bool,
) -> Result<bool, StorageError> {
    let mut fields = new_row(row.user_id, submission.profile, submission, now)?;
    fields.id = NotSet;
    fields.created_at = NotSet;
    fields.status = NotSet;
    fields.status_reason = NotSet;
    fields.version = if bump { Set(row.version + 1) } else { NotSet };
    let updated = profile::Entity::update_many()
        .set(fields)
        .filter(profile::Column::Id.eq(row.id))
        .filter(profile::Column::Version.eq(row.version))
        .exec(txn)
        .await
        .context("rewriting an approved profile")?;
    if updated.rows_affected != 1 {
        return Ok(false);
    }
    profile_photo::Entity::delete_many()
        .filter(profile_photo::Column::ProfileId.eq(row.id))
        .exec(txn)
        .await
        .context("replacing profile photos")?;
    profile_tag::Entity::delete_many()
        .filter(profile_tag::Column::ProfileId.eq(row.id))
        .exec(txn)
        .await
        .context("replacing profile tags")?;
    profile_condition::Entity::delete_many()
        .filter(profile_condition::Column::ProfileId.eq(row.id))
        .exec(txn)
        .await
        .context("replacing profile conditions")?;
    insert_children(txn, row.id, submission.profile).await?;
    Ok(true)
}

/// The answer for a user who has a profile: its result for the same submission, `Exists` for
/// another one.
async fn answer_existing(
    db: &DatabaseConnection,
    user_id: i64,
    hash: &str,
) -> Result<Registration, RegisterError> {
    let existing = find_row(db, user_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the conflicting profile vanished"))?;
    if existing.submission_hash != hash {
        return Err(RegisterError::Exists);
    }
    Ok(Registration {
        photos: photo_names(db, existing.id).await?,
        status: existing.status.into(),
        created_at: existing.created_at,
    })
}

/// The profile row of a user, if they registered.
pub async fn find_row(
    db: &impl ConnectionTrait,
    user_id: i64,
) -> Result<Option<profile::Model>, StorageError> {
    Ok(profile::Entity::find()
        .filter(profile::Column::UserId.eq(user_id))
        .one(db)
        .await
        .context("looking up a profile")?)
}

/// A profile's photo file names, in order.
pub async fn photo_names(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Vec<String>, StorageError> {
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

/// Unix seconds of a profile's last review-status change.
pub async fn last_status_change(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<i64>, StorageError> {
    Ok(review_history::Entity::find()
        .filter(review_history::Column::ProfileId.eq(profile_id))
        .order_by_desc(review_history::Column::Id)
        .one(db)
        .await
        .context("reading the review history")?
        .map(|h| h.created_at))
}

/// A user's profile read back from its columns into kizuna-core's types (tags in ascending id
/// order within each list; photos and conditions in their submitted order).
pub async fn load(
    db: &impl ConnectionTrait,
    user: &user::Model,
) -> Result<Option<StoredProfile>, StorageError> {
    let Some(row) = find_row(db, user.id).await? else {
        return Ok(None);
    };
    let photos = photo_names(db, row.id).await?;
    let tags = profile_tag::Entity::find()
        .filter(profile_tag::Column::ProfileId.eq(row.id))
        .order_by_asc(profile_tag::Column::Kind)
        .order_by_asc(profile_tag::Column::TagId)
        .all(db)
        .await
        .context("reading profile tags")?;
    let conditions = profile_condition::Entity::find()
        .filter(profile_condition::Column::ProfileId.eq(row.id))
        .order_by_asc(profile_condition::Column::Id)
        .all(db)
        .await
        .context("reading profile conditions")?;
    let profile = read_profile(&user.line_user_id, &row, &photos, &tags, &conditions)?;
    Ok(Some(StoredProfile {
        id: row.id,
        user_id: row.user_id,
        status: row.status.into(),
        status_reason: row.status_reason,
        profile,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }))
}

/// The stored profiles of `profile_ids` that exist, by id, in a constant number of statements
/// whatever their number (a list of matches or introductions).
pub async fn load_many(
    db: &impl ConnectionTrait,
    profile_ids: &[i64],
) -> Result<HashMap<i64, StoredProfile>, StorageError> {
    if profile_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = profile::Entity::find()
        .filter(profile::Column::Id.is_in(profile_ids.iter().copied()))
        .all(db)
        .await
        .context("reading profiles")?;
    let owners: HashMap<i64, String> = user::Entity::find()
        .filter(user::Column::Id.is_in(rows.iter().map(|r| r.user_id)))
        .all(db)
        .await
        .context("reading profiles' owners")?
        .into_iter()
        .map(|u| (u.id, u.line_user_id))
        .collect();
    let mut photos: HashMap<i64, Vec<String>> = HashMap::new();
    for photo in profile_photo::Entity::find()
        .filter(profile_photo::Column::ProfileId.is_in(profile_ids.iter().copied()))
        .order_by_asc(profile_photo::Column::Position)
        .all(db)
        .await
        .context("reading profile photos")?
    {
        photos
            .entry(photo.profile_id)
            .or_default()
            .push(photo.file_id);
    }
    let mut tags: HashMap<i64, Vec<profile_tag::Model>> = HashMap::new();
    for tag in profile_tag::Entity::find()
        .filter(profile_tag::Column::ProfileId.is_in(profile_ids.iter().copied()))
        .order_by_asc(profile_tag::Column::Kind)
        .order_by_asc(profile_tag::Column::TagId)
        .all(db)
        .await
        .context("reading profile tags")?
    {
        tags.entry(tag.profile_id).or_default().push(tag);
    }
    let mut conditions: HashMap<i64, Vec<profile_condition::Model>> = HashMap::new();
    for condition in profile_condition::Entity::find()
        .filter(profile_condition::Column::ProfileId.is_in(profile_ids.iter().copied()))
        .order_by_asc(profile_condition::Column::Id)
        .all(db)
        .await
        .context("reading profile conditions")?
    {
        conditions
            .entry(condition.profile_id)
            .or_default()
            .push(condition);
    }
    let mut out = HashMap::with_capacity(rows.len());
    for row in rows {
        let line_user_id = owners
            .get(&row.user_id)
            .ok_or_else(|| unreadable("profiles.user_id"))?;
        let profile = read_profile(
            line_user_id,
            &row,
            photos.get(&row.id).map_or(&[][..], Vec::as_slice),
            tags.get(&row.id).map_or(&[][..], Vec::as_slice),
            conditions.get(&row.id).map_or(&[][..], Vec::as_slice),
        )?;
        out.insert(
            row.id,
            StoredProfile {
                id: row.id,
                user_id: row.user_id,
                status: row.status.into(),
                status_reason: row.status_reason,
                profile,
                created_at: row.created_at,
                updated_at: row.updated_at,
            },
        );
    }
    Ok(out)
}

fn unreadable(column: &str) -> StorageError {
    StorageError::Unreadable(column.to_string())
}

/// A required column, parsed.
fn need<T>(
    column: &str,
    text: &Option<String>,
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<T, StorageError> {
    text.as_deref()
        .and_then(parse)
        .ok_or_else(|| unreadable(column))
}

/// An optional column, parsed when present.
fn optional<T>(
    column: &str,
    text: &Option<String>,
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<Option<T>, StorageError> {
    text.as_deref()
        .map(|t| parse(t).ok_or_else(|| unreadable(column)))
        .transpose()
}

fn numeric<C: NumericChoice>(text: &str) -> Option<C> {
    text.parse::<u8>().ok().and_then(C::from_code)
}

fn unsigned(column: &str, value: Option<i32>) -> Result<u32, StorageError> {
    value
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| unreadable(column))
}

fn read_profile(
    line_user_id: &str,
    row: &profile::Model,
    photos: &[String],
    tags: &[profile_tag::Model],
    conditions: &[profile_condition::Model],
) -> Result<ValidProfile, StorageError> {
    let text =
        |column: &str, value: &Option<String>| value.clone().ok_or_else(|| unreadable(column));
    let location = match (row.latitude, row.longitude) {
        (Some(latitude), Some(longitude)) => Some(Coordinates {
            latitude,
            longitude,
        }),
        (None, None) => None,
        _ => return Err(unreadable("latitude/longitude")),
    };
    let company_email = optional("company_email", &row.company_email, EmailAddress::parse)?;
    let verification = Verification {
        method: need("verify_method", &row.verify_method, VerifyMethod::parse)?,
        employer_id: company_email
            .as_ref()
            .and_then(|email| catalogue::employer_for_email(email.as_str()))
            .map(|employer| employer.id.to_string()),
        company_email,
        review_link: optional("review_link", &row.review_link, |t| HttpsUrl::parse(t).ok())?,
        temp_file: optional("verify_file_id", &row.verify_file_id, FileName::parse)?,
        description: row.verify_description.clone(),
    };
    let list = |kind: &str| -> Result<Vec<u32>, StorageError> {
        tags.iter()
            .filter(|t| t.kind == kind)
            .map(|t| u32::try_from(t.tag_id).map_err(|_| unreadable("profile_tags.tag_id")))
            .collect()
    };
    let fertility_plan = match list(FERTILITY_PLAN)?.as_slice() {
        [one] => *one,
        _ => return Err(unreadable("profile_tags (fertilityPlanTagIds)")),
    };
    Ok(ValidProfile {
        account: LineUserId::parse(line_user_id).ok_or_else(|| unreadable("users.line_user_id"))?,
        nickname: text("nickname", &row.nickname)?,
        name: text("name", &row.name)?,
        gender: need("gender", &row.gender, Gender::parse)?,
        match_gender: need("match_gender", &row.match_gender, MatchGender::parse)?,
        occupation_type: need(
            "occupation_type",
            &row.occupation_type,
            OccupationType::parse,
        )?,
        occupation: text("occupation", &row.occupation)?,
        achievement: row.achievement.clone(),
        height_cm: unsigned("height", row.height)?,
        income_range: need("income_range", &row.income_range, IncomeRange::parse)?,
        birthday: need("birthday", &row.birthday, Date::parse)?,
        school: row.school.clone(),
        education: need("education", &row.education, Education::parse)?,
        marriage_record: need(
            "marriage_record",
            &row.marriage_record,
            numeric::<MarriageRecord>,
        )?,
        has_children: need("has_children", &row.has_children, numeric::<HasChildren>)?,
        smoke: need("smoke", &row.smoke, numeric::<Smoke>)?,
        tattoo: need("tattoo", &row.tattoo, Tattoo::parse)?,
        drink: need("drink", &row.drink, numeric::<Drink>)?,
        about_me: text("about_me", &row.about_me)?,
        tags: ProfileTags {
            personality: list(PERSONALITY)?,
            exercise: list(EXERCISE)?,
            hobby: list(HOBBY)?,
            marriage_type: list(MARRIAGE_TYPE)?,
            fertility_plan,
            pet: list(PET)?,
        },
        dating_question: row.dating_question.clone(),
        daily_life: row.daily_life.clone(),
        surprise_point: row.surprise_point.clone(),
        city: text("city", &row.city)?,
        address: row.address.clone(),
        location,
        recommend_distance_km: unsigned("recommend_distance_km", row.recommend_distance_km)?,
        feedback: row.feedback.clone(),
        mbti: optional("mbti", &row.mbti, Mbti::parse)?,
        verification,
        photos: photos
            .iter()
            .map(|name| FileName::parse(name).ok_or_else(|| unreadable("profile_photos.file_id")))
            .collect::<Result<_, _>>()?,
        conditions: conditions
            .iter()
            .map(read_condition)
            .collect::<Result<_, _>>()?,
    })
}

fn read_condition(row: &profile_condition::Model) -> Result<Condition, StorageError> {
    let bound = |value: Option<i32>| {
        u32::try_from(value.unwrap_or(0)).map_err(|_| unreadable("profile_conditions.range"))
    };
    let bounds = || -> Result<Bounds, StorageError> {
        Ok(Bounds {
            from: bound(row.range_from)?,
            to: bound(row.range_to)?,
        })
    };
    let column = "profile_conditions.value";
    Ok(match row.condition_type.as_str() {
        "HEIGHT" => Condition::Height(bounds()?),
        "AGE" => Condition::Age(bounds()?),
        "INCOME" => Condition::Income(bounds()?),
        "EDUCATION" => Condition::Education {
            value: need(column, &row.value, Education::parse)?,
        },
        "MARRIAGE_RECORD" => Condition::MarriageRecord {
            value: need(column, &row.value, numeric)?,
        },
        "HAS_CHILDREN" => Condition::HasChildren {
            value: need(column, &row.value, numeric)?,
        },
        "SMOKE" => Condition::Smoke {
            value: need(column, &row.value, numeric)?,
        },
        "TATTOO" => Condition::Tattoo {
            value: need(column, &row.value, Tattoo::parse)?,
        },
        "DRINK" => Condition::Drink {
            value: need(column, &row.value, numeric)?,
        },
        _ => return Err(unreadable("profile_conditions.condition_type")),
    })
}
