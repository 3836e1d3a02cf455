//! The review console: what reviewers read (the queue, a profile's review file, the report and
//! flagged-conversation queues) and what they do (claim, release, decide a profile or a
//! revision, dismiss, put an employer on record). Each use-case takes the reviewer as the access
//! rule sees them (`crate::access::Viewer`) and asks it whether they are a party to the case;
//! who may claim or decide is kizuna-core's `review_guard`; storage only reads and writes rows.

pub mod appeals;
mod console;
mod decide;
mod queues;
#[cfg(test)]
mod tests;

pub use console::{
    ClaimView, HistoryLine, Queue, QueueItem, ReviewFileView, Verification, queue, view,
};
pub use decide::{
    Claimed, Decided, DecidedStatus, DecisionInput, Target, claim, decide, release, set_employer,
};
pub use queues::{
    ConversationLine, FlaggedItem, FlaggedLine, MemberRef, ReportItem, dismiss_flagged,
    dismiss_report, flagged, report_queue, without_employer,
};

use kizuna_core::{
    review::InvalidTransition,
    review_guard::{Refusal, RevisionRefusal},
    rules::FieldErrors,
};
use sea_orm::ConnectionTrait;

use crate::{
    access::{self, Viewer},
    storage::StorageError,
};

/// Why a reviewer's call was refused.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// No such profile, report, conversation or pending revision.
    #[error("not found")]
    NotFound,
    /// The reviewer is a party to the case.
    #[error("{0}")]
    NotAllowed(Party),
    /// Another reviewer holds the profile until `until`.
    #[error("another reviewer holds this profile until {until}")]
    HeldByAnother { until: i64 },
    /// The profile changed since the version the reviewer opened.
    #[error("the profile changed since it was opened: reload it")]
    Changed,
    /// The decision is no transition from the profile's status.
    #[error("{0}")]
    NotATransition(InvalidTransition),
    /// The revision opened was decided since, or replaced by a newer save.
    #[error("the revision was decided or replaced since it was opened: reload it")]
    RevisionReplaced,
    /// The member of a revision is no longer approved.
    #[error("the member is no longer approved: their revision waits")]
    NotApproved,
    /// The profile changed while a revision was swapped in.
    #[error("the profile changed meanwhile; reload it")]
    ChangedMeanwhile,
    /// The report or conversation is settled already.
    #[error("the {0} is settled already")]
    SettledAlready(&'static str),
    /// The member appealed this suspension already.
    #[error("this suspension was appealed already: one appeal per suspension")]
    AppealedAlready,
    /// The input is not valid: `cause`, and the failing fields with their rule codes.
    #[error("{cause}")]
    Invalid {
        cause: &'static str,
        fields: FieldErrors,
    },
    /// Too many changes at once: retry after `retry_after` seconds.
    #[error("too many changes at once; wait a moment")]
    Limited { retry_after: u64 },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// How a reviewer is a party to a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Party {
    /// Their own profile, to claim or decide.
    #[error("reviewers do not review their own profile")]
    OwnProfile,
    /// They suspended the member whose appeal it is: another reviewer gives the second look.
    #[error("the reviewer who suspended the member does not answer their appeal: another does")]
    Suspender,
    /// A member who is not suspended has nothing to appeal.
    #[error("only a suspension is appealed")]
    NotSuspended,
    /// Their own profile, or a member with an open report between them either way.
    #[error("reviewers do not act on their own profile or on a member with a report between them")]
    InTheCase,
    /// A report they filed or one about them.
    #[error("reviewers do not act on reports by or about themselves")]
    Report,
    /// A conversation of their own.
    #[error("reviewers do not act on conversations of their own")]
    Conversation,
}

impl From<anyhow::Error> for ReviewError {
    fn from(err: anyhow::Error) -> Self {
        ReviewError::Storage(StorageError::Db(err))
    }
}

impl From<Refusal> for ReviewError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::OwnProfile => ReviewError::NotAllowed(Party::OwnProfile),
            Refusal::HeldByAnother { until } => ReviewError::HeldByAnother { until },
            Refusal::Changed => ReviewError::Changed,
            Refusal::NotATransition(invalid) => ReviewError::NotATransition(invalid),
        }
    }
}

impl From<RevisionRefusal> for ReviewError {
    fn from(refusal: RevisionRefusal) -> Self {
        match refusal {
            RevisionRefusal::HeldByAnother { until } => ReviewError::HeldByAnother { until },
            RevisionRefusal::NoRevision => ReviewError::NotFound,
            RevisionRefusal::Replaced => ReviewError::RevisionReplaced,
            RevisionRefusal::NotApproved => ReviewError::NotApproved,
        }
    }
}

impl ReviewError {
    fn invalid(cause: &'static str) -> impl FnOnce(FieldErrors) -> ReviewError {
        move |fields| ReviewError::Invalid { cause, fields }
    }
}

/// Refuses a reviewer who is a party to the profile's case: their own profile, or a member with
/// an open report between them either way (`access::may_review_profile`).
async fn refuse_a_party(
    db: &impl ConnectionTrait,
    viewer: &Viewer,
    profile_id: i64,
) -> Result<(), ReviewError> {
    if access::may_review_profile(db, viewer, profile_id).await? {
        Ok(())
    } else {
        Err(ReviewError::NotAllowed(Party::InTheCase))
    }
}
