//! What a reviewer reads to pick and decide a profile: the queue and a profile's review file.

use kizuna_core::{
    catalogue::{self, Employer},
    profile::UserProfileCreate,
    review::ReviewStatus,
    review_guard::is_resubmission,
};
use sea_orm::ConnectionTrait;
use serde_json::Value;

use super::ReviewError;
use crate::storage::{
    StorageError, colleagues,
    entity::review_claim,
    photo_hashes,
    review::{self, ReviewFile},
    revisions::Revision,
};

/// A live claim, as the reviewer asking sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimView {
    /// Whether the reviewer asking holds it.
    pub mine: bool,
    pub claimed_at: i64,
    pub expires_at: i64,
}

impl ClaimView {
    fn of(claim: &review_claim::Model, reviewer: i64) -> ClaimView {
        ClaimView {
            mine: claim.reviewer_user_id == reviewer,
            claimed_at: claim.claimed_at,
            expires_at: claim.expires_at,
        }
    }
}

/// One profile waiting in the queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueItem {
    pub profile_id: i64,
    pub nickname: Option<String>,
    pub submitted_at: i64,
    /// Seconds it has waited until the queue's `now`.
    pub waited_secs: i64,
    pub resubmission: bool,
    pub submission: i32,
    pub version: i64,
    pub claim: Option<ClaimView>,
    /// For a revision of an approved profile: its number.
    pub revision: Option<i32>,
}

/// The queue at `now`.
#[derive(Clone, Debug, PartialEq)]
pub struct Queue {
    pub items: Vec<QueueItem>,
    pub now: i64,
}

/// PENDING profiles and pending revisions, the longest waiting first, at most `limit`, as
/// `reviewer` sees them at `now`.
pub async fn queue(
    db: &impl ConnectionTrait,
    now: i64,
    reviewer: i64,
    limit: u64,
) -> Result<Queue, ReviewError> {
    let items = review::queue(db, limit, now)
        .await?
        .into_iter()
        .map(|e| QueueItem {
            profile_id: e.profile_id,
            nickname: e.nickname,
            submitted_at: e.submitted_at,
            waited_secs: (now - e.submitted_at).max(0),
            resubmission: is_resubmission(e.submission, e.revision),
            submission: e.submission,
            version: e.version,
            claim: e.claim.as_ref().map(|c| ClaimView::of(c, reviewer)),
            revision: e.revision,
        })
        .collect();
    Ok(Queue { items, now })
}

/// The verification a review shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Verification {
    pub method: Option<String>,
    pub company_email: Option<String>,
    /// The catalogue employer of the work e-mail's domain.
    pub employer: Option<&'static Employer>,
    /// The employer put on record, if any.
    pub employer_on_record: Option<&'static Employer>,
    /// When the work e-mail was confirmed by its code.
    pub email_confirmed_at: Option<i64>,
    pub file_id: Option<String>,
    pub review_link: Option<String>,
    pub description: Option<String>,
}

/// One status change of a profile.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryLine {
    pub at: i64,
    pub action: Option<String>,
    pub from_status: Option<String>,
    pub to_status: String,
    pub reasons: Vec<String>,
    pub note: Option<String>,
    /// The deciding reviewer's display name.
    pub reviewer: Option<String>,
}

/// A photo of the member under review that resembles a photo of another member
/// (kizuna-core's `photos::resembles`).
#[derive(Clone, Debug, PartialEq)]
pub struct Resemblance {
    /// The photo under review (one of `photos`, or the member's avatar).
    pub photo: String,
    /// The other member's photo: None when that member left (it is gone, its hash kept).
    pub other_photo: Option<String>,
    /// The other member: None for a member who left while suspended.
    pub other: Option<ResemblingMember>,
    /// How many of the 64 bits differ, the nearest way (whole or a region, as-is or mirrored:
    /// kizuna-core's `photos::distances`).
    pub distance: u32,
}

/// The member another photo is of.
#[derive(Clone, Debug, PartialEq)]
pub struct ResemblingMember {
    pub profile_id: i64,
    pub nickname: Option<String>,
    pub status: ReviewStatus,
}

/// Everything a reviewer reads to decide one profile.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviewFileView {
    pub profile_id: i64,
    pub status: ReviewStatus,
    pub version: i64,
    pub submitted_at: i64,
    pub submission: i32,
    pub resubmission: bool,
    pub changed_fields: Vec<String>,
    /// The profile as submitted (or the revision), as stored.
    pub profile: Value,
    /// The previous submission (or the approved version beside a revision).
    pub previous_profile: Option<Value>,
    pub photos: Vec<String>,
    pub verification: Verification,
    pub display_name: Option<String>,
    /// The member's language tag.
    pub locale: &'static str,
    pub friend: Option<bool>,
    pub registered_at: i64,
    pub history: Vec<HistoryLine>,
    pub claim: Option<ClaimView>,
    pub revision: Option<i32>,
    /// The shown photos (and the avatar) that resemble another member's, nearest first.
    pub resembling: Vec<Resemblance>,
}

/// Which of `owner_id`'s `photos` resemble a photo of another member or of a member who left
/// while suspended: at most [`RESEMBLANCES_SHOWN`], nearest first.
async fn resemblances(
    db: &impl ConnectionTrait,
    owner_id: i64,
    photos: &[String],
) -> Result<Vec<Resemblance>, StorageError> {
    let own = photo_hashes::of_files(db, owner_id, photos).await?;
    if own.is_empty() {
        return Ok(Vec::new());
    }
    let others = photo_hashes::others(db, owner_id).await?;
    let hashes: Vec<_> = others.iter().map(|o| o.hash).collect();
    let mut found = Vec::new();
    for (photo, hash) in &own {
        for (i, distance) in kizuna_core::photos::resembling(*hash, &hashes) {
            let other = &others[i];
            found.push(Resemblance {
                photo: photo.clone(),
                other_photo: other.owner.as_ref().map(|_| other.file_id.clone()),
                other: other.owner.as_ref().map(|o| ResemblingMember {
                    profile_id: o.profile_id,
                    nickname: o.nickname.clone(),
                    status: ReviewStatus::from(o.status),
                }),
                distance,
            });
        }
    }
    found.sort_by_key(|r| r.distance);
    found.truncate(RESEMBLANCES_SHOWN);
    Ok(found)
}

/// Resembling photos a review file lists at most.
pub const RESEMBLANCES_SHOWN: usize = 20;

fn json(text: &str, column: &str) -> Result<Value, StorageError> {
    serde_json::from_str(text).map_err(|_| StorageError::Unreadable(column.into()))
}

fn read(text: &str, column: &str) -> Result<UserProfileCreate, StorageError> {
    serde_json::from_str(text).map_err(|_| StorageError::Unreadable(column.into()))
}

/// What a profile's review shows: the profile as submitted (with the previous submission for a
/// resubmission), or an approved member's revision beside the approved version.
struct Shown {
    submitted_at: i64,
    changed_fields: Vec<String>,
    profile: Value,
    previous_profile: Option<Value>,
    photos: Vec<String>,
    method: Option<String>,
    company_email: Option<String>,
    file_id: Option<String>,
    review_link: Option<String>,
    description: Option<String>,
    email_confirmed_at: Option<i64>,
}

impl Shown {
    fn submission(file: &ReviewFile) -> Result<Shown, StorageError> {
        let p = &file.profile;
        let latest = file.submissions.last();
        let previous = match file.submissions.as_slice() {
            [.., previous, _] => Some(json(&previous.payload, "profile_submissions.payload")?),
            _ => None,
        };
        Ok(Shown {
            submitted_at: latest.map_or(p.created_at, |s| s.submitted_at),
            changed_fields: file
                .changed_fields()?
                .into_iter()
                .map(str::to_string)
                .collect(),
            profile: json(&p.payload, "profiles.payload")?,
            previous_profile: previous,
            photos: file.photos.clone(),
            method: p.verify_method.clone(),
            company_email: p.company_email.clone(),
            file_id: p.verify_file_id.clone(),
            review_link: p.review_link.clone(),
            description: p.verify_description.clone(),
            email_confirmed_at: latest.and_then(|s| s.email_confirmed_at),
        })
    }

    /// A pending revision beside the approved payload: what changed is kizuna-core's
    /// `revision_changes`.
    fn revision(approved: &str, revision: &Revision) -> Result<Shown, StorageError> {
        let proposed = read(&revision.payload, "profile_revisions.payload")?;
        let changed = kizuna_core::revision::revision_changes(
            &read(approved, "profiles.payload")?,
            &proposed,
        );
        Ok(Shown {
            submitted_at: revision.submitted_at,
            changed_fields: changed.into_iter().map(str::to_string).collect(),
            profile: json(&revision.payload, "profile_revisions.payload")?,
            previous_profile: Some(json(approved, "profiles.payload")?),
            photos: proposed.photo_name_list.clone().unwrap_or_default(),
            method: proposed.verify_method.map(|m| m.as_str().to_string()),
            company_email: proposed.company_email.clone(),
            file_id: proposed.verify_temp_file_name.clone(),
            review_link: proposed.review_link.clone(),
            description: proposed.verify_description.clone(),
            email_confirmed_at: revision.email_confirmed_at,
        })
    }
}

/// The review file of a profile as `reviewer` sees it at `now`. NotFound for an unknown profile.
pub async fn view(
    db: &impl ConnectionTrait,
    now: i64,
    reviewer: i64,
    profile_id: i64,
) -> Result<ReviewFileView, ReviewError> {
    let file = review::review_file(db, profile_id, now)
        .await?
        .ok_or(ReviewError::NotFound)?;
    let names = review::reviewer_names(db, &file.history).await?;
    let p = &file.profile;
    let (_, on_record) = colleagues::own(db, p.id).await?;
    let shown = match &file.revision {
        Some(revision) => Shown::revision(&p.payload, revision)?,
        None => Shown::submission(&file)?,
    };
    let mut compared = shown.photos.clone();
    compared.extend(file.owner.avatar_file_id.clone());
    let resembling = resemblances(db, file.owner.id, &compared).await?;
    let submission = file.submissions.last().map_or(1, |s| s.number);
    let revision = file.revision.as_ref().map(|r| r.number);
    Ok(ReviewFileView {
        profile_id: p.id,
        status: ReviewStatus::from(p.status),
        version: p.version,
        submitted_at: shown.submitted_at,
        submission,
        resubmission: is_resubmission(submission, revision),
        changed_fields: shown.changed_fields,
        profile: shown.profile,
        previous_profile: shown.previous_profile,
        photos: shown.photos,
        verification: Verification {
            employer: shown
                .company_email
                .as_deref()
                .and_then(catalogue::employer_for_email),
            employer_on_record: on_record.as_deref().and_then(catalogue::employer),
            method: shown.method,
            company_email: shown.company_email,
            email_confirmed_at: shown.email_confirmed_at,
            file_id: shown.file_id,
            review_link: shown.review_link,
            description: shown.description,
        },
        display_name: file.owner.display_name.clone(),
        locale: file.locale.tag(),
        friend: file.friend,
        registered_at: p.created_at,
        history: file
            .history
            .iter()
            .map(|h| HistoryLine {
                at: h.created_at,
                action: h.action.clone(),
                from_status: h.from_status.clone(),
                to_status: h.to_status.clone(),
                reasons: review::reasons_of(h),
                note: h.note.clone(),
                reviewer: h
                    .reviewer_user_id
                    .and_then(|id| names.get(&id).cloned().flatten()),
            })
            .collect(),
        claim: file.claim.as_ref().map(|c| ClaimView::of(c, reviewer)),
        revision,
        resembling,
    })
}
