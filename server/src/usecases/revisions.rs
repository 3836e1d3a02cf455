//! Edit after approval: an approved member saves the whole form; what takes effect
//! at once is written to the approved profile (the pool learns it as it learns a decision), what
//! goes to review is stored as the one pending revision beside it (`storage::revisions`), and a
//! reviewer approves it (its fields swapped in, its photos shown) or rejects it (the approved
//! version stands; the member is told why). Which field is which, what a revision changes and
//! what a save does to the revision there is are kizuna-core's `revision` module.
//!
//! A save and a reviewer's decision (`usecases::review`) both hold the member's row
//! (`begin_user_write`), so they never interleave: a decision names the revision number the
//! reviewer saw and is refused (409 E005) once a newer save replaced it; the newer one is in the
//! queue.

use anyhow::Context;
use kizuna_core::date::Date;
use kizuna_core::{
    VerifyMethod,
    profile::UserProfileCreate,
    revision::{self, RevisionStep},
    rules::FieldErrors,
};
use sea_orm::DatabaseConnection;
use sha2::{Digest, Sha256};

use super::{AfterCommit, Outcome, membership::UnknownFiles};
use crate::storage::{
    self, StorageError, email_codes,
    entity::{profile, user},
    files::{self, Purpose},
    profiles::{self, Submission},
    revisions,
};

/// A member's proposed change as the member's own views show it (the row as stored: every field
/// of it is theirs to see).
pub use crate::storage::revisions::Revision;

/// What a save came to.
pub struct Saved {
    /// The approved profile after the save (its normalised payload, JSON text).
    pub approved: String,
    /// The changed fields that took effect at once (wire names).
    pub applied: Vec<&'static str>,
    /// The profile's revision after the save (pending, or the last one decided), if any.
    pub revision: Option<Revision>,
}

/// Why a save was refused, beyond a `SaveError`: which named files the member may not use.
pub enum SaveOutcome {
    Saved(Saved),
    UnknownFiles(UnknownFiles),
}

/// Why a member's edit was refused.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The member has no profile.
    #[error("no profile")]
    NotFound,
    /// Only an APPROVED profile is edited this way (a rejected one is resubmitted).
    #[error("the profile is not approved")]
    NotApproved,
    /// The edit changes what only the operator changes (name, birthday, gender).
    #[error("fields that cannot be changed in the app")]
    NotEditable(FieldErrors),
    /// The profile after the edit breaks kizuna-core's rules.
    #[error("the profile failed validation")]
    Invalid(FieldErrors),
    /// The profile changed meanwhile.
    #[error("the profile changed meanwhile")]
    Changed,
    /// A new work e-mail as the proof of employment that its code has not confirmed.
    #[error("the work e-mail is not confirmed")]
    EmailNotConfirmed,
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

fn read_payload(json: &str, column: &str) -> Result<UserProfileCreate, StorageError> {
    serde_json::from_str(json).map_err(|_| StorageError::Unreadable(column.into()))
}

/// The stored form of a payload (keys sorted, as the registration stores it) and its SHA-256.
fn stored(payload: &UserProfileCreate) -> anyhow::Result<(String, String)> {
    let text = serde_json::to_value(payload)
        .context("serialising a profile")?
        .to_string();
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    Ok((text, hash))
}

/// The approved profile `row` becomes `payload` (checked by kizuna-core as a whole, as at the
/// registration, on `today`): every column, photo, tag and condition rewritten; `bump` as in
/// `profiles::rewrite`. `Changed` when the profile changed meanwhile.
async fn rewrite_at(
    txn: &impl sea_orm::ConnectionTrait,
    row: &profile::Model,
    payload: &UserProfileCreate,
    email_confirmed_at: Option<i64>,
    bump: bool,
    (today, now): (Date, i64),
) -> Result<kizuna_core::profile::ValidProfile, SaveError> {
    let valid = payload.clone().parse(today).map_err(SaveError::Invalid)?;
    let (text, hash) = stored(payload)?;
    let submission = Submission {
        profile: &valid,
        payload: &text,
        hash: &hash,
        email_confirmed_at,
    };
    if !profiles::rewrite(txn, row, &submission, now, bump).await? {
        return Err(SaveError::Changed);
    }
    Ok(valid)
}

/// Saves an approved member's edit form (`edited`: validated by kizuna-core like a
/// registration, on `today`). `NotFound` without a profile; `NotApproved` unless it is APPROVED
/// (a rejected profile is resubmitted, a pending one waits); `NotEditable` for a changed name,
/// birthday or gender; `EmailNotConfirmed` for a new work e-mail not confirmed by its code.
pub async fn save(
    db: &DatabaseConnection,
    user: &user::Model,
    edited: &UserProfileCreate,
    (today, now): (Date, i64),
) -> Result<Outcome<SaveOutcome>, SaveError> {
    let txn = storage::begin_user_write(db, user.id).await?;
    let Some(row) = profiles::find_row(&txn, user.id).await? else {
        return Err(SaveError::NotFound);
    };
    if row.status != profile::Status::Approved {
        return Err(SaveError::NotApproved);
    }
    let approved = read_payload(&row.payload, "profiles.payload")?;
    let plan = revision::plan_edit(&approved, edited).map_err(SaveError::NotEditable)?;
    let mut after = AfterCommit::default();
    let approved_now = revision::apply_at_once(&approved, edited);
    if !plan.at_once.is_empty() {
        rewrite_at(&txn, &row, &approved_now, None, false, (today, now)).await?;
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
/// changes the verification to a work e-mail needs it confirmed (`EmailNotConfirmed`), as a
/// registration does; an unchanged one was checked.
async fn email_confirmed(
    db: &impl sea_orm::ConnectionTrait,
    user_id: i64,
    proposal: &UserProfileCreate,
    changes: &[&str],
    now: i64,
) -> Result<Option<i64>, SaveError> {
    let Some(email) = proposal.company_email.as_deref() else {
        return Ok(None);
    };
    let confirmed = email_codes::email_confirmed_at(db, user_id, email, now).await?;
    let method = proposal.verify_method;
    if method == Some(VerifyMethod::CompanyEmail)
        && revision::verification_changed(changes)
        && confirmed.is_none()
    {
        return Err(SaveError::EmailNotConfirmed);
    }
    Ok(confirmed)
}
