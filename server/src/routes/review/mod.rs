//! /review: the reviewer console's API. Every call needs a reviewer's session (`Reviewer`: 401
//! without a valid session, 403 E004 for a member). Each handler calls one use-case of
//! `usecases::review`; the request and answer types are in [`views`].

mod views;

use kizuna_core::rules;
use poem_openapi::{
    OpenApi,
    param::{Path, Query},
    payload::Json,
};

pub use views::*;

use super::{ApiTags, State, page_size};
use crate::{
    access::Viewer,
    error::ApiError,
    extract::{auth::Reviewer, body::JsonBody},
    usecases::review::{self, Decided, DecisionInput, Target},
};

/// Records a decision (on a profile or its revision) and applies what follows it.
async fn decide(
    state: &State,
    caller: &Reviewer,
    profile_id: i64,
    input: &DecisionInput<'_>,
    target: Target,
) -> Result<Decided, ApiError> {
    let viewer = Viewer::from(&caller.0);
    let outcome =
        review::decide(&state.db, state.now(), &viewer, profile_id, input, target).await?;
    Ok(outcome.apply(state).await)
}

/// A decision answered for the other kind of target: the use-case broke its word.
fn answered_for_other() -> ApiError {
    ApiError::Internal(anyhow::anyhow!("a decision answered for another target"))
}

#[derive(Default)]
pub struct ReviewApi;

#[OpenApi(tag = "ApiTags::Review")]
impl ReviewApi {
    /// The review queue
    ///
    /// PENDING profiles, the longest waiting first, with how long each has waited, whether it is
    /// a resubmission and who holds it. Reviewers only (403 E004 for a member).
    #[oai(path = "/review/queue", method = "get")]
    async fn queue(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        /// At most this many entries (`rules::REVIEW_PAGE`: 1 to 200, default 200).
        limit: Query<Option<u64>>,
    ) -> Result<QueueResponse, ApiError> {
        let limit = page_size(limit.0, rules::REVIEW_PAGE, rules::REVIEW_PAGE.max)?;
        let queue = review::queue(&state.db, state.now(), caller.0.user.id, limit).await?;
        Ok(QueueResponse::Ok(Json(queue.into())))
    }

    /// A profile's review
    ///
    /// The whole profile as submitted, its photos, the verification (method, the employer of the
    /// work e-mail's domain and whether its code was confirmed, the proof-of-employment file,
    /// the review link, the description), the member's language and friendship, every earlier
    /// status change with its reasons and note, and for a resubmission what changed. Reviewers
    /// only; 404 E003 for an unknown profile.
    #[oai(path = "/review/profiles/:profileId", method = "get")]
    async fn view(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "profileId")] profile_id: Path<i64>,
    ) -> Result<ViewResponse, ApiError> {
        let file = review::view(&state.db, state.now(), caller.0.user.id, profile_id.0).await?;
        Ok(ViewResponse::Ok(Json(file.into())))
    }

    /// Claim a profile
    ///
    /// Holds the profile for the caller for 15 minutes (claiming again renews it), so that no
    /// other reviewer decides it meanwhile; an abandoned claim lapses by itself. 409 E005 while
    /// another reviewer holds it; 403 E004 for the caller's own profile or a member with an open
    /// report between them either way; 404 E003 for an unknown
    /// profile.
    #[oai(path = "/review/profiles/:profileId/claim", method = "post")]
    async fn claim(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "profileId")] profile_id: Path<i64>,
    ) -> Result<ClaimResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        let claimed = review::claim(&state.db, state.now(), &viewer, profile_id.0).await?;
        Ok(ClaimResponse::Ok(Json(claimed.into())))
    }

    /// Release a claim
    ///
    /// Lets go of a profile the caller holds (nothing held is fine). 409 E005 while another
    /// reviewer holds it; 404 E003 for an unknown profile.
    #[oai(path = "/review/profiles/:profileId/claim", method = "delete")]
    async fn release(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "profileId")] profile_id: Path<i64>,
    ) -> Result<ReleaseResponse, ApiError> {
        review::release(&state.db, state.now(), caller.0.user.id, profile_id.0).await?;
        Ok(ReleaseResponse::Released)
    }

    /// Decide a profile
    ///
    /// `{action, reasons, note, version}`: APPROVE or REJECT a PENDING profile, SUSPEND an
    /// APPROVED one, REINSTATE a SUSPENDED one (kizuna-core's transitions). 422 E002 with
    /// `fields` (`reasons`, `note`) for a decision that is not one (reasons of the wrong
    /// catalogue, none for REJECT or SUSPEND, OTHER without a note); 400 E002 for an action
    /// outside the four. 409 E005, never an
    /// overwrite, when another reviewer holds the profile, when it was decided or resubmitted
    /// since `version`, or when the action is no transition from its status now. 403 E004 for
    /// the caller's own profile (nobody approves themselves) and for a member with an open report
    /// between them either way. The decision,
    /// its history row and the member's LINE push are written together; the push is sent in the
    /// member's language (not to a member who unfollowed the official account).
    #[oai(path = "/review/profiles/:profileId/decision", method = "post")]
    async fn decide(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "profileId")] profile_id: Path<i64>,
        /// `{action, reasons, note, version}`.
        body: Json<JsonBody<DecisionBody>>,
    ) -> Result<DecisionResponse, ApiError> {
        let body = body.0.read()?;
        let input = DecisionInput {
            action: body.action.as_str(),
            reasons: &body.reasons,
            note: body.note.as_deref(),
            employer: body.employer.as_deref(),
        };
        let target = Target::Profile {
            version: body.version,
        };
        let decided = decide(&state, &caller, profile_id.0, &input, target).await?;
        let result = DecisionResult::of(profile_id.0, &decided).ok_or_else(answered_for_other)?;
        Ok(DecisionResponse::Ok(Json(result)))
    }
    /// Decide a revision
    ///
    /// `{action, reasons, note, revision, employer}` for an approved member's pending revision:
    /// APPROVE swaps its fields into the profile (others see the new photos and
    /// texts from then on; what the member changed at once since stays), REJECT keeps the
    /// approved version and tells the member the reasons (`reject` catalogue; their form marks
    /// the fields). 422 E002 for a decision that is not one (SUSPEND or REINSTATE: `action`
    /// `invalid_choice`; reasons as in a profile's decision). 409 E005, never an overwrite, when
    /// another reviewer holds the profile, when the revision was decided since or replaced by a
    /// newer save (that one is in the queue), or when the member is no longer approved. 404 E003
    /// without a pending revision; 403 E004 for the caller's own profile or a member with an
    /// open report between them either way. The decision and the member's LINE push are written
    /// together.
    #[oai(
        path = "/review/profiles/:profileId/revision/decision",
        method = "post"
    )]
    async fn decide_revision(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "profileId")] profile_id: Path<i64>,
        /// `{action, reasons, note, revision, employer}`.
        body: Json<JsonBody<RevisionDecisionBody>>,
    ) -> Result<RevisionDecisionResponse, ApiError> {
        let body = body.0.read()?;
        let input = DecisionInput {
            action: body.action.as_str(),
            reasons: &body.reasons,
            note: body.note.as_deref(),
            employer: body.employer.as_deref(),
        };
        let target = Target::Revision {
            number: body.revision,
        };
        let decided = decide(&state, &caller, profile_id.0, &input, target).await?;
        let result =
            RevisionDecisionResult::of(profile_id.0, &decided).ok_or_else(answered_for_other)?;
        Ok(RevisionDecisionResponse::Ok(Json(result)))
    }

    /// The report queue
    ///
    /// Open reports of one member by another, oldest first: who reported whom, the reasons, the
    /// reporter's words, the suspension reasons they suggest, and the reported member's status
    /// and version, so that the reviewer can SUSPEND them through the decision call (which
    /// settles every open report about them). A report the caller filed or one about them is
    /// not in their queue (the other reviewers read and settle it). Reviewers only (403 E004 for
    /// a member).
    #[oai(path = "/review/reports", method = "get")]
    async fn reports(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        /// At most this many entries (`rules::REVIEW_PAGE`: 1 to 200, default 200).
        limit: Query<Option<u64>>,
    ) -> Result<ReportsResponse, ApiError> {
        let limit = page_size(limit.0, rules::REVIEW_PAGE, rules::REVIEW_PAGE.max)?;
        let viewer = Viewer::from(&caller.0);
        let items = review::report_queue(&state.db, &viewer, limit).await?;
        Ok(ReportsResponse::Ok(Json(ReportQueue {
            items: items.into_iter().map(ReportItem::from).collect(),
            now: state.now(),
        })))
    }

    /// Dismiss a report
    ///
    /// Closes an open report without action. 404 E003 for an unknown report, 409 E005 for one
    /// that is settled already (dismissed, or actioned by a suspension), 403 E004 for a report the
    /// caller filed or one about them. Reviewers only.
    #[oai(path = "/review/reports/:reportId/dismiss", method = "post")]
    async fn dismiss(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "reportId")] report_id: Path<i64>,
    ) -> Result<DismissResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        review::dismiss_report(&state.db, &viewer, report_id.0).await?;
        Ok(DismissResponse::Ok(Json(ReportDismissed {
            report_id: report_id.0,
        })))
    }

    /// Conversations the screening flagged
    ///
    /// Matches in which one member's message carried money talk (kizuna-core's
    /// `safety::review_due`), oldest first, each once: who wrote it, the other member, why, when
    /// it entered the queue, and the conversation with each message's kinds. A reviewer dismisses
    /// it, or suspends the member through the decision call (which settles it). The rule alone
    /// never suspends. A conversation of the caller's own is not in their queue. Reviewers only
    /// (403 E004 for a member).
    #[oai(path = "/review/conversations", method = "get")]
    async fn flagged(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        /// At most this many entries (`rules::REVIEW_PAGE`: 1 to 200, default 200).
        limit: Query<Option<u64>>,
    ) -> Result<FlaggedResponse, ApiError> {
        let limit = page_size(limit.0, rules::REVIEW_PAGE, rules::REVIEW_PAGE.max)?;
        let viewer = Viewer::from(&caller.0);
        let items = review::flagged(&state.db, &viewer, limit).await?;
        Ok(FlaggedResponse::Ok(Json(FlaggedQueue {
            items: items.into_iter().map(FlaggedConversation::from).collect(),
            now: state.now(),
        })))
    }

    /// Dismiss a flagged conversation
    ///
    /// Closes it without action (it never enters the queue again). 404 E003 for a match never
    /// flagged, 409 E005 for one settled already, 403 E004 for a conversation of the caller's
    /// own. Reviewers only.
    #[oai(path = "/review/conversations/:matchId/dismiss", method = "post")]
    async fn dismiss_flagged(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "matchId")] match_id: Path<i64>,
    ) -> Result<FlaggedDismissResponse, ApiError> {
        let viewer = Viewer::from(&caller.0);
        review::dismiss_flagged(&state.db, state.now(), &viewer, match_id.0).await?;
        Ok(FlaggedDismissResponse::Ok(Json(FlaggedDismissed {
            match_id: match_id.0,
        })))
    }

    /// Members without an employer on record
    ///
    /// Approved (or suspended) members approved before review picked an employer, whose
    /// verification was not a work e-mail: until a reviewer sets one (`PUT
    /// /review/profiles/{profileId}/employer`) they have no colleagues. Oldest first, at most 200.
    /// Reviewers only (403 E004 for a member).
    #[oai(path = "/review/employers/missing", method = "get")]
    async fn without_employer(
        &self,
        state: poem::web::Data<&State>,
        _caller: Reviewer,
    ) -> Result<WithoutEmployerResponse, ApiError> {
        let members = review::without_employer(&state.db).await?;
        Ok(WithoutEmployerResponse::Ok(Json(WithoutEmployer {
            members: members
                .into_iter()
                .map(MemberWithoutEmployer::from)
                .collect(),
        })))
    }

    /// Put a member's employer on record
    ///
    /// For a member listed by `GET /review/employers/missing` (or to correct one): the catalogue
    /// id of their employer, read from the proof in their review file. 422 E002 `employer:
    /// unknown_employer` outside the catalogue; 404 E003 unless the profile is approved or
    /// suspended. Reviewers only (403 E004 for a member), and never for a case they are a party
    /// to: 403 E004 for the caller's own profile or a member with an open report between them
    /// either way.
    #[oai(path = "/review/profiles/:profileId/employer", method = "put")]
    async fn set_employer(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "profileId")] profile_id: Path<i64>,
        body: Json<JsonBody<EmployerBody>>,
    ) -> Result<EmployerSetResponse, ApiError> {
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        let limiter = state.limits.get(crate::rate_limit::LimitKind::Switch);
        let employer =
            review::set_employer(&state.db, limiter, &viewer, profile_id.0, &body.employer)
                .await?
                .apply(&state)
                .await;
        Ok(EmployerSetResponse::Ok(Json(employer.into())))
    }

    /// Appeals waiting for a second look
    ///
    /// Suspended members' requests that the suspension be looked at again, the longest waiting
    /// first (with `waitedSecs`), each with the member's text and the suspension's reasons. An
    /// appeal the caller may not answer is not in their queue: one of a member they suspended,
    /// their own, or of a member with an open report between them. Reviewers only (403 E004 for
    /// a member).
    #[oai(path = "/review/appeals", method = "get")]
    async fn appeals(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        /// At most this many entries (`rules::REVIEW_PAGE`: 1 to 200, default 200).
        limit: Query<Option<u64>>,
    ) -> Result<AppealsResponse, ApiError> {
        let limit = page_size(limit.0, rules::REVIEW_PAGE, rules::REVIEW_PAGE.max)?;
        let viewer = Viewer::from(&caller.0);
        let items = review::appeals::queue(&state.db, &viewer, limit).await?;
        Ok(AppealsResponse::Ok(Json(AppealQueue::of(
            items,
            state.now(),
        ))))
    }

    /// Answer an appeal
    ///
    /// `{outcome, note}`: UPHELD keeps the suspension (an UPHOLD row in the history);
    /// REINSTATED approves the member again (the ordinary REINSTATE decision). The member is
    /// pushed the answer in their language. 422 E002 `outcome`/`note` for an answer that is not
    /// one; 403 E004 for the reviewer who suspended the member (another reviewer gives the
    /// second look), the caller's own appeal, or a member with an open report between them;
    /// 409 E005 once it was answered (of two reviewers answering at once, one does) or when the
    /// member is no longer suspended; 404 E003 for an unknown appeal.
    #[oai(path = "/review/appeals/:appealId/decision", method = "post")]
    async fn decide_appeal(
        &self,
        state: poem::web::Data<&State>,
        caller: Reviewer,
        #[oai(name = "appealId")] appeal_id: Path<i64>,
        body: Json<JsonBody<AppealDecisionBody>>,
    ) -> Result<AppealDecisionResponse, ApiError> {
        let body = body.0.read()?;
        let viewer = Viewer::from(&caller.0);
        let answered = review::appeals::decide(
            &state.db,
            state.now(),
            &viewer,
            appeal_id.0,
            &body.outcome,
            body.note.as_deref(),
        )
        .await?
        .apply(&state)
        .await;
        Ok(AppealDecisionResponse::Ok(Json(AppealAnswered {
            appeal_id: answered.id,
            status: answered.status.as_str().to_string(),
            decided_at: answered.decided_at.unwrap_or_default(),
        })))
    }
}
