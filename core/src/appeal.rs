//! A second look at a suspension: the suspended member asks once per suspension, with a short
//! text ([`rules::APPEAL_TEXT`]); a reviewer other than the one who suspended answers it
//! (upheld, or reinstated). Who may decide is [`crate::review_guard::appeal_decision_allowed`].
//!
//! ```
//! use kizuna_core::appeal::{self, AppealRefusal};
//! use kizuna_core::review::ReviewStatus;
//!
//! assert_eq!(appeal::may_appeal(Some(ReviewStatus::Suspended), false), Ok(()));
//! assert_eq!(
//!     appeal::may_appeal(Some(ReviewStatus::Suspended), true),
//!     Err(AppealRefusal::AlreadyAsked)
//! );
//! assert!(appeal::check_text(Some("  ")).is_err());
//! ```

use crate::review::ReviewStatus;
use crate::rules::{self, FieldErrors, RuleCode, check_text as check};

/// Where an appeal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AppealStatus {
    /// Waiting for a reviewer.
    Pending,
    /// A reviewer looked again and kept the suspension.
    Upheld,
    /// A reviewer looked again and reinstated the member.
    Reinstated,
}

impl AppealStatus {
    /// Every status.
    pub const ALL: [AppealStatus; 3] = [
        AppealStatus::Pending,
        AppealStatus::Upheld,
        AppealStatus::Reinstated,
    ];

    /// The stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            AppealStatus::Pending => "PENDING",
            AppealStatus::Upheld => "UPHELD",
            AppealStatus::Reinstated => "REINSTATED",
        }
    }

    /// The status a name stands for.
    pub fn parse(name: &str) -> Option<AppealStatus> {
        AppealStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// A reviewer's answer to an appeal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppealAnswer {
    /// UPHELD or REINSTATED.
    pub outcome: AppealStatus,
    /// An optional note to the member ([`rules::REVIEW_NOTE`]).
    pub note: Option<String>,
}

impl AppealAnswer {
    /// Reads a reviewer's answer: `outcome` is `required` when blank and `invalid_choice` unless
    /// UPHELD or REINSTATED; `note` follows [`rules::REVIEW_NOTE`].
    pub fn parse(outcome: &str, note: Option<&str>) -> Result<AppealAnswer, FieldErrors> {
        let mut errors = FieldErrors::new();
        let note = check("note", note, rules::REVIEW_NOTE, &mut errors);
        let outcome = match AppealStatus::parse(outcome.trim()) {
            Some(s @ (AppealStatus::Upheld | AppealStatus::Reinstated)) => Some(s),
            _ => {
                let code = if outcome.trim().is_empty() {
                    RuleCode::Required
                } else {
                    RuleCode::InvalidChoice
                };
                errors.add("outcome", code);
                None
            }
        };
        match outcome {
            Some(outcome) if errors.is_empty() => Ok(AppealAnswer { outcome, note }),
            _ => Err(errors),
        }
    }
}

/// Why a member may not appeal now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppealRefusal {
    /// Only a suspension is appealed (a rejection is answered by editing the profile).
    NotSuspended,
    /// The member appealed this suspension already (decided or not).
    AlreadyAsked,
}

/// Whether a member whose profile is in `status` may appeal, `asked` saying whether they
/// appealed the suspension that stands already: once per suspension.
pub fn may_appeal(status: Option<ReviewStatus>, asked: bool) -> Result<(), AppealRefusal> {
    if status != Some(ReviewStatus::Suspended) {
        return Err(AppealRefusal::NotSuspended);
    }
    if asked {
        return Err(AppealRefusal::AlreadyAsked);
    }
    Ok(())
}

/// Checks an appeal's text ([`rules::APPEAL_TEXT`], required), returning it trimmed; errors are
/// keyed `text`.
pub fn check_text(text: Option<&str>) -> Result<String, FieldErrors> {
    let mut errors = FieldErrors::new();
    let text = check("text", text, rules::APPEAL_TEXT, &mut errors);
    match text {
        Some(text) if errors.is_empty() => Ok(text),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_suspended_member_appeals_and_only_once_per_suspension() {
        use ReviewStatus::*;
        assert_eq!(may_appeal(Some(Suspended), false), Ok(()));
        assert_eq!(
            may_appeal(Some(Suspended), true),
            Err(AppealRefusal::AlreadyAsked)
        );
        for status in [None, Some(Pending), Some(Approved), Some(Rejected)] {
            assert_eq!(
                may_appeal(status, false),
                Err(AppealRefusal::NotSuspended),
                "{status:?}"
            );
        }
    }

    #[test]
    fn the_text_is_required_trimmed_and_at_most_the_rule_long() {
        assert_eq!(
            check_text(Some("  I was hacked.  ")),
            Ok("I was hacked.".into())
        );
        let blank = check_text(Some(" \n ")).unwrap_err();
        assert_eq!(blank.get("text"), Some(&[RuleCode::Required][..]));
        assert!(check_text(None).is_err());
        let max = rules::APPEAL_TEXT.max as usize;
        assert!(check_text(Some(&"字".repeat(max))).is_ok());
        let long = check_text(Some(&"字".repeat(max + 1))).unwrap_err();
        assert_eq!(long.get("text"), Some(&[RuleCode::TooLong][..]));
        let line_breaks = "first line\nsecond line";
        assert_eq!(check_text(Some(line_breaks)), Ok(line_breaks.into()));
    }

    #[test]
    fn an_answer_is_upheld_or_reinstated_with_an_optional_note() {
        assert_eq!(
            AppealAnswer::parse("REINSTATED", Some(" Sorry. ")),
            Ok(AppealAnswer {
                outcome: AppealStatus::Reinstated,
                note: Some("Sorry.".into())
            })
        );
        assert_eq!(
            AppealAnswer::parse("UPHELD", None).map(|a| a.outcome),
            Ok(AppealStatus::Upheld)
        );
        let pending = AppealAnswer::parse("PENDING", None).unwrap_err();
        assert_eq!(pending.get("outcome"), Some(&[RuleCode::InvalidChoice][..]));
        let blank = AppealAnswer::parse(" ", None).unwrap_err();
        assert_eq!(blank.get("outcome"), Some(&[RuleCode::Required][..]));
        let long = "n".repeat(rules::REVIEW_NOTE.max as usize + 1);
        let long = AppealAnswer::parse("UPHELD", Some(&long)).unwrap_err();
        assert_eq!(long.get("note"), Some(&[RuleCode::TooLong][..]));
    }

    #[test]
    fn statuses_read_back_from_their_names() {
        for status in AppealStatus::ALL {
            assert_eq!(AppealStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(AppealStatus::parse("pending"), None);
    }
}
