//! A second look at a suspension: the suspended member asks once per suspension, a reviewer other
//! than the one who suspended answers (kizuna-core's `appeal` and `review_guard`).
//!
//! The request is one statement (`storage::appeals::insert`, a unique key per suspension), so two
//! at once make one. The answer is one transaction: the appeal's row updated only while it is
//! PENDING (of two racing reviewers one answers, the other gets 409 E005), then for REINSTATED
//! the ordinary REINSTATE decision (status, version, history row), for UPHELD an UPHOLD row in
//! the history, and the member's push in their language.

use anyhow::Context;
use kizuna_core::{
    appeal::{self, AppealAnswer, AppealRefusal, AppealStatus},
    line::LineUserId,
    push::Push,
    review::{Decision, ReviewStatus},
    review_guard::{self, AppealDecisionRefusal},
};
use sea_orm::DatabaseConnection;

use super::{Party, ReviewError, refuse_a_party};
use crate::{
    access::{self, Viewer},
    line::push,
    storage::{
        self, StorageError,
        appeals::{self, NewAppeal},
        matchmaking as store,
        review::{self, DecisionRow},
    },
    usecases::{AfterCommit, Outcome},
};

pub use crate::storage::appeals::Appeal;

impl From<AppealRefusal> for ReviewError {
    fn from(refusal: AppealRefusal) -> Self {
        match refusal {
            AppealRefusal::NotSuspended => ReviewError::NotAllowed(Party::NotSuspended),
            AppealRefusal::AlreadyAsked => ReviewError::AppealedAlready,
        }
    }
}

impl From<AppealDecisionRefusal> for ReviewError {
    fn from(refusal: AppealDecisionRefusal) -> Self {
        match refusal {
            AppealDecisionRefusal::OwnProfile => ReviewError::NotAllowed(Party::OwnProfile),
            AppealDecisionRefusal::Suspender => ReviewError::NotAllowed(Party::Suspender),
            AppealDecisionRefusal::Decided => ReviewError::SettledAlready("appeal"),
            AppealDecisionRefusal::NotSuspended => ReviewError::SettledAlready("suspension"),
        }
    }
}

/// A member's request for a second look at the suspension that stands on their profile
/// `profile_id`: refused unless they are suspended, once they asked about this suspension, and
/// for a text outside `rules::APPEAL_TEXT` (nothing is stored then).
pub async fn ask(
    db: &DatabaseConnection,
    now: i64,
    profile_id: Option<i64>,
    text: Option<&str>,
) -> Result<Appeal, ReviewError> {
    let Some(profile_id) = profile_id else {
        return Err(ReviewError::NotAllowed(Party::NotSuspended));
    };
    let row = store::member(db, profile_id)
        .await?
        .ok_or(ReviewError::NotFound)?;
    let status = ReviewStatus::from(row.status);
    let suspension = appeals::latest_suspension(db, profile_id).await?;
    let asked = match &suspension {
        Some(s) => appeals::of_suspension(db, s.id).await?.is_some(),
        None => false,
    };
    appeal::may_appeal(Some(status), asked)?;
    // A suspension without its history row predates the review flow: nothing to key it by.
    let suspension = suspension.ok_or(ReviewError::NotAllowed(Party::NotSuspended))?;
    let text = appeal::check_text(text).map_err(ReviewError::invalid("the appeal is not valid"))?;
    let new = NewAppeal {
        profile_id,
        suspension_id: suspension.id,
        suspended_by: suspension.reviewer_user_id,
        text: &text,
        now,
    };
    if !appeals::insert(db, &new).await? {
        return Err(ReviewError::AppealedAlready);
    }
    tracing::info!(profile = profile_id, "appeal asked");
    appeals::of_suspension(db, suspension.id)
        .await?
        .ok_or(ReviewError::NotFound)
}

/// One appeal in the reviewers' queue.
#[derive(Clone, Debug)]
pub struct AppealItem {
    pub appeal: Appeal,
    pub nickname: Option<String>,
    /// The suspension's reason codes and note, and when it was decided.
    pub reasons: Vec<String>,
    pub suspension_note: Option<String>,
    pub suspended_at: i64,
}

/// Pending appeals, the longest waiting first, but none the caller may not answer: their own, one
/// of a member they suspended, or of a member with an open report between them.
pub async fn queue(
    db: &DatabaseConnection,
    viewer: &Viewer,
    limit: u64,
) -> Result<Vec<AppealItem>, ReviewError> {
    let pending = appeals::pending(db, limit).await?;
    let ids: Vec<i64> = pending.iter().map(|a| a.profile_id).collect();
    let profiles = review::profiles_by_id(db, &ids).await?;
    let mut items = Vec::new();
    for appeal in pending {
        let Some(profile) = profiles.get(&appeal.profile_id) else {
            continue;
        };
        if !review_guard::may_take_appeal(profile.user_id, appeal.suspended_by, viewer.user_id)
            || !access::may_review_profile(db, viewer, appeal.profile_id).await?
        {
            continue;
        }
        let suspension = review::history(db, appeal.profile_id)
            .await?
            .into_iter()
            .find(|h| h.id == appeal.suspension_id)
            .ok_or_else(|| StorageError::Unreadable("appeals.suspension_id".into()))?;
        items.push(AppealItem {
            nickname: profile.nickname.clone(),
            reasons: review::reasons_of(&suspension),
            suspension_note: suspension.note,
            suspended_at: suspension.created_at,
            appeal,
        });
    }
    Ok(items)
}

/// Answers an appeal (see the module). Refused for an answer that is not one (422), an unknown
/// appeal (404), a reviewer who is a party to the case or suspended the member (403), and an
/// appeal answered already or a member no longer suspended (409).
pub async fn decide(
    db: &DatabaseConnection,
    now: i64,
    viewer: &Viewer,
    appeal_id: i64,
    outcome: &str,
    note: Option<&str>,
) -> Result<Outcome<Appeal>, ReviewError> {
    let answer = AppealAnswer::parse(outcome, note)
        .map_err(ReviewError::invalid("the answer is not valid"))?;
    let found = appeals::find(db, appeal_id)
        .await?
        .ok_or(ReviewError::NotFound)?;
    refuse_a_party(db, viewer, found.profile_id).await?;
    let reviewer = viewer.user_id;
    let txn = storage::begin_write(db)
        .await
        .context("starting an appeal's answer")?;
    let appeal = appeals::find(&txn, appeal_id)
        .await?
        .ok_or(ReviewError::NotFound)?;
    let row = store::member(&txn, appeal.profile_id)
        .await?
        .ok_or(ReviewError::NotFound)?;
    let status = ReviewStatus::from(row.status);
    review_guard::appeal_decision_allowed(
        row.user_id,
        appeal.suspended_by,
        reviewer,
        appeal.status,
        status,
    )?;
    let note = answer.note.as_deref();
    if !appeals::answer(&txn, appeal.id, answer.outcome, reviewer, note, now).await? {
        return Err(ReviewError::SettledAlready("appeal"));
    }
    let mut after = AfterCommit::default();
    let reinstated = answer.outcome == AppealStatus::Reinstated;
    if reinstated {
        let decision = Decision::Reinstate {
            note: answer.note.clone(),
        };
        let written = DecisionRow {
            profile_id: row.id,
            version: row.version,
            from: status,
            to: ReviewStatus::Approved,
            decision: &decision,
            reviewer,
            now,
        };
        if !review::write_decision(&txn, &written).await? {
            return Err(ReviewError::Changed);
        }
        review::end_claim(&txn, row.id).await?;
        after.pool_changed(row.id);
        after.account_changed(row.user_id);
    } else {
        appeals::record_upheld(&txn, row.id, reviewer, note, now).await?;
    }
    let owner = review::owner(&txn, row.user_id).await?;
    let member = LineUserId::parse(&owner.line_user_id)
        .ok_or_else(|| StorageError::Unreadable("users.line_user_id".into()))?;
    let what = Push::AppealDecided {
        reinstated,
        note: answer.note.clone(),
    };
    push::enqueue_push(&txn, &member, &what, None).await?;
    after.pushed();
    txn.commit()
        .await
        .context("committing an appeal's answer")?;
    let step = if reinstated { "reinstated" } else { "upheld" };
    let label = if reinstated {
        "appeal-reinstated"
    } else {
        "appeal-upheld"
    };
    metrics::counter!(crate::metric_names::REVIEW_DECISIONS, "decision" => label).increment(1);
    tracing::info!(
        profile = row.id,
        reviewer,
        outcome = step,
        "appeal answered"
    );
    let answered = Appeal {
        status: answer.outcome,
        decided_at: Some(now),
        decided_by: Some(reviewer),
        note: answer.note,
        ..appeal
    };
    Ok(Outcome::new(answered, after))
}
