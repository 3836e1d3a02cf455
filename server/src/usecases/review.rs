//! A reviewer's decision: the profile's new status, its history row and the member's LINE push
//! (in their language) commit together; a suspension also ends every match of the member and
//! settles the reports about them in the same transaction. Afterwards the push worker is woken,
//! the ended chats are told and the matchmaking pool is dropped (the member's standing changed).
//! A suspension also ends all the member's sessions.

use anyhow::Context;
use kizuna_core::{line::LineUserId, review::Decision};

use super::{AfterCommit, Outcome, matchmaking::end_all_relations};
use crate::{
    error::ApiError,
    line::{
        messages::{PushText, liff_url, push_messages},
        push,
    },
    state::AppState,
    storage::{
        self, StorageError,
        entity::report,
        locale, matchmaking as store,
        review::{self, Decided, Deciding},
    },
};

/// The translation keys and codes of a decision's reasons.
fn reason_keys(decision: &Decision) -> Vec<(&'static str, &'static str)> {
    match decision {
        Decision::Reject { reasons, .. } => reasons.iter().map(|r| (r.key(), r.code())).collect(),
        Decision::Suspend { reasons, .. } => reasons.iter().map(|r| (r.key(), r.code())).collect(),
        Decision::Approve { .. } | Decision::Reinstate { .. } => Vec::new(),
    }
}

/// Records a reviewer's decision (see the module). An approval also puts the member's employer
/// on record (kizuna-core's `employer_on_approval`: the work e-mail's, or `employer`, the one the
/// reviewer picked). The push is written for a member who unfollowed the official account too:
/// the worker marks it unfollowed instead of sending it (or sends it if they follow again
/// first).
pub async fn decide(
    state: &AppState,
    deciding: &Deciding<'_>,
    employer: Option<&str>,
) -> Result<Outcome<Decided>, ApiError> {
    let now = state.now();
    let txn = storage::begin_write(&state.db)
        .await
        .context("starting a decision")?;
    // The claim, the version and the transition are checked first: a 409 says more than a
    // missing employer on a profile that changed meanwhile.
    let recorded = review::record_decision(&txn, deciding, now).await?;
    if let Decision::Approve { .. } = deciding.decision
        && let Some(row) = store::member(&txn, deciding.profile_id).await?
    {
        let method = row
            .verify_method
            .as_deref()
            .and_then(kizuna_core::VerifyMethod::parse)
            .ok_or_else(|| StorageError::Unreadable("profiles.verify_method".into()))?;
        let on_record = kizuna_core::review::employer_on_approval(
            method,
            row.company_email.as_deref(),
            employer,
        )
        .map_err(|fields| ApiError::validation("the approval needs an employer", &fields))?;
        storage::colleagues::set_employer(&txn, deciding.profile_id, on_record.id).await?;
    }
    let mut after = AfterCommit::default();
    if let Decision::Suspend { .. } = deciding.decision {
        // A suspended member leaves every match at once (for the other person too), and the
        // reports about them are settled by this decision.
        end_all_relations(&txn, deciding.profile_id, now, &mut after).await?;
        store::settle_reports_about(&txn, deciding.profile_id, report::Status::Actioned).await?;
        // Signed out everywhere: signing in again shows why, and nothing else.
        storage::sessions::revoke_all(&txn, recorded.owner.id, now).await?;
    }
    let member = LineUserId::parse(&recorded.owner.line_user_id)
        .ok_or_else(|| StorageError::Unreadable("users.line_user_id".into()))?;
    let language = locale::locale_of_user(&txn, recorded.owner.id).await?;
    let reasons: Vec<String> = reason_keys(deciding.decision)
        .into_iter()
        .map(|(key, code)| language.text(key).unwrap_or(code).to_string())
        .collect();
    let suspended_for = reasons.join(" / ");
    let text = match deciding.decision {
        Decision::Approve { .. } | Decision::Reinstate { .. } => PushText::Approved,
        Decision::Reject { note, .. } => PushText::ChangesRequested {
            reasons: &reasons,
            note: note.as_deref(),
        },
        Decision::Suspend { .. } => PushText::Suspended {
            reason: &suspended_for,
        },
    };
    let app_url = liff_url(&state.settings.line.liff_id);
    push::enqueue(
        &txn,
        &member,
        &push_messages(language, &text, Some(&app_url)),
    )
    .await?;
    after.pushed();
    txn.commit().await.context("committing a decision")?;
    after.pool_changed(deciding.profile_id);
    tracing::info!(
        profile = deciding.profile_id,
        reviewer = deciding.reviewer,
        action = deciding.decision.action().as_str(),
        "review decision"
    );
    Ok(Outcome::new(recorded.decided, after))
}

/// Puts the employer of a member approved before review picked one on record (the console lists
/// them): from then on their colleagues are kept apart as the switches say. 404 E003 for an id
/// without an approved or suspended profile; 422 E002 `employer` for an id outside the catalogue.
pub async fn set_employer(
    state: &AppState,
    profile_id: i64,
    employer: &str,
) -> Result<Outcome<&'static kizuna_core::catalogue::Employer>, ApiError> {
    let Some(known) = kizuna_core::catalogue::employer(employer.trim()) else {
        return Err(ApiError::field(
            "no such employer",
            "employer",
            kizuna_core::rules::RuleCode::UnknownEmployer.as_str(),
        ));
    };
    let member = store::member(&state.db, profile_id).await?.filter(|row| {
        matches!(
            kizuna_core::review::ReviewStatus::from(row.status),
            kizuna_core::review::ReviewStatus::Approved
                | kizuna_core::review::ReviewStatus::Suspended
        )
    });
    if member.is_none() {
        return Err(ApiError::NotFound);
    }
    storage::colleagues::set_employer(&state.db, profile_id, known.id).await?;
    tracing::info!(profile = profile_id, "employer put on record");
    let mut after = AfterCommit::default();
    after.pool_changed(profile_id);
    Ok(Outcome::new(known, after))
}
