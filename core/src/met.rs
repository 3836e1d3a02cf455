//! "We met": a few days after both members of a match have written to each other, each is asked,
//! privately, whether they met and, if so, whether they would like to see the other again.
//!
//! Decided: the answers are the asker's alone. The other member never learns them, nor whether
//! they were given; their one use is a bounded weight in the daily pick for members whom others
//! want to see again ([`seen_again_points`]), which no member can trace back to an answer.
//!
//! ```
//! use kizuna_core::met::{FirstWords, question_due};
//! use kizuna_core::rules::WE_MET_ASK_AFTER_DAYS;
//!
//! let first = FirstWords { mine: Some(1_000), theirs: Some(5_000) };
//! let due_at = 5_000 + WE_MET_ASK_AFTER_DAYS * 86_400;
//! assert!(!question_due(first, true, false, due_at - 1));
//! assert!(question_due(first, true, false, due_at));
//! ```

use crate::rules::{self, FieldErrors, RuleCode};

/// When each member of a match first wrote in it (Unix seconds), seen from one of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirstWords {
    /// The asked member's first message, if any.
    pub mine: Option<i64>,
    /// The other member's first message, if any.
    pub theirs: Option<i64>,
}

/// When the question becomes due: [`rules::WE_MET_ASK_AFTER_DAYS`] after the later of the two
/// first messages; never while one of them has not written.
pub fn asked_from(first: FirstWords) -> Option<i64> {
    let (Some(mine), Some(theirs)) = (first.mine, first.theirs) else {
        return None;
    };
    Some(mine.max(theirs) + rules::WE_MET_ASK_AFTER_DAYS * 86_400)
}

/// Whether a member is due the question about a match at `now`: the match is `live`, both wrote
/// and the days have passed since the later first message, and the member has not `answered`.
/// An ended match is never asked about (its chat is closed and the other may have blocked).
pub fn question_due(first: FirstWords, live: bool, answered: bool, now: i64) -> bool {
    live && !answered && asked_from(first).is_some_and(|from| now >= from)
}

/// A member's answer about one match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetAnswer {
    /// They did not meet.
    NotMet,
    /// They met; `again` says whether the member would like to see the other again.
    Met {
        /// They would like to see the other again.
        again: bool,
    },
}

impl MetAnswer {
    /// Reads the answer as sent (`met`, `seeAgain`): "see again" is asked only of a member who
    /// met, so it is `required` after a yes and `invalid` after a no.
    pub fn parse(met: bool, see_again: Option<bool>) -> Result<MetAnswer, FieldErrors> {
        match (met, see_again) {
            (true, Some(again)) => Ok(MetAnswer::Met { again }),
            (true, None) => Err(FieldErrors::single("seeAgain", RuleCode::Required)),
            (false, None) => Ok(MetAnswer::NotMet),
            (false, Some(_)) => Err(FieldErrors::single("seeAgain", RuleCode::Invalid)),
        }
    }

    /// Whether they met.
    pub fn met(self) -> bool {
        matches!(self, MetAnswer::Met { .. })
    }

    /// Whether they would like to see the other again (None when they did not meet).
    pub fn see_again(self) -> Option<bool> {
        match self {
            MetAnswer::NotMet => None,
            MetAnswer::Met { again } => Some(again),
        }
    }
}

/// The daily pick's weight for a candidate whom `wanted_again_by` different members met and
/// would like to see again: [`rules::SEEN_AGAIN_POINTS_EACH`] each, never more than
/// [`rules::SEEN_AGAIN_POINTS_MAX`], so a popular member is nudged up among near-equals and
/// never placed above a better fit.
pub fn seen_again_points(wanted_again_by: u32) -> u32 {
    wanted_again_by
        .saturating_mul(rules::SEEN_AGAIN_POINTS_EACH)
        .min(rules::SEEN_AGAIN_POINTS_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    #[test]
    fn nobody_is_asked_until_both_have_written() {
        let far = 100 * DAY;
        for first in [
            FirstWords::default(),
            FirstWords {
                mine: Some(0),
                theirs: None,
            },
            FirstWords {
                mine: None,
                theirs: Some(0),
            },
        ] {
            assert_eq!(asked_from(first), None);
            assert!(!question_due(first, true, false, far));
        }
    }

    #[test]
    fn the_question_is_due_the_set_days_after_the_later_first_message() {
        let first = FirstWords {
            mine: Some(10 * DAY),
            theirs: Some(2 * DAY),
        };
        let due = 10 * DAY + rules::WE_MET_ASK_AFTER_DAYS * DAY;
        assert_eq!(asked_from(first), Some(due));
        assert!(!question_due(first, true, false, due - 1));
        assert!(question_due(first, true, false, due));
        assert!(question_due(first, true, false, due + 30 * DAY));
    }

    #[test]
    fn an_answered_question_or_an_ended_match_is_not_asked() {
        let first = FirstWords {
            mine: Some(0),
            theirs: Some(0),
        };
        let later = 60 * DAY;
        assert!(!question_due(first, true, true, later));
        assert!(!question_due(first, false, false, later));
    }

    #[test]
    fn see_again_is_required_after_yes_and_refused_after_no() {
        assert_eq!(
            MetAnswer::parse(true, Some(true)),
            Ok(MetAnswer::Met { again: true })
        );
        assert_eq!(
            MetAnswer::parse(true, Some(false)),
            Ok(MetAnswer::Met { again: false })
        );
        assert_eq!(MetAnswer::parse(false, None), Ok(MetAnswer::NotMet));
        assert_eq!(
            MetAnswer::parse(true, None)
                .unwrap_err()
                .get("seeAgain")
                .unwrap(),
            &[RuleCode::Required][..]
        );
        assert_eq!(
            MetAnswer::parse(false, Some(true))
                .unwrap_err()
                .get("seeAgain")
                .unwrap(),
            &[RuleCode::Invalid][..]
        );
    }

    #[test]
    fn an_answer_says_whether_they_met_and_want_to_meet_again() {
        assert!(!MetAnswer::NotMet.met());
        assert_eq!(MetAnswer::NotMet.see_again(), None);
        assert!(MetAnswer::Met { again: false }.met());
        assert_eq!(MetAnswer::Met { again: true }.see_again(), Some(true));
    }

    #[test]
    fn the_seen_again_weight_grows_per_member_and_stops_at_its_bound() {
        assert_eq!(seen_again_points(0), 0);
        assert_eq!(seen_again_points(1), rules::SEEN_AGAIN_POINTS_EACH);
        assert_eq!(seen_again_points(2), 2 * rules::SEEN_AGAIN_POINTS_EACH);
        for n in [3, 4, 100, u32::MAX] {
            assert!(seen_again_points(n) <= rules::SEEN_AGAIN_POINTS_MAX);
        }
        assert_eq!(seen_again_points(u32::MAX), rules::SEEN_AGAIN_POINTS_MAX);
        let mut last = 0;
        for n in 0..10 {
            assert!(seen_again_points(n) >= last, "never lower for more members");
            last = seen_again_points(n);
        }
    }

    #[test]
    fn the_seen_again_bound_is_below_one_shared_hobby_and_the_like_back_bonus() {
        let score = rules::SCORE;
        assert!(rules::SEEN_AGAIN_POINTS_MAX < score.shared_hobby + score.same_fertility_plan);
        assert!(rules::SEEN_AGAIN_POINTS_MAX < score.liked_you);
        assert!(rules::SEEN_AGAIN_POINTS_MAX < score.distance[0]);
    }
}
