//! A member's own profile: registering it, resubmitting it after a rejection, and the avatar.
//! Each is one transaction in storage (`profiles::register` and `profiles::resubmit` hold the
//! user's row; the avatar here); a work e-mail must have been confirmed by its code first.

use anyhow::Context;
use kizuna_core::{VerifyMethod, profile::ValidProfile, rules::RuleCode};

use super::{AfterCommit, Outcome, matchmaking::end_all_relations};
use crate::{
    error::ApiError,
    state::AppState,
    storage::{
        self, departures, email_codes,
        entity::{file, profile, user},
        files,
        profiles::{self, RegisterError, Registration, ResubmitError, Submission},
        users,
    },
};

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
/// the last 24 hours): when it was, else 422 E002 `companyEmail: [email_not_confirmed]`.
async fn email_confirmation(
    state: &AppState,
    user_id: i64,
    valid: &ValidProfile,
) -> Result<Option<i64>, ApiError> {
    let verification = &valid.verification;
    let Some(email) = verification.company_email.as_ref() else {
        return Ok(None);
    };
    let confirmed =
        email_codes::email_confirmed_at(&state.db, user_id, email.as_str(), state.now()).await?;
    if verification.method == VerifyMethod::CompanyEmail && confirmed.is_none() {
        return Err(ApiError::field(
            "confirm the work e-mail with the code sent to it first",
            "companyEmail",
            RuleCode::EmailNotConfirmed.as_str(),
        ));
    }
    Ok(confirmed)
}

/// Registers the profile of the LINE user `line_user_id` (PENDING). The same payload again
/// answers the existing result and creates nothing; another payload for a user with a profile
/// is 409 E005.
pub async fn register(
    state: &AppState,
    line_user_id: &str,
    submitted: ProfileSubmission<'_>,
) -> Result<SubmitOutcome, ApiError> {
    let Some(user) = users::find_by_line_id(&state.db, line_user_id).await? else {
        // Uploading takes a session, so someone who never logged in has no files to claim;
        // and a refused request must not leave a user row behind.
        return Ok(SubmitOutcome::UnknownFiles(UnknownFiles {
            photos: !submitted.valid.photos.is_empty(),
            verification: submitted.valid.verification.temp_file.is_some(),
        }));
    };
    let departed = departures::line_hash(line_user_id);
    if departures::left_suspended(&state.db, &departed).await? {
        return Err(ApiError::Forbidden(
            "this LINE account was suspended before it was deleted: it cannot register again"
                .into(),
        ));
    }
    let email_confirmed_at = email_confirmation(state, user.id, submitted.valid).await?;
    let submission = Submission {
        profile: submitted.valid,
        payload: submitted.payload,
        hash: submitted.hash,
        email_confirmed_at,
    };
    Ok(
        match profiles::register(&state.db, &user, submission, state.now()).await {
            Ok(registration) => {
                // Whoever blocked them before they left still has them blocked, and the other
                // way round; the open reports about them are back in the reviewers' queue (a
                // retry finds nothing left to restore).
                if let Some(row) = profiles::find_row(&state.db, user.id).await? {
                    departures::restore_blocks(&state.db, &departed, row.id, state.now()).await?;
                    departures::restore_reports(&state.db, &departed, row.id).await?;
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
            Err(RegisterError::Exists) => {
                return Err(ApiError::Conflict("the profile already exists".into()));
            }
            Err(RegisterError::Storage(err)) => return Err(err.into()),
        },
    )
}

/// Resubmits the user's REJECTED profile (PENDING again). 404 E003 without a profile, 403 E004
/// unless it is REJECTED, 409 E005 when it changed meanwhile.
pub async fn resubmit(
    state: &AppState,
    user: &user::Model,
    submitted: ProfileSubmission<'_>,
) -> Result<SubmitOutcome, ApiError> {
    let email_confirmed_at = email_confirmation(state, user.id, submitted.valid).await?;
    let submission = Submission {
        profile: submitted.valid,
        payload: submitted.payload,
        hash: submitted.hash,
        email_confirmed_at,
    };
    match profiles::resubmit(&state.db, user, submission, state.now()).await {
        Ok(registration) => Ok(SubmitOutcome::Done(registration)),
        Err(ResubmitError::NoProfile) => Err(ApiError::NotFound),
        Err(ResubmitError::NotEditable(status)) => Err(ApiError::Forbidden(format!(
            "a {status} profile cannot be edited; only a REJECTED one"
        ))),
        Err(ResubmitError::UnknownFiles {
            photos,
            verification,
        }) => Ok(SubmitOutcome::UnknownFiles(UnknownFiles {
            photos,
            verification,
        })),
        Err(ResubmitError::Changed) => Err(ApiError::Conflict(
            "the profile changed meanwhile; reload it".into(),
        )),
        Err(ResubmitError::Storage(err)) => Err(err.into()),
    }
}

/// Deletes the user's account at once, in one transaction: what is kept is recorded under a hash
/// of their LINE user id (a suspension; the blocks between them and others; the open reports
/// about them, while the ones they filed stay without their name), their matches end
/// for the other side too, and every row that is theirs goes (sessions, pending pushes, profile,
/// lists, likes, matches and messages, codes, the user). Their stored files are queued
/// and removed after the commit (`cleanup::remove_departed_files`, resumed by the next
/// housekeeping run if this process dies first). With the member's LINE access token, LINE is
/// asked to revoke their authorisation of the app.
pub async fn delete_account(
    state: &AppState,
    user: &user::Model,
    line_access_token: Option<String>,
) -> Result<Outcome<()>, ApiError> {
    let now = state.now();
    let hash = departures::line_hash(&user.line_user_id);
    let txn = storage::begin_user_write(&state.db, user.id).await?;
    let mut after = AfterCommit::default();
    let profile = profiles::find_row(&txn, user.id).await?;
    let suspended = profile
        .as_ref()
        .is_some_and(|p| p.status == profile::Status::Suspended);
    departures::record(&txn, &hash, suspended, now).await?;
    if let Some(profile) = &profile {
        departures::keep_blocks(&txn, profile.id, &hash, now).await?;
        departures::keep_reports(&txn, profile.id, &hash).await?;
        end_all_relations(&txn, profile.id, now, &mut after).await?;
        after.pool_changed(profile.id);
    }
    if departures::queue_files(&txn, user.id, now).await? > 0 {
        after.files_queued();
    }
    departures::delete_user(&txn, user.id, &user.line_user_id).await?;
    txn.commit()
        .await
        .context("committing an account deletion")?;
    if let Some(token) = line_access_token {
        after.deauthorize(token);
    }
    tracing::info!(user = user.id, "account deleted");
    Ok(Outcome::new((), after))
}

/// Takes an approved member out of everyone's introductions (and stops their own lists) or
/// brings them back; their matches go on either way. Answers since when they are paused.
pub async fn set_paused(
    state: &AppState,
    viewer: &crate::access::Viewer,
    paused: bool,
) -> Result<Outcome<Option<i64>>, ApiError> {
    let me = viewer.approved_member()?;
    let since = if paused {
        Some(storage::pauses::pause(&state.db, me, state.now()).await?)
    } else {
        storage::pauses::resume(&state.db, me).await?;
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
pub async fn set_hides_colleagues(
    state: &AppState,
    viewer: &crate::access::Viewer,
    hides: bool,
) -> Result<Outcome<(bool, bool)>, ApiError> {
    let me = viewer.approved_member()?;
    storage::colleagues::set_hides(&state.db, me, hides).await?;
    let (hides, employer) = storage::colleagues::own(&state.db, me).await?;
    tracing::info!(member = me, hides, "colleagues switch changed");
    let mut after = AfterCommit::default();
    after.pool_changed(me);
    Ok(Outcome::new((hides, employer.is_some()), after))
}

/// Ends one session (sign out of this device).
pub async fn sign_out(state: &AppState, token_hash: &str) -> Result<(), ApiError> {
    storage::sessions::revoke(&state.db, token_hash, state.now()).await?;
    tracing::info!("signed out");
    Ok(())
}

/// Ends every session of the user (sign out everywhere).
pub async fn sign_out_everywhere(state: &AppState, user_id: i64) -> Result<(), ApiError> {
    let ended = storage::sessions::revoke_all(&state.db, user_id, state.now()).await?;
    tracing::info!(user = user_id, sessions = ended, "signed out everywhere");
    Ok(())
}

/// Makes one of the user's files their avatar (404 E003 for anyone else's or an unknown one,
/// 403 E004 for the proof of employment, which others must never see). An upload made the
/// avatar no longer expires; the one it replaces does again (`files::release_avatar`).
pub async fn set_avatar(state: &AppState, user_id: i64, file_id: &str) -> Result<String, ApiError> {
    let txn = storage::begin_user_write(&state.db, user_id).await?;
    let file = files::find_owned(&txn, user_id, file_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    if file.purpose == file::PURPOSE_VERIFY {
        return Err(ApiError::Forbidden(
            "the proof of employment cannot be the avatar: others see the avatar".into(),
        ));
    }
    if !files::claim_as_avatar(&txn, &file, state.now()).await? {
        return Err(ApiError::NotFound);
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
    Ok(file.id)
}
