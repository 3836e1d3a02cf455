//! The review console's storage: the queue, everything a reviewer reads to decide, claims, and
//! decisions.
//!
//! Two reviewers never both decide one profile: a claim is one row per profile (its key), taken
//! by a conditional update (mine, or expired) or an insert that a concurrent insert makes fail;
//! and a decision updates the profile only `WHERE version = {the version the reviewer saw}`, so
//! of two racing decisions exactly one changes a row and the other is answered as a conflict.
//! The decision and its `review_history` row are written in the use-case's transaction, which
//! adds the member's push (`usecases::review`).

use anyhow::Context;
use kizuna_core::{
    catalogue,
    profile::UserProfileCreate,
    review::{Decision, ReviewStatus, changed_fields},
};
use sea_orm::{
    ActiveValue::{NotSet, Set},
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
    sea_query::Expr,
};

use super::{
    StorageError,
    entity::{profile, profile_submission, report, review_claim, review_history, user},
    is_unique_violation, line_events, locale,
};

/// One profile waiting in the queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueEntry {
    pub profile_id: i64,
    pub nickname: Option<String>,
    /// When it entered PENDING: its latest (re)submission.
    pub submitted_at: i64,
    /// 1 for the registration, more for a resubmission.
    pub submission: i32,
    pub version: i64,
    /// A live claim on it, if any.
    pub claim: Option<review_claim::Model>,
    /// For a revision of an approved profile (issue 21 §1): its number.
    pub revision: Option<i32>,
}

/// PENDING profiles and pending revisions of approved ones, the longest waiting first, at most
/// `limit`.
pub async fn queue(
    db: &impl ConnectionTrait,
    limit: u64,
    now: i64,
) -> Result<Vec<QueueEntry>, StorageError> {
    // A pending profile's last change is its (re)submission: `updated_at` is when it came in.
    let revisions = super::revisions::queue(db, limit).await?;
    let mut rows = profile::Entity::find()
        .filter(profile::Column::Status.eq(profile::Status::Pending))
        .order_by_asc(profile::Column::UpdatedAt)
        .order_by_asc(profile::Column::Id)
        .limit(limit)
        .all(db)
        .await
        .context("reading the review queue")?;
    rows.extend(
        profile::Entity::find()
            .filter(profile::Column::Id.is_in(revisions.iter().map(|(id, _, _)| *id)))
            .filter(profile::Column::Status.eq(profile::Status::Approved))
            .all(db)
            .await
            .context("reading the revised profiles")?,
    );
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let numbers: Vec<(i64, Option<i32>)> = profile_submission::Entity::find()
        .select_only()
        .column(profile_submission::Column::ProfileId)
        .expr(sea_orm::sea_query::Func::max(Expr::col(
            profile_submission::Column::Number,
        )))
        .filter(profile_submission::Column::ProfileId.is_in(ids.clone()))
        .group_by(profile_submission::Column::ProfileId)
        .into_tuple()
        .all(db)
        .await
        .context("counting submissions")?;
    let claims = review_claim::Entity::find()
        .filter(review_claim::Column::ProfileId.is_in(ids))
        .filter(review_claim::Column::ExpiresAt.gt(now))
        .all(db)
        .await
        .context("reading review claims")?;
    let mut entries: Vec<QueueEntry> = rows
        .into_iter()
        .map(|row| {
            let revision = revisions
                .iter()
                .find(|(id, _, _)| *id == row.id && row.status == profile::Status::Approved);
            QueueEntry {
                profile_id: row.id,
                nickname: row.nickname,
                submitted_at: revision.map_or(row.updated_at, |(_, _, at)| *at),
                submission: numbers
                    .iter()
                    .find(|(id, _)| *id == row.id)
                    .and_then(|(_, n)| *n)
                    .unwrap_or(1),
                version: row.version,
                claim: claims.iter().find(|c| c.profile_id == row.id).cloned(),
                revision: revision.map(|(_, number, _)| *number),
            }
        })
        .collect();
    entries.sort_by_key(|e| (e.submitted_at, e.profile_id));
    entries.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(entries)
}

/// Everything a reviewer reads about one profile.
#[derive(Clone, Debug)]
pub struct ReviewFile {
    pub profile: profile::Model,
    pub owner: user::Model,
    pub photos: Vec<String>,
    /// Every submission, oldest first (the last is what is shown).
    pub submissions: Vec<profile_submission::Model>,
    /// Every status change, oldest first.
    pub history: Vec<review_history::Model>,
    /// A live claim on it, if any.
    pub claim: Option<review_claim::Model>,
    /// What LINE last said about the member's friendship with the official account.
    pub friend: Option<bool>,
    /// The member's language (of their pushes).
    pub locale: crate::locale::Locale,
    /// The pending revision of an approved profile (issue 21 §1), if one waits.
    pub revision: Option<super::revisions::Revision>,
}

impl ReviewFile {
    /// The wire fields that differ between the last two submissions (empty for a first one).
    pub fn changed_fields(&self) -> Result<Vec<&'static str>, StorageError> {
        let [.., previous, latest] = self.submissions.as_slice() else {
            return Ok(Vec::new());
        };
        let read = |s: &profile_submission::Model| -> Result<UserProfileCreate, StorageError> {
            serde_json::from_str(&s.payload)
                .map_err(|_| StorageError::Unreadable("profile_submissions.payload".into()))
        };
        Ok(changed_fields(&read(previous)?, &read(latest)?))
    }

    /// The employer the work e-mail's domain belongs to.
    pub fn employer(&self) -> Option<&'static catalogue::Employer> {
        self.profile
            .company_email
            .as_deref()
            .and_then(catalogue::employer_for_email)
    }
}

/// The review file of a profile, None if there is no such profile.
pub async fn review_file(
    db: &impl ConnectionTrait,
    profile_id: i64,
    now: i64,
) -> Result<Option<ReviewFile>, StorageError> {
    let Some(profile) = profile::Entity::find_by_id(profile_id)
        .one(db)
        .await
        .context("reading a profile")?
    else {
        return Ok(None);
    };
    let owner = user::Entity::find_by_id(profile.user_id)
        .one(db)
        .await
        .context("reading a profile's owner")?
        .ok_or_else(|| StorageError::Unreadable("profiles.user_id".into()))?;
    let photos = super::profiles::photo_names(db, profile.id).await?;
    let submissions = profile_submission::Entity::find()
        .filter(profile_submission::Column::ProfileId.eq(profile.id))
        .order_by_asc(profile_submission::Column::Number)
        .all(db)
        .await
        .context("reading submissions")?;
    let history = history(db, profile.id).await?;
    let claim = live_claim(db, profile.id, now).await?;
    let friend = line_events::friendship(db, &owner.line_user_id).await?;
    let locale = locale::locale_of_user(db, owner.id).await?;
    let revision = match profile.status {
        profile::Status::Approved => super::revisions::find(db, profile.id)
            .await?
            .filter(|r| r.status == kizuna_core::revision::RevisionStatus::Pending),
        _ => None,
    };
    Ok(Some(ReviewFile {
        revision,
        locale,
        profile,
        owner,
        photos,
        submissions,
        history,
        claim,
        friend,
    }))
}

/// A profile's status changes, oldest first.
pub async fn history(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Vec<review_history::Model>, StorageError> {
    Ok(review_history::Entity::find()
        .filter(review_history::Column::ProfileId.eq(profile_id))
        .order_by_asc(review_history::Column::Id)
        .all(db)
        .await
        .context("reading the review history")?)
}

/// The reviewer's last decision on a profile, if its latest change was one (a resubmission
/// since then answers None): what the member is shown.
pub async fn last_decision(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<review_history::Model>, StorageError> {
    let last = review_history::Entity::find()
        .filter(review_history::Column::ProfileId.eq(profile_id))
        .order_by_desc(review_history::Column::Id)
        .one(db)
        .await
        .context("reading the review history")?;
    Ok(last.filter(|h| h.reviewer_user_id.is_some()))
}

/// The display names of the reviewers who decided in `history`, by user id.
pub async fn reviewer_names(
    db: &impl ConnectionTrait,
    history: &[review_history::Model],
) -> Result<std::collections::BTreeMap<i64, Option<String>>, StorageError> {
    let ids: Vec<i64> = history.iter().filter_map(|h| h.reviewer_user_id).collect();
    if ids.is_empty() {
        return Ok(Default::default());
    }
    Ok(user::Entity::find()
        .filter(user::Column::Id.is_in(ids))
        .all(db)
        .await
        .context("reading reviewers")?
        .into_iter()
        .map(|u| (u.id, u.display_name))
        .collect())
}

/// The reason codes of a history row.
pub fn reasons_of(row: &review_history::Model) -> Vec<String> {
    row.reasons
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

pub(crate) async fn live_claim(
    db: &impl ConnectionTrait,
    profile_id: i64,
    now: i64,
) -> Result<Option<review_claim::Model>, StorageError> {
    Ok(review_claim::Entity::find_by_id(profile_id)
        .filter(review_claim::Column::ExpiresAt.gt(now))
        .one(db)
        .await
        .context("reading a review claim")?)
}

/// Why a claim, release or decision was refused.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("no such profile")]
    NotFound,
    /// A reviewer never holds or decides their own profile.
    #[error("reviewers do not review their own profile")]
    OwnProfile,
    /// Another reviewer holds the profile until `until`.
    #[error("another reviewer holds this profile")]
    HeldByAnother { until: i64 },
    /// The profile changed since the reviewer opened it (resubmitted or decided).
    #[error("the profile changed since it was opened")]
    Changed,
    /// The decision is not a transition from the profile's status (already decided).
    #[error("{0}")]
    NotAllowed(String),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl From<anyhow::Error> for ReviewError {
    fn from(err: anyhow::Error) -> Self {
        ReviewError::Storage(StorageError::Db(err))
    }
}

/// Holds a profile for `reviewer` until `now + hold_secs`: a new claim, a renewal of their own,
/// or taking over an expired one. Answers the claim and the profile's version.
pub async fn claim(
    db: &DatabaseConnection,
    profile_id: i64,
    reviewer: i64,
    now: i64,
    hold_secs: i64,
) -> Result<(review_claim::Model, i64), ReviewError> {
    let Some(profile) = profile::Entity::find_by_id(profile_id)
        .one(db)
        .await
        .context("reading a profile")?
    else {
        return Err(ReviewError::NotFound);
    };
    if profile.user_id == reviewer {
        return Err(ReviewError::OwnProfile);
    }
    let claim = review_claim::Model {
        profile_id,
        reviewer_user_id: reviewer,
        claimed_at: now,
        expires_at: now + hold_secs,
    };
    let renewed = review_claim::Entity::update_many()
        .col_expr(review_claim::Column::ReviewerUserId, Expr::value(reviewer))
        .col_expr(review_claim::Column::ClaimedAt, Expr::value(now))
        .col_expr(
            review_claim::Column::ExpiresAt,
            Expr::value(now + hold_secs),
        )
        .filter(review_claim::Column::ProfileId.eq(profile_id))
        .filter(
            sea_orm::Condition::any()
                .add(review_claim::Column::ReviewerUserId.eq(reviewer))
                .add(review_claim::Column::ExpiresAt.lte(now)),
        )
        .exec(db)
        .await
        .context("renewing a review claim")?;
    if renewed.rows_affected == 1 {
        return Ok((claim, profile.version));
    }
    let inserted = review_claim::Entity::insert(review_claim::ActiveModel {
        profile_id: Set(profile_id),
        reviewer_user_id: Set(reviewer),
        claimed_at: Set(now),
        expires_at: Set(now + hold_secs),
    })
    .exec(db)
    .await;
    match inserted {
        Ok(_) => Ok((claim, profile.version)),
        Err(err) if is_unique_violation(&err) => {
            let until = live_claim(db, profile_id, now)
                .await?
                .map_or(now, |c| c.expires_at);
            Err(ReviewError::HeldByAnother { until })
        }
        Err(err) => Err(anyhow::Error::new(err).context("claiming a profile").into()),
    }
}

/// Lets go of a profile `reviewer` holds. Nothing to let go of is fine; another reviewer's live
/// claim is theirs to keep.
pub async fn release(
    db: &DatabaseConnection,
    profile_id: i64,
    reviewer: i64,
    now: i64,
) -> Result<(), ReviewError> {
    if profile::Entity::find_by_id(profile_id)
        .one(db)
        .await
        .context("reading a profile")?
        .is_none()
    {
        return Err(ReviewError::NotFound);
    }
    if let Some(held) = live_claim(db, profile_id, now).await?
        && held.reviewer_user_id != reviewer
    {
        return Err(ReviewError::HeldByAnother {
            until: held.expires_at,
        });
    }
    review_claim::Entity::delete_many()
        .filter(review_claim::Column::ProfileId.eq(profile_id))
        .filter(review_claim::Column::ReviewerUserId.eq(reviewer))
        .exec(db)
        .await
        .context("releasing a review claim")?;
    Ok(())
}

/// What a decision came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Decided {
    pub status: ReviewStatus,
    pub version: i64,
    pub decided_at: i64,
}

/// A reviewer's decision on a profile as they saw it.
pub struct Deciding<'a> {
    pub profile_id: i64,
    /// The version the reviewer opened.
    pub version: i64,
    /// The reviewer's user id.
    pub reviewer: i64,
    pub decision: &'a Decision,
}

/// A decision recorded in the caller's transaction: what it came to and whose profile it was.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub decided: Decided,
    /// The profile's owner (the member to tell).
    pub owner: user::Model,
}

/// Records a reviewer's decision with its history row and ends the review claim, inside `txn`
/// (the use-case adds what goes with it and commits). Refuses, changing nothing, a profile held
/// by another reviewer, one changed since `version`, the reviewer's own, or an action that is no
/// transition from the profile's status.
pub async fn record_decision(
    txn: &impl ConnectionTrait,
    deciding: &Deciding<'_>,
    now: i64,
) -> Result<Recorded, ReviewError> {
    let Deciding {
        profile_id,
        version,
        reviewer,
        decision,
    } = *deciding;
    let Some(row) = profile::Entity::find_by_id(profile_id)
        .one(txn)
        .await
        .context("reading a profile")?
    else {
        return Err(ReviewError::NotFound);
    };
    if row.user_id == reviewer {
        return Err(ReviewError::OwnProfile);
    }
    if let Some(held) = live_claim(txn, profile_id, now).await?
        && held.reviewer_user_id != reviewer
    {
        return Err(ReviewError::HeldByAnother {
            until: held.expires_at,
        });
    }
    if row.version != version {
        return Err(ReviewError::Changed);
    }
    let from = ReviewStatus::from(row.status);
    let to = from
        .apply(decision.action())
        .map_err(|invalid| ReviewError::NotAllowed(invalid.to_string()))?;
    let codes = decision.reason_codes();
    let reason = (!codes.is_empty()).then(|| codes.join(","));
    let updated = profile::Entity::update_many()
        .col_expr(
            profile::Column::Status,
            Expr::value(profile::Status::from(to)),
        )
        .col_expr(profile::Column::StatusReason, Expr::value(reason.clone()))
        .col_expr(profile::Column::Version, Expr::value(version + 1))
        .col_expr(profile::Column::UpdatedAt, Expr::value(now))
        .filter(profile::Column::Id.eq(profile_id))
        .filter(profile::Column::Version.eq(version))
        .exec(txn)
        .await
        .context("recording a decision")?;
    if updated.rows_affected != 1 {
        return Err(ReviewError::Changed);
    }
    review_history::Entity::insert(review_history::ActiveModel {
        id: NotSet,
        profile_id: Set(profile_id),
        from_status: Set(Some(from.as_str().to_string())),
        to_status: Set(to.as_str().to_string()),
        reason: Set(reason),
        actor: Set("reviewer".into()),
        created_at: Set(now),
        action: Set(Some(decision.action().as_str().to_string())),
        reviewer_user_id: Set(Some(reviewer)),
        reasons: Set(Some(
            serde_json::to_string(&codes).context("encoding reason codes")?,
        )),
        note: Set(decision.note().map(str::to_string)),
    })
    .exec(txn)
    .await
    .context("recording the review history")?;
    review_claim::Entity::delete_many()
        .filter(review_claim::Column::ProfileId.eq(profile_id))
        .exec(txn)
        .await
        .context("ending the review claim")?;
    let owner = user::Entity::find_by_id(row.user_id)
        .one(txn)
        .await
        .context("reading a profile's owner")?
        .ok_or_else(|| StorageError::Unreadable("profiles.user_id".into()))?;
    Ok(Recorded {
        decided: Decided {
            status: to,
            version: version + 1,
            decided_at: now,
        },
        owner,
    })
}

/// An open report in the reviewers' queue, with both members' nicknames and the reported
/// member's status (a reviewer suspends from there through [`decide`]).
pub struct ReportEntry {
    /// Its `reporter_id` is NULL when the reporter left.
    pub report: report::Model,
    /// The reported member (the queue holds no report about someone who left).
    pub target_id: i64,
    pub reporter_nickname: Option<String>,
    pub target_nickname: Option<String>,
    pub target_status: super::entity::profile::Status,
    pub target_version: i64,
}

/// Open reports, oldest first, but for those filed by or about `leave_out` (the reviewer asking,
/// when they are a member: `crate::access::report_queue`).
pub async fn report_queue(
    db: &impl ConnectionTrait,
    limit: u64,
    leave_out: Option<i64>,
) -> Result<Vec<ReportEntry>, StorageError> {
    let reports = super::matchmaking::open_reports(db, limit, leave_out).await?;
    let mut ids: Vec<i64> = reports
        .iter()
        .flat_map(|r| [r.reporter_id, r.target_id])
        .flatten()
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let profiles: std::collections::HashMap<i64, profile::Model> = profile::Entity::find()
        .filter(profile::Column::Id.is_in(ids))
        .all(db)
        .await
        .context("reading reported profiles")?
        .into_iter()
        .map(|p| (p.id, p))
        .collect();
    let mut entries = Vec::with_capacity(reports.len());
    for report in reports {
        let Some((target_id, target)) = report
            .target_id
            .and_then(|id| profiles.get(&id).map(|p| (id, p)))
        else {
            return Err(StorageError::Unreadable(
                "reports: a profile is missing".into(),
            ));
        };
        let reporter = report.reporter_id.and_then(|id| profiles.get(&id));
        entries.push(ReportEntry {
            reporter_nickname: reporter.and_then(|r| r.nickname.clone()),
            target_id,
            target_nickname: target.nickname.clone(),
            target_status: target.status,
            target_version: target.version,
            report,
        });
    }
    Ok(entries)
}
