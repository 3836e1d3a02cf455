//! The two-way rule: who may be introduced to whom, and why not.

#[allow(unused_imports)]
use super::*;

/// Whose rule refused an introduction: the member whose list it is, or the person who would be
/// shown to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The member whose list is being made.
    Viewer,
    /// The person who would be introduced to them.
    Candidate,
}

impl Side {
    /// `VIEWER` or `CANDIDATE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Viewer => "VIEWER",
            Side::Candidate => "CANDIDATE",
        }
    }
}

/// The first reason two people may not be introduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// Nobody is introduced to themselves.
    Oneself,
    /// This side is not APPROVED (pending, rejected or suspended).
    NotApproved(Side),
    /// They work at the same employer and one of them asked never to meet colleagues (which one
    /// is not said: the rule is the same both ways).
    Colleagues,
    /// This side's `matchGender` does not accept the other's gender.
    GenderNotWanted(Side),
    /// The other lives beyond this side's `recommendDistanceKm`.
    TooFar(Side),
    /// The other does not meet this side's partner conditions.
    ConditionsNotMet(Side),
    /// One of them blocked the other.
    Blocked,
    /// One of them reported the other.
    Reported,
    /// They are or were matched (an unmatch does not make them strangers again).
    Matched,
    /// The viewer already liked the candidate.
    AlreadyLiked,
    /// The candidate is still in one of the viewer's earlier lists, waiting for a like or a pass.
    AlreadyIntroduced,
    /// One of them passed the other less than [`rules::PASS_COOLDOWN_DAYS`] days ago.
    PassedRecently,
    /// They had matched or passed before one of them deleted their account and registered
    /// again, less than [`rules::FORMER_PAIR_DAYS`] days ago.
    FormerPair,
}

impl Refusal {
    /// A stable SCREAMING_SNAKE code (without the side), for logs and vectors.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::Oneself => "ONESELF",
            Refusal::NotApproved(_) => "NOT_APPROVED",
            Refusal::Colleagues => "COLLEAGUES",
            Refusal::GenderNotWanted(_) => "GENDER_NOT_WANTED",
            Refusal::TooFar(_) => "TOO_FAR",
            Refusal::ConditionsNotMet(_) => "CONDITIONS_NOT_MET",
            Refusal::Blocked => "BLOCKED",
            Refusal::Reported => "REPORTED",
            Refusal::Matched => "MATCHED",
            Refusal::AlreadyLiked => "ALREADY_LIKED",
            Refusal::AlreadyIntroduced => "ALREADY_INTRODUCED",
            Refusal::PassedRecently => "PASSED_RECENTLY",
            Refusal::FormerPair => "FORMER_PAIR",
        }
    }

    /// Whose rule refused, for the clauses that belong to one side.
    pub fn side(self) -> Option<Side> {
        match self {
            Refusal::NotApproved(side)
            | Refusal::GenderNotWanted(side)
            | Refusal::TooFar(side)
            | Refusal::ConditionsNotMet(side) => Some(side),
            _ => None,
        }
    }
}

/// What the server's tables say about two people, from the viewer's side. Everything but the
/// likes is symmetric: a block, report, match or pass by either one counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relation {
    /// Either one blocked the other.
    pub blocked: bool,
    /// Either one reported the other.
    pub reported: bool,
    /// They are or were matched.
    pub matched: bool,
    /// The viewer liked the candidate.
    pub viewer_liked: bool,
    /// The candidate liked the viewer: no obstacle, a bonus in the score.
    pub candidate_liked: bool,
    /// The candidate is in one of the viewer's earlier lists without a like or a pass yet.
    pub pending_introduction: bool,
    /// The Asia/Taipei day of the latest pass between them, either way.
    pub last_pass: Option<Date>,
    /// The Asia/Taipei day one of them deleted their account while the two had matched or
    /// passed (the pair was kept and restored when they registered again).
    pub former_pair: Option<Date>,
}

impl Relation {
    /// Strangers: no relation at all.
    pub const NONE: Relation = Relation {
        blocked: false,
        reported: false,
        matched: false,
        viewer_liked: false,
        candidate_liked: false,
        pending_introduction: false,
        last_pass: None,
        former_pair: None,
    };

    /// The relation's part of the rule. A pass on day D keeps them apart through D + 29; a pair
    /// kept by a departure on day D, through D + 364.
    pub fn check(&self, today: Date) -> Result<(), Refusal> {
        if self.blocked {
            Err(Refusal::Blocked)
        } else if self.reported {
            Err(Refusal::Reported)
        } else if self.matched {
            Err(Refusal::Matched)
        } else if self.viewer_liked {
            Err(Refusal::AlreadyLiked)
        } else if self.pending_introduction {
            Err(Refusal::AlreadyIntroduced)
        } else if self
            .last_pass
            .is_some_and(|day| today.days_since(day) < rules::PASS_COOLDOWN_DAYS)
        {
            Err(Refusal::PassedRecently)
        } else if self
            .former_pair
            .is_some_and(|day| today.days_since(day) < rules::FORMER_PAIR_DAYS)
        {
            Err(Refusal::FormerPair)
        } else {
            Ok(())
        }
    }
}

/// The profiles' part of the two-way rule: not oneself; both APPROVED; not colleagues kept apart
/// ([`colleagues_kept_apart`]); each one's `matchGender`
/// accepts the other's gender; their home cells within both radii (0 = anywhere); each one's
/// partner conditions met by the other on `today`. Allocation-free; checks the cheapest clauses
/// first and answers the first that fails, the viewer's side before the candidate's.
pub fn check_pair(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    today: Date,
) -> Result<(), Refusal> {
    if pair_allowed(viewer, candidate, today) {
        Ok(())
    } else {
        first_refusal(viewer, candidate, today)
    }
}

/// [`check_pair`] as a yes or no, for the hot loop: the cheap clauses are combined without
/// branches (random candidates make every branch a coin toss), the conditions only then.
#[inline]
pub fn pair_allowed(viewer: &MatchProfile, candidate: &MatchProfile, today: Date) -> bool {
    let chord_squared = geo::chord_squared(&viewer.unit, &candidate.unit);
    let cheap = (viewer.id != candidate.id)
        & (viewer.accepts & candidate.gender_bit != 0)
        & (candidate.accepts & viewer.gender_bit != 0)
        & !colleagues_kept_apart(viewer.workplace, candidate.workplace)
        & (chord_squared <= viewer.reach)
        & (chord_squared <= candidate.reach);
    cheap && candidate.meets(viewer, today) && viewer.meets(candidate, today)
}

/// The clauses of [`check_pair`] one by one, in order, to name the first that fails.
pub(super) fn first_refusal(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    today: Date,
) -> Result<(), Refusal> {
    if viewer.id == candidate.id {
        return Err(Refusal::Oneself);
    }
    for (side, member) in [(Side::Viewer, viewer), (Side::Candidate, candidate)] {
        if member.status != ReviewStatus::Approved {
            return Err(Refusal::NotApproved(side));
        }
    }
    if colleagues_kept_apart(viewer.workplace, candidate.workplace) {
        return Err(Refusal::Colleagues);
    }
    if !accepts_gender(viewer.match_gender, candidate.gender) {
        return Err(Refusal::GenderNotWanted(Side::Viewer));
    }
    if !accepts_gender(candidate.match_gender, viewer.gender) {
        return Err(Refusal::GenderNotWanted(Side::Candidate));
    }
    let chord_squared = geo::chord_squared(&viewer.unit, &candidate.unit);
    if chord_squared > viewer.reach {
        return Err(Refusal::TooFar(Side::Viewer));
    }
    if chord_squared > candidate.reach {
        return Err(Refusal::TooFar(Side::Candidate));
    }
    if !candidate.meets(viewer, today) {
        return Err(Refusal::ConditionsNotMet(Side::Viewer));
    }
    if !viewer.meets(candidate, today) {
        return Err(Refusal::ConditionsNotMet(Side::Candidate));
    }
    Ok(())
}

/// The whole rule: [`check_pair`], then the [`Relation`]. The server can run [`check_pair`] first
/// over many candidates and look relations up only for those that pass.
pub fn check_introduction(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> Result<(), Refusal> {
    check_pair(viewer, candidate, today)?;
    relation.check(today)
}

/// May `candidate` be introduced to `viewer` today?
pub fn may_introduce(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> bool {
    pair_allowed(viewer, candidate, today) && relation.check(today).is_ok()
}
