//! Every field rule of registration, in one place: the limits below are what both the client (for
//! instant feedback) and the server (as the control) enforce, and the rule codes are what both
//! report per field so the client can translate them.
//!
//! The rules of registration are declared with [validator]'s `#[derive(Validate)]` on
//! [`UserProfileCreate`](crate::profile::UserProfileCreate), whose attributes name the limits
//! defined here; [`FieldErrors`] is what every check reports, in the wire shape
//! `{"field": ["rule_code", ...]}`.
//!
//! ```
//! use kizuna_core::rules::{self, FieldErrors, RuleCode};
//!
//! let mut errors = FieldErrors::new();
//! let nickname = rules::check_text("nickname", Some("  Mei  "), rules::NICKNAME, &mut errors);
//! assert_eq!(nickname.as_deref(), Some("Mei"));
//! rules::check_text("aboutMe", Some("Too short."), rules::ABOUT_ME, &mut errors);
//! assert_eq!(errors.get("aboutMe"), Some(&[RuleCode::TooShort][..]));
//! assert_eq!(
//!     serde_json::to_value(&errors).unwrap(),
//!     serde_json::json!({"aboutMe": ["too_short"]})
//! );
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use validator::{ValidationError, ValidationErrors, ValidationErrorsKind};

/// Why a field failed; stable snake_case codes that the translation files key on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum RuleCode {
    /// Missing, or blank after trimming.
    Required,
    /// Text shorter than its rule's minimum, in characters.
    TooShort,
    /// Text longer than its rule's maximum, in characters.
    TooLong,
    /// A number outside its rule's range.
    OutOfRange,
    /// Not of the field's form (a LINE user id, a file name, a number, a URL).
    Invalid,
    /// The wrong JSON type (text where a number belongs, a body that is not an object).
    InvalidType,
    /// A field the payload does not have.
    UnknownField,
    /// Not one of the field's choices or catalogue entries.
    InvalidChoice,
    /// Not a `YYYY-MM-DD` date that exists, or a birthday in the future.
    InvalidDate,
    /// Younger than the minimum age on the given day.
    TooYoung,
    /// Older than the maximum age on the given day.
    TooOld,
    /// A list with fewer entries than its rule's minimum.
    TooFew,
    /// A list with more entries than its rule's maximum.
    TooMany,
    /// The same entry twice in a list, or the same condition type twice.
    Duplicate,
    /// A link that is not `https://`.
    NotHttps,
    /// Not an e-mail address.
    InvalidEmail,
    /// An e-mail address whose domain belongs to no employer of the catalogue.
    UnknownEmployer,
    /// A condition range with no bound, or with `from` above `to`.
    InvalidRange,
    /// One of a pair that must come together (latitude and longitude).
    BothOrNeither,
    /// A field that must repeat another and does not (`password` and `account`).
    Mismatch,
    /// Control characters (line breaks too, outside multi-line texts).
    ControlChars,
    /// A file name that is not one of the caller's unclaimed uploads (expired, claimed, someone
    /// else's, or never uploaded). Only the server can tell, so only the server reports it.
    UnknownFile,
    /// A work e-mail (verification COMPANY_EMAIL) not confirmed with the one-time code sent to
    /// it. Only the server can tell, so only the server reports it.
    EmailNotConfirmed,
    /// A field an approved member cannot change in the app (the name, birthday and gender a
    /// reviewer checked): they ask the operator instead.
    NotEditable,
}

impl RuleCode {
    /// Every rule code, in declaration order.
    pub const ALL: [RuleCode; 24] = [
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
        RuleCode::EmailNotConfirmed,
        RuleCode::NotEditable,
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
            RuleCode::EmailNotConfirmed => "email_not_confirmed",
            RuleCode::NotEditable => "not_editable",
        }
    }

    /// The rule code of a wire code (`"too_long"`), if there is one.
    pub fn parse(code: &str) -> Option<RuleCode> {
        RuleCode::ALL.into_iter().find(|rule| rule.as_str() == code)
    }
}

impl fmt::Display for RuleCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
    /// No errors.
    pub fn new() -> FieldErrors {
        FieldErrors::default()
    }

    /// One field with one failed rule.
    pub fn single(field: &str, code: RuleCode) -> FieldErrors {
        let mut errors = FieldErrors::new();
        errors.add(field, code);
        errors
    }

    /// Records that `field` breaks `code` (once, however often it is added).
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

    /// Adds every finding of `other`.
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

    /// True when nothing failed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many fields failed.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The rules a field breaks, if it breaks any.
    pub fn get(&self, field: &str) -> Option<&[RuleCode]> {
        self.0
            .iter()
            .find(|(known, _)| known == field)
            .map(|(_, codes)| codes.as_slice())
    }

    /// The failing fields, sorted.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(field, _)| field.as_str())
    }

    /// Each failing field with the rules it breaks, sorted by field.
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

impl fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (field, codes)) in self.iter().enumerate() {
            let separator = if index == 0 { "" } else { "; " };
            write!(f, "{separator}{field}:")?;
            for code in codes {
                write!(f, " {code}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for FieldErrors {}

/// The parameter in which a struct-level rule (validator's `schema`, reported under `__all__`)
/// names the wire fields it concerns, so that its finding lands on those fields.
pub(crate) const FIELDS_PARAM: &str = "fields";

/// validator's own codes, and what they are on the wire. `length` is told apart by the value
/// (see [`FieldErrors::from`]); every custom rule of this crate reports a [`RuleCode`] directly.
const VALIDATOR_CODES: [(&str, RuleCode); 3] = [
    ("required", RuleCode::Required),
    ("range", RuleCode::OutOfRange),
    ("non_control_character", RuleCode::ControlChars),
];

impl From<ValidationErrors> for FieldErrors {
    /// validator's report in the wire shape: a field's errors are keyed by its wire (camelCase)
    /// name, struct-level errors land on the fields they name (`valueItem.HEIGHT` for a
    /// condition), and validator's one `length` code becomes `too_short`/`too_long` for text and
    /// `too_few`/`too_many` for lists, by comparing the value with the rule's minimum.
    fn from(errors: ValidationErrors) -> FieldErrors {
        let mut found = FieldErrors::new();
        found.add_validation(&errors);
        found
    }
}

impl From<RuleCode> for ValidationError {
    /// A custom validator function's error, coded so that it reaches the wire unchanged.
    fn from(code: RuleCode) -> ValidationError {
        ValidationError::new(code.as_str())
    }
}

impl FieldErrors {
    /// Adds validator's findings, keyed by wire name.
    fn add_validation(&mut self, errors: &ValidationErrors) {
        // Fields first, struct-level rules last, so a field's codes come in one stable order
        // (a field's own codes come from one entry; the map's order is not the same every run).
        for struct_level in [false, true] {
            for (field, kind) in errors.errors() {
                if (field == "__all__") != struct_level {
                    continue;
                }
                match kind {
                    ValidationErrorsKind::Field(list) => {
                        for error in list {
                            let code = rule_code(error);
                            match param(error, FIELDS_PARAM) {
                                Some(serde_json::Value::Array(named)) => named
                                    .iter()
                                    .filter_map(serde_json::Value::as_str)
                                    .for_each(|named| self.add(&wire_name(named), code)),
                                // A struct-level error that names no field is about the
                                // payload as a whole, keyed "" as a body-level error is.
                                _ if struct_level => self.add("", code),
                                _ => self.add(&wire_name(field), code),
                            }
                        }
                    }
                    // No payload of this crate nests (conditions are struct-level rules): a nested
                    // report fails its field as a whole rather than being walked, which would
                    // link validator's list map into the wasm for nothing.
                    ValidationErrorsKind::Struct(_) | ValidationErrorsKind::List(_) => {
                        self.add(&wire_name(field), RuleCode::Invalid)
                    }
                }
            }
        }
    }
}

/// validator keys a field's errors by its Rust name (`match_gender`); the wire name is the
/// camelCase one (`matchGender`), as serde's `rename_all = "camelCase"` spells every Kizuna
/// payload. Names already in wire form (`valueItem.HEIGHT`, `MARRIAGE_RECORD`) stay as they are.
fn wire_name(field: &str) -> String {
    if field.bytes().any(|b| b.is_ascii_uppercase()) {
        return field.to_owned();
    }
    let mut name = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        match c {
            '_' => upper = true,
            _ if upper => {
                name.push(c.to_ascii_uppercase());
                upper = false;
            }
            _ => name.push(c),
        }
    }
    name
}

/// A struct-level rule's finding on the wire fields it concerns.
pub(crate) fn struct_error(code: RuleCode, fields: &[&str]) -> ValidationError {
    let mut error = ValidationError::from(code);
    error.add_param(Cow::Borrowed(FIELDS_PARAM), &fields);
    error
}

/// A parameter of an error. Searched rather than looked up: the map holds two or three entries,
/// and a lookup would link another instance of the hash map's code into the wasm.
fn param<'e>(error: &'e ValidationError, name: &str) -> Option<&'e serde_json::Value> {
    error
        .params
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| value)
}

fn rule_code(error: &ValidationError) -> RuleCode {
    if error.code == "length" {
        let below_min = |count: usize| {
            let min = param(error, "min").and_then(serde_json::Value::as_u64);
            min.is_some_and(|min| (count as u64) < min)
        };
        return match param(error, "value") {
            Some(serde_json::Value::Array(items)) if below_min(items.len()) => RuleCode::TooFew,
            Some(serde_json::Value::Array(_)) => RuleCode::TooMany,
            Some(serde_json::Value::String(text)) if below_min(text.chars().count()) => {
                RuleCode::TooShort
            }
            _ => RuleCode::TooLong,
        };
    }
    VALIDATOR_CODES
        .iter()
        .find(|(known, _)| *known == error.code)
        .map(|(_, rule)| *rule)
        .or_else(|| RuleCode::parse(&error.code))
        // Every validator in use is listed above or reports a RuleCode; a new one that is
        // neither still fails its field rather than passing silently.
        .unwrap_or(RuleCode::Invalid)
}

/// Length limits of a free-text field, in Unicode characters after trimming.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TextRule {
    /// A blank value is `required` rather than absent.
    pub required: bool,
    /// Fewest characters.
    pub min: u32,
    /// Most characters.
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

/// The name other members see.
pub const NICKNAME: TextRule = required(1, 20);
/// The legal name, for reviewers only.
pub const NAME: TextRule = required(1, 50);
/// The job title.
pub const OCCUPATION: TextRule = required(1, 50);
/// A work achievement to be proud of.
pub const ACHIEVEMENT: TextRule = optional(300, true);
/// The school last attended.
pub const SCHOOL: TextRule = optional(100, false);
/// A real introduction is what reviewers and matches look for, so a one-liner is not enough.
pub const ABOUT_ME: TextRule = TextRule {
    required: true,
    min: 20,
    max: 1000,
    multiline: true,
};
/// A question for a first date.
pub const DATING_QUESTION: TextRule = optional(500, true);
/// A day in the person's life.
pub const DAILY_LIFE: TextRule = optional(500, true);
/// Something about the person that surprises people.
pub const SURPRISE_POINT: TextRule = optional(500, true);
/// Where the person lives, in words; for reviewers only.
pub const ADDRESS: TextRule = optional(200, false);
/// How the person heard of Kizuna.
pub const FEEDBACK: TextRule = optional(500, true);
/// A note to the reviewer about the proof of employment.
pub const VERIFY_DESCRIPTION: TextRule = optional(500, true);

/// An inclusive numeric range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct RangeRule {
    /// Lowest allowed value.
    pub min: u32,
    /// Highest allowed value.
    pub max: u32,
}

impl RangeRule {
    /// True when `value` is within the range, bounds included.
    pub fn contains(self, value: u32) -> bool {
        (self.min..=self.max).contains(&value)
    }
}

/// Height in centimetres.
pub const HEIGHT_CM: RangeRule = RangeRule { min: 120, max: 230 };
/// Age in completed years: who may register, and the bounds of an age condition.
pub const AGE_YEARS: RangeRule = RangeRule { min: 18, max: 99 };
/// How far away introductions may live, in kilometres; 0 means "anywhere".
pub const RECOMMEND_DISTANCE_KM: RangeRule = RangeRule { min: 0, max: 500 };
/// How many profile photos.
pub const PHOTOS: RangeRule = RangeRule { min: 1, max: 6 };
/// Income condition bounds, in 10,000 TWD a year.
pub const INCOME_CONDITION: RangeRule = RangeRule {
    min: 0,
    max: 10_000,
};

/// Bounds of a coordinate, in degrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DegreeRule {
    /// Lowest allowed value.
    pub min: f64,
    /// Highest allowed value.
    pub max: f64,
}

/// Latitude of the person's location.
pub const LATITUDE: DegreeRule = DegreeRule {
    min: -90.0,
    max: 90.0,
};
/// Longitude of the person's location.
pub const LONGITUDE: DegreeRule = DegreeRule {
    min: -180.0,
    max: 180.0,
};

/// How many personality tags.
pub const PERSONALITY_TAGS: RangeRule = RangeRule { min: 1, max: 5 };
/// How many exercise tags.
pub const EXERCISE_TAGS: RangeRule = RangeRule { min: 0, max: 5 };
/// How many hobby tags.
pub const HOBBY_TAGS: RangeRule = RangeRule { min: 1, max: 8 };
/// How many marriage-type tags.
pub const MARRIAGE_TYPE_TAGS: RangeRule = RangeRule { min: 0, max: 3 };
/// How many fertility-plan tags: exactly one.
pub const FERTILITY_PLAN_TAGS: RangeRule = RangeRule { min: 1, max: 1 };
/// How many pet tags.
pub const PET_TAGS: RangeRule = RangeRule { min: 0, max: 5 };

/// Checks a free-text value against its rule, returning the trimmed text when it passes.
/// An absent or blank optional value is `None` and no error. Registration declares the same
/// rules with validator's derive (see [`UserProfileCreate`](crate::profile::UserProfileCreate));
/// this is for other texts that follow a [`TextRule`].
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
        ("reviewNote", text(REVIEW_NOTE)),
        ("chatMessage", text(CHAT_MESSAGE)),
        ("clientMessageId", CLIENT_MESSAGE_ID),
        ("reportText", text(REPORT_TEXT)),
        ("appealText", text(APPEAL_TEXT)),
        ("likeComment", text(LIKE_COMMENT)),
        (
            "emailCode",
            RangeRule {
                min: EMAIL_CODE_DIGITS as u32,
                max: EMAIL_CODE_DIGITS as u32,
            },
        ),
    ])
}

// ---------------------------------------------------------------------------------------------
// Review: decisions, claims and the work e-mail's one-time code.

/// The reviewer's optional note to the member on a decision (shown on /profile and in the push).
pub const REVIEW_NOTE: TextRule = optional(500, true);
/// How long a reviewer holds a claimed profile before another reviewer may take it.
pub const REVIEW_CLAIM_SECS: i64 = 15 * 60;

/// Digits of the work e-mail's one-time code.
pub const EMAIL_CODE_DIGITS: usize = 6;
/// A code is accepted for this long after it was sent.
pub const EMAIL_CODE_VALID_SECS: i64 = 10 * 60;
/// Wrong tries that lock a code for good (the member then asks for a new one).
pub const EMAIL_CODE_MAX_WRONG_TRIES: u32 = 5;
/// The shortest wait before one member is sent another code for the same address.
pub const EMAIL_CODE_RESEND_WAIT_SECS: i64 = 60;
/// Sends allowed per member, and separately per address, within [`EMAIL_CODE_SEND_WINDOW_SECS`].
pub const EMAIL_CODE_SENDS_PER_WINDOW: u32 = 5;
/// The "day" of the send limit: a rolling 24 hours, so the limit cannot be doubled around midnight.
pub const EMAIL_CODE_SEND_WINDOW_SECS: i64 = 24 * 60 * 60;
/// How long a confirmed address counts for a profile submission.
pub const EMAIL_CODE_CONFIRMATION_VALID_SECS: i64 = 24 * 60 * 60;
/// Sent codes are kept this long (for the send limits and the confirmation), then deleted.
pub const EMAIL_CODE_RETENTION_SECS: i64 = 30 * 24 * 60 * 60;

// ---------------------------------------------------------------------------------------------
// Matchmaking: days, location privacy, introductions, chat and reports.

/// Asia/Taipei is UTC+8 all year (no daylight saving): the service's days start at 16:00 UTC.
pub const TAIPEI_UTC_OFFSET_SECS: i64 = 8 * 60 * 60;

/// Grid rows per degree of latitude: a degree is 111.2 km, so a row is 1.00 km high. Each row is
/// cut into columns of about the same width (see `geo`), giving cells of about 1 km x 1 km.
pub const GRID_STEPS_PER_DEGREE: f64 = 111.0;
/// Edges of the distance bands another member is told, in km: under 5, 5 to 20, 20 to 50, over 50.
/// A distance equal to an edge belongs to the band above it.
pub const DISTANCE_BAND_EDGES_KM: [f64; 3] = [5.0, 20.0, 50.0];

/// New introductions a member gets per Asia/Taipei day.
pub const DAILY_NEW_INTRODUCTIONS: usize = 5;
/// The most daily lists one member appears in per day, so a few profiles do not fill every list.
pub const DAILY_APPEARANCE_CAP: u32 = 20;
/// Eligible candidates (passing the two-way rule and the relations) a member's ranking looks at,
/// nearest first. Past this the scan stops: the score is mostly shared tags and comfort within
/// ranges (up to 700 of about 1,150 points), distance is worth at most 100, and the radius already
/// filters. The best 5 of the nearest 300 who qualify are within the top 2 % of them on those
/// parts, so a farther candidate rarely beats them; and without the bound one member's list
/// costs a scan of every member of their gender group (quadratic for the daily job).
pub const CANDIDATE_WINDOW: usize = 300;
/// Ranked candidates offered per round of a day's pick (`matching::DailyPick`): one round nearly
/// always fills a list even when a few candidates are at their cap or, on demand, no longer
/// approved.
pub const PICK_ROUND: usize = 32;
/// Days during which a pass (either way) keeps two people from being introduced again.
pub const PASS_COOLDOWN_DAYS: i32 = 30;
/// Days after one of a pair deleted their account during which the pair, if it had matched or
/// passed, is not introduced again should they register afresh (the pair is kept, as a hash of
/// both LINE user ids, this long and no longer).
pub const FORMER_PAIR_DAYS: i32 = 365;
/// Days back a suspension's notice reaches: every member whose match with the removed member was
/// live at some time in this window is told (a match that ended earlier in it too: a scammer
/// moves the talk elsewhere, so an unmatch does not end the risk).
pub const REMOVAL_NOTICE_DAYS: i64 = 30;
/// Days after a match without any message when both members are reminded, once, to say hello.
pub const QUIET_MATCH_REMINDER_DAYS: i64 = 3;
/// Days after a match without any message when it closes as expired (a conversation, however
/// short, keeps a match from expiring for good).
pub const QUIET_MATCH_EXPIRY_DAYS: i64 = 7;
/// Days an expired match stays in both members' matches list, with a line saying it expired.
pub const EXPIRED_MATCH_SHOWN_DAYS: i64 = 14;
/// Seconds a conversation must have waited on a member's reply (the other wrote last) before it
/// counts towards their turn.
pub const YOUR_TURN_WAIT_SECS: i64 = 24 * 60 * 60;
/// Conversations waiting on a member's reply from which a new like first shows them, to reply or
/// end.
pub const YOUR_TURN_LIMIT: usize = 5;

/// The weights of the compatibility score (`matching::score`); see each field.
pub const SCORE: ScoreWeights = ScoreWeights {
    shared_hobby: 40,
    shared_exercise: 30,
    shared_personality: 25,
    shared_marriage_type: 30,
    same_fertility_plan: 60,
    shared_pet: 15,
    tags_max: 400,
    comfort_max: 300,
    comfort_width_height_cm: 10,
    comfort_width_age_years: 5,
    comfort_width_income: 50,
    activity: [(1, 200), (3, 150), (7, 100), (14, 50), (30, 20)],
    distance: [100, 70, 40, 10],
    liked_you: 150,
};

/// Points of the compatibility score. Every part is a whole number, so the score is the same on
/// every platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreWeights {
    /// Per hobby tag both people chose.
    pub shared_hobby: u32,
    /// Per exercise tag both chose.
    pub shared_exercise: u32,
    /// Per personality tag both chose.
    pub shared_personality: u32,
    /// Per marriage-type tag both chose.
    pub shared_marriage_type: u32,
    /// When both chose the same fertility plan.
    pub same_fertility_plan: u32,
    /// Per pet tag both chose.
    pub shared_pet: u32,
    /// The shared-tag points are capped here.
    pub tags_max: u32,
    /// Points when each person sits in the middle of every range the other asked for (or the other
    /// asked for none); half per direction, falling linearly to 0 at a range's edge.
    pub comfort_max: u32,
    /// For a one-sided height range ("at least 170"): how far past the bound counts as fully inside.
    pub comfort_width_height_cm: u32,
    /// The same for a one-sided age range, in years.
    pub comfort_width_age_years: u32,
    /// The same for a one-sided income range, in 10,000 TWD a year.
    pub comfort_width_income: u32,
    /// Recent activity of the candidate: `(at most this many days since last active, points)`,
    /// first matching step wins; longer ago scores 0.
    pub activity: [(u32, u32); 5],
    /// Points by distance band: under 5 km, 5 to 20, 20 to 50, over 50.
    pub distance: [u32; 4],
    /// When the candidate already liked the viewer (a like back makes a match).
    pub liked_you: u32,
}

/// A chat message: 1 to 1000 characters after trimming; line breaks allowed.
pub const CHAT_MESSAGE: TextRule = TextRule {
    required: true,
    min: 1,
    max: 1000,
    multiline: true,
};
/// Length of the client's message id (a UUID is 36), in characters of `A-Z a-z 0-9 _ -`.
pub const CLIENT_MESSAGE_ID: RangeRule = RangeRule { min: 8, max: 64 };
/// Messages one member may send per minute, over all their matches.
pub const CHAT_MESSAGES_PER_MINUTE: u32 = 30;
/// Events streams (`GET /chat/events`) one member may hold open on one server process: a page
/// needs one, a few tabs or devices a few more; each holds a receiver and a presence row.
pub const CHAT_STREAMS_PER_MEMBER: u32 = 5;
/// At most one "new message" push per match within this many seconds.
pub const CHAT_PUSH_INTERVAL_SECS: i64 = 10 * 60;
/// A like's comment on one photo or Q&A answer: short, as a first line is.
pub const LIKE_COMMENT: TextRule = TextRule {
    required: true,
    min: 1,
    max: 140,
    multiline: true,
};
/// How long a session lasts from its last renewal, in seconds (7 days): the server's session
/// token and the web's cookies that carry it expire together.
pub const SESSION_TTL_SECS: i64 = 7 * 24 * 60 * 60;
/// How long a pass may be taken back (the web's Undo toast shows as long), in seconds.
pub const PASS_UNDO_SECS: i64 = 10;
/// The optional text of a report.
pub const REPORT_TEXT: TextRule = optional(1000, true);
/// A suspended member's appeal: a few sentences on why the decision should be looked at again
/// (required; `crate::appeal`).
pub const APPEAL_TEXT: TextRule = TextRule {
    required: true,
    min: 1,
    max: 1000,
    multiline: true,
};
/// Where a date is, as a member types it in the chat's "Share my date" sheet: a place's name or
/// address on one line, short enough to read at a glance in a LINE chat. It goes to the one LINE
/// friend the member picks, through LINE, and never to Kizuna's server (docs/design.md, Chat).
pub const DATE_PLACE: TextRule = TextRule {
    required: true,
    min: 1,
    max: 100,
    multiline: false,
};
/// A shared date may have started up to this long ago, in seconds: a member may tell a friend
/// once they are there.
pub const DATE_SHARE_PAST_SECS: i64 = 12 * 60 * 60;
/// ... and be at most this far ahead, in seconds: a plan further off is no plan to watch over.
pub const DATE_SHARE_AHEAD_SECS: i64 = 90 * 24 * 60 * 60;
/// A match is young (for [`crate::safety`]: contact details in it are a caution) while it is
/// younger than this, in seconds: members usually share their LINE after meeting, and asking to
/// move elsewhere in the first days is the romance scam's first step.
pub const SAFETY_YOUNG_MATCH_SECS: i64 = 14 * 24 * 60 * 60;
/// ... or while either side has sent fewer messages than this (before the message screened).
pub const SAFETY_YOUNG_MATCH_MESSAGES: u32 = 20;
/// Messages one call for a match's history may ask for.
pub const CHAT_PAGE: RangeRule = RangeRule { min: 1, max: 50 };
/// Messages a history call returns when it does not say.
pub const CHAT_PAGE_DEFAULT: u32 = 30;
/// Entries one call for a reviewer's queue (profiles, reports) may ask for; also the default.
pub const REVIEW_PAGE: RangeRule = RangeRule { min: 1, max: 200 };
/// An app path asked about by the web app's route guard, in characters.
pub const ROUTE_PATH: RangeRule = RangeRule { min: 1, max: 512 };
/// Photos whose whole-image perceptual hashes (64 bits each, `photos::PhotoHash`) differ in at
/// most this many bits resemble each other: the review console shows them side by side. Measured
/// by `just bench-photos` (recompressed, resized, cropped by up to a tenth and mirrored copies
/// against distinct photos): see docs/design.md, Review.
pub const PHOTO_RESEMBLANCE_MAX_BITS: u32 = 10;
/// ... or whose hashes differ in at most this many bits when one photo's whole image is compared
/// with a region of the other's (`photos::PhotoHash::regions`: a crop caught either way). Tighter
/// than the whole-image threshold: each pair of photos is compared 36 more ways, and each way is
/// a chance for two different photos to look alike.
pub const PHOTO_REGION_RESEMBLANCE_MAX_BITS: u32 = 8;
/// The regions of a photo that are hashed besides the whole image: each takes this share of the
/// width and of the height away (a crop of up to a tenth)...
pub const PHOTO_REGION_CUT: f32 = 0.1;
/// ... at these positions, as the share of the cut taken on the left (and on the top): every pair
/// of them, 9 regions. Not at the very edges: a crop anywhere within the tenth is then at most
/// about 2 % of a side away from a region, and a crop from one corner about 1 %.
pub const PHOTO_REGION_SHARES: [f32; 3] = [0.12, 0.5, 0.88];
/// A client log line's message, in characters: longer ones are refused.
pub const LOG_MESSAGE_CHARS: u32 = 2000;
/// Client log lines a member (a caller with a live session) may write per minute.
pub const LOG_LINES_PER_MINUTE_MEMBER: u32 = 30;
/// Client log lines per minute from one client address without a session: tighter than a
/// member's, since anyone can send them (at any level, ERROR included) and nobody answers for them.
pub const LOG_LINES_PER_MINUTE_ANONYMOUS: u32 = 10;
const _: () = assert!(LOG_LINES_PER_MINUTE_ANONYMOUS < LOG_LINES_PER_MINUTE_MEMBER);
/// Session look-ups the logger makes per minute for one client address: made-up tokens are
/// refused before they cost the database a query each.
pub const LOG_SESSION_LOOKUPS_PER_MINUTE: u32 = 120;
/// Logins (each makes a session) one LINE user may make per minute: the web app logs in once per
/// opening of the app, so a few a minute is already someone opening it again and again.
pub const LOGINS_PER_MINUTE_PER_USER: u32 = 10;
/// Logins per minute from one client address (many members may share one behind a carrier).
pub const LOGINS_PER_MINUTE_PER_ADDRESS: u32 = 120;
/// Image proxy renders one member may cause per minute: variants not yet cached (a cached one
/// costs nothing). A new photo on screen costs two (its blurred placeholder and one srcset
/// size), so a first look at a long list stays within it; someone varying the modifiers to
/// defeat the cache gets this many and then waits, instead of the workers the others need.
pub const IMAGE_RENDERS_PER_MINUTE: u32 = 120;
/// Uploads (`POST /file/tempUpload`) one user may start per minute, whatever they come to: each
/// one may be a 10 MB body and a 40 MP decode. Registering takes at most seven (six photos and the
/// proof of employment); someone uploading in a loop gets this many and then waits.
pub const UPLOADS_PER_MINUTE: u32 = 20;
/// Uploads one user may have in flight at once (being received or decoded) on one server process:
/// a few photos picked together, never every upload slot of the process.
pub const UPLOADS_IN_FLIGHT_PER_USER: u32 = 2;
/// Unclaimed uploads (temp files no profile, avatar or submission uses yet, under a day old) a
/// user without a profile may hold: a registration's seven and a few changes of mind.
pub const UNCLAIMED_UPLOADS_WITHOUT_PROFILE: u32 = 12;
/// Their stored bytes, at most: room for a registration's seven photos straight from a camera.
pub const UNCLAIMED_UPLOAD_BYTES_WITHOUT_PROFILE: u64 = 48 * 1024 * 1024;
/// Unclaimed uploads a user with a profile may hold (a resubmission, a new avatar).
pub const UNCLAIMED_UPLOADS_WITH_PROFILE: u32 = 24;
/// Their stored bytes, at most.
pub const UNCLAIMED_UPLOAD_BYTES_WITH_PROFILE: u64 = 96 * 1024 * 1024;
const _: () = assert!(UNCLAIMED_UPLOADS_WITHOUT_PROFILE < UNCLAIMED_UPLOADS_WITH_PROFILE);
const _: () = assert!(UNCLAIMED_UPLOAD_BYTES_WITHOUT_PROFILE < UNCLAIMED_UPLOAD_BYTES_WITH_PROFILE);
/// Changes of a member's own switches (the colleagues switch) or of employers on record (by a
/// reviewer) per minute: each one tells every process's pool; a person flips one a few times, a
/// script flipping it in a loop waits.
pub const SWITCH_CHANGES_PER_MINUTE: u32 = 20;
/// Saves of an approved member's edit form per minute (`PUT /user-profile/edit`): each one
/// rewrites the profile or its revision and tells every pool; a person saves a few times, a
/// script saving in a loop waits.
pub const PROFILE_EDITS_PER_MINUTE: u32 = 10;
/// Copies of their data a user may ask for within [`DATA_EXPORT_WINDOW_SECS`]: each one reads
/// everything they have and zips their photos.
pub const DATA_EXPORTS_PER_WINDOW: u32 = 3;
/// The window of [`DATA_EXPORTS_PER_WINDOW`]: a day.
pub const DATA_EXPORT_WINDOW_SECS: i64 = 24 * 60 * 60;
/// How long a data export's download link works once the archive is ready: the link needs no
/// session (LIFF's in-app browser may hand a download to another browser), so it is short-lived.
pub const DATA_EXPORT_LINK_SECS: i64 = 10 * 60;

/// Days after both members of a match have written to each other (counted from the later of
/// their first messages) before each is asked, privately, whether they met (`met::question_due`):
/// long enough for a first date to be arranged and held, short enough to be remembered.
pub const WE_MET_ASK_AFTER_DAYS: i64 = 5;
/// Points of the daily pick's score for each member who met a candidate and said they would
/// like to see them again (`met::seen_again_points`).
pub const SEEN_AGAIN_POINTS_EACH: u32 = 20;
/// The most points "seen again" adds to a candidate's score, however many said so: less than one
/// shared hobby and the fertility plan together (100), a tenth of the like-back bonus's reach,
/// so it reorders near-equal candidates and never outweighs fit or distance.
pub const SEEN_AGAIN_POINTS_MAX: u32 = 60;
/// Days of first review decisions the pending screen's usual review time is computed from.
pub const REVIEW_TIME_WINDOW_DAYS: i64 = 7;
/// Fewer first decisions than this in the window and no figure is shown (`review::review_time`):
/// a median of a handful of waits says more about those few members than about the queue.
pub const REVIEW_TIME_MIN_DECISIONS: usize = 10;
/// Look-ups of the usual review time a minute, per user (the pending screen asks once per visit).
pub const REVIEW_TIME_LOOKUPS_PER_MINUTE: u32 = 30;

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
    fn every_rule_code_parses_back_from_its_wire_code() {
        for code in RuleCode::ALL {
            assert_eq!(RuleCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(RuleCode::parse("length"), None);
    }

    #[test]
    fn field_errors_read_as_a_sentence_per_field() {
        let mut errors = FieldErrors::single("nickname", RuleCode::TooLong);
        errors.add("city", RuleCode::Required);
        errors.add("nickname", RuleCode::ControlChars);
        assert_eq!(
            errors.to_string(),
            "city: required; nickname: too_long control_chars"
        );
    }

    #[test]
    fn struct_level_errors_land_on_the_fields_they_name_or_on_the_payload() {
        let mut report = ValidationErrors::new();
        report.add("match_gender", ValidationError::new("required"));
        report.add(
            "__all__",
            struct_error(RuleCode::BothOrNeither, &["latitude", "longitude"]),
        );
        report.add("__all__", ValidationError::from(RuleCode::Invalid));
        let errors = FieldErrors::from(report);
        assert_eq!(errors.get("matchGender"), Some(&[RuleCode::Required][..]));
        assert_eq!(errors.get("latitude"), Some(&[RuleCode::BothOrNeither][..]));
        assert_eq!(
            errors.get("longitude"),
            Some(&[RuleCode::BothOrNeither][..])
        );
        assert_eq!(errors.get(""), Some(&[RuleCode::Invalid][..]));
        assert_eq!(errors.len(), 4);
    }

    #[test]
    fn validator_field_names_become_wire_names() {
        assert_eq!(wire_name("match_gender"), "matchGender");
        assert_eq!(wire_name("verify_temp_file_name"), "verifyTempFileName");
        assert_eq!(
            wire_name("valueItem.MARRIAGE_RECORD"),
            "valueItem.MARRIAGE_RECORD"
        );
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
