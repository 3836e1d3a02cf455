//! Chat between matched members: the message text and the client's message id that makes a
//! retried send idempotent.
#![warn(missing_docs)]

use crate::rules::{self, FieldErrors, check_text};
use std::fmt;

/// A message text that passed [`rules::CHAT_MESSAGE`]: trimmed, 1 to 1000 characters, no control
/// characters except line breaks (and tabs, as in every multi-line field).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChatText(String);

impl ChatText {
    /// Reads a message; errors are keyed `text` (`required`, `too_long`, `control_chars`).
    pub fn parse(text: &str) -> Result<ChatText, FieldErrors> {
        let mut errors = FieldErrors::new();
        let checked = check_text("text", Some(text), rules::CHAT_MESSAGE, &mut errors);
        match checked {
            Some(text) if errors.is_empty() => Ok(ChatText(text)),
            _ => Err(errors),
        }
    }

    /// The trimmed text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The id a client gives a message so that sending it again stores it once: 8 to 64 characters
/// of `A-Z a-z 0-9 _ -` ([`rules::CLIENT_MESSAGE_ID`]); a UUID qualifies.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientMessageId(String);

impl ClientMessageId {
    /// Reads an id exactly as sent (no trimming: an id is compared byte for byte).
    pub fn parse(text: &str) -> Option<ClientMessageId> {
        let length = u32::try_from(text.len()).unwrap_or(u32::MAX);
        let valid = rules::CLIENT_MESSAGE_ID.contains(length)
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        valid.then(|| ClientMessageId(text.to_owned()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClientMessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleCode;

    #[test]
    fn a_message_is_trimmed_and_keeps_its_line_breaks() {
        let text = ChatText::parse("  Hi!\nHow was the hike?  ").unwrap();
        assert_eq!(text.as_str(), "Hi!\nHow was the hike?");
    }

    #[test]
    fn a_blank_message_is_required_and_a_long_one_too_long() {
        assert_eq!(
            ChatText::parse(" \n ").unwrap_err().get("text"),
            Some(&[RuleCode::Required][..])
        );
        assert!(ChatText::parse(&"字".repeat(1000)).is_ok());
        assert_eq!(
            ChatText::parse(&"字".repeat(1001)).unwrap_err().get("text"),
            Some(&[RuleCode::TooLong][..])
        );
    }

    #[test]
    fn control_characters_other_than_line_breaks_are_refused() {
        for bad in ["a\u{0}b", "a\u{1b}[31mb", "a\u{7f}b"] {
            assert_eq!(
                ChatText::parse(bad).unwrap_err().get("text"),
                Some(&[RuleCode::ControlChars][..]),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_client_message_id_is_eight_to_sixty_four_safe_characters() {
        assert!(ClientMessageId::parse("3f2b6c1e-8d4a-4f0e-9a7b-2c1d0e9f8a7b").is_some());
        assert!(ClientMessageId::parse("abcd_123").is_some());
        assert!(ClientMessageId::parse(&"a".repeat(64)).is_some());
        for bad in [
            "abc1234",
            " abcd1234",
            "abcd 1234",
            "abcd.1234",
            "ａｂｃｄ1234",
            &"a".repeat(65),
        ] {
            assert!(ClientMessageId::parse(bad).is_none(), "{bad:?}");
        }
    }
}
