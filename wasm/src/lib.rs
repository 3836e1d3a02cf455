//! kizuna-wasm: the browser's door to kizuna-core. Thin on purpose: every function converts its
//! JsValue arguments with serde-wasm-bindgen, calls core, and converts the answer back; the
//! TypeScript types come from the core types (tsify), so nothing is written twice.

use kizuna_core::catalogue;
use kizuna_core::date::Date;
use kizuna_core::draft::{self, RegisterDraft, RepairedDraft};
use kizuna_core::error_code::ErrorCode;
use kizuna_core::rules::RuleCode;
use serde::Serialize;
use wasm_bindgen::prelude::*;

// Smaller than the default allocator; the page is single-threaded (no atomics).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The one error helper: every failure reaches JavaScript as a thrown `Error` with a message.
fn error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

// Every value crosses the boundary as a `serde_json::Value`: core already (de)serialises its types
// through `Value`, so bridging here keeps one instantiation of each type's serde code in the
// binary instead of a second one for serde-wasm-bindgen. That is most of the wasm's size.

// Errors name the argument but do not format serde's own error values: their Display code
// (every serde_json error text, float printing) would be a large share of the binary, for
// messages that only ever mean "this argument is not plain JSON data".

/// Plain JSON-shaped values (objects, not Maps; numbers, not BigInts), as the web app expects.
/// Neither step fails on the core's types; one message for both keeps a few bytes off the budget.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    const NOT_PLAIN: &str = "result is not plain JSON data";
    let json = serde_json::to_value(value).map_err(|_| error(NOT_PLAIN))?;
    json.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|_| error(NOT_PLAIN))
}

/// Reads a JavaScript value as JSON data. Written out instead of serde-wasm-bindgen's
/// deserializer, whose error construction alone links float printing into the binary.
/// `undefined` reads as null; functions, symbols and bigints are refused.
fn json_from_js(value: JsValue, what: &str) -> Result<serde_json::Value, JsError> {
    fn read(value: &JsValue, depth: u32) -> Option<serde_json::Value> {
        use serde_json::Value;
        if depth > 32 {
            return None;
        }
        if value.is_null() || value.is_undefined() {
            return Some(Value::Null);
        }
        if let Some(flag) = value.as_bool() {
            return Some(Value::Bool(flag));
        }
        if let Some(number) = value.as_f64() {
            let is_integer = number.fract() == 0.0 && number.abs() <= 9_007_199_254_740_991.0;
            return Some(if is_integer && number >= 0.0 {
                Value::from(number as u64)
            } else if is_integer {
                Value::from(number as i64)
            } else {
                serde_json::Number::from_f64(number).map_or(Value::Null, Value::Number)
            });
        }
        if let Some(text) = value.as_string() {
            return Some(Value::String(text));
        }
        if js_sys::Array::is_array(value) {
            return js_sys::Array::from(value)
                .iter()
                .map(|item| read(&item, depth + 1))
                .collect::<Option<Vec<_>>>()
                .map(Value::Array);
        }
        if value.is_object() && !value.is_function() {
            let mut map = serde_json::Map::new();
            for entry in js_sys::Object::entries(value.unchecked_ref()).iter() {
                let entry = js_sys::Array::from(&entry);
                map.insert(entry.get(0).as_string()?, read(&entry.get(1), depth + 1)?);
            }
            return Some(Value::Object(map));
        }
        None
    }
    read(&value, 0).ok_or_else(|| error(format!("{what} must be plain JSON data")))
}

/// The web app's draft state goes through the same repair as a stored draft: a field of the
/// wrong shape is reset rather than failing the whole call.
fn draft_from_js(value: JsValue) -> Result<RegisterDraft, JsError> {
    let repaired = draft::repair(&json_from_js(value, "draft")?);
    if repaired.discarded {
        return Err(error("draft must be an object"));
    }
    Ok(repaired.draft)
}

fn parse_today(today: &str) -> Result<Date, JsError> {
    Date::parse(today).ok_or_else(|| error(format!("today must be YYYY-MM-DD, got \"{today}\"")))
}

/// Tags, cities, employers, every closed choice and the field limits.
#[wasm_bindgen(js_name = catalogues, unchecked_return_type = "Catalogues")]
pub fn catalogues() -> Result<JsValue, JsError> {
    to_js(&catalogue::all())
}

#[wasm_bindgen(js_name = emptyDraft, unchecked_return_type = "RegisterDraft")]
pub fn empty_draft() -> Result<JsValue, JsError> {
    to_js(&RegisterDraft::default())
}

/// Reads back a stored draft (whatever JSON.parse gave, or null), keeping every usable field.
/// Never throws on bad data.
#[wasm_bindgen(js_name = repairDraft, unchecked_return_type = "RepairedDraft")]
pub fn repair_draft(
    #[wasm_bindgen(unchecked_param_type = "unknown")] stored: JsValue,
) -> Result<JsValue, JsError> {
    let repaired = match json_from_js(stored, "stored draft") {
        Ok(value) => draft::repair(&value),
        Err(_) => RepairedDraft::unreadable(),
    };
    to_js(&repaired)
}

/// Every failing field of the draft (`{}` when valid).
#[wasm_bindgen(js_name = validateDraft, unchecked_return_type = "FieldErrors")]
pub fn validate_draft(
    #[wasm_bindgen(unchecked_param_type = "RegisterDraft")] draft: JsValue,
    line_user_id: &str,
    today: &str,
) -> Result<JsValue, JsError> {
    let draft = draft_from_js(draft)?;
    to_js(&draft::validate(&draft, line_user_id, parse_today(today)?))
}

/// The payload for POST /user-profile, present only when the draft passes every rule.
#[wasm_bindgen(js_name = buildPayload, unchecked_return_type = "BuildOutcome")]
pub fn build_payload(
    #[wasm_bindgen(unchecked_param_type = "RegisterDraft")] draft: JsValue,
    line_user_id: &str,
    today: &str,
) -> Result<JsValue, JsError> {
    let draft = draft_from_js(draft)?;
    to_js(&draft::build_payload(
        &draft,
        line_user_id,
        parse_today(today)?,
    ))
}

#[wasm_bindgen(js_name = employerForEmail, unchecked_return_type = "Employer | undefined")]
pub fn employer_for_email(email: &str) -> Result<JsValue, JsError> {
    match catalogue::employer_for_email(email) {
        Some(employer) => to_js(employer),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// The conditions (`valueItem`) the form's condition section would send, with their errors.
#[wasm_bindgen(js_name = conditionsOf, unchecked_return_type = "ConditionsOutcome")]
pub fn conditions_of(
    #[wasm_bindgen(unchecked_param_type = "RegisterDraft")] draft: JsValue,
) -> Result<JsValue, JsError> {
    to_js(&draft::conditions_of(&draft_from_js(draft)?))
}

/// Would the person described by `person` (a complete draft) meet the conditions chosen in
/// `seeker`'s draft? Throws when the person's draft is not a valid profile.
#[wasm_bindgen(js_name = satisfiesConditions)]
pub fn satisfies_conditions(
    #[wasm_bindgen(unchecked_param_type = "RegisterDraft")] person: JsValue,
    #[wasm_bindgen(unchecked_param_type = "RegisterDraft")] seeker: JsValue,
    line_user_id: &str,
    today: &str,
) -> Result<bool, JsError> {
    let today = parse_today(today)?;
    let (person, seeker) = (draft_from_js(person)?, draft_from_js(seeker)?);
    draft::satisfies(&person, &seeker, line_user_id, today)
        .map_err(|_| error("the person's draft is not a valid profile"))
}

/// Every rule code, for translation completeness checks.
#[wasm_bindgen(js_name = ruleCodes, unchecked_return_type = "RuleCode[]")]
pub fn rule_codes() -> Result<JsValue, JsError> {
    to_js(&RuleCode::ALL)
}

/// Every API error code.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "ErrorCode[]")]
pub fn error_codes() -> Result<JsValue, JsError> {
    to_js(&ErrorCode::ALL)
}

/// The address as the server stores and compares it: trimmed, ASCII letters lower-cased
/// (`email::normalise`; other letters are left as typed, and such an address is invalid).
/// Handed over as a JavaScript string the module makes (as every other answer is): a returned
/// `String` would add wasm-bindgen's copy-out glue to the module.
#[wasm_bindgen(js_name = normaliseEmail, unchecked_return_type = "string")]
pub fn normalise_email(email: &str) -> JsValue {
    JsValue::from_str(&kizuna_core::email::normalise(email))
}

/// Whether `typed` is a work e-mail code as the server reads one (`EmailCode::parse`).
#[wasm_bindgen(js_name = isEmailCode)]
pub fn is_email_code(typed: &str) -> bool {
    kizuna_core::email_code::EmailCode::parse(typed).is_some()
}
