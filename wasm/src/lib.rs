//! kizuna-wasm: the browser's door to kizuna-core. Thin on purpose: every function converts its
//! JsValue arguments with serde-wasm-bindgen, calls core, and converts the answer back; the
//! TypeScript types come from the core types (tsify), so nothing is written twice.

use kizuna_core::conditions::{self, Condition};
use kizuna_core::date::Date;
use kizuna_core::draft::{self, RegisterDraft, RepairedDraft};
use kizuna_core::error_code::ErrorCode;
use kizuna_core::profile::UserProfileCreate;
use kizuna_core::rules::RuleCode;
use kizuna_core::catalogue;
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

/// The one error helper: every failure reaches JavaScript as a thrown `Error` with a message.
fn error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

// Every value crosses the boundary as a `serde_json::Value`: core already (de)serialises its types
// through `Value`, so bridging here keeps one instantiation of each type's serde code in the
// binary instead of a second one for serde-wasm-bindgen. That is most of the wasm's size.

/// Plain JSON-shaped values (objects, not Maps; numbers, not BigInts), as the web app expects.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let json = serde_json::to_value(value).map_err(error)?;
    json.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(error)
}

fn json_from_js(value: JsValue, what: &str) -> Result<serde_json::Value, JsError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| error(format!("{what}: {e}")))
}

fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsError> {
    serde_json::from_value(json_from_js(value, what)?).map_err(|e| error(format!("{what}: {e}")))
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
pub fn repair_draft(#[wasm_bindgen(unchecked_param_type = "unknown")] stored: JsValue) -> Result<JsValue, JsError> {
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
    to_js(&draft::build_payload(&draft, line_user_id, parse_today(today)?))
}

#[wasm_bindgen(js_name = employerForEmail, unchecked_return_type = "Employer | undefined")]
pub fn employer_for_email(email: &str) -> Result<JsValue, JsError> {
    match catalogue::employer_for_email(email) {
        Some(employer) => to_js(employer),
        None => Ok(JsValue::UNDEFINED),
    }
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
