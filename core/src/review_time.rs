//! The usual review time a member waiting for review is told: the median and the 90th percentile
//! of how long the waits ended by first decisions took over the last
//! [`rules::REVIEW_TIME_WINDOW_DAYS`] days, or no figure at all while there were fewer than
//! [`rules::REVIEW_TIME_MIN_DECISIONS`] of them.
//!
//! A wait is one submission's (a first one or a resubmission): from the moment the profile
//! became PENDING to the reviewer's first APPROVE or REJECT of it. Claims, notes and later
//! decisions (a suspension) are not waits.
//!
//! ```
//! use kizuna_core::review_time::{ReviewTime, review_time};
//! let hours = |h: i64| h * 3600;
//! let waits: Vec<i64> = (1..=10).map(hours).collect();
//! assert_eq!(
//!     review_time(&waits),
//!     ReviewTime::Usual { median_secs: hours(5), p90_secs: hours(9), decisions: 10 }
//! );
//! assert_eq!(review_time(&waits[..3]), ReviewTime::TooLittleData { decisions: 3 });
//! ```

use crate::rules;

/// What the pending screen is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewTime {
    /// Too few first decisions in the window for a figure to mean anything: a sentence instead.
    TooLittleData {
        /// How many there were.
        decisions: usize,
    },
    /// The usual wait.
    Usual {
        /// Half the waits were this long or shorter (seconds).
        median_secs: i64,
        /// Nine in ten were this long or shorter (seconds).
        p90_secs: i64,
        /// How many waits the figures come from.
        decisions: usize,
    },
}

/// The figures of `waits` (seconds, in any order; a negative one, a clock step, counts as 0):
/// nearest-rank percentiles, so each figure is a wait that really happened.
pub fn review_time(waits: &[i64]) -> ReviewTime {
    let decisions = waits.len();
    if decisions < rules::REVIEW_TIME_MIN_DECISIONS {
        return ReviewTime::TooLittleData { decisions };
    }
    let mut sorted: Vec<i64> = waits.iter().map(|w| (*w).max(0)).collect();
    sorted.sort_unstable();
    ReviewTime::Usual {
        median_secs: nearest_rank(&sorted, 50),
        p90_secs: nearest_rank(&sorted, 90),
        decisions,
    }
}

/// The `percent`th percentile of a sorted, non-empty list by the nearest-rank method: the
/// smallest value with at least `percent` % of the list at or below it.
fn nearest_rank(sorted: &[i64], percent: usize) -> i64 {
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = 3600;

    #[test]
    fn below_the_minimum_count_there_is_no_figure() {
        assert_eq!(review_time(&[]), ReviewTime::TooLittleData { decisions: 0 });
        let few = vec![HOUR; rules::REVIEW_TIME_MIN_DECISIONS - 1];
        assert_eq!(
            review_time(&few),
            ReviewTime::TooLittleData {
                decisions: rules::REVIEW_TIME_MIN_DECISIONS - 1
            }
        );
    }

    #[test]
    fn at_the_minimum_count_the_median_and_ninetieth_percentile_are_given() {
        let enough = vec![2 * HOUR; rules::REVIEW_TIME_MIN_DECISIONS];
        assert_eq!(
            review_time(&enough),
            ReviewTime::Usual {
                median_secs: 2 * HOUR,
                p90_secs: 2 * HOUR,
                decisions: rules::REVIEW_TIME_MIN_DECISIONS
            }
        );
    }

    #[test]
    fn the_figures_do_not_depend_on_the_order_of_the_waits() {
        let waits: Vec<i64> = (1..=20).rev().map(|h| h * HOUR).collect();
        // 20 waits: the 10th and the 18th smallest.
        assert_eq!(
            review_time(&waits),
            ReviewTime::Usual {
                median_secs: 10 * HOUR,
                p90_secs: 18 * HOUR,
                decisions: 20
            }
        );
    }

    #[test]
    fn a_few_very_long_waits_move_the_ninetieth_percentile_and_not_the_median() {
        let mut waits = vec![HOUR; 18];
        waits.extend([72 * HOUR, 96 * HOUR]);
        let ReviewTime::Usual {
            median_secs,
            p90_secs,
            ..
        } = review_time(&waits)
        else {
            panic!("enough decisions");
        };
        assert_eq!(median_secs, HOUR);
        assert_eq!(p90_secs, HOUR);
        waits.extend([72 * HOUR; 3]);
        let ReviewTime::Usual {
            median_secs,
            p90_secs,
            ..
        } = review_time(&waits)
        else {
            panic!("enough decisions");
        };
        assert_eq!(median_secs, HOUR);
        assert_eq!(p90_secs, 72 * HOUR);
    }

    #[test]
    fn a_negative_wait_from_a_clock_step_counts_as_none() {
        let mut waits = vec![-50; 10];
        waits[9] = HOUR;
        assert_eq!(
            review_time(&waits),
            ReviewTime::Usual {
                median_secs: 0,
                p90_secs: 0,
                decisions: 10
            }
        );
    }
}
