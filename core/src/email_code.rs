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

/// What the server knows about the sends before a new one, within the rolling window of
/// [`rules::EMAIL_CODE_SEND_WINDOW_SECS`] before `now`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendHistory {
    /// When this member was last sent a code (any address), Unix seconds.
    pub last_sent_at: Option<i64>,
    /// Codes sent to this member within the window.
    pub member_sends: u32,
    /// Codes sent to this address within the window (by any member).
    pub address_sends: u32,
}

/// Why a code may not be sent now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendRefusal {
    /// The last send was less than [`rules::EMAIL_CODE_RESEND_WAIT_SECS`] ago.
    TooSoon {
        /// Seconds until a send is allowed (at least 1).
        retry_after_secs: i64,
    },
    /// The member already had [`rules::EMAIL_CODE_SENDS_PER_WINDOW`] codes in the window.
    MemberLimit,
    /// The address already had [`rules::EMAIL_CODE_SENDS_PER_WINDOW`] codes in the window.
    AddressLimit,
}

/// May a new code be sent at `now` (Unix seconds)? Sending replaces any earlier code.
pub fn may_send(history: SendHistory, now: i64) -> Result<(), SendRefusal> {
    if let Some(last) = history.last_sent_at {
        let ready_at = last.saturating_add(rules::EMAIL_CODE_RESEND_WAIT_SECS);
        if now < ready_at {
            return Err(SendRefusal::TooSoon {
                retry_after_secs: ready_at - now,
            });
        }
    }
    if history.member_sends >= rules::EMAIL_CODE_SENDS_PER_WINDOW {
        return Err(SendRefusal::MemberLimit);
    }
    if history.address_sends >= rules::EMAIL_CODE_SENDS_PER_WINDOW {
        return Err(SendRefusal::AddressLimit);
    }
    Ok(())
}

/// The stored state of the member's latest code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IssuedCode {
    /// When it was sent, Unix seconds.
    pub sent_at: i64,
    /// Wrong codes typed so far.
    pub wrong_tries: u32,
    /// Whether it was already accepted once.
    pub used: bool,
}

/// The outcome of typing a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeCheck {
    /// Right and usable: the server marks the code used and the address confirmed.
    Accepted,
    /// Wrong: the server adds one to `wrong_tries`.
    Wrong {
        /// Tries left after this one; 0 means the code is now locked.
        tries_left: u32,
    },
    /// Already accepted once: a code is used once.
    Used,
    /// Older than [`rules::EMAIL_CODE_VALID_SECS`].
    Expired,
    /// [`rules::EMAIL_CODE_MAX_WRONG_TRIES`] wrong tries were made: even the right code is refused.
    Locked,
}

impl IssuedCode {
    /// Judges a try at `now`, given whether the typed code matched the stored hash. A used,
    /// expired or locked code answers so whether or not it matched, so a try never teaches
    /// anything about a dead code.
    pub fn check(self, matched: bool, now: i64) -> CodeCheck {
        if self.used {
            return CodeCheck::Used;
        }
        if now >= self.sent_at.saturating_add(rules::EMAIL_CODE_VALID_SECS) {
            return CodeCheck::Expired;
        }
        if self.wrong_tries >= rules::EMAIL_CODE_MAX_WRONG_TRIES {
            return CodeCheck::Locked;
        }
        if matched {
            CodeCheck::Accepted
        } else {
            CodeCheck::Wrong {
                tries_left: rules::EMAIL_CODE_MAX_WRONG_TRIES - self.wrong_tries - 1,
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

    #[test]
    fn a_resend_waits_sixty_seconds() {
        let history = SendHistory {
            last_sent_at: Some(SENT),
            member_sends: 1,
            address_sends: 1,
        };
        assert_eq!(
            may_send(history, SENT + 59),
            Err(SendRefusal::TooSoon {
                retry_after_secs: 1
            })
        );
        assert_eq!(may_send(history, SENT + 60), Ok(()));
    }

    #[test]
    fn five_sends_per_member_or_per_address_fill_the_window() {
        let member = SendHistory {
            last_sent_at: Some(SENT),
            member_sends: 5,
            address_sends: 0,
        };
        assert_eq!(may_send(member, SENT + 3600), Err(SendRefusal::MemberLimit));
        let address = SendHistory {
            last_sent_at: None,
            member_sends: 0,
            address_sends: 5,
        };
        assert_eq!(may_send(address, SENT), Err(SendRefusal::AddressLimit));
        let fourth = SendHistory {
            last_sent_at: None,
            member_sends: 4,
            address_sends: 4,
        };
        assert_eq!(may_send(fourth, SENT), Ok(()));
    }

    #[test]
    fn a_code_is_valid_for_ten_minutes() {
        let code = IssuedCode {
            sent_at: SENT,
            ..IssuedCode::default()
        };
        assert_eq!(code.check(true, SENT + 599), CodeCheck::Accepted);
        assert_eq!(code.check(true, SENT + 600), CodeCheck::Expired);
    }

    #[test]
    fn a_code_is_used_once() {
        let used = IssuedCode {
            sent_at: SENT,
            wrong_tries: 0,
            used: true,
        };
        assert_eq!(used.check(true, SENT + 1), CodeCheck::Used);
    }

    #[test]
    fn five_wrong_tries_lock_the_code_even_for_the_right_digits() {
        let mut code = IssuedCode {
            sent_at: SENT,
            ..IssuedCode::default()
        };
        for left in (0..5).rev() {
            assert_eq!(
                code.check(false, SENT + 10),
                CodeCheck::Wrong { tries_left: left }
            );
            code.wrong_tries += 1;
        }
        assert_eq!(code.check(true, SENT + 10), CodeCheck::Locked);
    }
}
