//! Review statuses and the only transitions between them.

use serde::{Deserialize, Serialize};
use std::fmt;

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
    Approve,
    Reject,
    /// The person edited a rejected profile.
    Resubmit,
    Suspend,
    Reinstate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidTransition {
    pub from: ReviewStatus,
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
    pub const ALL: [ReviewStatus; 4] = [
        ReviewStatus::Pending,
        ReviewStatus::Approved,
        ReviewStatus::Rejected,
        ReviewStatus::Suspended,
    ];

    /// The status of a newly submitted profile.
    pub const INITIAL: ReviewStatus = ReviewStatus::Pending;

    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Pending => "PENDING",
            ReviewStatus::Approved => "APPROVED",
            ReviewStatus::Rejected => "REJECTED",
            ReviewStatus::Suspended => "SUSPENDED",
        }
    }

    pub fn parse(text: &str) -> Option<ReviewStatus> {
        ReviewStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
    }

    pub fn apply(self, action: ReviewAction) -> Result<ReviewStatus, InvalidTransition> {
        use ReviewAction::*;
        use ReviewStatus::*;
        match (self, action) {
            (Pending, Approve) => Ok(Approved),
            (Pending, Reject) => Ok(Rejected),
            (Rejected, Resubmit) => Ok(Pending),
            (Pending | Approved, Suspend) => Ok(Suspended),
            (Suspended, Reinstate) => Ok(Approved),
            (from, action) => Err(InvalidTransition { from, action }),
        }
    }

    /// Whether the person may edit their profile (only while it is not under review or suspended).
    pub fn allows_editing(self) -> bool {
        matches!(self, ReviewStatus::Rejected | ReviewStatus::Approved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ReviewAction::*;
    use ReviewStatus::*;

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
        assert_eq!(allowed, 6);
    }

    #[test]
    fn statuses_travel_as_upper_case_names() {
        for status in ReviewStatus::ALL {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
            assert_eq!(ReviewStatus::parse(status.as_str()), Some(status));
        }
    }
}
