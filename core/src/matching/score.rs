//! The compatibility score of a pair that passed the rule.

#[allow(unused_imports)]
use super::*;

/// The parts of a compatibility score, each documented at [`rules::ScoreWeights`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoreParts {
    /// Shared tags, weighted per kind, capped at `tags_max`.
    pub tags: u32,
    /// How comfortably each meets the other's ranges, up to `comfort_max`.
    pub comfort: u32,
    /// How recently the candidate was active.
    pub activity: u32,
    /// How near they live, by band.
    pub distance: u32,
    /// The candidate already liked the viewer.
    pub liked_you: u32,
    /// Members who met the candidate would like to see them again: bounded by
    /// [`rules::SEEN_AGAIN_POINTS_MAX`] ([`crate::met::seen_again_points`]).
    pub seen_again: u32,
}

impl ScoreParts {
    /// The score: the sum of the parts.
    pub fn total(self) -> u32 {
        self.tags + self.comfort + self.activity + self.distance + self.liked_you + self.seen_again
    }
}

/// The parts of [`score`].
pub fn score_parts(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> ScoreParts {
    let w = rules::SCORE;
    let (a, b) = (viewer.tags, candidate.tags);
    let tags = w.shared_hobby * a.shared(b, HOBBY)
        + w.shared_exercise * a.shared(b, EXERCISE)
        + w.shared_personality * a.shared(b, PERSONALITY)
        + w.shared_marriage_type * a.shared(b, MARRIAGE_TYPE)
        + w.same_fertility_plan * a.shared(b, FERTILITY_PLAN)
        + w.shared_pet * a.shared(b, PET);
    let comfort = w.comfort_max / 2 * candidate.comfort_for(viewer, today) / 1000
        + w.comfort_max / 2 * viewer.comfort_for(candidate, today) / 1000;
    let idle_days = u32::try_from(today.days_since(candidate.last_active)).unwrap_or(0);
    let activity = w
        .activity
        .iter()
        .find(|(most_days, _)| idle_days <= *most_days)
        .map_or(0, |(_, points)| *points);
    ScoreParts {
        tags: tags.min(w.tags_max),
        comfort,
        activity,
        distance: w.distance[viewer.band(candidate).index()],
        liked_you: if relation.candidate_liked {
            w.liked_you
        } else {
            0
        },
        seen_again: crate::met::seen_again_points(candidate.seen_again()),
    }
}

/// How well `candidate` fits `viewer`, higher is better: shared tags (hobbies weigh most), how
/// comfortably each sits inside the other's ranges, the candidate's recent activity, the distance
/// band, a bonus when the candidate already liked the viewer, and a bounded one when members who
/// met the candidate would like to see them again. Deterministic integer
/// arithmetic. Not symmetric: activity and the like bonus are the candidate's; the rest is.
pub fn score(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> u32 {
    score_parts(viewer, candidate, relation, today).total()
}
