//! The work e-mail's one-time code (COMPANY_EMAIL verification): its format and every rule of
//! sending and checking it. The server draws the number from a CSPRNG, stores it hashed and
//! keeps the counters; these functions decide, given those facts and the time.
#![warn(missing_docs)]

use crate::rules;
use std::fmt;

/// A code as typed in or sent: exactly [`rules::EMAIL_CODE_DIGITS`] ASCII digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EmailCode([u8; rules::EMAIL_CODE_DIGITS]);

impl EmailCode {
    /// Reads what the member typed: surrounding white space is ignored; anything but exactly six
    /// ASCII digits (full-width digits, inner spaces, signs) is refused.
    pub fn parse(text: &str) -> Option<EmailCode> {
        let digits: [u8; rules::EMAIL_CODE_DIGITS] = text.trim().as_bytes().try_into().ok()?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then_some(EmailCode(digits))
    }

    /// The code for a number drawn uniformly below `10^6` by the server's CSPRNG, zero-padded
    /// (7 → "000007"); `None` for a number with more digits.
    pub fn from_number(number: u32) -> Option<EmailCode> {
        let mut digits = [b'0'; rules::EMAIL_CODE_DIGITS];
        let mut rest = number;
        for digit in digits.iter_mut().rev() {
            *digit = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        (rest == 0).then_some(EmailCode(digits))
    }

    /// The six digits as text (what the e-mail shows and what the server hashes).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// Never prints the digits, so a code cannot reach a log through `{:?}`.
impl fmt::Debug for EmailCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EmailCode(******)")
    }
}

/// The limits of sending and checking codes. [`Default`] is the product's ([`rules`]'
/// `EMAIL_CODE_*`); the server's tests shorten the times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeRules {
    /// How long a code is accepted after it was sent, in seconds.
    pub valid_secs: i64,
    /// The wait before one member is sent another code for the same address, in seconds.
    pub resend_wait_secs: i64,
    /// Wrong tries that lock a code.
    pub max_wrong_tries: u32,
    /// Sends per member within `window_secs`; and the members an address may have been sent codes
    /// for within it before a member's repeat send to it is refused.
    pub sends_per_window: u32,
    /// The rolling window of the send limits, in seconds.
    pub window_secs: i64,
}

impl Default for CodeRules {
    fn default() -> Self {
        CodeRules {
            valid_secs: rules::EMAIL_CODE_VALID_SECS,
            resend_wait_secs: rules::EMAIL_CODE_RESEND_WAIT_SECS,
            max_wrong_tries: rules::EMAIL_CODE_MAX_WRONG_TRIES,
            sends_per_window: rules::EMAIL_CODE_SENDS_PER_WINDOW,
            window_secs: rules::EMAIL_CODE_SEND_WINDOW_SECS,
        }
    }
}

/// What the server knows about the sends before a new one, within the rolling window before
/// `now` (see [`CodeRules::window_start`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendHistory {
    /// When this member was last sent a code for this address, Unix seconds (any time).
    pub last_sent_here: Option<i64>,
    /// Codes sent to this member within the window (all addresses).
    pub member_sends: u32,
    /// The oldest of those sends.
    pub member_oldest: Option<i64>,
    /// Other members (not this one) sent a code for this address within the window, each
    /// counted once however many codes they had.
    pub address_members: u32,
    /// The oldest send of those members within the window.
    pub address_oldest: Option<i64>,
}

/// Why a code may not be sent now; each says how many seconds until a send can succeed (at
/// least 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendRefusal {
    /// This member was sent a code for this address less than `resend_wait_secs` ago.
    TooSoon {
        /// Seconds until the wait is over.
        retry_after_secs: i64,
    },
    /// The member already had `sends_per_window` codes in the window.
    MemberLimit {
        /// Seconds until the oldest of them leaves the window.
        retry_after_secs: i64,
    },
    /// A repeat send to an address `sends_per_window` other members had codes for in the window.
    AddressLimit {
        /// Seconds until the oldest of them leaves the window.
        retry_after_secs: i64,
    },
}

impl SendRefusal {
    /// Seconds until a send can succeed.
    pub fn retry_after_secs(self) -> i64 {
        match self {
            SendRefusal::TooSoon { retry_after_secs }
            | SendRefusal::MemberLimit { retry_after_secs }
            | SendRefusal::AddressLimit { retry_after_secs } => retry_after_secs,
        }
    }
}

/// What the server knows about the newest code sent to (member, address).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IssuedCode {
    /// When it stops being accepted, Unix seconds ([`CodeRules::expires_at`] of its send).
    pub expires_at: i64,
    /// Wrong codes typed against it so far.
    pub wrong_tries: u32,
    /// Whether it already confirmed the address.
    pub used: bool,
}

/// The outcome of typing a code against the newest one sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeCheck {
    /// The right digits, in time: the address is confirmed.
    Accepted,
    /// Wrong digits: the try counts.
    Wrong {
        /// Tries left before the code locks.
        tries_left: u32,
    },
    /// The code already confirmed the address once.
    Used,
    /// The code is too old: a new one is needed.
    Expired,
    /// Too many wrong tries: a new one is needed.
    Locked,
}

impl CodeRules {
    /// Where the send limits' window starts for a send at `now`: sends after it count.
    pub fn window_start(&self, now: i64) -> i64 {
        now - self.window_secs
    }

    /// When a code sent at `sent_at` stops being accepted.
    pub fn expires_at(&self, sent_at: i64) -> i64 {
        sent_at.saturating_add(self.valid_secs)
    }

    fn until_window_frees(&self, oldest: Option<i64>, now: i64) -> i64 {
        oldest.map_or(1, |t| (t + self.window_secs - now).max(1))
    }

    /// May a new code be sent at `now` (Unix seconds)? Sending replaces any earlier code. The
    /// wait for the same address comes first, then the member's limit, then the address's.
    ///
    /// A member's first send to an address is always allowed within their own limits: others
    /// asking for codes to it (strangers, or one account again and again) must not lock its owner
    /// out. The address's limit counts distinct other members, so only repeat sends to an
    /// address many members asked for are refused; one account alone never reaches it.
    pub fn may_send(&self, history: SendHistory, now: i64) -> Result<(), SendRefusal> {
        if let Some(last) = history.last_sent_here {
            let ready_at = last.saturating_add(self.resend_wait_secs);
            if now < ready_at {
                return Err(SendRefusal::TooSoon {
                    retry_after_secs: ready_at - now,
                });
            }
        }
        if history.member_sends >= self.sends_per_window {
            return Err(SendRefusal::MemberLimit {
                retry_after_secs: self.until_window_frees(history.member_oldest, now),
            });
        }
        let first_send_here = history.last_sent_here.is_none();
        if !first_send_here && history.address_members >= self.sends_per_window {
            return Err(SendRefusal::AddressLimit {
                retry_after_secs: self.until_window_frees(history.address_oldest, now),
            });
        }
        Ok(())
    }

    /// Judges a typed code against the newest one sent: `matched` is whether the digits match
    /// (the server compares hashes in constant time). A used code stays used, a locked one
    /// stays locked even when it has also expired, and a wrong try is only counted on a live
    /// code.
    pub fn check(&self, code: IssuedCode, matched: bool, now: i64) -> CodeCheck {
        if code.used {
            return CodeCheck::Used;
        }
        if code.wrong_tries >= self.max_wrong_tries {
            return CodeCheck::Locked;
        }
        if now >= code.expires_at {
            return CodeCheck::Expired;
        }
        if matched {
            CodeCheck::Accepted
        } else {
            CodeCheck::Wrong {
                tries_left: self.max_wrong_tries - code.wrong_tries - 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SENT: i64 = 1_795_276_800;

    #[test]
    fn a_typed_code_is_six_ascii_digits_once_trimmed() {
        assert_eq!(EmailCode::parse(" 012345\n").unwrap().as_str(), "012345");
        for bad in [
            "",
            "12345",
            "1234567",
            "12 345",
            "１２３４５６",
            "-12345",
            "12345a",
            "+12345",
        ] {
            assert_eq!(EmailCode::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_drawn_number_becomes_a_zero_padded_code() {
        assert_eq!(EmailCode::from_number(7).unwrap().as_str(), "000007");
        assert_eq!(EmailCode::from_number(999_999).unwrap().as_str(), "999999");
        assert_eq!(EmailCode::from_number(1_000_000), None);
    }

    #[test]
    fn a_code_never_shows_its_digits_in_debug_output() {
        assert_eq!(
            format!("{:?}", EmailCode::parse("123456").unwrap()),
            "EmailCode(******)"
        );
    }

    const RULES: CodeRules = CodeRules {
        valid_secs: rules::EMAIL_CODE_VALID_SECS,
        resend_wait_secs: rules::EMAIL_CODE_RESEND_WAIT_SECS,
        max_wrong_tries: rules::EMAIL_CODE_MAX_WRONG_TRIES,
        sends_per_window: rules::EMAIL_CODE_SENDS_PER_WINDOW,
        window_secs: rules::EMAIL_CODE_SEND_WINDOW_SECS,
    };

    #[test]
    fn the_default_rules_are_the_products_constants() {
        assert_eq!(CodeRules::default(), RULES);
    }

    #[test]
    fn a_resend_to_the_same_address_waits_sixty_seconds() {
        let history = SendHistory {
            last_sent_here: Some(SENT),
            member_sends: 1,
            member_oldest: Some(SENT),
            address_members: 1,
            address_oldest: Some(SENT),
        };
        assert_eq!(
            RULES.may_send(history, SENT + 59),
            Err(SendRefusal::TooSoon {
                retry_after_secs: 1
            })
        );
        assert_eq!(RULES.may_send(history, SENT + 60), Ok(()));
    }

    #[test]
    fn five_sends_per_member_fill_the_window_until_the_oldest_leaves_it() {
        let member = SendHistory {
            last_sent_here: Some(SENT),
            member_sends: 5,
            member_oldest: Some(SENT),
            ..SendHistory::default()
        };
        assert_eq!(
            RULES.may_send(member, SENT + 3600),
            Err(SendRefusal::MemberLimit {
                retry_after_secs: 23 * 3600
            })
        );
        let first_but_over_own_limit = SendHistory {
            last_sent_here: None,
            ..member
        };
        assert!(matches!(
            RULES.may_send(first_but_over_own_limit, SENT + 3600),
            Err(SendRefusal::MemberLimit { .. })
        ));
        let fourth = SendHistory {
            member_sends: 4,
            address_members: 4,
            ..SendHistory::default()
        };
        assert_eq!(RULES.may_send(fourth, SENT), Ok(()));
    }

    #[test]
    fn a_members_first_send_to_an_address_is_allowed_however_many_others_asked() {
        let crowded = SendHistory {
            address_members: 500,
            address_oldest: Some(SENT - 100),
            ..SendHistory::default()
        };
        assert_eq!(RULES.may_send(crowded, SENT), Ok(()));
        // A repeat send to it is refused until the oldest of those sends leaves the window.
        let again = SendHistory {
            last_sent_here: Some(SENT - 3600),
            member_sends: 1,
            member_oldest: Some(SENT - 3600),
            address_members: 5,
            address_oldest: Some(SENT - 100),
        };
        assert_eq!(
            RULES.may_send(again, SENT),
            Err(SendRefusal::AddressLimit {
                retry_after_secs: 24 * 3600 - 100
            })
        );
        let four_others = SendHistory {
            address_members: 4,
            ..again
        };
        assert_eq!(RULES.may_send(four_others, SENT), Ok(()));
    }

    #[test]
    fn a_code_is_valid_for_ten_minutes() {
        let code = IssuedCode {
            expires_at: RULES.expires_at(SENT),
            ..IssuedCode::default()
        };
        assert_eq!(RULES.check(code, true, SENT + 599), CodeCheck::Accepted);
        assert_eq!(RULES.check(code, true, SENT + 600), CodeCheck::Expired);
    }

    #[test]
    fn a_code_is_used_once() {
        let used = IssuedCode {
            expires_at: RULES.expires_at(SENT),
            wrong_tries: 0,
            used: true,
        };
        assert_eq!(RULES.check(used, true, SENT + 1), CodeCheck::Used);
    }

    #[test]
    fn five_wrong_tries_lock_the_code_even_for_the_right_digits_and_after_it_expired() {
        let mut code = IssuedCode {
            expires_at: RULES.expires_at(SENT),
            ..IssuedCode::default()
        };
        for left in (0..5).rev() {
            assert_eq!(
                RULES.check(code, false, SENT + 10),
                CodeCheck::Wrong { tries_left: left }
            );
            code.wrong_tries += 1;
        }
        assert_eq!(RULES.check(code, true, SENT + 10), CodeCheck::Locked);
        assert_eq!(RULES.check(code, true, SENT + 3600), CodeCheck::Locked);
    }
}
