//! Review statuses and the only transitions between them, the reviewer's decisions with their
//! reason catalogues, and what changed between two submissions.
//!
//! ```
//! use kizuna_core::review::{ReviewAction, ReviewStatus};
//!
//! let status = ReviewStatus::INITIAL.apply(ReviewAction::Reject).unwrap();
//! assert_eq!(status, ReviewStatus::Rejected);
//! assert_eq!(status.apply(ReviewAction::Resubmit), Ok(ReviewStatus::Pending));
//! assert!(ReviewStatus::Suspended.apply(ReviewAction::Approve).is_err());
//! ```

use crate::profile::{FIELDS, UserProfileCreate};
use crate::reasons::code_catalogue;
use crate::rules::{self, FieldErrors, RuleCode, check_text};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a profile's review stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum ReviewStatus {
    /// Submitted (or resubmitted) and waiting for a reviewer.
    Pending,
    /// Visible to matchmaking.
    Approved,
    /// Sent back with a reason; the person edits and resubmits.
    Rejected,
    /// Taken out of matchmaking by the operator.
    Suspended,
}

/// What can happen to a profile's review.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewAction {
    /// A reviewer accepts a pending profile.
    Approve,
    /// A reviewer sends a pending profile back.
    Reject,
    /// The person edited a rejected profile.
    Resubmit,
    /// The operator takes a profile out of matchmaking.
    Suspend,
    /// The operator lifts a suspension.
    Reinstate,
}

/// An action that the status it was applied to does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidTransition {
    /// The status the profile is in.
    pub from: ReviewStatus,
    /// What was attempted.
    pub action: ReviewAction,
}

impl fmt::Display for InvalidTransition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot {:?} a profile that is {}",
            self.action,
            self.from.as_str()
        )
    }
}

impl std::error::Error for InvalidTransition {}

impl ReviewStatus {
    /// Every status.
    pub const ALL: [ReviewStatus; 4] = [
        ReviewStatus::Pending,
        ReviewStatus::Approved,
        ReviewStatus::Rejected,
        ReviewStatus::Suspended,
    ];

    /// The status of a newly submitted profile.
    pub const INITIAL: ReviewStatus = ReviewStatus::Pending;

    /// The wire name (`"PENDING"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Pending => "PENDING",
            ReviewStatus::Approved => "APPROVED",
            ReviewStatus::Rejected => "REJECTED",
            ReviewStatus::Suspended => "SUSPENDED",
        }
    }

    /// The status of a wire name, if there is one.
    pub fn parse(text: &str) -> Option<ReviewStatus> {
        ReviewStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
    }

    /// The status after `action`, or why the action is not allowed now.
    pub fn apply(self, action: ReviewAction) -> Result<ReviewStatus, InvalidTransition> {
        use ReviewAction::*;
        use ReviewStatus::*;
        match (self, action) {
            (Pending, Approve) => Ok(Approved),
            (Pending, Reject) => Ok(Rejected),
            (Rejected, Resubmit) => Ok(Pending),
            // Only an approved member is suspended: reinstating leads to APPROVED, so suspending
            // a profile nobody approved yet would let it skip review. A bad pending profile is
            // rejected instead, and it meets no one while it is not approved.
            (Approved, Suspend) => Ok(Suspended),
            (Suspended, Reinstate) => Ok(Approved),
            (from, action) => Err(InvalidTransition { from, action }),
        }
    }

    /// Whether the member may edit and resubmit their profile: only when the table has a
    /// resubmission from this status, that is only when REJECTED.
    pub fn allows_editing(self) -> bool {
        self.apply(ReviewAction::Resubmit).is_ok()
    }

    /// The decisions a reviewer may take on a profile in this status: every action but the
    /// member's resubmission that the transition table allows from here. The review console
    /// offers these and no other.
    pub fn reviewer_actions(self) -> Vec<ReviewAction> {
        ReviewAction::ALL
            .into_iter()
            .filter(|&action| action != ReviewAction::Resubmit && self.apply(action).is_ok())
            .collect()
    }
}

impl ReviewAction {
    /// Every action, the member's resubmission included.
    pub const ALL: [ReviewAction; 5] = [
        ReviewAction::Approve,
        ReviewAction::Reject,
        ReviewAction::Resubmit,
        ReviewAction::Suspend,
        ReviewAction::Reinstate,
    ];

    /// The wire name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewAction::Approve => "APPROVE",
            ReviewAction::Reject => "REJECT",
            ReviewAction::Resubmit => "RESUBMIT",
            ReviewAction::Suspend => "SUSPEND",
            ReviewAction::Reinstate => "REINSTATE",
        }
    }

    /// The action with this exact wire name.
    pub fn parse(text: &str) -> Option<ReviewAction> {
        ReviewAction::ALL
            .into_iter()
            .find(|action| action.as_str() == text)
    }
}

code_catalogue!(
    /// Why a profile is sent back. Each reason names the fields the member should look at.
    RejectReason, "review.reject." {
        /// Blurry, dark or the face cannot be seen.
        PhotosUnclear = "PHOTOS_UNCLEAR" => ["photoNameList"],
        /// The photos do not show the member (celebrities, other people, drawings).
        PhotosNotOfYou = "PHOTOS_NOT_OF_YOU" => ["photoNameList"],
        /// Nudity, violence or otherwise unsuitable photos.
        PhotosInappropriate = "PHOTOS_INAPPROPRIATE" => ["photoNameList"],
        /// The proof of employment does not show where the member works.
        VerificationInsufficient = "VERIFICATION_INSUFFICIENT" => [
            "verifyMethod", "companyEmail", "verifyTempFileName", "reviewLink", "verifyDescription",
        ],
        /// The employer is not one the service verifies.
        EmployerNotSupported = "EMPLOYER_NOT_SUPPORTED" => ["verifyMethod", "companyEmail"],
        /// The work e-mail's code was never confirmed.
        EmailNotConfirmed = "EMAIL_NOT_CONFIRMED" => ["companyEmail"],
        /// The texts say too little for anyone to get to know the member.
        ProfileIncomplete = "PROFILE_INCOMPLETE" => [
            "aboutMe", "datingQuestion", "dailyLife", "surprisePoint",
        ],
        /// Offensive, sexual or commercial wording.
        TextInappropriate = "TEXT_INAPPROPRIATE" => [
            "nickname", "occupation", "achievement", "aboutMe", "datingQuestion", "dailyLife",
            "surprisePoint",
        ],
        /// Phone numbers, LINE ids, social accounts or links in the texts.
        ContactDetailsInText = "CONTACT_DETAILS_IN_TEXT" => [
            "nickname", "occupation", "achievement", "aboutMe", "datingQuestion", "dailyLife",
            "surprisePoint",
        ],
        /// The name differs from the one on the proof of employment.
        NameMismatch = "NAME_MISMATCH" => ["name"],
        /// The job does not match the proof of employment.
        OccupationMismatch = "OCCUPATION_MISMATCH" => ["occupationType", "occupation"],
        /// Anything else; the note says what (a note is required).
        Other = "OTHER",
    }
);

code_catalogue!(
    /// Why an approved member is taken out of matchmaking.
    SuspendReason, "review.suspend." {
        /// Unwanted, insistent or threatening contact.
        Harassment = "HARASSMENT",
        /// Asking for money, investments or gifts.
        Scam = "SCAM",
        /// Someone other than who the profile says.
        FakeProfile = "FAKE_PROFILE",
        /// Sexual, violent or hateful photos or messages.
        InappropriateContent = "INAPPROPRIATE_CONTENT",
        /// Younger than the minimum age.
        Underage = "UNDERAGE",
        /// Married or in a relationship.
        InARelationship = "IN_A_RELATIONSHIP",
        /// Advertising or mass messages.
        Spam = "SPAM",
        /// Anything else; the note says what (a note is required).
        Other = "OTHER",
    }
);

impl SuspendReason {
    /// Whether a suspension for this reason tells the members who were matched with the removed
    /// member ([`removal_notice_due`]): yes where the people they talked to may still be at risk
    /// from them, off Kizuna too (money asked for, a false identity, harassment, sexual or
    /// violent content, which is how sextortion starts, and mass messages, which lead to
    /// investment groups); no where telling would only spread a private fact (a relationship,
    /// a minor's age: the child is protected by the removal, not by telling adults) or where the
    /// reason is not known in advance (OTHER: the reviewer adds a reason that warrants it).
    pub fn tells_matches(self) -> bool {
        match self {
            SuspendReason::Scam
            | SuspendReason::FakeProfile
            | SuspendReason::Harassment
            | SuspendReason::InappropriateContent
            | SuspendReason::Spam => true,
            SuspendReason::Underage | SuspendReason::InARelationship | SuspendReason::Other => {
                false
            }
        }
    }
}

/// Whether a decision tells the removed member's matches: a suspension with at least one reason
/// that [`SuspendReason::tells_matches`].
pub fn removal_notice_due(decision: &Decision) -> bool {
    match decision {
        Decision::Suspend { reasons, .. } => reasons.iter().any(|r| r.tells_matches()),
        _ => false,
    }
}

/// Whether the other member of a match is told of a removal at `now`: the match was live at some
/// time in the last [`rules::REMOVAL_NOTICE_DAYS`] (it is live, or it ended within them; the
/// suspension itself ends the live ones at `now`).
pub fn removal_notice_reaches(ended_at: Option<i64>, now: i64) -> bool {
    ended_at.is_none_or(|ended| ended >= now - rules::REMOVAL_NOTICE_DAYS * 86_400)
}

/// A reviewer's decision, validated: the only shape in which the server records one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// APPROVE: no reasons.
    Approve {
        /// An optional note to the member.
        note: Option<String>,
    },
    /// REJECT: at least one reason; the member edits and resubmits.
    Reject {
        /// Distinct reasons, in the order the reviewer gave them.
        reasons: Vec<RejectReason>,
        /// An optional note to the member (required with OTHER).
        note: Option<String>,
    },
    /// SUSPEND: at least one reason.
    Suspend {
        /// Distinct reasons, in the order the reviewer gave them.
        reasons: Vec<SuspendReason>,
        /// An optional note to the member (required with OTHER).
        note: Option<String>,
    },
    /// REINSTATE: no reasons.
    Reinstate {
        /// An optional note to the member.
        note: Option<String>,
    },
}

impl Decision {
    /// Reads a reviewer's decision. Errors are keyed `action`, `reasons` and `note`:
    /// - `action`: `required` when blank, `invalid_choice` unless APPROVE, REJECT, SUSPEND or
    ///   REINSTATE (RESUBMIT is the member's, not a reviewer's);
    /// - `reasons`: `required` when REJECT or SUSPEND has none, `too_many` when APPROVE or
    ///   REINSTATE has any, `invalid_choice` for a code outside the action's catalogue,
    ///   `duplicate` for a repeated one;
    /// - `note`: the [`rules::REVIEW_NOTE`] rule, and `required` when a reason is OTHER.
    pub fn parse<R: AsRef<str>>(
        action: &str,
        reasons: &[R],
        note: Option<&str>,
    ) -> Result<Decision, FieldErrors> {
        let mut errors = FieldErrors::new();
        let note = check_text("note", note, rules::REVIEW_NOTE, &mut errors);
        let note_missing = note.is_none() && errors.get("note").is_none();
        let decision = match ReviewAction::parse(action.trim()) {
            Some(ReviewAction::Approve) => {
                no_reasons(reasons, &mut errors);
                Some(Decision::Approve { note })
            }
            Some(ReviewAction::Reinstate) => {
                no_reasons(reasons, &mut errors);
                Some(Decision::Reinstate { note })
            }
            Some(ReviewAction::Reject) => {
                let reasons = some_reasons(reasons, RejectReason::parse, &mut errors);
                if note_missing && reasons.contains(&RejectReason::Other) {
                    errors.add("note", RuleCode::Required);
                }
                Some(Decision::Reject { reasons, note })
            }
            Some(ReviewAction::Suspend) => {
                let reasons = some_reasons(reasons, SuspendReason::parse, &mut errors);
                if note_missing && reasons.contains(&SuspendReason::Other) {
                    errors.add("note", RuleCode::Required);
                }
                Some(Decision::Suspend { reasons, note })
            }
            Some(ReviewAction::Resubmit) | None => {
                let code = if action.trim().is_empty() {
                    RuleCode::Required
                } else {
                    RuleCode::InvalidChoice
                };
                errors.add("action", code);
                None
            }
        };
        match decision {
            Some(decision) if errors.is_empty() => Ok(decision),
            _ => Err(errors),
        }
    }

    /// The transition to apply with [`ReviewStatus::apply`].
    pub fn action(&self) -> ReviewAction {
        match self {
            Decision::Approve { .. } => ReviewAction::Approve,
            Decision::Reject { .. } => ReviewAction::Reject,
            Decision::Suspend { .. } => ReviewAction::Suspend,
            Decision::Reinstate { .. } => ReviewAction::Reinstate,
        }
    }

    /// The reason codes, for `review_history` and the member's view.
    pub fn reason_codes(&self) -> Vec<&'static str> {
        match self {
            Decision::Reject { reasons, .. } => reasons.iter().map(|r| r.code()).collect(),
            Decision::Suspend { reasons, .. } => reasons.iter().map(|r| r.code()).collect(),
            Decision::Approve { .. } | Decision::Reinstate { .. } => Vec::new(),
        }
    }

    /// The note to the member, trimmed, if any.
    pub fn note(&self) -> Option<&str> {
        match self {
            Decision::Approve { note }
            | Decision::Reject { note, .. }
            | Decision::Suspend { note, .. }
            | Decision::Reinstate { note } => note.as_deref(),
        }
    }
}

/// The employer an approval puts on record (the member's colleagues are the members with the
/// same one): for a work e-mail, its catalogue employer (the code proved the member reads that
/// mailbox), and a reviewer's pick must agree (`employer`: `mismatch`); for the employee-ID photo
/// and the verification link, the employer the reviewer picks from the catalogue after looking
/// at the proof (`employer`: `required`, `unknown_employer` outside the catalogue).
pub fn employer_on_approval(
    method: crate::VerifyMethod,
    work_email: Option<&str>,
    picked: Option<&str>,
) -> Result<&'static crate::catalogue::Employer, FieldErrors> {
    let mut errors = FieldErrors::new();
    let picked = picked.map(str::trim).filter(|id| !id.is_empty());
    let of_email = if reviewer_picks_employer(method) {
        None
    } else {
        work_email.and_then(crate::catalogue::employer_for_email)
    };
    let chosen = match (of_email, picked) {
        (Some(employer), None) => Some(employer),
        (Some(employer), Some(id)) if employer.id == id => Some(employer),
        (Some(_), Some(_)) => {
            errors.add("employer", RuleCode::Mismatch);
            None
        }
        (None, None) => {
            errors.add("employer", RuleCode::Required);
            None
        }
        (None, Some(id)) => {
            let known = crate::catalogue::employer(id);
            if known.is_none() {
                errors.add("employer", RuleCode::UnknownEmployer);
            }
            known
        }
    };
    match chosen {
        Some(employer) if errors.is_empty() => Ok(employer),
        _ => Err(errors),
    }
}

/// Whether approving a profile verified by `method` asks the reviewer which employer to put on
/// record: yes for the employee-ID photo and the verification link, whose proof only a person
/// reads; no for a work e-mail, whose confirmed address names its employer.
pub fn reviewer_picks_employer(method: crate::VerifyMethod) -> bool {
    match method {
        crate::VerifyMethod::CompanyEmail => false,
        crate::VerifyMethod::EmployeeId | crate::VerifyMethod::ReviewLink => true,
    }
}

/// `{"action": "REJECT", "reasons": ["PHOTOS_UNCLEAR"], "note": "…"}` (note omitted when none).
impl Serialize for Decision {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let note = self.note();
        let mut map = serializer.serialize_map(Some(2 + usize::from(note.is_some())))?;
        map.serialize_entry("action", &self.action())?;
        map.serialize_entry("reasons", &self.reason_codes())?;
        if let Some(note) = note {
            map.serialize_entry("note", note)?;
        }
        map.end()
    }
}

fn no_reasons<R: AsRef<str>>(reasons: &[R], errors: &mut FieldErrors) {
    if !reasons.is_empty() {
        errors.add("reasons", RuleCode::TooMany);
    }
}

fn some_reasons<R: AsRef<str>, T: PartialEq>(
    codes: &[R],
    parse: fn(&str) -> Option<T>,
    errors: &mut FieldErrors,
) -> Vec<T> {
    if codes.is_empty() {
        errors.add("reasons", RuleCode::Required);
    }
    let mut reasons = Vec::with_capacity(codes.len());
    for code in codes {
        match parse(code.as_ref()) {
            Some(reason) if reasons.contains(&reason) => errors.add("reasons", RuleCode::Duplicate),
            Some(reason) => reasons.push(reason),
            None => errors.add("reasons", RuleCode::InvalidChoice),
        }
    }
    reasons
}

/// The translation key of a reason code a decision gave, by the status the decision led to
/// (REJECTED: a [`RejectReason`]; SUSPENDED: a [`SuspendReason`]; both catalogues have `OTHER`,
/// with different labels); None for another status or an unknown code.
pub fn reason_key(to: ReviewStatus, code: &str) -> Option<&'static str> {
    match to {
        ReviewStatus::Rejected => RejectReason::parse(code).map(RejectReason::key),
        ReviewStatus::Suspended => SuspendReason::parse(code).map(SuspendReason::key),
        ReviewStatus::Pending | ReviewStatus::Approved => None,
    }
}

/// The wire fields (in [`FIELDS`] order) whose values differ between two submissions, for the
/// reviewer's "what changed" view of a resubmission. Tag lists and conditions are compared as
/// sets (their order means nothing); the photo list in order (the first photo leads).
pub fn changed_fields(old: &UserProfileCreate, new: &UserProfileCreate) -> Vec<&'static str> {
    let (old, new) = (comparable(old), comparable(new));
    FIELDS
        .into_iter()
        .filter(|field| old.get(*field) != new.get(*field))
        .collect()
}

fn comparable(payload: &UserProfileCreate) -> serde_json::Map<String, serde_json::Value> {
    let serde_json::Value::Object(mut map) =
        serde_json::to_value(payload).unwrap_or(serde_json::Value::Null)
    else {
        return serde_json::Map::new();
    };
    for (field, value) in map.iter_mut() {
        let set_like = field.ends_with("TagIds") || field == "valueItem";
        if let (true, serde_json::Value::Array(items)) = (set_like, value) {
            items.sort_by_key(|item| item.to_string());
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use ReviewAction::*;
    use ReviewStatus::*;

    #[test]
    fn a_reviewer_approves_or_rejects_a_pending_profile_suspends_an_approved_one_and_reinstates_a_suspended_one()
     {
        let offered = |status: ReviewStatus| status.reviewer_actions();
        assert_eq!(offered(ReviewStatus::Pending), [Approve, Reject]);
        assert_eq!(offered(ReviewStatus::Approved), [Suspend]);
        assert_eq!(offered(ReviewStatus::Suspended), [Reinstate]);
        assert_eq!(offered(ReviewStatus::Rejected), []);
    }

    #[test]
    fn the_employer_is_picked_by_the_reviewer_for_every_method_but_the_work_email() {
        assert!(!reviewer_picks_employer(crate::VerifyMethod::CompanyEmail));
        assert!(reviewer_picks_employer(crate::VerifyMethod::EmployeeId));
        assert!(reviewer_picks_employer(crate::VerifyMethod::ReviewLink));
    }

    #[test]
    fn a_reason_code_is_read_in_the_catalogue_of_the_status_it_led_to() {
        assert_eq!(
            reason_key(Rejected, "PHOTOS_UNCLEAR"),
            Some("review.reject.PHOTOS_UNCLEAR")
        );
        assert_eq!(reason_key(Suspended, "SCAM"), Some("review.suspend.SCAM"));
        assert_eq!(reason_key(Rejected, "OTHER"), Some("review.reject.OTHER"));
        assert_eq!(reason_key(Suspended, "OTHER"), Some("review.suspend.OTHER"));
        assert_eq!(reason_key(Suspended, "PHOTOS_UNCLEAR"), None);
        assert_eq!(reason_key(Approved, "PHOTOS_UNCLEAR"), None);
        assert_eq!(reason_key(Rejected, "[\"PHOTOS_UNCLEAR\"]"), None);
    }

    #[test]
    fn a_pending_profile_is_approved_or_rejected() {
        assert_eq!(Pending.apply(Approve), Ok(Approved));
        assert_eq!(Pending.apply(Reject), Ok(Rejected));
    }

    #[test]
    fn a_rejected_profile_returns_to_pending_when_resubmitted() {
        assert_eq!(Rejected.apply(Resubmit), Ok(Pending));
        assert!(Rejected.apply(Approve).is_err());
    }

    #[test]
    fn a_member_resubmits_only_from_rejected_and_only_then_may_edit() {
        for status in ReviewStatus::ALL {
            let resubmitted = status.apply(Resubmit);
            assert_eq!(resubmitted.is_ok(), status == Rejected, "{status:?}");
            assert_eq!(status.allows_editing(), status == Rejected, "{status:?}");
        }
    }

    #[test]
    fn a_pending_profile_cannot_be_suspended_so_reinstating_never_skips_review() {
        assert!(Pending.apply(Suspend).is_err());
        assert!(Rejected.apply(Suspend).is_err());
    }

    #[test]
    fn suspension_is_lifted_only_by_reinstating() {
        assert_eq!(Approved.apply(Suspend), Ok(Suspended));
        assert_eq!(Suspended.apply(Reinstate), Ok(Approved));
        assert!(Suspended.apply(Approve).is_err());
        assert!(Suspended.apply(Resubmit).is_err());
    }

    #[test]
    fn no_other_transition_exists() {
        let actions = [Approve, Reject, Resubmit, Suspend, Reinstate];
        let allowed: usize = ReviewStatus::ALL
            .iter()
            .map(|s| actions.iter().filter(|a| s.apply(**a).is_ok()).count())
            .sum();
        assert_eq!(allowed, 5);
    }

    fn decide(action: &str, reasons: &[&str], note: Option<&str>) -> Result<Decision, FieldErrors> {
        Decision::parse(action, reasons, note)
    }

    fn codes(errors: &FieldErrors, field: &str) -> Vec<RuleCode> {
        errors.get(field).unwrap_or_default().to_vec()
    }

    #[test]
    fn approve_and_reinstate_take_no_reasons() {
        assert_eq!(
            decide("APPROVE", &[], None),
            Ok(Decision::Approve { note: None })
        );
        assert_eq!(
            decide("REINSTATE", &[], Some("  Welcome back  ")),
            Ok(Decision::Reinstate {
                note: Some("Welcome back".into())
            })
        );
        let errors = decide("APPROVE", &["PHOTOS_UNCLEAR"], None).unwrap_err();
        assert_eq!(codes(&errors, "reasons"), [RuleCode::TooMany]);
    }

    #[test]
    fn reject_needs_at_least_one_distinct_reject_reason() {
        let decision = decide("REJECT", &["PHOTOS_UNCLEAR", "NAME_MISMATCH"], None).unwrap();
        assert_eq!(decision.action(), Reject);
        assert_eq!(decision.reason_codes(), ["PHOTOS_UNCLEAR", "NAME_MISMATCH"]);
        let none = decide("REJECT", &[], None).unwrap_err();
        assert_eq!(codes(&none, "reasons"), [RuleCode::Required]);
        let twice = decide("REJECT", &["NAME_MISMATCH", "NAME_MISMATCH"], None).unwrap_err();
        assert_eq!(codes(&twice, "reasons"), [RuleCode::Duplicate]);
        let suspend_reason = decide("REJECT", &["SCAM"], None).unwrap_err();
        assert_eq!(codes(&suspend_reason, "reasons"), [RuleCode::InvalidChoice]);
    }

    #[test]
    fn suspend_needs_at_least_one_suspend_reason() {
        let decision = decide("SUSPEND", &["HARASSMENT"], None).unwrap();
        assert_eq!(decision.action(), Suspend);
        let reject_reason = decide("SUSPEND", &["PHOTOS_UNCLEAR"], None).unwrap_err();
        assert_eq!(codes(&reject_reason, "reasons"), [RuleCode::InvalidChoice]);
        let none = decide("SUSPEND", &[], None).unwrap_err();
        assert_eq!(codes(&none, "reasons"), [RuleCode::Required]);
    }

    #[test]
    fn other_needs_a_note_and_a_note_has_a_limit() {
        let errors = decide("REJECT", &["OTHER"], Some("   ")).unwrap_err();
        assert_eq!(codes(&errors, "note"), [RuleCode::Required]);
        let errors = decide("SUSPEND", &["OTHER"], None).unwrap_err();
        assert_eq!(codes(&errors, "note"), [RuleCode::Required]);
        assert!(decide("REJECT", &["OTHER"], Some("Please use a recent photo.")).is_ok());
        let long = "字".repeat(501);
        let errors = decide("APPROVE", &[], Some(&long)).unwrap_err();
        assert_eq!(codes(&errors, "note"), [RuleCode::TooLong]);
        let notes = decide("REJECT", &["PHOTOS_UNCLEAR"], Some("Line one\nLine two"));
        assert_eq!(notes.unwrap().note(), Some("Line one\nLine two"));
    }

    #[test]
    fn only_reviewer_actions_are_decisions() {
        for (action, code) in [
            ("RESUBMIT", RuleCode::InvalidChoice),
            ("approve", RuleCode::InvalidChoice),
            ("DELETE", RuleCode::InvalidChoice),
            ("", RuleCode::Required),
        ] {
            let errors = decide(action, &[], None).unwrap_err();
            assert_eq!(codes(&errors, "action"), [code], "{action:?}");
        }
    }

    #[test]
    fn a_decision_serialises_as_action_reasons_and_note() {
        let decision = decide("REJECT", &["PHOTOS_UNCLEAR"], Some("Too dark")).unwrap();
        assert_eq!(
            serde_json::to_value(&decision).unwrap(),
            serde_json::json!({"action": "REJECT", "reasons": ["PHOTOS_UNCLEAR"], "note": "Too dark"})
        );
        assert_eq!(
            serde_json::to_value(decide("APPROVE", &[], None).unwrap()).unwrap(),
            serde_json::json!({"action": "APPROVE", "reasons": []})
        );
    }

    #[test]
    fn every_decision_action_is_a_transition_of_the_table() {
        let approve = decide("APPROVE", &[], None).unwrap();
        assert_eq!(Pending.apply(approve.action()), Ok(Approved));
        let suspend = decide("SUSPEND", &["SPAM"], None).unwrap();
        assert_eq!(Approved.apply(suspend.action()), Ok(Suspended));
        assert!(Pending.apply(suspend.action()).is_err());
    }

    #[test]
    fn reasons_carry_keys_and_name_only_real_registration_fields() {
        assert!((8..=12).contains(&RejectReason::ALL.len()));
        for reason in RejectReason::ALL {
            assert_eq!(reason.key(), format!("review.reject.{}", reason.code()));
            assert_eq!(RejectReason::parse(reason.code()), Some(*reason));
            for field in reason.fields() {
                assert!(FIELDS.contains(field), "{reason}: {field}");
            }
        }
        assert_eq!(RejectReason::PhotosUnclear.fields(), ["photoNameList"]);
        assert!(RejectReason::Other.fields().is_empty());
        for reason in SuspendReason::ALL {
            assert_eq!(reason.key(), format!("review.suspend.{}", reason.code()));
            assert!(reason.fields().is_empty());
        }
        assert_eq!(
            serde_json::from_value::<SuspendReason>("SCAM".into()).unwrap(),
            SuspendReason::Scam
        );
    }

    fn payload() -> UserProfileCreate {
        UserProfileCreate {
            nickname: Some("Mei".into()),
            about_me: Some("I enjoy weekend hikes.".into()),
            hobby_tag_ids: Some(vec![301, 310]),
            photo_name_list: Some(vec!["a1".into(), "b2".into()]),
            value_item: Some(vec![
                crate::conditions::Condition::Height(crate::conditions::Bounds {
                    from: 170,
                    to: 0,
                }),
                crate::conditions::Condition::Smoke {
                    value: crate::Smoke::Never,
                },
            ]),
            ..UserProfileCreate::default()
        }
    }

    #[test]
    fn a_resubmission_lists_exactly_the_fields_that_changed() {
        let old = payload();
        assert!(changed_fields(&old, &old).is_empty());
        let mut new = payload();
        new.about_me = Some("I enjoy weekend hikes and coffee.".into());
        new.photo_name_list = Some(vec!["b2".into(), "a1".into()]);
        new.school = Some("NTU".into());
        assert_eq!(
            changed_fields(&old, &new),
            ["school", "aboutMe", "photoNameList"]
        );
    }

    #[test]
    fn reordered_tags_and_conditions_are_no_change() {
        let old = payload();
        let mut new = payload();
        new.hobby_tag_ids = Some(vec![310, 301]);
        new.value_item.as_mut().unwrap().reverse();
        assert!(changed_fields(&old, &new).is_empty());
    }

    #[test]
    fn statuses_travel_as_upper_case_names() {
        for status in ReviewStatus::ALL {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
            assert_eq!(ReviewStatus::parse(status.as_str()), Some(status));
        }
        for action in ReviewAction::ALL {
            assert_eq!(serde_json::to_value(action).unwrap(), action.as_str());
            assert_eq!(ReviewAction::parse(action.as_str()), Some(action));
        }
    }

    #[test]
    fn an_approval_records_the_work_emails_employer_or_the_reviewers_pick() {
        use crate::VerifyMethod::{CompanyEmail, EmployeeId, ReviewLink};
        let id = |r: Result<&'static crate::catalogue::Employer, FieldErrors>| r.map(|e| e.id);
        let code = |r: Result<&'static crate::catalogue::Employer, FieldErrors>| {
            r.unwrap_err().get("employer").map(|codes| codes.to_vec())
        };
        assert_eq!(
            id(employer_on_approval(
                CompanyEmail,
                Some("mei@tsmc.com"),
                None
            )),
            Ok("tsmc")
        );
        assert_eq!(
            id(employer_on_approval(
                CompanyEmail,
                Some("mei@tsmc.com"),
                Some("tsmc")
            )),
            Ok("tsmc")
        );
        assert_eq!(
            code(employer_on_approval(
                CompanyEmail,
                Some("mei@tsmc.com"),
                Some("mediatek")
            )),
            Some(vec![RuleCode::Mismatch])
        );
        for method in [EmployeeId, ReviewLink] {
            // A work e-mail typed beside another method proves nothing: the reviewer decides.
            assert_eq!(
                code(employer_on_approval(method, Some("mei@tsmc.com"), None)),
                Some(vec![RuleCode::Required])
            );
            assert_eq!(
                code(employer_on_approval(method, None, Some("  "))),
                Some(vec![RuleCode::Required])
            );
            assert_eq!(
                code(employer_on_approval(method, None, Some("acme"))),
                Some(vec![RuleCode::UnknownEmployer])
            );
            assert_eq!(
                id(employer_on_approval(method, None, Some("mediatek"))),
                Ok("mediatek")
            );
        }
    }

    #[test]
    fn the_reasons_that_warrant_it_tell_the_matches() {
        let telling: Vec<SuspendReason> = SuspendReason::ALL
            .iter()
            .copied()
            .filter(|r| r.tells_matches())
            .collect();
        assert_eq!(
            telling,
            [
                SuspendReason::Harassment,
                SuspendReason::Scam,
                SuspendReason::FakeProfile,
                SuspendReason::InappropriateContent,
                SuspendReason::Spam,
            ]
        );
        let suspend = |codes: &[&str]| Decision::parse("SUSPEND", codes, Some("n")).unwrap();
        assert!(removal_notice_due(&suspend(&["SCAM"])));
        assert!(removal_notice_due(&suspend(&["OTHER", "FAKE_PROFILE"])));
        assert!(!removal_notice_due(&suspend(&[
            "UNDERAGE",
            "IN_A_RELATIONSHIP"
        ])));
        assert!(!removal_notice_due(&suspend(&["OTHER"])));
        let reject = Decision::parse("REJECT", &["OTHER"], Some("n")).unwrap();
        assert!(!removal_notice_due(&reject));
    }

    #[test]
    fn a_notice_reaches_matches_live_within_the_window() {
        let now = 1_800_000_000;
        let window = rules::REMOVAL_NOTICE_DAYS * 86_400;
        assert!(removal_notice_reaches(None, now));
        assert!(removal_notice_reaches(Some(now), now));
        assert!(removal_notice_reaches(Some(now - window), now));
        assert!(!removal_notice_reaches(Some(now - window - 1), now));
    }
}
