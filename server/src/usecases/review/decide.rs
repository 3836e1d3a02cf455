//! What a reviewer does to a profile: claim and release it, decide it or its pending revision,
//! put its employer on record.
//!
//! A decision's new status, its history row and the member's LINE push (in their language)
//! commit together; a suspension also ends every match of the member and settles the reports
//! and flagged conversations about them in the same transaction, and ends all their sessions.
//! Afterwards the push worker is woken, the ended chats are told and the matchmaking pool takes
//! the member's new standing.
//!
//! A revision's decision holds the member's row (`begin_user_write`), as their save does, so
//! the two never interleave: a decision names the revision number the reviewer saw and is
//! refused once a newer save replaced it; the newer one is in the queue.

use anyhow::Context;
use kizuna_core::{
    catalogue::Employer,
    line::LineUserId,
    profile::UserProfileCreate,
    push::Push,
    review::{Decision, ReviewStatus, employer_on_approval},
    review_guard::{self, Claim, ClaimStep, Reviewed},
    revision::{self, RevisionStatus},
    rules::{FieldErrors, RuleCode},
};
use sea_orm::{ConnectionTrait, DatabaseConnection};
use sha2::{Digest, Sha256};

use super::{ReviewError, refuse_a_party};
use crate::{
    access::Viewer,
    line::push,
    rate_limit::RateLimiter,
    storage::{
        self, StorageError, colleagues,
        entity::{profile, report, review_claim},
        files, matchmaking as store,
        profiles::{self, Submission},
        review::{self, DecisionRow},
        revisions,
    },
    usecases::{AfterCommit, Outcome, matchmaking::end_all_relations},
};

/// How long a claim holds a profile.
const HOLD_SECS: i64 = kizuna_core::rules::REVIEW_CLAIM_SECS;

/// A claim taken or renewed.
#[derive(Clone, Debug, PartialEq)]
pub struct Claimed {
    pub profile_id: i64,
    /// The profile's version: the reviewer sends it with the decision.
    pub version: i64,
    pub claimed_at: i64,
    pub expires_at: i64,
}

/// Holds a profile for the reviewer until `now` + the hold: a new claim, a renewal of their
/// own, or a takeover of a lapsed one. Refused for a party to the case, for an unknown profile
/// and while another reviewer holds it.
pub async fn claim(
    db: &impl ConnectionTrait,
    now: i64,
    viewer: &Viewer,
    profile_id: i64,
) -> Result<Claimed, ReviewError> {
    refuse_a_party(db, viewer, profile_id).await?;
    let reviewer = viewer.user_id;
    let row = store::member(db, profile_id)
        .await?
        .ok_or(ReviewError::NotFound)?;
    let claim = review_claim::Model {
        profile_id,
        reviewer_user_id: reviewer,
        claimed_at: now,
        expires_at: now + HOLD_SECS,
    };
    // A racing claim changes the row between the read and the write: read it again and ask
    // again (the racer's live claim refuses this one; a lapsed one is taken over).
    for _ in 0..3 {
        let held = review::claim_row(db, profile_id).await?;
        let step =
            review_guard::claim_step(row.user_id, reviewer, held.as_ref().map(Claim::from), now)?;
        let written = match step {
            ClaimStep::Insert => review::insert_claim(db, &claim).await?,
            ClaimStep::Replace { was } => review::replace_claim(db, was, &claim).await?,
        };
        if written {
            return Ok(Claimed {
                profile_id,
                version: row.version,
                claimed_at: claim.claimed_at,
                expires_at: claim.expires_at,
            });
        }
    }
    let until = review::live_claim(db, profile_id, now)
        .await?
        .map_or(now, |c| c.expires_at);
    Err(ReviewError::HeldByAnother { until })
}

/// Lets go of a profile the reviewer holds. Nothing to let go of is fine; another reviewer's
/// live claim is theirs to keep.
pub async fn release(
    db: &impl ConnectionTrait,
    now: i64,
    reviewer: i64,
    profile_id: i64,
) -> Result<(), ReviewError> {
    if store::member(db, profile_id).await?.is_none() {
        return Err(ReviewError::NotFound);
    }
    let held = review::live_claim(db, profile_id, now).await?;
    review_guard::may_release(reviewer, held.as_ref().map(Claim::from), now)?;
    review::delete_claim_of(db, profile_id, reviewer).await?;
    Ok(())
}

/// A reviewer's decision as sent: read by kizuna-core's `Decision::parse`.
pub struct DecisionInput<'a> {
    pub action: &'a str,
    pub reasons: &'a [String],
    pub note: Option<&'a str>,
    /// APPROVE: the catalogue id of the employer to put on record.
    pub employer: Option<&'a str>,
}

/// What a decision is about, as the reviewer opened it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The profile at this version.
    Profile { version: i64 },
    /// The profile's pending revision with this number.
    Revision { number: i32 },
}

/// The status a decision led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecidedStatus {
    Profile(ReviewStatus),
    Revision(RevisionStatus),
}

/// What a decision came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Decided {
    pub status: DecidedStatus,
    /// The profile's version after it.
    pub version: i64,
    pub decided_at: i64,
}

/// Records a reviewer's decision on a profile or on its pending revision (see the module).
/// Refused for a party to the case first, then for a decision that is not one, then as the
/// target's rules say (kizuna-core's `review_guard`). An approval also puts the member's
/// employer on record (kizuna-core's `employer_on_approval`: the work e-mail's, or the one the
/// reviewer picked); for a revision, only when it changes the verification. The push is
/// written for a member who unfollowed the official account too: the worker marks it
/// unfollowed instead of sending it (or sends it if they follow again first).
pub async fn decide(
    db: &DatabaseConnection,
    now: i64,
    viewer: &Viewer,
    profile_id: i64,
    input: &DecisionInput<'_>,
    target: Target,
) -> Result<Outcome<Decided>, ReviewError> {
    refuse_a_party(db, viewer, profile_id).await?;
    let decision = Decision::parse(input.action, input.reasons, input.note)
        .map_err(ReviewError::invalid("the decision is not valid"))?;
    let deciding = Deciding {
        profile_id,
        reviewer: viewer.user_id,
        decision: &decision,
        employer: input.employer,
        now,
    };
    match target {
        Target::Profile { version } => decide_profile(db, &deciding, version).await,
        Target::Revision { number } => decide_revision(db, &deciding, number).await,
    }
}

struct Deciding<'a> {
    profile_id: i64,
    reviewer: i64,
    decision: &'a Decision,
    employer: Option<&'a str>,
    now: i64,
}

async fn decide_profile(
    db: &DatabaseConnection,
    deciding: &Deciding<'_>,
    version: i64,
) -> Result<Outcome<Decided>, ReviewError> {
    let Deciding {
        profile_id,
        reviewer,
        decision,
        employer,
        now,
    } = *deciding;
    let txn = storage::begin_write(db)
        .await
        .context("starting a decision")?;
    let row = store::member(&txn, profile_id)
        .await?
        .ok_or(ReviewError::NotFound)?;
    let held = review::live_claim(&txn, profile_id, now).await?;
    let from = ReviewStatus::from(row.status);
    // The claim, the version and the transition are checked first: a 409 says more than a
    // missing employer on a profile that changed meanwhile.
    let to = review_guard::decision_allowed(
        Reviewed {
            owner: row.user_id,
            status: from,
            version: row.version,
        },
        reviewer,
        held.as_ref().map(Claim::from),
        version,
        decision.action(),
        now,
    )?;
    let written = DecisionRow {
        profile_id,
        version,
        from,
        to,
        decision,
        reviewer,
        now,
    };
    if !review::write_decision(&txn, &written).await? {
        return Err(ReviewError::Changed);
    }
    review::end_claim(&txn, profile_id).await?;
    let owner = review::owner(&txn, row.user_id).await?;
    if let Decision::Approve { .. } = decision {
        let method = row
            .verify_method
            .as_deref()
            .and_then(kizuna_core::VerifyMethod::parse)
            .ok_or_else(|| StorageError::Unreadable("profiles.verify_method".into()))?;
        let on_record = employer_on_approval(method, row.company_email.as_deref(), employer)
            .map_err(ReviewError::invalid("the approval needs an employer"))?;
        colleagues::set_employer(&txn, profile_id, on_record.id).await?;
    }
    let mut after = AfterCommit::default();
    if let Decision::Suspend { .. } = decision {
        // A suspended member leaves every match at once (for the other person too), and the
        // reports about them are settled by this decision.
        end_all_relations(&txn, profile_id, now, &mut after).await?;
        store::settle_reports_about(&txn, profile_id, report::Status::Actioned).await?;
        // So are the conversations the screening queued about them.
        storage::safety::settle_member(&txn, profile_id, reviewer, now).await?;
        // Signed out everywhere: signing in again shows why, and nothing else. Their open
        // events streams end with the sessions.
        storage::sessions::revoke_all(&txn, owner.id, now).await?;
        after.sessions_ended(crate::identity::ends::Ended::User(owner.id));
        if kizuna_core::review::removal_notice_due(decision) {
            tell_matches(&txn, profile_id, now).await?;
        }
    }
    let member = LineUserId::parse(&owner.line_user_id)
        .ok_or_else(|| StorageError::Unreadable("users.line_user_id".into()))?;
    let what = match decision {
        Decision::Approve { .. } | Decision::Reinstate { .. } => Push::Approved,
        Decision::Reject { note, .. } => Push::ChangesRequested {
            reasons: reason_keys(decision),
            note: note.clone(),
        },
        Decision::Suspend { .. } => Push::Suspended {
            reasons: reason_keys(decision),
        },
    };
    push::enqueue_push(&txn, &member, &what, None).await?;
    after.pushed();
    txn.commit().await.context("committing a decision")?;
    after.pool_changed(profile_id);
    after.account_changed(row.user_id);
    let label = match decision {
        Decision::Approve { .. } => "approve",
        Decision::Reject { .. } => "reject",
        Decision::Suspend { .. } => "suspend",
        Decision::Reinstate { .. } => "reinstate",
    };
    metrics::counter!(crate::metric_names::REVIEW_DECISIONS, "decision" => label).increment(1);
    if let Decision::Suspend { .. } = decision {
        metrics::counter!(crate::metric_names::SESSIONS_REVOKED, "why" => "suspension")
            .increment(1);
    }
    tracing::info!(
        profile = profile_id,
        reviewer,
        action = decision.action().as_str(),
        "review decision"
    );
    let decided = Decided {
        status: DecidedStatus::Profile(to),
        version: version + 1,
        decided_at: now,
    };
    Ok(Outcome::new(decided, after))
}

/// Tells every member whose match with the removed member was live in the last
/// `rules::REMOVAL_NOTICE_DAYS` (kizuna-core's `removal_notice_reaches`): a notice for the app and
/// one push, whatever their push switches say (it is about their safety). A member told of this
/// match before (an earlier suspension, since reinstated, or a racing decision) gets neither
/// again: the notice's insert is the guard, in the decision's transaction.
async fn tell_matches(
    txn: &impl ConnectionTrait,
    removed: i64,
    now: i64,
) -> Result<(), ReviewError> {
    let mut told = 0u64;
    for m in storage::removal_notices::matches_of(txn, removed).await? {
        if !kizuna_core::review::removal_notice_reaches(m.ended_at, now) {
            continue;
        }
        if !storage::removal_notices::tell(txn, m.other, m.match_id, now).await? {
            continue;
        }
        told += 1;
        let Some(other) = store::member(txn, m.other).await? else {
            continue;
        };
        let user = review::owner(txn, other.user_id).await?;
        if let Some(to) = LineUserId::parse(&user.line_user_id) {
            push::enqueue_push(txn, &to, &Push::MatchRemoved, None).await?;
        }
    }
    tracing::info!(profile = removed, told, "removal notices written");
    Ok(())
}

/// The translation keys and codes of a decision's reasons, stored as codes with the push: the
/// member reads them in their language when it is sent.
fn reason_keys(decision: &Decision) -> Vec<(String, String)> {
    let pair = |key: &str, code: &str| (key.to_string(), code.to_string());
    match decision {
        Decision::Reject { reasons, .. } => {
            reasons.iter().map(|r| pair(r.key(), r.code())).collect()
        }
        Decision::Suspend { reasons, .. } => {
            reasons.iter().map(|r| pair(r.key(), r.code())).collect()
        }
        Decision::Approve { .. } | Decision::Reinstate { .. } => Vec::new(),
    }
}

fn read_payload(json: &str, column: &str) -> Result<UserProfileCreate, StorageError> {
    serde_json::from_str(json).map_err(|_| StorageError::Unreadable(column.into()))
}

/// The stored form of a payload (keys sorted, as the registration stores it) and its SHA-256.
fn stored(payload: &UserProfileCreate) -> Result<(String, String), ReviewError> {
    let text = serde_json::to_value(payload)
        .context("serialising a profile")?
        .to_string();
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    Ok((text, hash))
}

async fn decide_revision(
    db: &DatabaseConnection,
    deciding: &Deciding<'_>,
    number: i32,
) -> Result<Outcome<Decided>, ReviewError> {
    let Deciding {
        profile_id,
        reviewer,
        decision,
        employer,
        now,
    } = *deciding;
    revision::check_revision_decision(decision)
        .map_err(ReviewError::invalid("a revision is approved or rejected"))?;
    let owner = store::member(db, profile_id)
        .await?
        .ok_or(ReviewError::NotFound)?
        .user_id;
    let txn = storage::begin_user_write(db, owner).await?;
    let row = store::member(&txn, profile_id)
        .await?
        .ok_or(ReviewError::NotFound)?;
    let held = review::live_claim(&txn, row.id, now).await?;
    let pending = revisions::find(&txn, row.id).await?;
    review_guard::revision_decision_allowed(
        ReviewStatus::from(row.status),
        reviewer,
        held.as_ref().map(Claim::from),
        pending.as_ref().map(|r| (r.number, r.status)),
        number,
        now,
    )?;
    let pending = pending.ok_or(ReviewError::NotFound)?;
    let mut after = AfterCommit::default();
    let (status, version) = match decision {
        Decision::Approve { .. } => {
            approve_revision(&txn, &row, &pending, employer, now).await?;
            after.pool_changed(row.id);
            (RevisionStatus::Approved, row.version + 1)
        }
        _ => (RevisionStatus::Rejected, row.version),
    };
    let codes = decision.reason_codes();
    if !revisions::decide(
        &txn,
        row.id,
        pending.number,
        status,
        reviewer,
        &codes,
        decision.note(),
        now,
    )
    .await?
    {
        return Err(ReviewError::RevisionReplaced);
    }
    review::end_claim(&txn, row.id).await?;
    let member = review::owner(&txn, owner).await?;
    let line_id = LineUserId::parse(&member.line_user_id)
        .ok_or_else(|| StorageError::Unreadable("users.line_user_id".into()))?;
    let what = match status {
        RevisionStatus::Rejected => Push::RevisionRejected {
            reasons: reason_keys(decision),
            note: decision.note().map(str::to_string),
        },
        _ => Push::RevisionApproved,
    };
    push::enqueue_push(&txn, &line_id, &what, None).await?;
    after.pushed();
    txn.commit()
        .await
        .context("committing a revision's decision")?;
    let label = if status == RevisionStatus::Approved {
        "approve-revision"
    } else {
        "reject-revision"
    };
    metrics::counter!(crate::metric_names::REVIEW_DECISIONS, "decision" => label).increment(1);
    tracing::info!(
        profile = row.id,
        reviewer,
        revision = pending.number,
        status = status.as_str(),
        "revision decided"
    );
    let decided = Decided {
        status: DecidedStatus::Revision(status),
        version,
        decided_at: now,
    };
    Ok(Outcome::new(decided, after))
}

/// Swaps the revision's fields into the approved profile (kizuna-core's `swap_in`: what took
/// effect at once since stays), checked as a whole as at the registration; shows its photos and
/// hides the ones it dropped; puts the employer on record anew when the verification changed.
async fn approve_revision(
    txn: &impl ConnectionTrait,
    row: &profile::Model,
    pending: &revisions::Revision,
    employer: Option<&str>,
    now: i64,
) -> Result<(), ReviewError> {
    let approved_now = read_payload(&row.payload, "profiles.payload")?;
    let proposed = read_payload(&pending.payload, "profile_revisions.payload")?;
    let changes = revision::revision_changes(&approved_now, &proposed);
    let swapped = revision::swap_in(&approved_now, &proposed);
    let valid = swapped
        .clone()
        .parse(crate::clock::date_of(now))
        .map_err(ReviewError::invalid("the profile failed validation"))?;
    let (text, hash) = stored(&swapped)?;
    let submission = Submission {
        profile: &valid,
        payload: &text,
        hash: &hash,
        email_confirmed_at: pending.email_confirmed_at,
    };
    if !profiles::rewrite(txn, row, &submission, now, true).await? {
        return Err(ReviewError::ChangedMeanwhile);
    }
    let photos: Vec<String> = valid.photos.iter().map(ToString::to_string).collect();
    files::swap_photos(txn, row.id, &photos).await?;
    if revision::verification_changed(&changes) {
        let v = &valid.verification;
        let on_record = employer_on_approval(
            v.method,
            v.company_email.as_ref().map(|e| e.as_str()),
            employer,
        )
        .map_err(ReviewError::invalid("the approval needs an employer"))?;
        colleagues::set_employer(txn, row.id, on_record.id).await?;
    }
    Ok(())
}

/// Puts the employer of a member approved before review picked one on record (the console lists
/// them): from then on their colleagues are kept apart as the switches say. Refused past the
/// reviewer's allowance of switches (`limiter`), for a party to the case, for an id outside the
/// catalogue, and for a profile that is neither approved nor suspended (NotFound).
pub async fn set_employer(
    db: &impl ConnectionTrait,
    limiter: &RateLimiter,
    viewer: &Viewer,
    profile_id: i64,
    employer: &str,
) -> Result<Outcome<&'static Employer>, ReviewError> {
    if let Err(wait) = limiter.check(&format!("u:{}", viewer.user_id)).await {
        return Err(ReviewError::Limited {
            retry_after: wait.as_secs_f64().ceil().max(1.0) as u64,
        });
    }
    refuse_a_party(db, viewer, profile_id).await?;
    let Some(known) = kizuna_core::catalogue::employer(employer.trim()) else {
        return Err(ReviewError::Invalid {
            cause: "no such employer",
            fields: FieldErrors::single("employer", RuleCode::UnknownEmployer),
        });
    };
    let member = store::member(db, profile_id).await?.filter(|row| {
        matches!(
            ReviewStatus::from(row.status),
            ReviewStatus::Approved | ReviewStatus::Suspended
        )
    });
    if member.is_none() {
        return Err(ReviewError::NotFound);
    }
    colleagues::set_employer(db, profile_id, known.id).await?;
    tracing::info!(profile = profile_id, "employer put on record");
    let mut after = AfterCommit::default();
    after.pool_changed(profile_id);
    Ok(Outcome::new(known, after))
}
