//! Reports of one member by another: the reasons catalogue and the validated report. A report
//! also blocks, and lands in the reviewer console's report queue.
#![warn(missing_docs)]

use crate::reasons::code_catalogue;
use crate::review::SuspendReason;
use crate::rules::{self, FieldErrors, RuleCode, check_text};

code_catalogue!(
    /// Why a member reports another.
    ReportReason, "report.reason." {
        /// The profile is not who they say they are.
        FakeProfile = "FAKE_PROFILE",
        /// Unwanted, insistent or threatening contact.
        Harassment = "HARASSMENT",
        /// Asking for money, investments or gifts.
        ScamOrMoney = "SCAM_OR_MONEY",
        /// Sexual, violent or otherwise unsuitable photos.
        InappropriatePhotos = "INAPPROPRIATE_PHOTOS",
        /// Insulting, sexual or hateful messages.
        OffensiveMessages = "OFFENSIVE_MESSAGES",
        /// Seems younger than 18.
        Underage = "UNDERAGE",
        /// Married or in a relationship.
        InARelationship = "IN_A_RELATIONSHIP",
        /// Advertising, selling or recruiting.
        Spam = "SPAM",
        /// Anything else; the text says what (a text is required).
        Other = "OTHER",
    }
);

impl ReportReason {
    /// The suspension reason a reviewer would start from when acting on this report.
    pub fn suggested_suspension(self) -> SuspendReason {
        match self {
            ReportReason::FakeProfile => SuspendReason::FakeProfile,
            ReportReason::Harassment | ReportReason::OffensiveMessages => SuspendReason::Harassment,
            ReportReason::ScamOrMoney => SuspendReason::Scam,
            ReportReason::InappropriatePhotos => SuspendReason::InappropriateContent,
            ReportReason::Underage => SuspendReason::Underage,
            ReportReason::InARelationship => SuspendReason::InARelationship,
            ReportReason::Spam => SuspendReason::Spam,
            ReportReason::Other => SuspendReason::Other,
        }
    }
}

/// A validated report: at least one distinct reason, and the optional text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Distinct reasons, in the order given.
    pub reasons: Vec<ReportReason>,
    /// The reporter's words, trimmed ([`rules::REPORT_TEXT`]); required with OTHER.
    pub text: Option<String>,
}

impl Report {
    /// Reads a report. Errors are keyed `reasons` (`required`, `invalid_choice`, `duplicate`)
    /// and `text` (the [`rules::REPORT_TEXT`] rule, and `required` when a reason is OTHER).
    pub fn parse<R: AsRef<str>>(reasons: &[R], text: Option<&str>) -> Result<Report, FieldErrors> {
        let mut errors = FieldErrors::new();
        let text = check_text("text", text, rules::REPORT_TEXT, &mut errors);
        if reasons.is_empty() {
            errors.add("reasons", RuleCode::Required);
        }
        let mut parsed = Vec::with_capacity(reasons.len());
        for code in reasons {
            match ReportReason::parse(code.as_ref()) {
                Some(reason) if parsed.contains(&reason) => {
                    errors.add("reasons", RuleCode::Duplicate)
                }
                Some(reason) => parsed.push(reason),
                None => errors.add("reasons", RuleCode::InvalidChoice),
            }
        }
        if text.is_none() && errors.get("text").is_none() && parsed.contains(&ReportReason::Other) {
            errors.add("text", RuleCode::Required);
        }
        errors.into_result(Report {
            reasons: parsed,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_needs_a_known_reason_and_keeps_its_trimmed_text() {
        let report = Report::parse(&["SCAM_OR_MONEY"], Some("  asked me to invest  ")).unwrap();
        assert_eq!(report.reasons, [ReportReason::ScamOrMoney]);
        assert_eq!(report.text.as_deref(), Some("asked me to invest"));
        assert!(Report::parse(&["HARASSMENT"], None).unwrap().text.is_none());
    }

    #[test]
    fn missing_unknown_and_repeated_reasons_are_refused() {
        let none: [&str; 0] = [];
        assert_eq!(
            Report::parse(&none, None).unwrap_err().get("reasons"),
            Some(&[RuleCode::Required][..])
        );
        assert_eq!(
            Report::parse(&["RUDE"], None).unwrap_err().get("reasons"),
            Some(&[RuleCode::InvalidChoice][..])
        );
        assert_eq!(
            Report::parse(&["SPAM", "SPAM"], None)
                .unwrap_err()
                .get("reasons"),
            Some(&[RuleCode::Duplicate][..])
        );
    }

    #[test]
    fn other_needs_words_and_words_have_a_limit() {
        assert_eq!(
            Report::parse(&["OTHER"], Some("  "))
                .unwrap_err()
                .get("text"),
            Some(&[RuleCode::Required][..])
        );
        assert_eq!(
            Report::parse(&["SPAM"], Some(&"x".repeat(1001)))
                .unwrap_err()
                .get("text"),
            Some(&[RuleCode::TooLong][..])
        );
    }

    #[test]
    fn every_report_reason_suggests_a_suspension_and_has_a_key() {
        for reason in ReportReason::ALL {
            assert_eq!(reason.key(), format!("report.reason.{}", reason.code()));
        }
        assert_eq!(
            ReportReason::OffensiveMessages.suggested_suspension(),
            SuspendReason::Harassment
        );
    }
}
