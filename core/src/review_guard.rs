//! Whether a reviewer may act on a profile now: who holds it (a claim lapses by itself, so an
//! abandoned one never blocks), whether it is their own, whether it changed since they opened it,
//! and whether the decision is a transition from its status. The server reads the facts, asks
//! here, and writes only what was allowed, each write conditional on the facts it read (a
//! racing reviewer who changed them first makes it write nothing).
//!
//! ```
//! use kizuna_core::review_guard::{Claim, ClaimStep, claim_step};
//!
//! let lapsed = Claim { reviewer: 7, expires_at: 100 };
//! assert_eq!(claim_step(1, 2, Some(lapsed), 100), Ok(ClaimStep::Replace { was: lapsed }));
//! ```

use crate::appeal::AppealStatus;
use crate::review::{InvalidTransition, ReviewAction, ReviewStatus};
use crate::revision::RevisionStatus;

/// A reviewer's hold on a profile, live until `expires_at` (Unix seconds, exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The reviewer's user id.
    pub reviewer: i64,
    /// Unix seconds when it lapses.
    pub expires_at: i64,
}

impl Claim {
    /// Whether it still holds the profile at `now`.
    pub fn is_live(&self, now: i64) -> bool {
        self.expires_at > now
    }

    /// Whether it keeps `reviewer` from acting at `now`: another reviewer's live claim.
    fn blocks(&self, reviewer: i64, now: i64) -> bool {
        self.reviewer != reviewer && self.is_live(now)
    }
}

/// Why a reviewer may not act on a profile now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Nobody holds or decides their own profile.
    OwnProfile,
    /// Another reviewer holds it until `until`.
    HeldByAnother {
        /// Unix seconds when their claim lapses.
        until: i64,
    },
    /// It changed (was resubmitted or decided) since the version the reviewer opened.
    Changed,
    /// The decision is no transition from the profile's status now.
    NotATransition(InvalidTransition),
}

/// The facts of a profile that a reviewer's act depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reviewed {
    /// The member's user id.
    pub owner: i64,
    /// Where its review stands.
    pub status: ReviewStatus,
    /// Its version: one more with each change a reviewer must not overlook.
    pub version: i64,
}

/// How a claim is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimStep {
    /// Nobody ever held it: a new claim (a concurrent one makes the insert fail).
    Insert,
    /// The reviewer renews their own claim, or takes over a lapsed one: the claim as it was read
    /// is replaced (a concurrent change makes the replacement write nothing).
    Replace {
        /// The claim as it was read.
        was: Claim,
    },
}

/// How `reviewer` takes the profile of user `owner`, `held` being its claim row (live or
/// lapsed), or why they may not.
pub fn claim_step(
    owner: i64,
    reviewer: i64,
    held: Option<Claim>,
    now: i64,
) -> Result<ClaimStep, Refusal> {
    if owner == reviewer {
        return Err(Refusal::OwnProfile);
    }
    match held {
        None => Ok(ClaimStep::Insert),
        Some(claim) if claim.blocks(reviewer, now) => Err(Refusal::HeldByAnother {
            until: claim.expires_at,
        }),
        Some(was) => Ok(ClaimStep::Replace { was }),
    }
}

/// Whether `reviewer` may let go of the profile: nothing held or their own claim is fine;
/// another reviewer's live claim is theirs to keep.
pub fn may_release(reviewer: i64, held: Option<Claim>, now: i64) -> Result<(), Refusal> {
    match held {
        Some(claim) if claim.blocks(reviewer, now) => Err(Refusal::HeldByAnother {
            until: claim.expires_at,
        }),
        _ => Ok(()),
    }
}

/// The status a reviewer's decision leads to, or why it is refused: their own profile first,
/// then another reviewer's live claim, then a version other than the one they opened, then an
/// action that is no transition (a conflict says more than a transition on a profile that
/// changed meanwhile).
pub fn decision_allowed(
    profile: Reviewed,
    reviewer: i64,
    held: Option<Claim>,
    seen_version: i64,
    action: ReviewAction,
    now: i64,
) -> Result<ReviewStatus, Refusal> {
    if profile.owner == reviewer {
        return Err(Refusal::OwnProfile);
    }
    if let Some(claim) = held.filter(|c| c.blocks(reviewer, now)) {
        return Err(Refusal::HeldByAnother {
            until: claim.expires_at,
        });
    }
    if profile.version != seen_version {
        return Err(Refusal::Changed);
    }
    profile
        .status
        .apply(action)
        .map_err(Refusal::NotATransition)
}

/// Why a decision on a revision is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevisionRefusal {
    /// Another reviewer holds the profile until `until`.
    HeldByAnother {
        /// Unix seconds when their claim lapses.
        until: i64,
    },
    /// The profile never had a revision.
    NoRevision,
    /// The revision the reviewer opened was decided since, or a newer save replaced it.
    Replaced,
    /// The member is no longer approved: their revision waits.
    NotApproved,
}

/// Whether `reviewer` may decide revision `seen` of a profile in `status`, whose revision is
/// `revision` (its number and status, None without one): another reviewer's live claim first,
/// then the revision, then the profile's standing.
pub fn revision_decision_allowed(
    status: ReviewStatus,
    reviewer: i64,
    held: Option<Claim>,
    revision: Option<(i32, RevisionStatus)>,
    seen: i32,
    now: i64,
) -> Result<(), RevisionRefusal> {
    if let Some(claim) = held.filter(|c| c.blocks(reviewer, now)) {
        return Err(RevisionRefusal::HeldByAnother {
            until: claim.expires_at,
        });
    }
    let Some((number, revision)) = revision else {
        return Err(RevisionRefusal::NoRevision);
    };
    if number != seen || revision != RevisionStatus::Pending {
        return Err(RevisionRefusal::Replaced);
    }
    if status != ReviewStatus::Approved {
        return Err(RevisionRefusal::NotApproved);
    }
    Ok(())
}

/// Why a reviewer may not answer an appeal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppealDecisionRefusal {
    /// Nobody answers their own appeal.
    OwnProfile,
    /// The reviewer who suspended the member does not give the second look: another does.
    Suspender,
    /// It was answered already (by this reviewer or another).
    Decided,
    /// The member is no longer suspended (reinstated otherwise, or gone): nothing to answer.
    NotSuspended,
}

/// Whether `reviewer` may take up (see in their queue, answer) the appeal of member `owner`
/// whose suspension `suspender` decided: anyone on the list but those two.
pub fn may_take_appeal(owner: i64, suspender: Option<i64>, reviewer: i64) -> bool {
    owner != reviewer && suspender != Some(reviewer)
}

/// Whether `reviewer` may answer the appeal of member `owner`, suspended by `suspender`, the
/// appeal being `appeal` and the member's profile `status` now: their own first, then the
/// suspending reviewer, then an appeal answered already, then a member no longer suspended.
pub fn appeal_decision_allowed(
    owner: i64,
    suspender: Option<i64>,
    reviewer: i64,
    appeal: AppealStatus,
    status: ReviewStatus,
) -> Result<(), AppealDecisionRefusal> {
    if owner == reviewer {
        return Err(AppealDecisionRefusal::OwnProfile);
    }
    if suspender == Some(reviewer) {
        return Err(AppealDecisionRefusal::Suspender);
    }
    if appeal != AppealStatus::Pending {
        return Err(AppealDecisionRefusal::Decided);
    }
    if status != ReviewStatus::Suspended {
        return Err(AppealDecisionRefusal::NotSuspended);
    }
    Ok(())
}

/// Whether a profile in the queue is shown as a resubmission: a profile's second or later
/// submission, never a revision of an approved one (that shows what the revision changes).
pub fn is_resubmission(submission: i32, revision: Option<i32>) -> bool {
    revision.is_none() && submission > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: i64 = 1;
    const ME: i64 = 2;
    const OTHER: i64 = 3;
    const NOW: i64 = 1_000;

    fn pending(version: i64) -> Reviewed {
        Reviewed {
            owner: OWNER,
            status: ReviewStatus::Pending,
            version,
        }
    }

    fn claim(reviewer: i64, expires_at: i64) -> Claim {
        Claim {
            reviewer,
            expires_at,
        }
    }

    #[test]
    fn an_unclaimed_profile_is_claimed_by_a_new_row() {
        assert_eq!(claim_step(OWNER, ME, None, NOW), Ok(ClaimStep::Insert));
    }

    #[test]
    fn a_reviewer_renews_their_own_live_claim() {
        let mine = claim(ME, NOW + 10);
        assert_eq!(
            claim_step(OWNER, ME, Some(mine), NOW),
            Ok(ClaimStep::Replace { was: mine })
        );
    }

    #[test]
    fn a_lapsed_claim_is_taken_over_from_the_moment_it_expires() {
        let lapsed = claim(OTHER, NOW);
        assert_eq!(
            claim_step(OWNER, ME, Some(lapsed), NOW),
            Ok(ClaimStep::Replace { was: lapsed })
        );
        assert_eq!(
            claim_step(OWNER, ME, Some(claim(OTHER, NOW + 1)), NOW),
            Err(Refusal::HeldByAnother { until: NOW + 1 })
        );
    }

    #[test]
    fn nobody_claims_their_own_profile_even_when_it_is_free() {
        assert_eq!(claim_step(ME, ME, None, NOW), Err(Refusal::OwnProfile));
    }

    #[test]
    fn a_reviewer_lets_go_of_nothing_or_their_own_claim_but_never_anothers_live_one() {
        assert_eq!(may_release(ME, None, NOW), Ok(()));
        assert_eq!(may_release(ME, Some(claim(ME, NOW + 5)), NOW), Ok(()));
        assert_eq!(may_release(ME, Some(claim(OTHER, NOW)), NOW), Ok(()));
        assert_eq!(
            may_release(ME, Some(claim(OTHER, NOW + 5)), NOW),
            Err(Refusal::HeldByAnother { until: NOW + 5 })
        );
    }

    #[test]
    fn a_decision_on_the_version_opened_follows_the_transition_table() {
        let to = decision_allowed(pending(4), ME, None, 4, ReviewAction::Approve, NOW);
        assert_eq!(to, Ok(ReviewStatus::Approved));
        let held_by_me = Some(claim(ME, NOW + 60));
        let to = decision_allowed(pending(4), ME, held_by_me, 4, ReviewAction::Reject, NOW);
        assert_eq!(to, Ok(ReviewStatus::Rejected));
    }

    #[test]
    fn the_own_profile_is_refused_before_anything_else() {
        let own = Reviewed {
            owner: ME,
            ..pending(1)
        };
        let held = Some(claim(OTHER, NOW + 60));
        assert_eq!(
            decision_allowed(own, ME, held, 9, ReviewAction::Suspend, NOW),
            Err(Refusal::OwnProfile)
        );
    }

    #[test]
    fn another_reviewers_live_claim_is_refused_before_a_changed_version() {
        let held = Some(claim(OTHER, NOW + 60));
        assert_eq!(
            decision_allowed(pending(2), ME, held, 1, ReviewAction::Approve, NOW),
            Err(Refusal::HeldByAnother { until: NOW + 60 })
        );
        let lapsed = Some(claim(OTHER, NOW));
        assert_eq!(
            decision_allowed(pending(2), ME, lapsed, 2, ReviewAction::Approve, NOW),
            Ok(ReviewStatus::Approved)
        );
    }

    #[test]
    fn a_changed_version_is_refused_before_the_transition() {
        assert_eq!(
            decision_allowed(pending(2), ME, None, 1, ReviewAction::Suspend, NOW),
            Err(Refusal::Changed)
        );
    }

    #[test]
    fn an_action_that_is_no_transition_is_refused_with_the_status_it_met() {
        assert_eq!(
            decision_allowed(pending(2), ME, None, 2, ReviewAction::Suspend, NOW),
            Err(Refusal::NotATransition(InvalidTransition {
                from: ReviewStatus::Pending,
                action: ReviewAction::Suspend,
            }))
        );
    }

    #[test]
    fn a_revision_is_decided_only_as_opened_pending_and_while_the_member_is_approved() {
        use RevisionStatus::{Approved, Pending};
        let approved = ReviewStatus::Approved;
        assert_eq!(
            revision_decision_allowed(approved, ME, None, Some((3, Pending)), 3, NOW),
            Ok(())
        );
        assert_eq!(
            revision_decision_allowed(approved, ME, None, None, 3, NOW),
            Err(RevisionRefusal::NoRevision)
        );
        assert_eq!(
            revision_decision_allowed(approved, ME, None, Some((4, Pending)), 3, NOW),
            Err(RevisionRefusal::Replaced)
        );
        assert_eq!(
            revision_decision_allowed(approved, ME, None, Some((3, Approved)), 3, NOW),
            Err(RevisionRefusal::Replaced)
        );
        assert_eq!(
            revision_decision_allowed(
                ReviewStatus::Suspended,
                ME,
                None,
                Some((3, Pending)),
                3,
                NOW
            ),
            Err(RevisionRefusal::NotApproved)
        );
    }

    #[test]
    fn another_reviewers_live_claim_is_refused_before_the_revision_is_looked_at() {
        let held = Some(claim(OTHER, NOW + 1));
        assert_eq!(
            revision_decision_allowed(ReviewStatus::Approved, ME, held, None, 1, NOW),
            Err(RevisionRefusal::HeldByAnother { until: NOW + 1 })
        );
    }

    #[test]
    fn an_appeal_is_answered_once_by_a_reviewer_other_than_the_suspender_and_the_member() {
        use AppealDecisionRefusal as R;
        let suspended = ReviewStatus::Suspended;
        let pending = AppealStatus::Pending;
        assert_eq!(
            appeal_decision_allowed(OWNER, Some(OTHER), ME, pending, suspended),
            Ok(())
        );
        assert_eq!(
            appeal_decision_allowed(OWNER, Some(ME), ME, pending, suspended),
            Err(R::Suspender)
        );
        assert_eq!(
            appeal_decision_allowed(ME, Some(OTHER), ME, pending, suspended),
            Err(R::OwnProfile)
        );
        assert_eq!(
            appeal_decision_allowed(OWNER, Some(OTHER), ME, AppealStatus::Upheld, suspended),
            Err(R::Decided)
        );
        assert_eq!(
            appeal_decision_allowed(OWNER, Some(OTHER), ME, pending, ReviewStatus::Approved),
            Err(R::NotSuspended)
        );
        // A suspension from before reviewers were recorded has no suspender to keep out.
        assert_eq!(
            appeal_decision_allowed(OWNER, None, ME, pending, suspended),
            Ok(())
        );
        assert!(may_take_appeal(OWNER, Some(OTHER), ME));
        assert!(!may_take_appeal(OWNER, Some(ME), ME));
        assert!(!may_take_appeal(ME, Some(OTHER), ME));
    }

    #[test]
    fn only_a_later_submission_of_a_profile_is_a_resubmission() {
        assert!(!is_resubmission(1, None));
        assert!(is_resubmission(2, None));
        assert!(!is_resubmission(3, Some(1)));
    }
}
