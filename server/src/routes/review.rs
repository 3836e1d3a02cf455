//! /review: the reviewer console's API. Every call needs a reviewer's session (`Reviewer`: 401
//! without a valid session, 403 E004 for a member). The storage and its race rules are
//! `storage::review`; decisions are read and applied only through `kizuna_core::review`.

use kizuna_core::{
    report::ReportReason,
    review::{Decision, ReviewStatus},
    rules::{self, REVIEW_CLAIM_SECS},
};
use poem_openapi::{
    ApiResponse, Enum, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};

use super::{ApiTags, ReviewState, State, page_size};
use crate::extract::{
    auth::Reviewer,
    body::{JsonBody, ProfilePayload},
};
use crate::{
    access::{self, Viewer},
    error::ApiError,
    storage::{
        chat,
        entity::review_claim,
        matchmaking::{self, Dismissal},
        review::{self, Deciding, ReviewError},
        revisions::Revision,
    },
    usecases::{self, revisions::RevisionDeciding},
};
use kizuna_core::profile::UserProfileCreate;

/// Queue entries answered at most, unless `limit` says fewer.

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ClaimInfo {
    /// Whether the caller holds it.
    pub mine: bool,
    /// Unix seconds the claim was taken or renewed.
    pub claimed_at: i64,
    /// Unix seconds when it lapses unless renewed.
    pub expires_at: i64,
}

impl ClaimInfo {
    fn of(claim: &review_claim::Model, reviewer: i64) -> ClaimInfo {
        ClaimInfo {
            mine: claim.reviewer_user_id == reviewer,
            claimed_at: claim.claimed_at,
            expires_at: claim.expires_at,
        }
    }
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct QueueItem {
    /// The profile's id (for the calls below).
    pub profile_id: i64,
    #[oai(nullable)]
    pub nickname: Option<String>,
    /// Unix seconds when it was (re)submitted.
    pub submitted_at: i64,
    /// Seconds it has waited since.
    pub waited_secs: i64,
    /// A resubmission after a rejection (its review shows what changed).
    pub resubmission: bool,
    /// 1 for the registration, 2 for the first resubmission, …
    pub submission: i32,
    /// The profile's version now.
    pub version: i64,
    /// A live claim, if a reviewer holds it.
    #[oai(nullable)]
    pub claim: Option<ClaimInfo>,
    /// For a revision of an approved profile (issue 21 §1): its number, to send with the
    /// decision (`POST /review/profiles/{profileId}/revision/decision`); null for a PENDING
    /// profile.
    #[oai(nullable)]
    pub revision: Option<i32>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewQueue {
    /// PENDING profiles, the longest waiting first.
    pub items: Vec<QueueItem>,
    /// Unix seconds of the answer (the waits are counted to it).
    pub now: i64,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EmployerRef {
    /// The catalogue id.
    pub id: String,
    pub name: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewVerification {
    /// COMPANY_EMAIL, EMPLOYEE_ID or REVIEW_LINK.
    #[oai(nullable)]
    pub method: Option<String>,
    #[oai(nullable)]
    pub company_email: Option<String>,
    /// The catalogue employer of the work e-mail's domain.
    #[oai(nullable)]
    pub employer: Option<EmployerRef>,
    /// The employer review put on record (at the approval, or set from the console afterwards):
    /// the member's colleagues are the members with the same one. Null before.
    #[oai(nullable)]
    pub employer_on_record: Option<EmployerRef>,
    /// Whether the member confirmed the work e-mail with its code before submitting.
    pub email_confirmed: bool,
    /// Unix seconds of that confirmation.
    #[oai(nullable)]
    pub email_confirmed_at: Option<i64>,
    /// The proof of employment (employee-ID photo): fetch it through /api/file/fetch/{fileId}.
    #[oai(nullable)]
    pub file_id: Option<String>,
    #[oai(nullable)]
    pub review_link: Option<String>,
    #[oai(nullable)]
    pub description: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewMember {
    /// The LINE display name.
    #[oai(nullable)]
    pub display_name: Option<String>,
    /// zh-TW, en or ja: the language of the member's pushes.
    pub locale: String,
    /// Whether the member follows the official account (false: no push reaches them; null: LINE
    /// never said).
    #[oai(nullable)]
    pub friend: Option<bool>,
    /// Unix seconds of the first registration.
    pub registered_at: i64,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// Unix seconds.
    pub at: i64,
    /// APPROVE, REJECT, SUSPEND, REINSTATE, RESUBMIT; null for the first submission.
    #[oai(nullable)]
    pub action: Option<String>,
    #[oai(nullable)]
    pub from_status: Option<String>,
    pub to_status: String,
    /// Reason codes (`GET /catalogue/codes` has their translation keys).
    pub reasons: Vec<String>,
    #[oai(nullable)]
    pub note: Option<String>,
    /// The deciding reviewer's display name, for a decision.
    #[oai(nullable)]
    pub reviewer: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewView {
    pub profile_id: i64,
    pub status: ReviewState,
    /// Send it back with a decision: a profile changed since answers 409 E005.
    pub version: i64,
    /// Unix seconds of the submission shown.
    pub submitted_at: i64,
    /// 1 for the registration, more for a resubmission.
    pub submission: i32,
    pub resubmission: bool,
    /// For a resubmission: the fields that differ from the previous submission (wire names).
    pub changed_fields: Vec<String>,
    /// The whole profile as submitted.
    pub profile: ProfilePayload,
    /// For a resubmission: the previous submission, to compare.
    #[oai(nullable)]
    pub previous_profile: Option<ProfilePayload>,
    /// The photo file ids in order (fetch through /api/file/fetch/{fileId} or the image proxy).
    pub photos: Vec<String>,
    pub verification: ReviewVerification,
    pub member: ReviewMember,
    /// Every status change, oldest first.
    pub history: Vec<HistoryEntry>,
    /// A live claim, if any.
    #[oai(nullable)]
    pub claim: Option<ClaimInfo>,
    /// When an approved member's revision waits (issue 21 §1): its number, to send with the
    /// decision (`POST /review/profiles/{profileId}/revision/decision`). Then `profile`,
    /// `photos` and `verification` are the revision's, `previousProfile` is the approved
    /// version others see meanwhile, and `changedFields` what the revision changes.
    #[oai(nullable)]
    pub revision: Option<i32>,
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevisionDecisionBody {
    /// APPROVE (its fields are swapped in: others see them) or REJECT (with reasons of the
    /// `reject` catalogue: the approved version stands and the member is told why).
    pub action: DecisionAction,
    /// Reason codes: one or more for REJECT, none for APPROVE.
    #[oai(default)]
    #[serde(default)]
    pub reasons: Vec<String>,
    /// A note to the member (at most 500 characters; required with the reason OTHER).
    #[oai(default)]
    #[serde(default)]
    pub note: Option<String>,
    /// The revision number the reviewer opened (from the queue or the review).
    pub revision: i32,
    /// APPROVE of a revision that changes the verification: the employer to put on record, as
    /// in a profile's decision (required for the employee-ID photo and the verification link).
    #[oai(default)]
    #[serde(default)]
    pub employer: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RevisionDecisionResult {
    pub profile_id: i64,
    /// The revision's status after the decision: APPROVED or REJECTED.
    pub status: String,
    /// The profile's version after the decision (one more after an approval).
    pub version: i64,
    /// Unix seconds.
    pub decided_at: i64,
}

#[derive(ApiResponse)]
pub enum RevisionDecisionResponse {
    /// Recorded; the member's LINE push is on its way.
    #[oai(status = 200)]
    Ok(Json<RevisionDecisionResult>),
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ClaimBody {
    pub profile_id: i64,
    /// The profile's version: send it with the decision.
    pub version: i64,
    pub claimed_at: i64,
    /// Unix seconds when the claim lapses (15 minutes after it was taken or renewed).
    pub expires_at: i64,
}

/// A reviewer's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, serde::Deserialize)]
#[oai(rename_all = "SCREAMING_SNAKE_CASE")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DecisionAction {
    Approve,
    Reject,
    Suspend,
    Reinstate,
}

impl DecisionAction {
    fn as_str(self) -> &'static str {
        match self {
            DecisionAction::Approve => "APPROVE",
            DecisionAction::Reject => "REJECT",
            DecisionAction::Suspend => "SUSPEND",
            DecisionAction::Reinstate => "REINSTATE",
        }
    }
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecisionBody {
    /// APPROVE or REJECT a PENDING profile; SUSPEND an APPROVED one; REINSTATE a SUSPENDED one.
    pub action: DecisionAction,
    /// Reason codes: one or more for REJECT (`reject` catalogue) and SUSPEND (`suspend`
    /// catalogue), none otherwise.
    #[oai(default)]
    #[serde(default)]
    pub reasons: Vec<String>,
    /// A note to the member (at most 500 characters; required with the reason OTHER).
    #[oai(default)]
    #[serde(default)]
    pub note: Option<String>,
    /// The version the reviewer opened (from the review or the claim).
    pub version: i64,
    /// APPROVE only: the catalogue id of the member's employer, which goes on record (their
    /// colleagues are the members with the same one). Required for the employee-ID photo and the
    /// verification link (422 E002 `employer: required`, `unknown_employer`); for a work e-mail
    /// it is the e-mail's employer and may be left out (`mismatch` when it names another).
    #[oai(default)]
    #[serde(default)]
    pub employer: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DecisionResult {
    pub profile_id: i64,
    /// The status after the decision.
    pub status: ReviewState,
    /// The profile's new version.
    pub version: i64,
    /// Unix seconds.
    pub decided_at: i64,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportedMember {
    pub profile_id: i64,
    pub nickname: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportItem {
    pub report_id: i64,
    /// Null when the reporter has since deleted their account: the report stays without naming
    /// them.
    #[oai(nullable)]
    pub reporter: Option<ReportedMember>,
    pub target: ReportedMember,
    /// The reported member's review status now.
    pub target_status: ReviewState,
    /// The reported member's profile version: a SUSPEND decision names it.
    pub target_version: i64,
    /// kizuna-core report reason codes (`report` catalogue of /catalogue/codes).
    pub reasons: Vec<String>,
    /// The suspension reason code each report reason suggests, in the same order, distinct.
    pub suggested_suspension: Vec<String>,
    /// The reporter's words (may be empty).
    pub text: String,
    /// Unix seconds.
    pub created_at: i64,
    /// The last `REPORT_CONVERSATION` (50) messages of the pair's match, oldest first (empty
    /// when they never matched or never wrote).
    pub conversation: Vec<ConversationLine>,
}

/// One message of a reported pair's chat, for the reviewer.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ConversationLine {
    /// `reporter` or `reported`.
    pub from: String,
    pub text: String,
    /// Unix seconds.
    pub sent_at: i64,
}

/// Messages of the pair's chat shown with a report.
pub const REPORT_CONVERSATION: u64 = 50;

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportQueue {
    pub items: Vec<ReportItem>,
    /// The server's time (Unix seconds), for "waiting for" on the console.
    pub now: i64,
}

#[derive(ApiResponse)]
pub enum ReportsResponse {
    /// Open reports, oldest first.
    #[oai(status = 200)]
    Ok(Json<ReportQueue>),
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportDismissed {
    pub report_id: i64,
}

#[derive(ApiResponse)]
pub enum DismissResponse {
    /// The report is closed without action.
    #[oai(status = 200)]
    Ok(Json<ReportDismissed>),
}

#[derive(ApiResponse)]
pub enum QueueResponse {
    /// The queue.
    #[oai(status = 200)]
    Ok(Json<ReviewQueue>),
}

#[derive(ApiResponse)]
pub enum ViewResponse {
    /// Everything needed to decide.
    #[oai(status = 200)]
    Ok(Json<ReviewView>),
}

#[derive(ApiResponse)]
pub enum ClaimResponse {
    /// The caller holds the profile until `expiresAt`.
    #[oai(status = 200)]
    Ok(Json<ClaimBody>),
}

#[derive(ApiResponse)]
pub enum ReleaseResponse {
    /// The caller no longer holds the profile (or never did).
    #[oai(status = 204)]
    Released,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MemberWithoutEmployer {
    pub profile_id: i64,
    #[oai(nullable)]
    pub nickname: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WithoutEmployer {
    pub members: Vec<MemberWithoutEmployer>,
}

#[derive(ApiResponse)]
pub enum WithoutEmployerResponse {
    /// The members to set.
    #[oai(status = 200)]
    Ok(Json<WithoutEmployer>),
}

#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EmployerBody {
    /// The catalogue id of the employer (checked against the catalogue: 422 `unknown_employer`;
    /// no length of its own, as in the decision's `employer`: the body limit bounds it).
    pub employer: String,
}

#[derive(ApiResponse)]
pub enum EmployerSetResponse {
    /// On record.
    #[oai(status = 200)]
    Ok(Json<EmployerRef>),
}

#[derive(ApiResponse)]
pub enum DecisionResponse {
    /// Recorded; the member's LINE push is on its way.
    #[oai(status = 200)]
    Ok(Json<DecisionResult>),
}

impl From<ReviewError> for ApiError {
    fn from(err: ReviewError) -> Self {
        match err {
            ReviewError::NotFound => ApiError::NotFound,
            ReviewError::OwnProfile => {
                ApiError::Forbidden("reviewers do not review their own profile".into())
            }
            ReviewError::HeldByAnother { until } => {
                ApiError::Conflict(format!("another reviewer holds this profile until {until}"))
            }
            ReviewError::Changed => {
                ApiError::Conflict("the profile changed since it was opened: reload it".into())
            }
            ReviewError::NotAllowed(why) => ApiError::Conflict(why),
            ReviewError::Storage(err) => err.into(),
        }
    }
}

fn state_of(status: crate::storage::entity::profile::Status) -> Result<ReviewState, ApiError> {
    Ok(ReviewState::from_core(ReviewStatus::from(status)))
}

fn payload(json: &str) -> Result<ProfilePayload, ApiError> {
    Ok(ProfilePayload(serde_json::from_str(json).map_err(|e| {
        ApiError::Internal(anyhow::Error::new(e).context("decoding a stored profile"))
    })?))
}

/// 403 E004 when the caller is a party to the profile's case: their own profile, or a member
/// with an open report between them either way (`access::may_review_profile`).
async fn refuse_a_party(state: &State, caller: &Reviewer, profile_id: i64) -> Result<(), ApiError> {
    let viewer = Viewer::from(&caller.0);
    if access::may_review_profile(&state.db, &viewer, profile_id).await? {
        Ok(())
    } else {
        Err(ApiError::Forbidden(
            "reviewers do not act on their own profile or on a member with a report between them"
                .into(),
        ))
    }
}

/// What a profile's review shows: the profile as submitted (with the previous submission for a
/// resubmission), or an approved member's revision beside the approved version.
struct Shown {
    submitted_at: i64,
    resubmission: bool,
    changed_fields: Vec<String>,
    profile: ProfilePayload,
    previous_profile: Option<ProfilePayload>,
    photos: Vec<String>,
    method: Option<String>,
    company_email: Option<String>,
    file_id: Option<String>,
    review_link: Option<String>,
    description: Option<String>,
}

impl Shown {
    /// A pending revision beside the approved payload (JSON text): what changed is
    /// kizuna-core's `revision_changes`.
    fn revision(approved: &str, revision: &Revision) -> Result<Shown, ApiError> {
        let read = |json: &str| -> Result<UserProfileCreate, ApiError> {
            serde_json::from_str(json).map_err(|e| {
                ApiError::Internal(anyhow::Error::new(e).context("decoding a stored profile"))
            })
        };
        let proposed = read(&revision.payload)?;
        let changed = kizuna_core::revision::revision_changes(&read(approved)?, &proposed);
        Ok(Shown {
            submitted_at: revision.submitted_at,
            resubmission: false,
            changed_fields: changed.into_iter().map(str::to_string).collect(),
            profile: payload(&revision.payload)?,
            previous_profile: Some(payload(approved)?),
            photos: proposed.photo_name_list.clone().unwrap_or_default(),
            method: proposed.verify_method.map(|m| m.as_str().to_string()),
            company_email: proposed.company_email.clone(),
            file_id: proposed.verify_temp_file_name.clone(),
            review_link: proposed.review_link.clone(),
            description: proposed.verify_description.clone(),
        })
    }
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
        let me = caller.0.user.id;
        let now = state.now();
        let limit = page_size(limit.0, rules::REVIEW_PAGE, rules::REVIEW_PAGE.max)?;
        let entries = review::queue(&state.db, limit, now).await?;
        let items = entries
            .into_iter()
            .map(|e| QueueItem {
                profile_id: e.profile_id,
                nickname: e.nickname,
                submitted_at: e.submitted_at,
                waited_secs: (now - e.submitted_at).max(0),
                resubmission: e.revision.is_none() && e.submission > 1,
                submission: e.submission,
                version: e.version,
                claim: e.claim.as_ref().map(|c| ClaimInfo::of(c, me)),
                revision: e.revision,
            })
            .collect();
        Ok(QueueResponse::Ok(Json(ReviewQueue { items, now })))
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
        let me = caller.0.user.id;
        let file = review::review_file(&state.db, profile_id.0, state.now())
            .await?
            .ok_or(ApiError::NotFound)?;
        let changed = file.changed_fields()?;
        let latest = file.submissions.last();
        let previous = match file.submissions.as_slice() {
            [.., previous, _] => Some(payload(&previous.payload)?),
            _ => None,
        };
        let names = review::reviewer_names(&state.db, &file.history).await?;
        let p = &file.profile;
        let mut email_confirmed_at = latest.and_then(|s| s.email_confirmed_at);
        let (_, on_record) = crate::storage::colleagues::own(&state.db, p.id).await?;
        // What is shown: the profile as submitted, or a revision beside the approved version.
        let mut shown = Shown {
            submitted_at: latest.map_or(p.created_at, |s| s.submitted_at),
            resubmission: latest.is_some_and(|s| s.number > 1),
            changed_fields: changed.into_iter().map(str::to_string).collect(),
            profile: payload(&p.payload)?,
            previous_profile: previous,
            photos: file.photos.clone(),
            method: p.verify_method.clone(),
            company_email: p.company_email.clone(),
            file_id: p.verify_file_id.clone(),
            review_link: p.review_link.clone(),
            description: p.verify_description.clone(),
        };
        if let Some(revision) = &file.revision {
            shown = Shown::revision(&p.payload, revision)?;
            email_confirmed_at = revision.email_confirmed_at;
        }
        let employer = shown
            .company_email
            .as_deref()
            .and_then(kizuna_core::catalogue::employer_for_email);
        let view = ReviewView {
            profile_id: p.id,
            status: state_of(p.status)?,
            version: p.version,
            submitted_at: shown.submitted_at,
            submission: latest.map_or(1, |s| s.number),
            resubmission: shown.resubmission,
            changed_fields: shown.changed_fields,
            profile: shown.profile,
            previous_profile: shown.previous_profile,
            photos: shown.photos,
            verification: ReviewVerification {
                method: shown.method,
                company_email: shown.company_email,
                employer: employer.map(|e| EmployerRef {
                    id: e.id.to_string(),
                    name: e.name.to_string(),
                }),
                employer_on_record: on_record
                    .as_deref()
                    .and_then(kizuna_core::catalogue::employer)
                    .map(|e| EmployerRef {
                        id: e.id.to_string(),
                        name: e.name.to_string(),
                    }),
                email_confirmed: email_confirmed_at.is_some(),
                email_confirmed_at,
                file_id: shown.file_id,
                review_link: shown.review_link,
                description: shown.description,
            },
            member: ReviewMember {
                display_name: file.owner.display_name.clone(),
                locale: file.locale.tag().to_string(),
                friend: file.friend,
                registered_at: p.created_at,
            },
            history: file
                .history
                .iter()
                .map(|h| HistoryEntry {
                    at: h.created_at,
                    action: h.action.clone(),
                    from_status: h.from_status.clone(),
                    to_status: h.to_status.clone(),
                    reasons: review::reasons_of(h),
                    note: h.note.clone(),
                    reviewer: h
                        .reviewer_user_id
                        .and_then(|id| names.get(&id).cloned().flatten()),
                })
                .collect(),
            claim: file.claim.as_ref().map(|c| ClaimInfo::of(c, me)),
            revision: file.revision.as_ref().map(|r| r.number),
        };
        Ok(ViewResponse::Ok(Json(view)))
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
        refuse_a_party(&state, &caller, profile_id.0).await?;
        let (claim, version) = review::claim(
            &state.db,
            profile_id.0,
            caller.0.user.id,
            state.now(),
            REVIEW_CLAIM_SECS,
        )
        .await?;
        Ok(ClaimResponse::Ok(Json(ClaimBody {
            profile_id: claim.profile_id,
            version,
            claimed_at: claim.claimed_at,
            expires_at: claim.expires_at,
        })))
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
        review::release(&state.db, profile_id.0, caller.0.user.id, state.now()).await?;
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
        refuse_a_party(&state, &caller, profile_id.0).await?;
        let decision =
            Decision::parse(body.action.as_str(), &body.reasons, body.note.as_deref())
                .map_err(|fields| ApiError::validation("the decision is not valid", &fields))?;
        let deciding = Deciding {
            profile_id: profile_id.0,
            version: body.version,
            reviewer: caller.0.user.id,
            decision: &decision,
        };
        let decided = usecases::review::decide(&state, &deciding, body.employer.as_deref())
            .await?
            .apply(&state)
            .await;
        Ok(DecisionResponse::Ok(Json(DecisionResult {
            profile_id: profile_id.0,
            status: ReviewState::from_core(decided.status),
            version: decided.version,
            decided_at: decided.decided_at,
        })))
    }
    /// Decide a revision
    ///
    /// `{action, reasons, note, revision, employer}` for an approved member's pending revision
    /// (issue 21 §1): APPROVE swaps its fields into the profile (others see the new photos and
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
        refuse_a_party(&state, &caller, profile_id.0).await?;
        let decision =
            Decision::parse(body.action.as_str(), &body.reasons, body.note.as_deref())
                .map_err(|fields| ApiError::validation("the decision is not valid", &fields))?;
        let deciding = RevisionDeciding {
            profile_id: profile_id.0,
            number: body.revision,
            reviewer: caller.0.user.id,
            decision: &decision,
        };
        let decided = usecases::revisions::decide(&state, &deciding, body.employer.as_deref())
            .await?
            .apply(&state)
            .await;
        Ok(RevisionDecisionResponse::Ok(Json(RevisionDecisionResult {
            profile_id: profile_id.0,
            status: decided.status.as_str().to_string(),
            version: decided.version,
            decided_at: decided.decided_at,
        })))
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
        let entries = access::report_queue(&state.db, &viewer, limit).await?;
        let mut items = Vec::with_capacity(entries.len());
        for e in entries {
            let reasons: Vec<ReportReason> = e
                .report
                .reasons
                .split(',')
                .filter_map(ReportReason::parse)
                .collect();
            let mut suggested: Vec<String> = Vec::new();
            for r in &reasons {
                let code = r.suggested_suspension().code().to_string();
                if !suggested.contains(&code) {
                    suggested.push(code);
                }
            }
            items.push(ReportItem {
                report_id: e.report.id,
                reporter: e.report.reporter_id.map(|profile_id| ReportedMember {
                    profile_id,
                    nickname: e.reporter_nickname,
                }),
                target: ReportedMember {
                    profile_id: e.target_id,
                    nickname: e.target_nickname,
                },
                target_status: state_of(e.target_status)?,
                target_version: e.target_version,
                reasons: reasons.iter().map(|r| r.code().to_string()).collect(),
                suggested_suspension: suggested,
                // A reporter who left took the pair's match and messages with them.
                conversation: match e.report.reporter_id {
                    Some(reporter) => {
                        chat::conversation(&state.db, reporter, e.target_id, REPORT_CONVERSATION)
                            .await?
                    }
                    None => Vec::new(),
                }
                .into_iter()
                .map(|m| ConversationLine {
                    from: if m.sender_id != e.target_id {
                        "reporter"
                    } else {
                        "reported"
                    }
                    .to_string(),
                    text: m.text,
                    sent_at: m.sent_at,
                })
                .collect(),
                text: e.report.text,
                created_at: e.report.created_at,
            });
        }
        Ok(ReportsResponse::Ok(Json(ReportQueue {
            items,
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
        match access::may_dismiss_report(&state.db, &viewer, report_id.0).await? {
            None => return Err(ApiError::NotFound),
            Some(false) => {
                return Err(ApiError::Forbidden(
                    "reviewers do not act on reports by or about themselves".into(),
                ));
            }
            Some(true) => {}
        }
        match matchmaking::dismiss_report(&state.db, report_id.0).await? {
            Dismissal::Dismissed => {}
            Dismissal::SettledAlready => {
                return Err(ApiError::Conflict("the report is settled already".into()));
            }
            Dismissal::Unknown => return Err(ApiError::NotFound),
        }
        tracing::info!(
            report = report_id.0,
            reviewer = caller.0.user.id,
            "report dismissed"
        );
        Ok(DismissResponse::Ok(Json(ReportDismissed {
            report_id: report_id.0,
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
        let members = crate::storage::colleagues::without_employer(&state.db).await?;
        Ok(WithoutEmployerResponse::Ok(Json(WithoutEmployer {
            members: members
                .into_iter()
                .map(|(profile_id, nickname)| MemberWithoutEmployer {
                    profile_id,
                    nickname,
                })
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
        super::switch_allowed(&state, caller.0.user.id).await?;
        refuse_a_party(&state, &caller, profile_id.0).await?;
        let employer = usecases::review::set_employer(&state, profile_id.0, &body.employer)
            .await?
            .apply(&state)
            .await;
        Ok(EmployerSetResponse::Ok(Json(EmployerRef {
            id: employer.id.to_string(),
            name: employer.name.to_string(),
        })))
    }
}
