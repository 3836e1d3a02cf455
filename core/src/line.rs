//! LINE identifiers.
//!
//! ```
//! use kizuna_core::line::LineUserId;
//!
//! assert!(LineUserId::parse("U4af4980629a1b2c3d4e5f60718293a4b").is_some());
//! assert!(LineUserId::parse("U4AF4980629A1B2C3D4E5F60718293A4B").is_none());
//! ```

use std::fmt;

/// A LINE user id as LINE issues them: `U` followed by 32 lowercase hexadecimal digits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineUserId(String);

impl LineUserId {
    /// The id, if the text is one.
    pub fn parse(text: &str) -> Option<LineUserId> {
        let hex = text.strip_prefix('U')?;
        let valid = hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        valid.then(|| LineUserId(text.to_owned()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for LineUserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The time a friendship event (follow, unfollow) counts as having happened: what LINE says, but
/// never later than now. A later time would outrank every real event to come, so one event dated
/// in the future (forged, or from a skewed clock) would fix the friendship for good.
pub fn friendship_event_at_ms(claimed_ms: i64, now_ms: i64) -> i64 {
    claimed_ms.min(now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_friendship_event_is_never_dated_after_now() {
        assert_eq!(friendship_event_at_ms(1_000, 5_000), 1_000);
        assert_eq!(friendship_event_at_ms(5_000, 5_000), 5_000);
        assert_eq!(friendship_event_at_ms(32_503_680_000_000, 5_000), 5_000);
        assert_eq!(friendship_event_at_ms(i64::MAX, 5_000), 5_000);
    }

    #[test]
    fn a_line_user_id_is_u_and_32_lowercase_hex_digits() {
        assert!(LineUserId::parse("U4af4980629a1b2c3d4e5f60718293a4b").is_some());
        for bad in [
            "",
            "U",
            "u4af4980629a1b2c3d4e5f60718293a4b",
            "U4AF4980629A1B2C3D4E5F60718293A4B",
            "U4af4980629a1b2c3d4e5f60718293a4",
            "U4af4980629a1b2c3d4e5f60718293a4bb",
            "Ug4f4980629a1b2c3d4e5f60718293a4b",
        ] {
            assert!(LineUserId::parse(bad).is_none(), "{bad:?}");
        }
    }
}
