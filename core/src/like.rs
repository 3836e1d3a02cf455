//! Likes and passes as a member gives them: a like may carry a short comment on one photo or one
//! Q&A answer of the member liked (as Hinge does), and a pass may be taken back for a few seconds.
//!
//! ```
//! use kizuna_core::like::pass_undoable;
//!
//! // Passed at 1,000 (Unix seconds): Undo works until 1,010 inclusive.
//! assert!(pass_undoable(1_000, 1_010));
//! assert!(!pass_undoable(1_000, 1_011));
//! ```
#![warn(missing_docs)]

use crate::files::FileName;
use crate::matching::PublicProfile;
use crate::rules::{self, FieldErrors, RuleCode, check_text};
use serde::{Deserialize, Serialize};

/// The Q&A answers of a profile a like may comment on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum QaAnswer {
    /// `"DATING_QUESTION"`: what the member would like to be asked on a date.
    DatingQuestion,
    /// `"DAILY_LIFE"`: the member's daily life.
    DailyLife,
    /// `"SURPRISE_POINT"`: something surprising about the member.
    SurprisePoint,
}

impl QaAnswer {
    /// Every answer, in the order a profile shows them.
    pub const ALL: [QaAnswer; 3] = [
        QaAnswer::DatingQuestion,
        QaAnswer::DailyLife,
        QaAnswer::SurprisePoint,
    ];

    /// The wire value (`"DAILY_LIFE"`).
    pub fn as_str(self) -> &'static str {
        match self {
            QaAnswer::DatingQuestion => "DATING_QUESTION",
            QaAnswer::DailyLife => "DAILY_LIFE",
            QaAnswer::SurprisePoint => "SURPRISE_POINT",
        }
    }

    /// The answer of a wire value, if there is one (exact, case-sensitive).
    pub fn parse(text: &str) -> Option<QaAnswer> {
        QaAnswer::ALL.into_iter().find(|a| a.as_str() == text)
    }

    /// What `profile` answered, if it answered this one.
    pub fn text_of(self, profile: &PublicProfile) -> Option<&str> {
        match self {
            QaAnswer::DatingQuestion => profile.dating_question.as_deref(),
            QaAnswer::DailyLife => profile.daily_life.as_deref(),
            QaAnswer::SurprisePoint => profile.surprise_point.as_deref(),
        }
    }
}

/// The part of a profile a like's comment is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LikedPart {
    /// One of the liked member's photos, by file name.
    Photo(FileName),
    /// One of the liked member's Q&A answers.
    Answer(QaAnswer),
}

/// A like's comment that passed [`rules::LIKE_COMMENT`] (trimmed, 1 to 140 characters, no control
/// characters but line breaks) about a part the liked member's profile has.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LikeComment {
    text: String,
    on: LikedPart,
}

impl LikeComment {
    /// Reads a comment on `target`'s photo `photo` or Q&A answer `answer` (exactly one of the
    /// two). Errors are keyed `comment.text` (`required`, `too_long`, `control_chars`),
    /// `comment.photoName` (`invalid`: not one of the member's photos) and `comment.answer`
    /// (`invalid_choice`: no such answer, `required`: the member left it blank); neither or both
    /// parts is `both_or_neither` on both.
    pub fn parse(
        text: &str,
        photo: Option<&str>,
        answer: Option<&str>,
        target: &PublicProfile,
    ) -> Result<LikeComment, FieldErrors> {
        let mut errors = FieldErrors::new();
        let text = check_text("comment.text", Some(text), rules::LIKE_COMMENT, &mut errors);
        let on = match (photo, answer) {
            (Some(photo), None) => FileName::parse(photo)
                .filter(|name| target.photo_name_list.iter().any(|p| p == name.as_str()))
                .map(LikedPart::Photo)
                .or_else(|| {
                    errors.add("comment.photoName", RuleCode::Invalid);
                    None
                }),
            (None, Some(answer)) => match QaAnswer::parse(answer) {
                Some(answer) if answer.text_of(target).is_some() => Some(LikedPart::Answer(answer)),
                Some(_) => {
                    errors.add("comment.answer", RuleCode::Required);
                    None
                }
                None => {
                    errors.add("comment.answer", RuleCode::InvalidChoice);
                    None
                }
            },
            _ => {
                errors.add("comment.photoName", RuleCode::BothOrNeither);
                errors.add("comment.answer", RuleCode::BothOrNeither);
                None
            }
        };
        match (text, on) {
            (Some(text), Some(on)) if errors.is_empty() => Ok(LikeComment { text, on }),
            _ => Err(errors),
        }
    }

    /// The trimmed text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// What the comment is about.
    pub fn on(&self) -> &LikedPart {
        &self.on
    }
}

/// Whether a pass made at `passed_at` may still be taken back at `now` (Unix seconds): within
/// [`rules::PASS_UNDO_SECS`], counted in whole seconds as the server stores them, so an Undo
/// tapped just before the toast goes still counts.
pub fn pass_undoable(passed_at: i64, now: i64) -> bool {
    (0..=rules::PASS_UNDO_SECS).contains(&(now - passed_at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::DistanceBand;

    fn target() -> PublicProfile {
        let json = serde_json::json!({
            "nickname": "Kai", "age": 31, "city": "TPE", "distanceBand": "UNDER_5_KM",
            "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Engineer",
            "verifiedEmployer": true, "height": 175, "education": "MASTER", "marriageRecord": 0,
            "hasChildren": 0, "smoke": 0, "drink": 1, "tattoo": "NONE", "mbti": "INTJ",
            "personalityTagIds": [], "exerciseTagIds": [], "hobbyTagIds": [],
            "marriageTypeTagIds": [], "fertilityPlanTagIds": [], "petTagIds": [],
            "aboutMe": "I bake sourdough every weekend.", "dailyLife": "Code, then bread.",
            "photoNameList": ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"]
        });
        let profile: PublicProfile = serde_json::from_value(json).unwrap();
        assert_eq!(profile.distance_band, DistanceBand::Under5Km);
        profile
    }

    #[test]
    fn a_comment_on_a_photo_the_member_has_is_kept_trimmed() {
        let comment = LikeComment::parse(
            "  Where was this taken?  ",
            Some("fedcba9876543210fedcba9876543210"),
            None,
            &target(),
        )
        .unwrap();
        assert_eq!(comment.text(), "Where was this taken?");
        assert_eq!(
            comment.on(),
            &LikedPart::Photo(FileName::parse("fedcba9876543210fedcba9876543210").unwrap())
        );
    }

    #[test]
    fn a_comment_on_an_answer_needs_the_member_to_have_given_it() {
        let profile = target();
        let comment =
            LikeComment::parse("Which bread?", None, Some("DAILY_LIFE"), &profile).unwrap();
        assert_eq!(comment.on(), &LikedPart::Answer(QaAnswer::DailyLife));
        let blank = LikeComment::parse("Hi", None, Some("SURPRISE_POINT"), &profile).unwrap_err();
        assert_eq!(blank.get("comment.answer"), Some(&[RuleCode::Required][..]));
        let unknown = LikeComment::parse("Hi", None, Some("daily_life"), &profile).unwrap_err();
        assert_eq!(
            unknown.get("comment.answer"),
            Some(&[RuleCode::InvalidChoice][..])
        );
    }

    #[test]
    fn a_photo_of_someone_else_or_a_path_is_not_a_part_of_the_profile() {
        for photo in ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "../etc/passwd", ""] {
            let errors = LikeComment::parse("Nice", Some(photo), None, &target()).unwrap_err();
            assert_eq!(
                errors.get("comment.photoName"),
                Some(&[RuleCode::Invalid][..]),
                "{photo:?}"
            );
        }
    }

    #[test]
    fn a_comment_is_about_exactly_one_part() {
        let profile = target();
        for (photo, answer) in [
            (None, None),
            (Some("0123456789abcdef0123456789abcdef"), Some("DAILY_LIFE")),
        ] {
            let errors = LikeComment::parse("Hi", photo, answer, &profile).unwrap_err();
            assert_eq!(
                errors.get("comment.photoName"),
                Some(&[RuleCode::BothOrNeither][..])
            );
            assert_eq!(
                errors.get("comment.answer"),
                Some(&[RuleCode::BothOrNeither][..])
            );
        }
    }

    #[test]
    fn a_comment_is_one_to_a_hundred_and_forty_characters_without_control_characters() {
        let profile = target();
        let on = Some("DAILY_LIFE");
        assert!(LikeComment::parse(&"字".repeat(140), None, on, &profile).is_ok());
        let long = LikeComment::parse(&"字".repeat(141), None, on, &profile).unwrap_err();
        assert_eq!(long.get("comment.text"), Some(&[RuleCode::TooLong][..]));
        let blank = LikeComment::parse(" \n ", None, on, &profile).unwrap_err();
        assert_eq!(blank.get("comment.text"), Some(&[RuleCode::Required][..]));
        let control = LikeComment::parse("a\u{1b}b", None, on, &profile).unwrap_err();
        assert_eq!(
            control.get("comment.text"),
            Some(&[RuleCode::ControlChars][..])
        );
        assert!(LikeComment::parse("two\nlines", None, on, &profile).is_ok());
    }

    #[test]
    fn a_pass_may_be_undone_for_ten_whole_seconds_and_not_before_it_was_made() {
        assert!(pass_undoable(100, 100));
        assert!(pass_undoable(100, 100 + rules::PASS_UNDO_SECS));
        assert!(!pass_undoable(100, 101 + rules::PASS_UNDO_SECS));
        assert!(!pass_undoable(100, 99));
    }
}
