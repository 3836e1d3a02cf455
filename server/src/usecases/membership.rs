//! A member's own profile: registering it, resubmitting it after a rejection, and the avatar.
//! Each is one transaction in storage (`profiles::register` and `profiles::resubmit` hold the
//! user's row; the avatar here); a work e-mail must have been confirmed by its code first.

use anyhow::Context;
use kizuna_core::{VerifyMethod, profile::ValidProfile, review::ReviewStatus};
use sea_orm::DatabaseConnection;

use super::{AfterCommit, Outcome, matchmaking::end_all_relations};
use crate::{
    identity::ends::Ended,
    storage::{
        self, StorageError, departures, email_codes,
        entity::{file, profile, user},
        files, photo_hashes,
        profiles::{self, RegisterError, Registration, ResubmitError, Submission},
        review,
        revisions::Revision,
        users,
    },
};

/// Why a member's own change was refused.
#[derive(Debug, thiserror::Error)]
pub enum MembershipError {
    /// No such profile, or a file that is not the member's.
    #[error("not found")]
    NotFound,
    /// The LINE account was suspended before it was deleted: it may not register again.
    #[error("suspended before leaving")]
    SuspendedBeforeLeaving,
    /// A work e-mail as the proof of employment that its code has not confirmed.
    #[error("the work e-mail is not confirmed")]
    EmailNotConfirmed,
    /// Another profile exists already for the user.
    #[error("the profile already exists")]
    Exists,
    /// Only a REJECTED profile is resubmitted; this one has the named status.
    #[error("a {0} profile cannot be resubmitted")]
    NotEditable(&'static str),
    /// The profile changed meanwhile.
    #[error("the profile changed meanwhile")]
    Changed,
    /// The proof of employment may not be the avatar: others see the avatar.
    #[error("the proof of employment cannot be the avatar")]
    ProofAsAvatar,
    /// Only an approved member pauses or hides from colleagues.
    #[error("not an approved member")]
    NotApproved,
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// A validated submission with its normalised payload and that payload's SHA-256.
pub struct ProfileSubmission<'a> {
    pub valid: &'a ValidProfile,
    pub payload: &'a str,
    pub hash: &'a str,
}

/// Why a submission's files were refused: which of the two named files the user may not use.
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownFiles {
    pub photos: bool,
    pub verification: bool,
}

/// What a registration or resubmission came to.
pub enum SubmitOutcome {
    Done(Registration),
    UnknownFiles(UnknownFiles),
}

/// With COMPANY_EMAIL the work address must have been confirmed by its one-time code (within
/// the last 24 hours): when it was, else `EmailNotConfirmed`.
async fn email_confirmation(
    db: &DatabaseConnection,
    user_id: i64,
    valid: &ValidProfile,
    now: i64,
) -> Result<Option<i64>, MembershipError> {
    let verification = &valid.verification;
    let Some(email) = verification.company_email.as_ref() else {
        return Ok(None);
    };
    let confirmed = email_codes::email_confirmed_at(db, user_id, email.as_str(), now).await?;
    if verification.method == VerifyMethod::CompanyEmail && confirmed.is_none() {
        return Err(MembershipError::EmailNotConfirmed);
    }
    Ok(confirmed)
}

/// Registers the profile of the LINE user `line_user_id` (PENDING). The same payload again
/// answers the existing result and creates nothing; another payload for a user with a profile
/// is `Exists`. Their sessions carry the new profile from the next request on.
pub async fn register(
    db: &DatabaseConnection,
    line_user_id: &str,
    submitted: ProfileSubmission<'_>,
    now: i64,
) -> Result<Outcome<SubmitOutcome>, MembershipError> {
    let Some(user) = users::find_by_line_id(db, line_user_id).await? else {
        // Uploading takes a session, so someone who never logged in has no files to claim;
        // and a refused request must not leave a user row behind.
        return Ok(Outcome::only(SubmitOutcome::UnknownFiles(UnknownFiles {
            photos: !submitted.valid.photos.is_empty(),
            verification: submitted.valid.verification.temp_file.is_some(),
        })));
    };
    let departed = departures::line_hash(line_user_id);
    if departures::left_suspended(db, &departed).await? {
        return Err(MembershipError::SuspendedBeforeLeaving);
    }
    let email_confirmed_at = email_confirmation(db, user.id, submitted.valid, now).await?;
    let submission = Submission {
        profile: submitted.valid,
        payload: submitted.payload,
        hash: submitted.hash,
        email_confirmed_at,
    };
    let mut after = AfterCommit::default();
    let outcome = match profiles::register(db, &user, submission, now).await {
        Ok(registration) => {
            after.account_changed(user.id);
            // Whoever blocked them before they left still has them blocked, and the other
            // way round; the open reports about them are back in the reviewers' queue (a
            // retry finds nothing left to restore).
            if let Some(row) = profiles::find_row(db, user.id).await? {
                departures::restore_blocks(db, &departed, row.id, now).await?;
                departures::restore_reports(db, &departed, row.id).await?;
                // Nor is anyone they matched or passed before introduced to them again.
                if departures::departed(db, &departed).await? {
                    departures::restore_pairs(db, line_user_id, row.id, now).await?;
                }
            }
            SubmitOutcome::Done(registration)
        }
        Err(RegisterError::UnknownFiles {
            photos,
            verification,
        }) => SubmitOutcome::UnknownFiles(UnknownFiles {
            photos,
            verification,
        }),
        Err(RegisterError::Exists) => return Err(MembershipError::Exists),
        Err(RegisterError::Storage(err)) => return Err(err.into()),
    };
    Ok(Outcome::new(outcome, after))
}

/// Resubmits the user's REJECTED profile (PENDING again). `NotFound` without a profile,
/// `NotEditable` unless it is REJECTED, `Changed` when it changed meanwhile.
pub async fn resubmit(
    db: &DatabaseConnection,
    user: &user::Model,
    submitted: ProfileSubmission<'_>,
    now: i64,
) -> Result<Outcome<SubmitOutcome>, MembershipError> {
    let email_confirmed_at = email_confirmation(db, user.id, submitted.valid, now).await?;
    let submission = Submission {
        profile: submitted.valid,
        payload: submitted.payload,
        hash: submitted.hash,
        email_confirmed_at,
    };
    match profiles::resubmit(db, user, submission, now).await {
        Ok(registration) => {
            let mut after = AfterCommit::default();
            after.account_changed(user.id);
            Ok(Outcome::new(SubmitOutcome::Done(registration), after))
        }
        Err(ResubmitError::NoProfile) => Err(MembershipError::NotFound),
        Err(ResubmitError::NotEditable(status)) => Err(MembershipError::NotEditable(status)),
        Err(ResubmitError::UnknownFiles {
            photos,
            verification,
        }) => Ok(Outcome::only(SubmitOutcome::UnknownFiles(UnknownFiles {
            photos,
            verification,
        }))),
        Err(ResubmitError::Changed) => Err(MembershipError::Changed),
        Err(ResubmitError::Storage(err)) => Err(err.into()),
    }
}

/// Deletes the user's account at once, in one transaction: what is kept is recorded under a hash
/// of their LINE user id (a suspension; the blocks between them and others; the open reports
/// about them, while the ones they filed stay without their name; the pairs they matched or
/// passed, under a hash of both LINE user ids), their matches end
/// for the other side too, and every row that is theirs goes (sessions, pending pushes, profile,
/// lists, likes, matches and messages, codes, the user). Their stored files are queued
/// and removed after the commit (`cleanup::remove_departed_files`, resumed by the next
/// housekeeping run if this process dies first). With the member's LINE access token, LINE is
/// asked to revoke their authorisation of the app.
pub async fn delete_account(
    db: &DatabaseConnection,
    user: &user::Model,
    line_access_token: Option<String>,
    now: i64,
) -> Result<Outcome<()>, MembershipError> {
    let hash = departures::line_hash(&user.line_user_id);
    let txn = storage::begin_user_write(db, user.id).await?;
    let mut after = AfterCommit::default();
    let profile = profiles::find_row(&txn, user.id).await?;
    let suspended = profile
        .as_ref()
        .is_some_and(|p| p.status == profile::Status::Suspended);
    departures::record(&txn, &hash, suspended, now).await?;
    after.departed();
    if let Some(profile) = &profile {
        departures::keep_blocks(&txn, profile.id, &hash, now).await?;
        departures::keep_pairs(&txn, profile.id, &user.line_user_id, now).await?;
        departures::keep_reports(&txn, profile.id, &hash).await?;
        end_all_relations(&txn, profile.id, now, &mut after).await?;
        after.pool_changed(profile.id);
    }
    if suspended {
        // A suspended member's photos stay recognisable if they come back (docs/design.md,
        // Privacy: what is kept).
        photo_hashes::keep(&txn, user.id, now).await?;
    }
    if departures::queue_files(&txn, user.id, now).await? > 0 {
        after.files_queued();
    }
    departures::delete_user(&txn, user.id, &user.line_user_id).await?;
    txn.commit()
        .await
        .context("committing an account deletion")?;
    // Their sessions went with the user row: their open streams end too.
    after.sessions_ended(Ended::User(user.id));
    after.purge_deleted();
    if let Some(token) = line_access_token {
        after.deauthorize(token);
    }
    metrics::counter!(crate::metric_names::ACCOUNTS_DELETED).increment(1);
    metrics::counter!(crate::metric_names::SESSIONS_REVOKED, "why" => "deletion").increment(1);
    tracing::info!(user = user.id, "account deleted");
    Ok(Outcome::new((), after))
}

/// Takes an approved member out of everyone's introductions (and stops their own lists) or
/// brings them back; their matches go on either way. Answers since when they are paused.
pub async fn pause(
    db: &DatabaseConnection,
    viewer: &crate::access::Viewer,
    paused: bool,
    now: i64,
) -> Result<Outcome<Option<i64>>, MembershipError> {
    let me = approved(viewer)?;
    let since = if paused {
        Some(storage::pauses::pause(db, me, now).await?)
    } else {
        storage::pauses::resume(db, me).await?;
        None
    };
    tracing::info!(member = me, paused, "pause changed");
    let mut after = AfterCommit::default();
    after.pool_changed(me);
    Ok(Outcome::new(since, after))
}

/// Switches the member's "never introduce me to people of my employer" on or off. Lists are
/// made from then on with it (the pool learns it as it learns a decision) and the access rule
/// reads it at once; a match already made goes on either way. Answers the switch and whether an
/// employer is on record (the member's own, never another's).
pub async fn hide_from_colleagues(
    db: &DatabaseConnection,
    viewer: &crate::access::Viewer,
    hides: bool,
) -> Result<Outcome<(bool, bool)>, MembershipError> {
    let me = approved(viewer)?;
    storage::colleagues::set_hides(db, me, hides).await?;
    let (hides, employer) = storage::colleagues::own(db, me).await?;
    tracing::info!(member = me, hides, "colleagues switch changed");
    let mut after = AfterCommit::default();
    after.pool_changed(me);
    Ok(Outcome::new((hides, employer.is_some()), after))
}

fn approved(viewer: &crate::access::Viewer) -> Result<i64, MembershipError> {
    viewer
        .approved_member()
        .map_err(|_| MembershipError::NotApproved)
}

/// Ends one session (sign out of this device), and its open events streams with it.
pub async fn sign_out(
    db: &DatabaseConnection,
    token_hash: &str,
    now: i64,
) -> Result<Outcome<()>, MembershipError> {
    storage::sessions::revoke(db, token_hash, now).await?;
    metrics::counter!(crate::metric_names::SESSIONS_REVOKED, "why" => "sign-out").increment(1);
    tracing::info!("signed out");
    let mut after = AfterCommit::default();
    after.sessions_ended(Ended::Session(token_hash.to_string()));
    Ok(Outcome::new((), after))
}

/// Ends every session of the user (sign out everywhere), and every open events stream of theirs.
pub async fn sign_out_everywhere(
    db: &DatabaseConnection,
    user_id: i64,
    now: i64,
) -> Result<Outcome<()>, MembershipError> {
    let ended = storage::sessions::revoke_all(db, user_id, now).await?;
    metrics::counter!(crate::metric_names::SESSIONS_REVOKED, "why" => "everywhere").increment(1);
    tracing::info!(user = user_id, sessions = ended, "signed out everywhere");
    let mut after = AfterCommit::default();
    after.sessions_ended(Ended::User(user_id));
    Ok(Outcome::new((), after))
}

/// Makes one of the user's files their avatar (`NotFound` for anyone else's or an unknown one,
/// `ProofAsAvatar` for the proof of employment, which others must never see). An upload made
/// the avatar no longer expires; the one it replaces does again (`files::release_avatar`).
pub async fn set_avatar(
    db: &DatabaseConnection,
    user_id: i64,
    file_id: &str,
    now: i64,
) -> Result<Outcome<String>, MembershipError> {
    let txn = storage::begin_user_write(db, user_id).await?;
    let file = files::find_owned(&txn, user_id, file_id)
        .await?
        .ok_or(MembershipError::NotFound)?;
    if file.purpose == file::PURPOSE_VERIFY {
        return Err(MembershipError::ProofAsAvatar);
    }
    if !files::claim_as_avatar(&txn, &file, now).await? {
        return Err(MembershipError::NotFound);
    }
    // The avatar it replaces is let go, unless a submission uses it as a photo: an upload that
    // was only ever the avatar becomes a temp file again and is swept a day after its upload,
    // so setting avatar after avatar stores nothing for good.
    let previous = users::avatar(&txn, user_id).await?;
    if let Some(previous) = previous.filter(|p| *p != file.id) {
        files::release_avatar(&txn, user_id, &previous).await?;
    }
    users::set_avatar(&txn, user_id, &file.id).await?;
    txn.commit().await.context("committing the avatar")?;
    let mut after = AfterCommit::default();
    after.account_changed(user_id);
    Ok(Outcome::new(file.id, after))
}

/// A reviewer's decision as the member sees it (never who decided).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingDecision {
    /// APPROVE, REJECT, SUSPEND or REINSTATE.
    pub action: String,
    pub reasons: Vec<String>,
    pub note: Option<String>,
    pub decided_at: i64,
}

/// The last decision on a profile, unless it is PENDING (then its last change is a submission).
async fn standing_decision(
    db: &DatabaseConnection,
    profile_id: i64,
    status: ReviewStatus,
) -> Result<Option<StandingDecision>, MembershipError> {
    if status == ReviewStatus::Pending {
        return Ok(None);
    }
    Ok(review::last_decision(db, profile_id)
        .await?
        .map(|row| StandingDecision {
            action: row.action.clone().unwrap_or_default(),
            reasons: review::reasons_of(&row),
            note: row.note,
            decided_at: row.created_at,
        }))
}

/// Where a member's own profile stands in review, as their profile page shows it.
#[derive(Debug)]
pub struct OwnReview {
    /// The profile as stored: the normalised UserProfileCreate payload (JSON text), None if it
    /// is gone. Read here, not with the session, which every request reads.
    pub payload: Option<String>,
    /// The revision of an approved profile waiting for review or sent back, if any.
    pub revision: Option<Revision>,
    /// The reviewer's last decision while it stands.
    pub decision: Option<StandingDecision>,
    /// The member's latest appeal of a suspension, if they ever appealed.
    pub appeal: Option<crate::storage::appeals::Appeal>,
    /// Whether they may appeal the suspension that stands now (kizuna-core's `may_appeal`: once
    /// per suspension).
    pub may_appeal: bool,
}

/// The member's profile as stored, revision, standing decision and appeal for their profile
/// `profile_id` of `status`, in one statement (`review::own_review`): with the session cache answering the
/// session, `GET /user/my-info` costs that statement alone.
pub async fn own_review(
    db: &DatabaseConnection,
    profile_id: i64,
    status: ReviewStatus,
) -> Result<OwnReview, MembershipError> {
    let rows = review::own_review(db, profile_id).await?;
    let may_appeal = match rows.suspension_id {
        Some(suspension) => {
            let asked = rows
                .appeal
                .as_ref()
                .is_some_and(|a| a.suspension_id == suspension);
            kizuna_core::appeal::may_appeal(Some(status), asked).is_ok()
        }
        None => false,
    };
    // The last decision, unless the profile is PENDING (then its last change is a submission).
    let decision = rows
        .last_decision
        .filter(|_| status != ReviewStatus::Pending)
        .map(|row| StandingDecision {
            action: row.action.clone().unwrap_or_default(),
            reasons: review::reasons_of(&row),
            note: row.note,
            decided_at: row.created_at,
        });
    Ok(OwnReview {
        payload: rows.payload,
        revision: rows.revision,
        decision,
        appeal: rows.appeal,
        may_appeal,
    })
}

/// A user's review status as the public status page shows it.
#[derive(Debug)]
pub struct StatusView {
    pub line_user_id: String,
    pub status: ReviewStatus,
    /// The stored reason codes, comma-separated.
    pub reason: Option<String>,
    /// The standing decision, when it came with reasons or a note.
    pub decision: Option<StandingDecision>,
    /// Unix seconds of the last status change.
    pub updated_at: i64,
}

/// The review status of the LINE user `line_user_id`; None while they have no profile.
pub async fn review_status(
    db: &DatabaseConnection,
    line_user_id: &str,
) -> Result<Option<StatusView>, MembershipError> {
    let Some(user) = users::find_by_line_id(db, line_user_id).await? else {
        return Ok(None);
    };
    let Some(profile) = profiles::find_row(db, user.id).await? else {
        return Ok(None);
    };
    let last = profiles::last_status_change(db, profile.id).await?;
    let status = ReviewStatus::from(profile.status);
    let decision = standing_decision(db, profile.id, status)
        .await?
        .filter(|d| !d.reasons.is_empty() || d.note.is_some());
    Ok(Some(StatusView {
        line_user_id: user.line_user_id,
        status,
        reason: profile.status_reason,
        decision,
        updated_at: last.unwrap_or(profile.updated_at),
    }))
}
