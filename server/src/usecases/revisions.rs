//! Edit after approval (issue 21 §1): an approved member saves the whole form; what takes effect
//! at once is written to the approved profile (the pool learns it as it learns a decision), what
//! goes to review is stored as the one pending revision beside it (`storage::revisions`), and a
//! reviewer approves it (its fields swapped in, its photos shown) or rejects it (the approved
//! version stands; the member is told why). Which field is which, what a revision changes and
//! what a save does to the revision there is are kizuna-core's `revision` module.
//!
//! A save and a decision both hold the member's row (`begin_user_write`), so they never
//! interleave: a decision names the revision number the reviewer saw and is refused (409 E005)
//! once a newer save replaced it; the newer one is in the queue.

use anyhow::Context;
use kizuna_core::{
    VerifyMethod,
    line::LineUserId,
    profile::UserProfileCreate,
    review::Decision,
    revision::{self, RevisionStatus, RevisionStep},
    rules::RuleCode,
};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use sha2::{Digest, Sha256};

use super::{AfterCommit, Outcome, membership::UnknownFiles};
use crate::{
    error::ApiError,
    line::{
        messages::{PushText, liff_url, push_messages},
        push,
    },
    state::AppState,
    storage::{
        self, StorageError, email_codes,
        entity::{profile, review_claim, user},
        files::{self, Purpose},
        locale,
        profiles::{self, Submission},
        review::live_claim,
        revisions::{self, Revision},
    },
};

/// What a save came to.
pub struct Saved {
    /// The approved profile after the save (its normalised payload, JSON text).
    pub approved: String,
    /// The changed fields that took effect at once (wire names).
    pub applied: Vec<&'static str>,
    /// The profile's revision after the save (pending, or the last one decided), if any.
    pub revision: Option<Revision>,
}

/// Why a save was refused, beyond an `ApiError`: which named files the member may not use.
pub enum SaveOutcome {
    Saved(Saved),
    UnknownFiles(UnknownFiles),
}

fn read_payload(json: &str, column: &str) -> Result<UserProfileCreate, StorageError> {
    serde_json::from_str(json).map_err(|_| StorageError::Unreadable(column.into()))
}

/// The stored form of a payload (keys sorted, as the registration stores it) and its SHA-256.
fn stored(payload: &UserProfileCreate) -> Result<(String, String), ApiError> {
    let text = serde_json::to_value(payload)
        .context("serialising a profile")?
        .to_string();
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    Ok((text, hash))
}

/// The approved profile `row` becomes `payload` (checked by kizuna-core as a whole, as at the
/// registration): every column, photo, tag and condition rewritten; `bump` as in
/// `profiles::rewrite`. 409 E005 when the profile changed meanwhile.
async fn rewrite(
    state: &AppState,
    txn: &impl sea_orm::ConnectionTrait,
    row: &profile::Model,
    payload: &UserProfileCreate,
    email_confirmed_at: Option<i64>,
    bump: bool,
) -> Result<kizuna_core::profile::ValidProfile, ApiError> {
    let valid = payload
        .clone()
        .parse(state.settings.clock.today())
        .map_err(|fields| ApiError::validation("the profile failed validation", &fields))?;
    let (text, hash) = stored(payload)?;
    let submission = Submission {
        profile: &valid,
        payload: &text,
        hash: &hash,
        email_confirmed_at,
    };
    if !profiles::rewrite(txn, row, &submission, state.now(), bump).await? {
        return Err(ApiError::Conflict(
            "the profile changed meanwhile; reload it".into(),
        ));
    }
    Ok(valid)
}

/// Saves an approved member's edit form (`edited`: validated by kizuna-core like a
/// registration). 404 E003 without a profile; 403 E004 unless it is APPROVED (a rejected profile
/// is resubmitted, a pending one waits); 422 E002 `not_editable` for a changed name, birthday or
/// gender; 422 E002 `email_not_confirmed` for a new work e-mail not confirmed by its code.
pub async fn save(
    state: &AppState,
    user: &user::Model,
    edited: &UserProfileCreate,
) -> Result<Outcome<SaveOutcome>, ApiError> {
    let now = state.now();
    let txn = storage::begin_user_write(&state.db, user.id).await?;
    let Some(row) = profiles::find_row(&txn, user.id).await? else {
        return Err(ApiError::NotFound);
    };
    if row.status != profile::Status::Approved {
        return Err(ApiError::Forbidden(
            "only an approved profile is edited this way; a rejected one is resubmitted".into(),
        ));
    }
    let approved = read_payload(&row.payload, "profiles.payload")?;
    let plan = revision::plan_edit(&approved, edited).map_err(|fields| {
        ApiError::validation(
            "the name, birthday and gender cannot be changed in the app",
            &fields,
        )
    })?;
    let mut after = AfterCommit::default();
    let approved_now = revision::apply_at_once(&approved, edited);
    if !plan.at_once.is_empty() {
        rewrite(state, &txn, &row, &approved_now, None, false).await?;
        after.pool_changed(row.id);
    }
    let proposal = revision::proposal(&approved_now, edited);
    let held = revisions::find(&txn, row.id).await?;
    let held_payload = held
        .as_ref()
        .map(|r| read_payload(&r.payload, "profile_revisions.payload"))
        .transpose()?;
    let step = revision::next_step(
        &approved_now,
        held.as_ref()
            .zip(held_payload.as_ref())
            .map(|(r, p)| (p, r.status)),
        &proposal,
    );
    match step {
        RevisionStep::None | RevisionStep::Keep => {}
        RevisionStep::Withdraw => revisions::withdraw(&txn, row.id).await?,
        RevisionStep::Open => {
            if let Some(refused) = claim_files(&txn, user.id, row.id, &proposal, now).await? {
                txn.rollback().await.ok();
                return Ok(Outcome::only(SaveOutcome::UnknownFiles(refused)));
            }
            let changes = revision::revision_changes(&approved_now, &proposal);
            let confirmed = email_confirmed(&txn, user.id, &proposal, &changes, now).await?;
            let (text, _) = stored(&proposal)?;
            revisions::open(&txn, row.id, &text, confirmed, now).await?;
        }
    }
    let revision = revisions::find(&txn, row.id).await?;
    txn.commit().await.context("committing a profile edit")?;
    tracing::info!(
        member = row.id,
        at_once = plan.at_once.len(),
        step = ?step,
        "approved profile edited"
    );
    Ok(Outcome::new(
        SaveOutcome::Saved(Saved {
            approved: stored(&approved_now)?.0,
            applied: plan.at_once,
            revision,
        }),
        after,
    ))
}

/// Claims the proposal's new files for the revision (photos as proposed: their owner and the
/// reviewers see them, nobody else before the approval); None when every file was usable, else
/// which kind was not.
async fn claim_files(
    txn: &impl sea_orm::ConnectionTrait,
    owner: i64,
    profile_id: i64,
    proposal: &UserProfileCreate,
    now: i64,
) -> Result<Option<UnknownFiles>, StorageError> {
    let photos = proposal.photo_name_list.clone().unwrap_or_default();
    let verify: Vec<String> = proposal.verify_temp_file_name.iter().cloned().collect();
    let mut refused = UnknownFiles {
        photos: false,
        verification: false,
    };
    for (ids, purpose) in [(&photos, Purpose::Photo), (&verify, Purpose::Verification)] {
        let uses = files::usable_for_revision(txn, owner, ids, purpose, profile_id).await?;
        let new: Vec<String> = ids
            .iter()
            .zip(&uses)
            .filter(|(_, (_, held))| !held)
            .map(|(id, _)| id.clone())
            .collect();
        let usable = uses.iter().all(|(usable, _)| *usable)
            && files::claim_for_revision(txn, owner, &new, purpose, profile_id, now).await?;
        if !usable {
            match purpose {
                Purpose::Photo => refused.photos = true,
                _ => refused.verification = true,
            }
        }
    }
    Ok((refused.photos || refused.verification).then_some(refused))
}

/// When the proposal's work e-mail was confirmed by its code (for the reviewer). A revision that
/// changes the verification to a work e-mail needs it confirmed (422 E002
/// `companyEmail: email_not_confirmed`), as a registration does; an unchanged one was checked.
async fn email_confirmed(
    db: &impl sea_orm::ConnectionTrait,
    user_id: i64,
    proposal: &UserProfileCreate,
    changes: &[&str],
    now: i64,
) -> Result<Option<i64>, ApiError> {
    let Some(email) = proposal.company_email.as_deref() else {
        return Ok(None);
    };
    let confirmed = email_codes::email_confirmed_at(db, user_id, email, now).await?;
    let method = proposal.verify_method;
    if method == Some(VerifyMethod::CompanyEmail)
        && revision::verification_changed(changes)
        && confirmed.is_none()
    {
        return Err(ApiError::field(
            "confirm the work e-mail with the code sent to it first",
            "companyEmail",
            RuleCode::EmailNotConfirmed.as_str(),
        ));
    }
    Ok(confirmed)
}

/// A reviewer's decision on a profile's pending revision as they saw it.
pub struct RevisionDeciding<'a> {
    pub profile_id: i64,
    /// The revision number the reviewer opened.
    pub number: i32,
    pub reviewer: i64,
    pub decision: &'a Decision,
}

/// What a revision's decision came to.
pub struct RevisionDecided {
    pub status: RevisionStatus,
    /// The profile's version after it (one more after an approval).
    pub version: i64,
    pub decided_at: i64,
}

/// Records a reviewer's decision on a revision with the member's push, in one transaction
/// holding the member's row. An approval swaps the revision's fields into the approved profile
/// (kizuna-core's `swap_in`: what took effect at once since stays), shows its photos and hides
/// the ones it dropped, and puts the employer on record anew when the verification changed (as
/// a first approval does: the work e-mail's, or `employer`). 404 E003 without a pending
/// revision; 409 E005 when another reviewer holds the profile, when the revision is decided
/// already or was replaced by a newer save, or when the profile is no longer approved.
pub async fn decide(
    state: &AppState,
    deciding: &RevisionDeciding<'_>,
    employer: Option<&str>,
) -> Result<Outcome<RevisionDecided>, ApiError> {
    revision::check_revision_decision(deciding.decision)
        .map_err(|fields| ApiError::validation("a revision is approved or rejected", &fields))?;
    let now = state.now();
    let owner = storage::matchmaking::member(&state.db, deciding.profile_id)
        .await?
        .ok_or(ApiError::NotFound)?
        .user_id;
    let txn = storage::begin_user_write(&state.db, owner).await?;
    let row = storage::matchmaking::member(&txn, deciding.profile_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    if let Some(held) = live_claim(&txn, row.id, now).await?
        && held.reviewer_user_id != deciding.reviewer
    {
        return Err(ApiError::Conflict(format!(
            "another reviewer holds this profile until {}",
            held.expires_at
        )));
    }
    let Some(pending) = revisions::find(&txn, row.id).await? else {
        return Err(ApiError::NotFound);
    };
    if pending.number != deciding.number || pending.status != RevisionStatus::Pending {
        return Err(ApiError::Conflict(
            "the revision was decided or replaced since it was opened: reload it".into(),
        ));
    }
    if row.status != profile::Status::Approved {
        return Err(ApiError::Conflict(
            "the member is no longer approved: their revision waits".into(),
        ));
    }
    let mut after = AfterCommit::default();
    let (status, version) = match deciding.decision {
        Decision::Approve { .. } => {
            let approved_now = read_payload(&row.payload, "profiles.payload")?;
            let proposed = read_payload(&pending.payload, "profile_revisions.payload")?;
            let changes = revision::revision_changes(&approved_now, &proposed);
            let swapped = revision::swap_in(&approved_now, &proposed);
            let valid = rewrite(
                state,
                &txn,
                &row,
                &swapped,
                pending.email_confirmed_at,
                true,
            )
            .await?;
            let photos: Vec<String> = valid.photos.iter().map(ToString::to_string).collect();
            files::swap_photos(&txn, row.id, &photos).await?;
            if revision::verification_changed(&changes) {
                let v = &valid.verification;
                let on_record = kizuna_core::review::employer_on_approval(
                    v.method,
                    v.company_email.as_ref().map(|e| e.as_str()),
                    employer,
                )
                .map_err(|fields| {
                    ApiError::validation("the approval needs an employer", &fields)
                })?;
                storage::colleagues::set_employer(&txn, row.id, on_record.id).await?;
            }
            after.pool_changed(row.id);
            (RevisionStatus::Approved, row.version + 1)
        }
        Decision::Reject { .. } => (RevisionStatus::Rejected, row.version),
        Decision::Suspend { .. } | Decision::Reinstate { .. } => {
            unreachable!("checked by check_revision_decision")
        }
    };
    let codes = deciding.decision.reason_codes();
    if !revisions::decide(
        &txn,
        row.id,
        pending.number,
        status,
        deciding.reviewer,
        &codes,
        deciding.decision.note(),
        now,
    )
    .await?
    {
        return Err(ApiError::Conflict(
            "the revision was decided or replaced since it was opened: reload it".into(),
        ));
    }
    review_claim::Entity::delete_many()
        .filter(review_claim::Column::ProfileId.eq(row.id))
        .exec(&txn)
        .await
        .context("ending the review claim")?;
    let member = user::Entity::find_by_id(owner)
        .one(&txn)
        .await
        .context("reading a profile's owner")?
        .ok_or_else(|| StorageError::Unreadable("profiles.user_id".into()))?;
    let line_id = LineUserId::parse(&member.line_user_id)
        .ok_or_else(|| StorageError::Unreadable("users.line_user_id".into()))?;
    let language = locale::locale_of_user(&txn, member.id).await?;
    let reasons: Vec<String> = match deciding.decision {
        Decision::Reject { reasons, .. } => reasons
            .iter()
            .map(|r| language.text(r.key()).unwrap_or(r.code()).to_string())
            .collect(),
        _ => Vec::new(),
    };
    let text = match status {
        RevisionStatus::Rejected => PushText::RevisionRejected {
            reasons: &reasons,
            note: deciding.decision.note(),
        },
        _ => PushText::RevisionApproved,
    };
    let app_url = liff_url(&state.settings.line.liff_id);
    push::enqueue(
        &txn,
        &line_id,
        &push_messages(language, &text, Some(&app_url)),
    )
    .await?;
    after.pushed();
    txn.commit()
        .await
        .context("committing a revision's decision")?;
    tracing::info!(
        profile = row.id,
        reviewer = deciding.reviewer,
        revision = pending.number,
        status = status.as_str(),
        "revision decided"
    );
    Ok(Outcome::new(
        RevisionDecided {
            status,
            version,
            decided_at: now,
        },
        after,
    ))
}
