//! Matches whose conversation stalls: a match where nobody has written is reminded once and then
//! closes as expired, and a member with many conversations waiting on their reply is shown them
//! before they like someone new. Pure: callers pass the times (Unix seconds) and what exists.
//!
//! ```
//! use kizuna_core::conversation::{QuietStep, quiet_match_step};
//! const DAY: i64 = 86_400;
//! // Matched at 0, nobody wrote: on day 3 a reminder, on day 7 the match expires.
//! assert_eq!(quiet_match_step(0, 3 * DAY, false, false), QuietStep::Remind);
//! assert_eq!(quiet_match_step(0, 3 * DAY, false, true), QuietStep::Wait);
//! assert_eq!(quiet_match_step(0, 7 * DAY, false, true), QuietStep::Expire);
//! // One message, and it never expires.
//! assert_eq!(quiet_match_step(0, 70 * DAY, true, true), QuietStep::Wait);
//! ```
#![warn(missing_docs)]

use crate::access::{Standing, Ties};
use crate::rules::{
    EXPIRED_MATCH_SHOWN_DAYS, QUIET_MATCH_EXPIRY_DAYS, QUIET_MATCH_REMINDER_DAYS, YOUR_TURN_LIMIT,
    YOUR_TURN_WAIT_SECS,
};

const DAY_SECS: i64 = 24 * 60 * 60;

/// Seconds after the match when a match without messages gets its reminder.
pub const REMINDER_AFTER_SECS: i64 = QUIET_MATCH_REMINDER_DAYS * DAY_SECS;
/// Seconds after the match when a match without messages expires.
pub const EXPIRY_AFTER_SECS: i64 = QUIET_MATCH_EXPIRY_DAYS * DAY_SECS;

/// What a live match is due, given its age and whether anyone wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuietStep {
    /// Nothing now.
    Wait,
    /// Remind both members to say hello (once).
    Remind,
    /// Close it as expired, for both.
    Expire,
}

/// What a live match made at `matched_at` is due at `now`: nothing once any message exists (in
/// either direction), else the reminder from [`REMINDER_AFTER_SECS`] when it was not reminded
/// yet, and expiry from [`EXPIRY_AFTER_SECS`] (reminded or not: a reminder missed while the job
/// did not run does not keep a silent match open longer).
pub fn quiet_match_step(matched_at: i64, now: i64, any_message: bool, reminded: bool) -> QuietStep {
    if any_message {
        return QuietStep::Wait;
    }
    let age = now.saturating_sub(matched_at);
    if age >= EXPIRY_AFTER_SECS {
        QuietStep::Expire
    } else if age >= REMINDER_AFTER_SECS && !reminded {
        QuietStep::Remind
    } else {
        QuietStep::Wait
    }
}

/// Whether an expired match (expired at `expired_at`) is still shown in the matches list at `now`.
pub fn expired_match_shown(expired_at: i64, now: i64) -> bool {
    now.saturating_sub(expired_at) < EXPIRED_MATCH_SHOWN_DAYS * DAY_SECS
}

/// Whether the viewer's matches list shows a match of theirs that expired at `expired_at`, at
/// `now`: for [`EXPIRED_MATCH_SHOWN_DAYS`] after it expired ([`expired_match_shown`]), by the
/// nickname only, unless either blocked the other since or the other is no longer approved (a
/// suspended member is not named to anyone).
pub fn expired_match_listed(viewer: Standing, ties: &Ties, expired_at: i64, now: i64) -> bool {
    viewer.approved
        && !ties.oneself
        && ties.approved
        && !ties.blocked
        && expired_match_shown(expired_at, now)
}

/// The newest message of a conversation, as its reader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastWord {
    /// The reader sent it.
    pub mine: bool,
    /// When (Unix seconds).
    pub sent_at: i64,
}

/// Whether a live conversation waits on the reader's reply at `now`: the other member wrote last,
/// at least [`YOUR_TURN_WAIT_SECS`] ago. A match where nobody wrote waits on both alike and is the
/// reminder's and expiry's, not the reader's turn.
pub fn waits_on_reply(last: Option<LastWord>, now: i64) -> bool {
    last.is_some_and(|l| !l.mine && now.saturating_sub(l.sent_at) >= YOUR_TURN_WAIT_SECS)
}

/// Whether a new like first shows the member the `waiting` conversations that wait on their reply
/// ([`waits_on_reply`]): from [`YOUR_TURN_LIMIT`] of them on, a like is held until they reply to or
/// end enough of them.
pub fn like_held_for_replies(waiting: usize) -> bool {
    waiting >= YOUR_TURN_LIMIT
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = DAY_SECS;
    const T0: i64 = 1_795_305_600;

    #[test]
    fn a_silent_match_waits_until_its_third_day() {
        assert_eq!(quiet_match_step(T0, T0, false, false), QuietStep::Wait);
        assert_eq!(
            quiet_match_step(T0, T0 + 3 * DAY - 1, false, false),
            QuietStep::Wait
        );
    }

    #[test]
    fn a_silent_match_is_reminded_from_its_third_day_once() {
        assert_eq!(
            quiet_match_step(T0, T0 + 3 * DAY, false, false),
            QuietStep::Remind
        );
        assert_eq!(
            quiet_match_step(T0, T0 + 6 * DAY, false, false),
            QuietStep::Remind
        );
        assert_eq!(
            quiet_match_step(T0, T0 + 3 * DAY, false, true),
            QuietStep::Wait
        );
    }

    #[test]
    fn a_silent_match_expires_on_its_seventh_day_reminded_or_not() {
        assert_eq!(
            quiet_match_step(T0, T0 + 7 * DAY - 1, false, true),
            QuietStep::Wait
        );
        assert_eq!(
            quiet_match_step(T0, T0 + 7 * DAY, false, true),
            QuietStep::Expire
        );
        assert_eq!(
            quiet_match_step(T0, T0 + 7 * DAY, false, false),
            QuietStep::Expire
        );
    }

    #[test]
    fn a_match_with_any_message_is_never_reminded_nor_expired() {
        for age in [0, 3 * DAY, 7 * DAY, 365 * DAY] {
            for reminded in [false, true] {
                assert_eq!(
                    quiet_match_step(T0, T0 + age, true, reminded),
                    QuietStep::Wait
                );
            }
        }
    }

    #[test]
    fn a_clock_before_the_match_changes_nothing() {
        assert_eq!(
            quiet_match_step(T0, T0 - 30 * DAY, false, false),
            QuietStep::Wait
        );
    }

    #[test]
    fn an_expired_match_is_shown_for_fourteen_days() {
        assert!(expired_match_shown(T0, T0));
        assert!(expired_match_shown(T0, T0 + 14 * DAY - 1));
        assert!(!expired_match_shown(T0, T0 + 14 * DAY));
    }

    #[test]
    fn an_expired_match_is_listed_by_nickname_unless_blocked_or_no_longer_approved() {
        let viewer = Standing {
            approved: true,
            reviewer: false,
        };
        let ties = Ties {
            approved: true,
            matched: true,
            ..Ties::default()
        };
        assert!(expired_match_listed(viewer, &ties, T0, T0 + DAY));
        assert!(!expired_match_listed(viewer, &ties, T0, T0 + 14 * DAY));
        let blocked = Ties {
            blocked: true,
            ..ties
        };
        assert!(!expired_match_listed(viewer, &blocked, T0, T0 + DAY));
        let suspended = Ties {
            approved: false,
            ..ties
        };
        assert!(!expired_match_listed(viewer, &suspended, T0, T0 + DAY));
        let unapproved_viewer = Standing::default();
        assert!(!expired_match_listed(
            unapproved_viewer,
            &ties,
            T0,
            T0 + DAY
        ));
    }

    #[test]
    fn a_conversation_waits_on_the_reader_a_day_after_the_other_wrote_last() {
        let theirs = |sent_at| {
            Some(LastWord {
                mine: false,
                sent_at,
            })
        };
        assert!(!waits_on_reply(theirs(T0), T0 + DAY - 1));
        assert!(waits_on_reply(theirs(T0), T0 + DAY));
        assert!(waits_on_reply(theirs(T0), T0 + 30 * DAY));
    }

    #[test]
    fn a_conversation_where_the_reader_wrote_last_or_nobody_wrote_does_not_wait_on_them() {
        let mine = Some(LastWord {
            mine: true,
            sent_at: T0,
        });
        assert!(!waits_on_reply(mine, T0 + 30 * DAY));
        assert!(!waits_on_reply(None, T0 + 30 * DAY));
    }

    #[test]
    fn a_like_is_held_from_five_waiting_conversations() {
        assert!(!like_held_for_replies(0));
        assert!(!like_held_for_replies(4));
        assert!(like_held_for_replies(5));
        assert!(like_held_for_replies(12));
    }
}
