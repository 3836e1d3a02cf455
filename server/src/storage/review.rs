//! The review console's storage: the queue, everything a reviewer reads to decide, claims, and
//! decisions. Table access only: who may claim or decide is kizuna-core's `review_guard`, asked
//! by `usecases::review`.
//!
//! Two reviewers never both decide one profile: a claim is one row per profile (its key),
//! written by an insert that a concurrent insert makes fail, or by a replacement of the row as it
//! was read; and a decision updates the profile only `WHERE version = {the version it was
//! allowed on}`, so of two racing decisions exactly one changes a row and the other writes
//! nothing. The decision and its `review_history` row are written in the use-case's transaction,
//! which adds the member's push.

use anyhow::Context;
use std::collections::HashMap;

use kizuna_core::{
    catalogue,
    profile::UserProfileCreate,
    review::{Decision, ReviewStatus, changed_fields},
    review_guard::Claim,
};
use sea_orm::{
    ActiveValue::{NotSet, Set},
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    sea_query::Expr,
};

use super::{
    StorageError,
    entity::{chat_message, profile, profile_submission, review_claim, review_history, user},
    is_unique_violation, line_events, locale,
    statements::sql,
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
    /// For a revision of an approved profile: its number.
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
    /// The pending revision of an approved profile, if one waits.
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
/// since then answers None): what the member is shown. An appeal upheld changes nothing, so the
/// suspension it kept is still the decision.
pub async fn last_decision(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<review_history::Model>, StorageError> {
    let last = review_history::Entity::find()
        .filter(review_history::Column::ProfileId.eq(profile_id))
        .filter(
            sea_orm::Condition::any()
                .add(review_history::Column::Action.is_null())
                .add(review_history::Column::Action.ne(super::appeals::UPHOLD)),
        )
        .order_by_desc(review_history::Column::Id)
        .one(db)
        .await
        .context("reading the review history")?;
    Ok(last.filter(|h| h.reviewer_user_id.is_some()))
}

/// What a member reads of their own profile's review: its revision, their latest appeal, the
/// id of the suspension that stands (its last SUSPEND row) and the last row that is not an
/// appeal upheld (a decision while it has a reviewer).
#[derive(Debug)]
pub struct OwnReviewRows {
    /// The profile's normalised payload (JSON text); None if the profile is gone.
    pub payload: Option<String>,
    pub revision: Option<super::revisions::Revision>,
    pub appeal: Option<super::appeals::Appeal>,
    pub suspension_id: Option<i64>,
    pub last_decision: Option<review_history::Model>,
}

const HISTORY_COLUMNS: [&str; 11] = [
    "id",
    "profile_id",
    "from_status",
    "to_status",
    "reason",
    "actor",
    "created_at",
    "action",
    "reviewer_user_id",
    "reasons",
    "note",
];

/// `a.x AS pre_x, …` for `columns` (comma-separated).
fn aliased<'a>(table: &str, pre: &str, columns: impl IntoIterator<Item = &'a str>) -> String {
    columns
        .into_iter()
        .map(|c| format!("{table}.{c} AS {pre}{c}", c = c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// [`OwnReviewRows`] of one profile in one statement (the member's `GET /user/my-info`): the
/// profile's payload and the latest rows found by their indexes, each beside the others on the
/// one row answered.
pub async fn own_review(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<OwnReviewRows, StorageError> {
    static TEXT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "SELECT (SELECT payload FROM profiles WHERE id = q.pid) AS own_payload, \
             {revision}, {appeal}, {decision}, \
             (SELECT max(id) FROM review_history WHERE profile_id = q.pid AND action = 'SUSPEND') \
             AS s_id \
             FROM (SELECT CAST($1 AS BIGINT) AS pid) q \
             LEFT JOIN profile_revisions r ON r.profile_id = q.pid \
             LEFT JOIN appeals a ON a.id = (SELECT max(id) FROM appeals WHERE profile_id = q.pid) \
             LEFT JOIN review_history d ON d.id = (SELECT max(id) FROM review_history \
             WHERE profile_id = q.pid AND (action IS NULL OR action <> '{uphold}'))",
            revision = aliased("r", "r_", super::revisions::COLUMNS.split(',')),
            appeal = aliased("a", "a_", super::appeals::COLUMNS.split(',')),
            decision = aliased("d", "d_", HISTORY_COLUMNS),
            uphold = super::appeals::UPHOLD,
        )
    });
    use sea_orm::FromQueryResult;
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            &TEXT,
            vec![profile_id.into()],
        ))
        .await
        .context("reading a member's own review")?
        .ok_or_else(|| StorageError::Unreadable("the own review answered no row".into()))?;
    let present = |column: &str| -> Result<bool, StorageError> {
        let value: Option<i64> = row.try_get("", column).context("a member's own review")?;
        Ok(value.is_some())
    };
    let revision = if present("r_profile_id")? {
        Some(super::revisions::read_as(&row, "r_")?)
    } else {
        None
    };
    let appeal = if present("a_id")? {
        Some(super::appeals::read_as(&row, "a_")?)
    } else {
        None
    };
    let last_decision = if present("d_id")? {
        Some(
            review_history::Model::from_query_result(&row, "d_")
                .context("a member's last decision")?,
        )
    } else {
        None
    };
    Ok(OwnReviewRows {
        payload: row
            .try_get("", "own_payload")
            .context("a member's own profile")?,
        revision,
        appeal,
        suspension_id: row.try_get("", "s_id").context("a member's suspension")?,
        last_decision: last_decision.filter(|h| h.reviewer_user_id.is_some()),
    })
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
    reason_codes(row.reasons.as_deref())
}

/// The reason codes of `review_history.reasons` (a JSON array of codes; none when NULL).
pub fn reason_codes(stored: Option<&str>) -> Vec<String> {
    stored
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

/// The live claim on a profile, if a reviewer holds it at `now`.
pub(crate) async fn live_claim(
    db: &impl ConnectionTrait,
    profile_id: i64,
    now: i64,
) -> Result<Option<review_claim::Model>, StorageError> {
    Ok(claim_row(db, profile_id)
        .await?
        .filter(|c| Claim::from(c).is_live(now)))
}

/// The claim row of a profile, live or lapsed.
pub async fn claim_row(
    db: &impl ConnectionTrait,
    profile_id: i64,
) -> Result<Option<review_claim::Model>, StorageError> {
    Ok(review_claim::Entity::find_by_id(profile_id)
        .one(db)
        .await
        .context("reading a review claim")?)
}

impl From<&review_claim::Model> for Claim {
    fn from(row: &review_claim::Model) -> Claim {
        Claim {
            reviewer: row.reviewer_user_id,
            expires_at: row.expires_at,
        }
    }
}

/// Writes a new claim row; false when a concurrent claim's row got there first.
pub async fn insert_claim(
    db: &impl ConnectionTrait,
    claim: &review_claim::Model,
) -> Result<bool, StorageError> {
    let inserted = review_claim::Entity::insert(review_claim::ActiveModel {
        profile_id: Set(claim.profile_id),
        reviewer_user_id: Set(claim.reviewer_user_id),
        claimed_at: Set(claim.claimed_at),
        expires_at: Set(claim.expires_at),
    })
    .exec(db)
    .await;
    match inserted {
        Ok(_) => Ok(true),
        Err(err) if is_unique_violation(&err) => Ok(false),
        Err(err) => Err(anyhow::Error::new(err).context("claiming a profile").into()),
    }
}

/// Replaces the profile's claim row with `claim` if it is still `was` as read; false, changing
/// nothing, when a concurrent claim changed it.
pub async fn replace_claim(
    db: &impl ConnectionTrait,
    was: Claim,
    claim: &review_claim::Model,
) -> Result<bool, StorageError> {
    let replaced = review_claim::Entity::update_many()
        .col_expr(
            review_claim::Column::ReviewerUserId,
            Expr::value(claim.reviewer_user_id),
        )
        .col_expr(
            review_claim::Column::ClaimedAt,
            Expr::value(claim.claimed_at),
        )
        .col_expr(
            review_claim::Column::ExpiresAt,
            Expr::value(claim.expires_at),
        )
        .filter(review_claim::Column::ProfileId.eq(claim.profile_id))
        .filter(review_claim::Column::ReviewerUserId.eq(was.reviewer))
        .filter(review_claim::Column::ExpiresAt.eq(was.expires_at))
        .exec(db)
        .await
        .context("renewing a review claim")?;
    Ok(replaced.rows_affected == 1)
}

/// Deletes `reviewer`'s claim on a profile, if they have one.
pub async fn delete_claim_of(
    db: &impl ConnectionTrait,
    profile_id: i64,
    reviewer: i64,
) -> Result<(), StorageError> {
    review_claim::Entity::delete_many()
        .filter(review_claim::Column::ProfileId.eq(profile_id))
        .filter(review_claim::Column::ReviewerUserId.eq(reviewer))
        .exec(db)
        .await
        .context("releasing a review claim")?;
    Ok(())
}

/// Deletes whatever claim a profile has (a decision ends it).
pub async fn end_claim(db: &impl ConnectionTrait, profile_id: i64) -> Result<(), StorageError> {
    review_claim::Entity::delete_many()
        .filter(review_claim::Column::ProfileId.eq(profile_id))
        .exec(db)
        .await
        .context("ending the review claim")?;
    Ok(())
}

/// The user row of a profile's owner (the member to tell).
pub async fn owner(db: &impl ConnectionTrait, user_id: i64) -> Result<user::Model, StorageError> {
    user::Entity::find_by_id(user_id)
        .one(db)
        .await
        .context("reading a profile's owner")?
        .ok_or_else(|| StorageError::Unreadable("profiles.user_id".into()))
}

/// A decision to write, as the use-case allowed it.
pub struct DecisionRow<'a> {
    pub profile_id: i64,
    /// The version the decision was allowed on: the row is written only while it still is.
    pub version: i64,
    pub from: ReviewStatus,
    pub to: ReviewStatus,
    pub decision: &'a Decision,
    /// The reviewer's user id.
    pub reviewer: i64,
    pub now: i64,
}

/// Writes a decision (the profile's new status and version) and its history row, in the
/// caller's transaction; false, writing nothing, when the profile is no longer at the version
/// the decision was allowed on (a racing decision or resubmission got there first).
pub async fn write_decision(
    txn: &impl ConnectionTrait,
    row: &DecisionRow<'_>,
) -> Result<bool, StorageError> {
    let codes = row.decision.reason_codes();
    let reason = (!codes.is_empty()).then(|| codes.join(","));
    let updated = profile::Entity::update_many()
        .col_expr(
            profile::Column::Status,
            Expr::value(profile::Status::from(row.to)),
        )
        .col_expr(profile::Column::StatusReason, Expr::value(reason.clone()))
        .col_expr(profile::Column::Version, Expr::value(row.version + 1))
        .col_expr(profile::Column::UpdatedAt, Expr::value(row.now))
        .filter(profile::Column::Id.eq(row.profile_id))
        .filter(profile::Column::Version.eq(row.version))
        .exec(txn)
        .await
        .context("recording a decision")?;
    if updated.rows_affected != 1 {
        return Ok(false);
    }
    review_history::Entity::insert(review_history::ActiveModel {
        id: NotSet,
        profile_id: Set(row.profile_id),
        from_status: Set(Some(row.from.as_str().to_string())),
        to_status: Set(row.to.as_str().to_string()),
        reason: Set(reason),
        actor: Set("reviewer".into()),
        created_at: Set(row.now),
        action: Set(Some(row.decision.action().as_str().to_string())),
        reviewer_user_id: Set(Some(row.reviewer)),
        reasons: Set(Some(
            serde_json::to_string(&codes).context("encoding reason codes")?,
        )),
        note: Set(row.decision.note().map(str::to_string)),
    })
    .exec(txn)
    .await
    .context("recording the review history")?;
    Ok(true)
}

/// The profiles of `ids` that exist, by id (one statement).
pub async fn profiles_by_id(
    db: &impl ConnectionTrait,
    ids: &[i64],
) -> Result<HashMap<i64, profile::Model>, StorageError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(profile::Entity::find()
        .filter(profile::Column::Id.is_in(ids.iter().copied()))
        .all(db)
        .await
        .context("reading profiles")?
        .into_iter()
        .map(|p| (p.id, p))
        .collect())
}

/// The last `limit` messages of each of `matches` that has any, oldest first, by match (one
/// statement, whatever the number of matches): the conversations shown in the reviewers' queues.
pub async fn conversations(
    db: &impl ConnectionTrait,
    matches: &[i64],
    limit: u64,
) -> Result<HashMap<i64, Vec<chat_message::Model>>, StorageError> {
    if matches.is_empty() {
        return Ok(HashMap::new());
    }
    let placeholders: Vec<String> = (1..=matches.len()).map(|i| format!("${i}")).collect();
    let text = format!(
        "SELECT id, match_id, sender_id, client_message_id, text, sent_at, safety_kinds FROM \
         (SELECT m.*, ROW_NUMBER() OVER (PARTITION BY match_id ORDER BY id DESC) AS nth \
         FROM chat_messages m WHERE match_id IN ({})) last \
         WHERE nth <= {limit} ORDER BY match_id, id",
        placeholders.join(", ")
    );
    let values = matches.iter().map(|id| (*id).into()).collect();
    let rows = chat_message::Entity::find()
        .from_raw_sql(sql(db.get_database_backend(), &text, values))
        .all(db)
        .await
        .context("reading the queued conversations")?;
    let mut by_match: HashMap<i64, Vec<chat_message::Model>> = HashMap::new();
    for row in rows {
        by_match.entry(row.match_id).or_default().push(row);
    }
    Ok(by_match)
}
