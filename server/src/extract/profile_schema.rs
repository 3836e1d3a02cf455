//! The OpenAPI schema of a profile as members send it and reviewers read it (kizuna-core's
//! `UserProfileCreate`), stated from kizuna-core's own rules so that the document and the
//! checks cannot drift apart; its tests hold the two together.

use std::borrow::Cow;

use kizuna_core::{
    catalogue,
    conditions::CONDITION_TYPES,
    files::FileName,
    profile::{FIELDS, UserProfileCreate},
    rules::{RangeRule, RuleCode, TextRule},
    url::HttpsUrl,
};
use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseFromJSON, ParseResult, ToJSON, Type},
};
use serde_json::{Value, json};

/// The schema of POST /user-profile's body, kizuna-core's `UserProfileCreate`: its fields
/// (`profile::FIELDS`) with their JSON types, which of them are required, and every rule JSON Schema
/// can state, each read from kizuna-core (its `rules` limits, its choice lists and catalogues). The
/// rules that span fields or depend on the day (stated in the descriptions) answer as `fields` of
/// an E002.
pub struct UserProfileCreateSchema;

const PROFILE_SCHEMA_NAME: &str = "UserProfileCreate";

/// kizuna-core's `LineUserId`: `U` and 32 lowercase hexadecimal digits (a test holds the two
/// together).
pub const LINE_USER_ID_PATTERN: &str = "^U[0-9a-f]{32}$";
/// kizuna-core's `FileName`: 1 to `FileName::MAX_LEN` of `A-Z a-z 0-9 _ -` (a test holds the two
/// together).
const FILE_NAME_PATTERN: &str = "^[A-Za-z0-9_-]+$";
/// No control characters (what `rules::check_text` refuses), on one line.
const ONE_LINE: &str = r"^[^\x00-\x1f\x7f-\x9f]*$";
/// No control characters but tab and line breaks.
const MULTI_LINE: &str = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$";
/// Required text: also something besides white space (it is trimmed before it is measured).
const ONE_LINE_REQUIRED: &str =
    r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$";
const MULTI_LINE_REQUIRED: &str = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$";

fn typed(ty: &'static str) -> MetaSchema {
    MetaSchema::new(ty)
}

fn described(description: &'static str, schema: MetaSchema) -> MetaSchema {
    MetaSchema {
        description: Some(description),
        ..schema
    }
}

fn one_of(values: Vec<Value>, ty: &'static str) -> MetaSchema {
    MetaSchema {
        enum_items: values,
        ..MetaSchema::new(ty)
    }
}

fn names<C: Copy>(all: &[C], name: fn(C) -> &'static str) -> MetaSchema {
    one_of(all.iter().map(|&c| json!(name(c))).collect(), "string")
}

fn codes<C: Copy>(all: &[C], code: fn(C) -> u8) -> MetaSchema {
    one_of(all.iter().map(|&c| json!(code(c))).collect(), "integer")
}

fn list_of(item: MetaSchema) -> MetaSchema {
    MetaSchema {
        items: Some(Box::new(MetaSchemaRef::Inline(Box::new(item)))),
        ..MetaSchema::new("array")
    }
}

fn inline(schema: MetaSchema) -> MetaSchemaRef {
    MetaSchemaRef::Inline(Box::new(schema))
}

/// Free text under a `rules` text limit (measured in characters after trimming).
fn text(rule: TextRule) -> MetaSchema {
    let pattern = match (rule.required, rule.multiline) {
        (false, false) => ONE_LINE,
        (false, true) => MULTI_LINE,
        (true, false) => ONE_LINE_REQUIRED,
        (true, true) => MULTI_LINE_REQUIRED,
    };
    MetaSchema {
        min_length: (rule.min > 0).then_some(rule.min as usize),
        max_length: Some(rule.max as usize),
        pattern: Some(pattern.into()),
        ..typed("string")
    }
}

fn integer_in(rule: RangeRule) -> MetaSchema {
    MetaSchema {
        minimum: Some(f64::from(rule.min)),
        maximum: Some(f64::from(rule.max)),
        ..typed("integer")
    }
}

fn number_in(min: f64, max: f64) -> MetaSchema {
    MetaSchema {
        minimum: Some(min),
        maximum: Some(max),
        ..typed("number")
    }
}

/// A tag list: ids of its own catalogue, distinct, as many as its rule allows.
fn tags(catalogue: &[catalogue::Tag], rule: RangeRule) -> MetaSchema {
    MetaSchema {
        min_items: Some(rule.min as usize),
        max_items: Some(rule.max as usize),
        unique_items: Some(true),
        ..list_of(one_of(
            catalogue.iter().map(|t| json!(t.id)).collect(),
            "integer",
        ))
    }
}

fn file_name() -> MetaSchema {
    MetaSchema {
        max_length: Some(FileName::MAX_LEN),
        pattern: Some(FILE_NAME_PATTERN.into()),
        ..typed("string")
    }
}

/// A range condition's bound: 0 (open) or a value within the field's rule.
fn bound(rule: RangeRule) -> MetaSchema {
    MetaSchema {
        any_of: vec![
            inline(one_of(vec![json!(0)], "integer")),
            inline(integer_in(rule)),
        ],
        ..MetaSchema::ANY
    }
}

fn condition_variant(
    type_name: &'static str,
    fields: Vec<(&'static str, MetaSchema)>,
) -> MetaSchema {
    let mut properties = vec![("type", inline(one_of(vec![json!(type_name)], "string")))];
    let mut required = vec!["type"];
    for (name, schema) in fields {
        if name == "value" {
            required.push(name);
        }
        properties.push((name, inline(schema)));
    }
    MetaSchema {
        required,
        properties,
        ..MetaSchema::new("object")
    }
}

fn condition_schema() -> MetaSchema {
    use kizuna_core::*;
    let variants = CONDITION_TYPES.iter().map(|&t| {
        let range = |rule| vec![("from", bound(rule)), ("to", bound(rule))];
        let value = |schema| vec![("value", schema)];
        let fields = match t {
            "HEIGHT" => range(rules::HEIGHT_CM),
            "AGE" => range(rules::AGE_YEARS),
            "INCOME" => range(rules::INCOME_CONDITION),
            "EDUCATION" => value(names(Education::ALL, Education::as_str)),
            "MARRIAGE_RECORD" => value(codes(MarriageRecord::ALL, MarriageRecord::code)),
            "HAS_CHILDREN" => value(codes(HasChildren::ALL, HasChildren::code)),
            "SMOKE" => value(codes(Smoke::ALL, Smoke::code)),
            "TATTOO" => value(names(Tattoo::ALL, Tattoo::as_str)),
            "DRINK" => value(codes(Drink::ALL, Drink::code)),
            _ => Vec::new(),
        };
        inline(condition_variant(t, fields))
    });
    MetaSchema {
        description: Some(
            "A partner condition: HEIGHT, AGE and INCOME take `from`/`to` (0 = open; not both \
             open, and `from` <= `to` when both are set), the others a `value` of their choice.",
        ),
        one_of: variants.collect(),
        ..MetaSchema::ANY
    }
}

/// The JSON schema of one wire field of `UserProfileCreate` (None for a field this does not know:
/// a test keeps the two in step).
fn field_schema(field: &str) -> Option<MetaSchema> {
    use kizuna_core::*;
    let tag_catalogue = catalogue::tags();
    Some(match field {
        "gender" => names(Gender::ALL, Gender::as_str),
        "matchGender" => names(MatchGender::ALL, MatchGender::as_str),
        "occupationType" => names(OccupationType::ALL, OccupationType::as_str),
        "incomeRange" => names(IncomeRange::ALL, IncomeRange::as_str),
        "education" => names(Education::ALL, Education::as_str),
        "tattoo" => names(Tattoo::ALL, Tattoo::as_str),
        "mbti" => names(Mbti::ALL, Mbti::as_str),
        "verifyMethod" => described(
            "Which proof of employment: COMPANY_EMAIL needs `companyEmail`, EMPLOYEE_ID \
             `verifyTempFileName`, REVIEW_LINK `reviewLink`.",
            names(VerifyMethod::ALL, VerifyMethod::as_str),
        ),
        "marriageRecord" => codes(MarriageRecord::ALL, MarriageRecord::code),
        "hasChildren" => codes(HasChildren::ALL, HasChildren::code),
        "smoke" => codes(Smoke::ALL, Smoke::code),
        "drink" => codes(Drink::ALL, Drink::code),
        "city" => one_of(
            catalogue::cities().iter().map(|c| json!(c.code)).collect(),
            "string",
        ),
        "height" => described("Centimetres.", integer_in(rules::HEIGHT_CM)),
        "recommendDistanceKm" => described(
            "How far away introductions may live; 0 (the default) means anywhere.",
            integer_in(rules::RECOMMEND_DISTANCE_KM),
        ),
        // The range of the coordinates themselves, not a product rule.
        "latitude" => described(
            "Degrees; with `longitude` or not at all.",
            number_in(-90.0, 90.0),
        ),
        "longitude" => described(
            "Degrees; with `latitude` or not at all.",
            number_in(-180.0, 180.0),
        ),
        "personalityTagIds" => tags(tag_catalogue.personality, rules::PERSONALITY_TAGS),
        "exerciseTagIds" => tags(tag_catalogue.exercise, rules::EXERCISE_TAGS),
        "hobbyTagIds" => tags(tag_catalogue.hobby, rules::HOBBY_TAGS),
        "marriageTypeTagIds" => tags(tag_catalogue.marriage_type, rules::MARRIAGE_TYPE_TAGS),
        "fertilityPlanTagIds" => tags(tag_catalogue.fertility_plan, rules::FERTILITY_PLAN_TAGS),
        "petTagIds" => tags(tag_catalogue.pet, rules::PET_TAGS),
        "photoNameList" => described(
            "File names of the caller's temp uploads (or of the upload they made their avatar), \
             in display order.",
            MetaSchema {
                min_items: Some(rules::PHOTOS.min as usize),
                max_items: Some(rules::PHOTOS.max as usize),
                unique_items: Some(true),
                ..list_of(file_name())
            },
        ),
        "valueItem" => described(
            "Partner conditions, at most one of each type.",
            MetaSchema {
                max_items: Some(CONDITION_TYPES.len()),
                ..list_of(condition_schema())
            },
        ),
        "account" | "password" => described(
            "The LINE user id: `account`, `password` and the ID token's subject are one and the \
             same.",
            MetaSchema {
                pattern: Some(LINE_USER_ID_PATTERN.into()),
                ..typed("string")
            },
        ),
        "birthday" => described(
            "YYYY-MM-DD; the person is of age today (kizuna-core `rules::AGE_YEARS`).",
            MetaSchema {
                format: Some("date"),
                pattern: Some("^[0-9]{4}-[0-9]{2}-[0-9]{2}$".into()),
                ..typed("string")
            },
        ),
        "verifyTempFileName" => described(
            "A temp upload of the caller's, never used before: the photo of an employee ID.",
            file_name(),
        ),
        "companyEmail" => described(
            "A work address at a domain of kizuna-core's employer catalogue (or a subdomain).",
            MetaSchema {
                format: Some("email"),
                ..typed("string")
            },
        ),
        "reviewLink" => described(
            "An https:// link to a public page that shows the employment.",
            MetaSchema {
                max_length: Some(HttpsUrl::MAX_LEN),
                pattern: Some(r"^\s*[Hh][Tt][Tt][Pp][Ss]://\S+\s*$".into()),
                ..typed("string")
            },
        ),
        "nickname" => text(rules::NICKNAME),
        "name" => text(rules::NAME),
        "occupation" => text(rules::OCCUPATION),
        "achievement" => text(rules::ACHIEVEMENT),
        "school" => text(rules::SCHOOL),
        "aboutMe" => text(rules::ABOUT_ME),
        "datingQuestion" => text(rules::DATING_QUESTION),
        "dailyLife" => text(rules::DAILY_LIFE),
        "surprisePoint" => text(rules::SURPRISE_POINT),
        "address" => text(rules::ADDRESS),
        "feedback" => text(rules::FEEDBACK),
        "verifyDescription" => text(rules::VERIFY_DESCRIPTION),
        _ => return None,
    })
}

/// The fields kizuna-core requires of every registration: those an empty one is missing.
/// (The evidence of the chosen verification method is required on top, as the description says.)
fn required_fields() -> Vec<&'static str> {
    let today = kizuna_core::date::Date::from_ymd(2000, 1, 1).expect("a valid date");
    let errors = UserProfileCreate::default()
        .parse(today)
        .expect_err("an empty registration is refused");
    FIELDS
        .iter()
        .copied()
        .filter(|field| {
            errors
                .get(field)
                .is_some_and(|codes| codes.contains(&RuleCode::Required))
        })
        .collect()
}

impl Type for UserProfileCreateSchema {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        PROFILE_SCHEMA_NAME.into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Reference(PROFILE_SCHEMA_NAME.into())
    }

    fn register(registry: &mut Registry) {
        registry.create_schema::<Self, _>(PROFILE_SCHEMA_NAME.into(), |_| MetaSchema {
            description: Some(
                "A registration (kizuna-core's UserProfileCreate). Texts are trimmed before they \
                 are measured. Beyond this schema: the evidence of `verifyMethod` is required, \
                 `latitude` and `longitude` come together, the person is of age today, and the \
                 files named are the caller's unused uploads. A failing field answers E002 with \
                 its rule codes in `fields`: 400 for wrong types and unknown fields, 422 for \
                 rules.",
            ),
            required: required_fields(),
            properties: FIELDS
                .iter()
                .map(|&f| (f, inline(field_schema(f).unwrap_or(MetaSchema::ANY))))
                .collect(),
            ..MetaSchema::new("object")
        });
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

/// A stored profile's normalised payload as an answer: documented as `UserProfileCreate`, which it
/// satisfies (it parses back into the same profile).
#[derive(Debug, Clone)]
pub struct ProfilePayload(pub Value);

impl Type for ProfilePayload {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        PROFILE_SCHEMA_NAME.into()
    }

    fn schema_ref() -> MetaSchemaRef {
        UserProfileCreateSchema::schema_ref()
    }

    fn register(registry: &mut Registry) {
        UserProfileCreateSchema::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ToJSON for ProfilePayload {
    fn to_json(&self) -> Option<Value> {
        Some(self.0.clone())
    }
}

impl ParseFromJSON for ProfilePayload {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Ok(ProfilePayload(value.unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_field_has_a_json_type_in_the_schema() {
        let missing: Vec<_> = FIELDS
            .iter()
            .filter(|f| field_schema(f).is_none())
            .collect();
        assert!(missing.is_empty(), "fields without a schema: {missing:?}");
    }

    #[test]
    fn the_schemas_choices_are_what_the_core_accepts() {
        let gender = field_schema("gender").unwrap();
        assert!(gender.enum_items.contains(&json!("NON_BINARY")));
        for item in field_schema("smoke").unwrap().enum_items {
            let code = item.as_u64().unwrap() as u8;
            assert!(kizuna_core::Smoke::from_code(code).is_some());
        }
        assert_eq!(
            field_schema("city").unwrap().enum_items.len(),
            kizuna_core::catalogue::cities().len()
        );
    }

    fn matches(pattern: &str, text: &str) -> bool {
        regex::Regex::new(pattern).unwrap().is_match(text)
    }

    #[test]
    fn the_line_user_id_pattern_is_what_the_core_parses() {
        use kizuna_core::line::LineUserId;
        for text in [
            "U4af4980629a1b2c3d4e5f60718293a4b",
            "U",
            "u4af4980629a1b2c3d4e5f60718293a4b",
            "U4AF4980629A1B2C3D4E5F60718293A4B",
            "U4af4980629a1b2c3d4e5f60718293a4",
            "U4af4980629a1b2c3d4e5f60718293a4bb",
            "Ug4f4980629a1b2c3d4e5f60718293a4b",
            "",
        ] {
            assert_eq!(
                matches(LINE_USER_ID_PATTERN, text),
                LineUserId::parse(text).is_some(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_file_name_schema_is_what_the_core_parses() {
        let schema = file_name();
        let long = "a".repeat(FileName::MAX_LEN + 1);
        for text in [
            "0123456789abcdef0123456789abcdef",
            "local-3",
            "A_b",
            "",
            "../etc/passwd",
            "a.jpg",
            "a b",
            "é",
            long.as_str(),
        ] {
            let by_schema = matches(schema.pattern.as_deref().unwrap(), text)
                && text.chars().count() <= schema.max_length.unwrap();
            assert_eq!(by_schema, FileName::parse(text).is_some(), "{text:?}");
        }
    }

    #[test]
    fn text_patterns_refuse_what_the_core_refuses() {
        let check = |rule: TextRule, text: &str| {
            let mut errors = kizuna_core::rules::FieldErrors::new();
            kizuna_core::rules::check_text("f", Some(text), rule, &mut errors);
            errors.is_empty()
        };
        let one_line_required = kizuna_core::rules::NICKNAME;
        let multi_line_optional = kizuna_core::rules::ACHIEVEMENT;
        for text in ["Mei", " Mei ", "a\nb", "a\u{0}b", "   ", "a\u{85}b", "a\tb"] {
            let schema = text_schema_accepts(one_line_required, text);
            assert_eq!(schema, check(one_line_required, text), "nickname {text:?}");
        }
        for text in [
            "Led it",
            "line\nbreak\r\n",
            "tab\tok",
            "bell\u{7}",
            "del\u{7f}",
        ] {
            let schema = text_schema_accepts(multi_line_optional, text);
            assert_eq!(
                schema,
                check(multi_line_optional, text),
                "achievement {text:?}"
            );
        }
    }

    fn text_schema_accepts(rule: TextRule, value: &str) -> bool {
        let schema = text(rule);
        let length = value.chars().count();
        matches(schema.pattern.as_deref().unwrap(), value)
            && schema.min_length.is_none_or(|min| length >= min)
            && schema.max_length.is_none_or(|max| length <= max)
    }

    #[test]
    fn the_required_fields_are_those_an_empty_registration_misses() {
        let required = required_fields();
        for field in [
            "account",
            "password",
            "nickname",
            "birthday",
            "photoNameList",
            "verifyMethod",
        ] {
            assert!(required.contains(&field), "{field}");
        }
        for field in [
            "school",
            "companyEmail",
            "latitude",
            "recommendDistanceKm",
            "valueItem",
        ] {
            assert!(!required.contains(&field), "{field}");
        }
    }

    #[test]
    fn every_condition_type_has_its_own_schema() {
        let schema = condition_schema();
        assert_eq!(schema.one_of.len(), CONDITION_TYPES.len());
        for variant in &schema.one_of {
            let variant = variant.unwrap_inline();
            assert!(variant.properties.len() > 1, "{variant:?}");
        }
    }
}
