//! Every field rule of registration, in one place: the limits below are what both the client (for
//! instant feedback) and the server (as the control) enforce, and the rule codes are what both
//! report per field so the client can translate them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Why a field failed; stable snake_case codes that the translation files key on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum RuleCode {
    Required,
    TooShort,
    TooLong,
    OutOfRange,
    Invalid,
    InvalidType,
    UnknownField,
    InvalidChoice,
    InvalidDate,
    TooYoung,
    TooOld,
    TooFew,
    TooMany,
    Duplicate,
    NotHttps,
    InvalidEmail,
    UnknownEmployer,
    InvalidRange,
    BothOrNeither,
    Mismatch,
    ControlChars,
    /// A file name that is not one of the caller's unclaimed uploads (expired, claimed, someone
    /// else's, or never uploaded). Only the server can tell, so only the server reports it.
    UnknownFile,
}

impl RuleCode {
    pub const ALL: [RuleCode; 22] = [
        RuleCode::Required,
        RuleCode::TooShort,
        RuleCode::TooLong,
        RuleCode::OutOfRange,
        RuleCode::Invalid,
        RuleCode::InvalidType,
        RuleCode::UnknownField,
        RuleCode::InvalidChoice,
        RuleCode::InvalidDate,
        RuleCode::TooYoung,
        RuleCode::TooOld,
        RuleCode::TooFew,
        RuleCode::TooMany,
        RuleCode::Duplicate,
        RuleCode::NotHttps,
        RuleCode::InvalidEmail,
        RuleCode::UnknownEmployer,
        RuleCode::InvalidRange,
        RuleCode::BothOrNeither,
        RuleCode::Mismatch,
        RuleCode::ControlChars,
        RuleCode::UnknownFile,
    ];

    /// The wire code, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleCode::Required => "required",
            RuleCode::TooShort => "too_short",
            RuleCode::TooLong => "too_long",
            RuleCode::OutOfRange => "out_of_range",
            RuleCode::Invalid => "invalid",
            RuleCode::InvalidType => "invalid_type",
            RuleCode::UnknownField => "unknown_field",
            RuleCode::InvalidChoice => "invalid_choice",
            RuleCode::InvalidDate => "invalid_date",
            RuleCode::TooYoung => "too_young",
            RuleCode::TooOld => "too_old",
            RuleCode::TooFew => "too_few",
            RuleCode::TooMany => "too_many",
            RuleCode::Duplicate => "duplicate",
            RuleCode::NotHttps => "not_https",
            RuleCode::InvalidEmail => "invalid_email",
            RuleCode::UnknownEmployer => "unknown_employer",
            RuleCode::InvalidRange => "invalid_range",
            RuleCode::BothOrNeither => "both_or_neither",
            RuleCode::Mismatch => "mismatch",
            RuleCode::ControlChars => "control_chars",
            RuleCode::UnknownFile => "unknown_file",
        }
    }
}

/// Every failing field with every rule it breaks, keyed by the payload's wire name
/// (`valueItem.HEIGHT` for a condition). Empty means valid.
///
/// A sorted list rather than a map: it is tiny, and a map type costs the wasm build more code
/// than it saves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FieldErrors(
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, RuleCode[]>"))]
    Vec<(String, Vec<RuleCode>)>,
);

impl Serialize for FieldErrors {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(field, codes)| (field, codes)))
    }
}

impl<'de> Deserialize<'de> for FieldErrors {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, Vec<RuleCode>>::deserialize(deserializer)?;
        Ok(FieldErrors(map.into_iter().collect()))
    }
}

impl FieldErrors {
    pub fn new() -> FieldErrors {
        FieldErrors::default()
    }

    pub fn single(field: &str, code: RuleCode) -> FieldErrors {
        let mut errors = FieldErrors::new();
        errors.add(field, code);
        errors
    }

    pub fn add(&mut self, field: &str, code: RuleCode) {
        let index = match self
            .0
            .binary_search_by(|(known, _)| known.as_str().cmp(field))
        {
            Ok(index) => index,
            Err(index) => {
                self.0.insert(index, (field.to_owned(), Vec::new()));
                index
            }
        };
        let codes = &mut self.0[index].1;
        if !codes.contains(&code) {
            codes.push(code);
        }
    }

    pub fn merge(&mut self, other: FieldErrors) {
        for (field, codes) in other.0 {
            for code in codes {
                self.add(&field, code);
            }
        }
    }

    /// Forgets what was recorded for a field, so that a more precise finding can take its place.
    pub fn remove(&mut self, field: &str) {
        self.0.retain(|(known, _)| known != field);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn get(&self, field: &str) -> Option<&[RuleCode]> {
        self.0
            .iter()
            .find(|(known, _)| known == field)
            .map(|(_, codes)| codes.as_slice())
    }

    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(field, _)| field.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &[RuleCode])> {
        self.0
            .iter()
            .map(|(field, codes)| (field.as_str(), codes.as_slice()))
    }

    /// `Ok(value)` when nothing failed, so a validator can end with `errors.into_result(value)`.
    pub fn into_result<T>(self, value: T) -> Result<T, FieldErrors> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

/// Length limits of a free-text field, in Unicode characters after trimming.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TextRule {
    pub required: bool,
    pub min: u32,
    pub max: u32,
    /// Line breaks allowed (every other control character is refused everywhere).
    pub multiline: bool,
}

const fn required(min: u32, max: u32) -> TextRule {
    TextRule {
        required: true,
        min,
        max,
        multiline: false,
    }
}

const fn optional(max: u32, multiline: bool) -> TextRule {
    TextRule {
        required: false,
        min: 0,
        max,
        multiline,
    }
}

pub const NICKNAME: TextRule = required(1, 20);
pub const NAME: TextRule = required(1, 50);
pub const OCCUPATION: TextRule = required(1, 50);
pub const ACHIEVEMENT: TextRule = optional(300, true);
pub const SCHOOL: TextRule = optional(100, false);
/// A real introduction is what reviewers and matches look for, so a one-liner is not enough.
pub const ABOUT_ME: TextRule = TextRule {
    required: true,
    min: 20,
    max: 1000,
    multiline: true,
};
pub const DATING_QUESTION: TextRule = optional(500, true);
pub const DAILY_LIFE: TextRule = optional(500, true);
pub const SURPRISE_POINT: TextRule = optional(500, true);
pub const ADDRESS: TextRule = optional(200, false);
pub const FEEDBACK: TextRule = optional(500, true);
pub const VERIFY_DESCRIPTION: TextRule = optional(500, true);

/// An inclusive numeric range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct RangeRule {
    pub min: u32,
    pub max: u32,
}

impl RangeRule {
    pub fn contains(self, value: u32) -> bool {
        (self.min..=self.max).contains(&value)
    }
}

pub const HEIGHT_CM: RangeRule = RangeRule { min: 120, max: 230 };
pub const AGE_YEARS: RangeRule = RangeRule { min: 18, max: 99 };
/// 0 means "anywhere".
pub const RECOMMEND_DISTANCE_KM: RangeRule = RangeRule { min: 0, max: 500 };
pub const PHOTOS: RangeRule = RangeRule { min: 1, max: 6 };
/// Income condition bounds, in 10,000 TWD a year.
pub const INCOME_CONDITION: RangeRule = RangeRule {
    min: 0,
    max: 10_000,
};

pub const PERSONALITY_TAGS: RangeRule = RangeRule { min: 1, max: 5 };
pub const EXERCISE_TAGS: RangeRule = RangeRule { min: 0, max: 5 };
pub const HOBBY_TAGS: RangeRule = RangeRule { min: 1, max: 8 };
pub const MARRIAGE_TYPE_TAGS: RangeRule = RangeRule { min: 0, max: 3 };
pub const FERTILITY_PLAN_TAGS: RangeRule = RangeRule { min: 1, max: 1 };
pub const PET_TAGS: RangeRule = RangeRule { min: 0, max: 5 };

/// Checks a free-text value against its rule, returning the trimmed text when it passes.
/// An absent or blank optional value is `Ok(None)`.
pub fn check_text(
    field: &str,
    value: Option<&str>,
    rule: TextRule,
    errors: &mut FieldErrors,
) -> Option<String> {
    let trimmed = value.map(str::trim).unwrap_or("");
    if trimmed.is_empty() {
        if rule.required {
            errors.add(field, RuleCode::Required);
        }
        return None;
    }
    let mut ok = true;
    let has_bad_control = trimmed
        .chars()
        .any(|c| c.is_control() && !(rule.multiline && (c == '\n' || c == '\r' || c == '\t')));
    if has_bad_control {
        errors.add(field, RuleCode::ControlChars);
        ok = false;
    }
    let length = trimmed.chars().count();
    if length < rule.min as usize {
        errors.add(field, RuleCode::TooShort);
        ok = false;
    }
    if length > rule.max as usize {
        errors.add(field, RuleCode::TooLong);
        ok = false;
    }
    ok.then(|| trimmed.to_owned())
}

/// All limits by wire field name, for the client to show hints (maxlength, counters, min/max).
pub fn limits() -> Vec<(&'static str, RangeRule)> {
    let text = |rule: TextRule| RangeRule {
        min: rule.min,
        max: rule.max,
    };
    Vec::from([
        ("nickname", text(NICKNAME)),
        ("name", text(NAME)),
        ("occupation", text(OCCUPATION)),
        ("achievement", text(ACHIEVEMENT)),
        ("school", text(SCHOOL)),
        ("aboutMe", text(ABOUT_ME)),
        ("datingQuestion", text(DATING_QUESTION)),
        ("dailyLife", text(DAILY_LIFE)),
        ("surprisePoint", text(SURPRISE_POINT)),
        ("address", text(ADDRESS)),
        ("feedback", text(FEEDBACK)),
        ("verifyDescription", text(VERIFY_DESCRIPTION)),
        ("height", HEIGHT_CM),
        ("age", AGE_YEARS),
        ("recommendDistanceKm", RECOMMEND_DISTANCE_KM),
        ("photoNameList", PHOTOS),
        ("income", INCOME_CONDITION),
        ("personalityTagIds", PERSONALITY_TAGS),
        ("exerciseTagIds", EXERCISE_TAGS),
        ("hobbyTagIds", HOBBY_TAGS),
        ("marriageTypeTagIds", MARRIAGE_TYPE_TAGS),
        ("fertilityPlanTagIds", FERTILITY_PLAN_TAGS),
        ("petTagIds", PET_TAGS),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_code_names_itself_as_it_is_serialised() {
        for code in RuleCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }

    #[test]
    fn a_field_collects_each_rule_once() {
        let mut errors = FieldErrors::new();
        errors.add("nickname", RuleCode::TooLong);
        errors.add("nickname", RuleCode::TooLong);
        errors.add("nickname", RuleCode::ControlChars);
        assert_eq!(
            errors.get("nickname"),
            Some(&[RuleCode::TooLong, RuleCode::ControlChars][..])
        );
        assert_eq!(
            serde_json::to_value(&errors).unwrap(),
            serde_json::json!({"nickname": ["too_long", "control_chars"]})
        );
    }

    #[test]
    fn text_is_trimmed_and_measured_in_characters_not_bytes() {
        let mut errors = FieldErrors::new();
        let nickname = check_text("nickname", Some("  小明是工程師  "), NICKNAME, &mut errors);
        assert_eq!(nickname.as_deref(), Some("小明是工程師"));
        assert!(errors.is_empty());
        check_text("nickname", Some(&"字".repeat(21)), NICKNAME, &mut errors);
        assert_eq!(errors.get("nickname"), Some(&[RuleCode::TooLong][..]));
    }

    #[test]
    fn blank_required_text_is_required_and_blank_optional_text_is_absent() {
        let mut errors = FieldErrors::new();
        assert_eq!(check_text("name", Some("   "), NAME, &mut errors), None);
        assert_eq!(check_text("school", None, SCHOOL, &mut errors), None);
        assert_eq!(errors.get("name"), Some(&[RuleCode::Required][..]));
        assert_eq!(errors.get("school"), None);
    }

    #[test]
    fn line_breaks_are_allowed_only_in_multiline_fields() {
        let mut errors = FieldErrors::new();
        assert!(
            check_text(
                "aboutMe",
                Some("I like hiking.\nAnd cats, and coffee."),
                ABOUT_ME,
                &mut errors
            )
            .is_some()
        );
        assert!(check_text("nickname", Some("a\nb"), NICKNAME, &mut errors).is_none());
        assert!(
            check_text(
                "aboutMe",
                Some("I like hiking.\u{0}And cats, and coffee."),
                ABOUT_ME,
                &mut errors
            )
            .is_none()
        );
        assert_eq!(errors.fields().collect::<Vec<_>>(), ["aboutMe", "nickname"]);
    }
}
