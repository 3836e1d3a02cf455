//! JSON request bodies that the OpenAPI document describes but the handler reads itself.
//!
//! poem-openapi's own JSON parsing turns numbers and booleans into strings (`{"account": 5}` would
//! pass as "5") and runs before the handler, so before authentication. A `JsonBody<T>` only holds
//! the raw JSON; the document shows `T`'s schema; the handler reads it strictly (exact types,
//! unknown fields refused) once it has checked who is calling.

use std::{borrow::Cow, marker::PhantomData};

use kizuna_core::{conditions::CONDITION_TYPES, profile::FIELDS};
use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseFromJSON, ParseResult, Type},
};
use serde_json::{Value, json};

use crate::error::{ApiError, strict_json};

pub struct JsonBody<T> {
    value: Value,
    schema: PhantomData<fn() -> T>,
}

impl<T> JsonBody<T> {
    pub fn into_value(self) -> Value {
        self.value
    }
}

impl<T: serde::de::DeserializeOwned> JsonBody<T> {
    /// The body as a `T`, or 400 E002 naming what is wrong with it.
    pub fn read(self) -> Result<T, ApiError> {
        strict_json(self.value)
    }
}

impl<T: Type> Type for JsonBody<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl<T: Type> ParseFromJSON for JsonBody<T> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Ok(JsonBody {
            value: value.unwrap_or_default(),
            schema: PhantomData,
        })
    }
}

/// The schema of POST /user-profile's body, kizuna-core's `UserProfileCreate`: its fields
/// (`profile::FIELDS`) with their JSON types, and every closed choice's values read from the core's
/// own lists. The rules themselves (lengths, ranges, which fields a verification method needs)
/// live in kizuna-core and answer as `fields` of an E002.
pub struct UserProfileCreateSchema;

const PROFILE_SCHEMA_NAME: &str = "UserProfileCreate";

fn typed(ty: &'static str) -> MetaSchema {
    MetaSchema::new(ty)
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

fn condition_schema() -> MetaSchema {
    MetaSchema {
        description: Some(
            "A partner condition: HEIGHT, AGE and INCOME take `from`/`to` (0 = open), the others \
             a `value` of their choice.",
        ),
        required: vec!["type"],
        properties: vec![
            (
                "type",
                inline(one_of(
                    CONDITION_TYPES.iter().map(|t| json!(t)).collect(),
                    "string",
                )),
            ),
            ("from", inline(typed("integer"))),
            ("to", inline(typed("integer"))),
            ("value", inline(MetaSchema::ANY)),
        ],
        ..MetaSchema::new("object")
    }
}

/// The JSON type of one wire field of `UserProfileCreate` (None for a field this does not know:
/// a test keeps the two in step).
fn field_schema(field: &str) -> Option<MetaSchema> {
    use kizuna_core::*;
    Some(match field {
        "gender" => names(Gender::ALL, Gender::as_str),
        "matchGender" => names(MatchGender::ALL, MatchGender::as_str),
        "occupationType" => names(OccupationType::ALL, OccupationType::as_str),
        "incomeRange" => names(IncomeRange::ALL, IncomeRange::as_str),
        "education" => names(Education::ALL, Education::as_str),
        "tattoo" => names(Tattoo::ALL, Tattoo::as_str),
        "mbti" => names(Mbti::ALL, Mbti::as_str),
        "verifyMethod" => names(VerifyMethod::ALL, VerifyMethod::as_str),
        "marriageRecord" => codes(MarriageRecord::ALL, MarriageRecord::code),
        "hasChildren" => codes(HasChildren::ALL, HasChildren::code),
        "smoke" => codes(Smoke::ALL, Smoke::code),
        "drink" => codes(Drink::ALL, Drink::code),
        "city" => one_of(
            catalogue::cities().iter().map(|c| json!(c.code)).collect(),
            "string",
        ),
        "height" | "recommendDistanceKm" => typed("integer"),
        "latitude" | "longitude" => typed("number"),
        "personalityTagIds"
        | "exerciseTagIds"
        | "hobbyTagIds"
        | "marriageTypeTagIds"
        | "fertilityPlanTagIds"
        | "petTagIds" => list_of(typed("integer")),
        "photoNameList" => list_of(typed("string")),
        "valueItem" => list_of(condition_schema()),
        "account" | "password" | "nickname" | "name" | "occupation" | "achievement"
        | "birthday" | "school" | "aboutMe" | "datingQuestion" | "dailyLife" | "surprisePoint"
        | "address" | "feedback" | "reviewLink" | "verifyTempFileName" | "verifyDescription"
        | "companyEmail" => typed("string"),
        _ => return None,
    })
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
                "A registration (kizuna-core's UserProfileCreate). Which fields are required and \
                 every limit are kizuna-core's rules; a failing field answers E002 with its rule \
                 codes in `fields`.",
            ),
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
}
