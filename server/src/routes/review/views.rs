//! The review console's request and answer types (the OpenAPI document's schemas), and how the
//! use-cases' answers become them.

use kizuna_core::catalogue::Employer;
use poem_openapi::{ApiResponse, Enum, Object, payload::Json};

use crate::{
    extract::body::ProfilePayload,
    routes::ReviewState,
    usecases::review::{
        ClaimView, Claimed, Decided, DecidedStatus, FlaggedItem, HistoryLine, MemberRef, Queue,
        QueueItem as QueueEntry, ReportItem as ReportEntry, ReviewFileView,
    },
};

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
    /// For a revision of an approved profile: its number, to send with the
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
    /// APPROVE, REJECT, SUSPEND, REINSTATE, RESUBMIT, UPHOLD (an appeal answered with the
    /// suspension kept); null for the first submission.
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
    /// When an approved member's revision waits: its number, to send with the
    /// decision (`POST /review/profiles/{profileId}/revision/decision`). Then `profile`,
    /// `photos` and `verification` are the revision's, `previousProfile` is the approved
    /// version others see meanwhile, and `changedFields` what the revision changes.
    #[oai(nullable)]
    pub revision: Option<i32>,
    /// The shown photos (and the member's avatar) that resemble a photo of another member, by
    /// their perceptual hashes (recompressed, resized, cropped or mirrored copies), nearest
    /// first. Reviewers only: no member ever sees it.
    pub resembling: Vec<ResemblingPhoto>,
}

/// A photo under review that resembles another member's.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ResemblingPhoto {
    /// The file id of the photo under review (one of `photos`, or the avatar).
    pub photo: String,
    /// The other member's photo; null when that member left (the file is gone, its hash kept).
    #[oai(nullable)]
    pub other_photo: Option<String>,
    /// The other member; null for a member who left while suspended (`otherLeftSuspended`).
    #[oai(nullable)]
    pub other: Option<ResemblingMember>,
    /// Whether the other photo is of a member who left while suspended.
    pub other_left_suspended: bool,
    /// How many of the hash's 64 bits differ (0: the same picture).
    pub distance: u32,
}

/// The member another photo is of.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ResemblingMember {
    /// Their profile (open it in the console: /review/profiles/{profileId}).
    pub profile_id: i64,
    #[oai(nullable)]
    pub nickname: Option<String>,
    pub status: ReviewState,
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
    pub fn as_str(self) -> &'static str {
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

/// A conversation the screening put in the queue: not a report (nobody reported; it neither
/// blocks nor ends the match), for a reviewer to read and dismiss, or to suspend the member
/// through the decision call.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct FlaggedConversation {
    /// The match (the item's id).
    pub match_id: i64,
    /// The member whose messages carried the money talk.
    pub member: ReportedMember,
    /// Their review status and profile version (a SUSPEND decision names it).
    pub member_status: ReviewState,
    pub member_version: i64,
    /// The other member of the match.
    pub other: ReportedMember,
    /// `MONEY`, or `OFF_PLATFORM_THEN_MONEY` (kizuna-core `safety::ReviewCause`).
    pub cause: String,
    /// When it entered the queue (Unix seconds): with the queue's `now`, how long it waited.
    pub created_at: i64,
    /// The last `REPORT_CONVERSATION` (50) messages, oldest first, each with its kinds.
    pub conversation: Vec<FlaggedLine>,
}

/// One message of a flagged conversation.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct FlaggedLine {
    /// `member` (the flagged member) or `other`.
    pub from: String,
    pub text: String,
    /// Unix seconds.
    pub sent_at: i64,
    /// What the screening found in it (empty: nothing): the console marks it.
    pub kinds: Vec<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct FlaggedQueue {
    pub items: Vec<FlaggedConversation>,
    /// The server's time (Unix seconds), for "waiting for" on the console.
    pub now: i64,
}

#[derive(ApiResponse)]
pub enum FlaggedResponse {
    /// Open flagged conversations, oldest first.
    #[oai(status = 200)]
    Ok(Json<FlaggedQueue>),
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct FlaggedDismissed {
    pub match_id: i64,
}

#[derive(ApiResponse)]
pub enum FlaggedDismissResponse {
    /// Closed without action.
    #[oai(status = 200)]
    Ok(Json<FlaggedDismissed>),
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

impl From<&ClaimView> for ClaimInfo {
    fn from(claim: &ClaimView) -> ClaimInfo {
        ClaimInfo {
            mine: claim.mine,
            claimed_at: claim.claimed_at,
            expires_at: claim.expires_at,
        }
    }
}

impl From<Queue> for ReviewQueue {
    fn from(queue: Queue) -> ReviewQueue {
        let items = queue
            .items
            .into_iter()
            .map(|e: QueueEntry| QueueItem {
                profile_id: e.profile_id,
                nickname: e.nickname,
                submitted_at: e.submitted_at,
                waited_secs: e.waited_secs,
                resubmission: e.resubmission,
                submission: e.submission,
                version: e.version,
                claim: e.claim.as_ref().map(ClaimInfo::from),
                revision: e.revision,
            })
            .collect();
        ReviewQueue {
            items,
            now: queue.now,
        }
    }
}

impl From<&'static Employer> for EmployerRef {
    fn from(employer: &'static Employer) -> EmployerRef {
        EmployerRef {
            id: employer.id.to_string(),
            name: employer.name.to_string(),
        }
    }
}

impl From<HistoryLine> for HistoryEntry {
    fn from(h: HistoryLine) -> HistoryEntry {
        HistoryEntry {
            at: h.at,
            action: h.action,
            from_status: h.from_status,
            to_status: h.to_status,
            reasons: h.reasons,
            note: h.note,
            reviewer: h.reviewer,
        }
    }
}

impl From<ReviewFileView> for ReviewView {
    fn from(file: ReviewFileView) -> ReviewView {
        let v = file.verification;
        ReviewView {
            profile_id: file.profile_id,
            status: ReviewState::from_core(file.status),
            version: file.version,
            submitted_at: file.submitted_at,
            submission: file.submission,
            resubmission: file.resubmission,
            changed_fields: file.changed_fields,
            profile: ProfilePayload(file.profile),
            previous_profile: file.previous_profile.map(ProfilePayload),
            photos: file.photos,
            verification: ReviewVerification {
                method: v.method,
                company_email: v.company_email,
                employer: v.employer.map(EmployerRef::from),
                employer_on_record: v.employer_on_record.map(EmployerRef::from),
                email_confirmed: v.email_confirmed_at.is_some(),
                email_confirmed_at: v.email_confirmed_at,
                file_id: v.file_id,
                review_link: v.review_link,
                description: v.description,
            },
            member: ReviewMember {
                display_name: file.display_name,
                locale: file.locale.to_string(),
                friend: file.friend,
                registered_at: file.registered_at,
            },
            history: file.history.into_iter().map(HistoryEntry::from).collect(),
            claim: file.claim.as_ref().map(ClaimInfo::from),
            revision: file.revision,
            resembling: file
                .resembling
                .into_iter()
                .map(|r| ResemblingPhoto {
                    photo: r.photo,
                    other_photo: r.other_photo,
                    other_left_suspended: r.other.is_none(),
                    other: r.other.map(|o| ResemblingMember {
                        profile_id: o.profile_id,
                        nickname: o.nickname,
                        status: ReviewState::from_core(o.status),
                    }),
                    distance: r.distance,
                })
                .collect(),
        }
    }
}

impl From<Claimed> for ClaimBody {
    fn from(claim: Claimed) -> ClaimBody {
        ClaimBody {
            profile_id: claim.profile_id,
            version: claim.version,
            claimed_at: claim.claimed_at,
            expires_at: claim.expires_at,
        }
    }
}

impl DecisionResult {
    /// A profile's decision; None for a revision's.
    pub fn of(profile_id: i64, decided: &Decided) -> Option<DecisionResult> {
        let DecidedStatus::Profile(status) = decided.status else {
            return None;
        };
        Some(DecisionResult {
            profile_id,
            status: ReviewState::from_core(status),
            version: decided.version,
            decided_at: decided.decided_at,
        })
    }
}

impl RevisionDecisionResult {
    /// A revision's decision; None for a profile's.
    pub fn of(profile_id: i64, decided: &Decided) -> Option<RevisionDecisionResult> {
        let DecidedStatus::Revision(status) = decided.status else {
            return None;
        };
        Some(RevisionDecisionResult {
            profile_id,
            status: status.as_str().to_string(),
            version: decided.version,
            decided_at: decided.decided_at,
        })
    }
}

impl From<MemberRef> for ReportedMember {
    fn from(member: MemberRef) -> ReportedMember {
        ReportedMember {
            profile_id: member.profile_id,
            nickname: member.nickname,
        }
    }
}

impl From<ReportEntry> for ReportItem {
    fn from(e: ReportEntry) -> ReportItem {
        ReportItem {
            report_id: e.report_id,
            reporter: e.reporter.map(ReportedMember::from),
            target: e.target.into(),
            target_status: ReviewState::from_core(e.target_status),
            target_version: e.target_version,
            reasons: e.reasons.iter().map(|r| r.code().to_string()).collect(),
            suggested_suspension: e
                .suggested_suspension
                .into_iter()
                .map(String::from)
                .collect(),
            text: e.text,
            created_at: e.created_at,
            conversation: e
                .conversation
                .into_iter()
                .map(|m| ConversationLine {
                    from: if m.by_reported {
                        "reported"
                    } else {
                        "reporter"
                    }
                    .to_string(),
                    text: m.text,
                    sent_at: m.sent_at,
                })
                .collect(),
        }
    }
}

impl From<FlaggedItem> for FlaggedConversation {
    fn from(item: FlaggedItem) -> FlaggedConversation {
        FlaggedConversation {
            match_id: item.match_id,
            member: item.member.into(),
            member_status: ReviewState::from_core(item.member_status),
            member_version: item.member_version,
            other: item.other.into(),
            cause: item.cause,
            created_at: item.created_at,
            conversation: item
                .conversation
                .into_iter()
                .map(|m| FlaggedLine {
                    from: if m.by_member { "member" } else { "other" }.to_string(),
                    text: m.text,
                    sent_at: m.sent_at,
                    kinds: m.kinds.into_iter().map(String::from).collect(),
                })
                .collect(),
        }
    }
}

impl From<MemberRef> for MemberWithoutEmployer {
    fn from(member: MemberRef) -> MemberWithoutEmployer {
        MemberWithoutEmployer {
            profile_id: member.profile_id,
            nickname: member.nickname,
        }
    }
}

/// A suspended member's appeal waiting for a second look.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AppealItem {
    pub appeal_id: i64,
    /// The member's profile (`/review?profile=<id>` opens it, with the history).
    pub profile_id: i64,
    #[oai(nullable)]
    pub nickname: Option<String>,
    /// What the member wrote.
    pub text: String,
    /// Unix seconds when they asked.
    pub submitted_at: i64,
    /// How long it has waited, in seconds.
    pub waited_secs: i64,
    /// The suspension's reason codes (the `suspend` catalogue), its note and time.
    pub reasons: Vec<String>,
    #[oai(nullable)]
    pub suspension_note: Option<String>,
    pub suspended_at: i64,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AppealQueue {
    pub items: Vec<AppealItem>,
    /// The server's time (Unix seconds).
    pub now: i64,
}

impl AppealQueue {
    pub fn of(items: Vec<crate::usecases::review::appeals::AppealItem>, now: i64) -> AppealQueue {
        AppealQueue {
            items: items
                .into_iter()
                .map(|i| AppealItem {
                    appeal_id: i.appeal.id,
                    profile_id: i.appeal.profile_id,
                    nickname: i.nickname,
                    text: i.appeal.text,
                    submitted_at: i.appeal.created_at,
                    waited_secs: (now - i.appeal.created_at).max(0),
                    reasons: i.reasons,
                    suspension_note: i.suspension_note,
                    suspended_at: i.suspended_at,
                })
                .collect(),
            now,
        }
    }
}

#[derive(ApiResponse)]
pub enum AppealsResponse {
    /// Pending appeals, the longest waiting first.
    #[oai(status = 200)]
    Ok(Json<AppealQueue>),
}

/// A reviewer's answer to an appeal.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(rename_all = "camelCase", deny_unknown_fields)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppealDecisionBody {
    /// UPHELD (the suspension stands) or REINSTATED (the member is approved again).
    pub outcome: String,
    /// A note to the member (`rules::REVIEW_NOTE`), sent with the push.
    pub note: Option<String>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AppealAnswered {
    pub appeal_id: i64,
    /// UPHELD or REINSTATED.
    pub status: String,
    pub decided_at: i64,
}

#[derive(ApiResponse)]
pub enum AppealDecisionResponse {
    /// Answered; the member is pushed the answer in their language.
    #[oai(status = 200)]
    Ok(Json<AppealAnswered>),
}
