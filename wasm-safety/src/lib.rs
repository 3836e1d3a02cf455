//! kizuna-wasm-safety: the chat screen's door to kizuna-core's safety rule, a module of its own so
//! that the register form's wasm (60 KB gzip budget) carries none of it and /register never
//! downloads it. Thin on purpose: plain JavaScript values in and out, one error helper.
//!
//! The text is put in Unicode NFKC by the browser (`String.prototype.normalize`) and screened by
//! `safety::screen_nfkc`: the server normalises with the unicode-normalization crate, whose tables
//! would be most of this module's size. The shared vectors (tests/vectors/safety.json) run through
//! this module under Node to check that both normalisations answer alike.

use kizuna_core::safety::{self, Conversation};
use wasm_bindgen::prelude::*;

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A kind of caution (docs/core-api.md, "Safe conversations"). */
export type SafetyKind = 'OFF_PLATFORM' | 'MONEY';
/** The conversation as it was before the message: seconds since the match, messages each side sent. */
export interface Conversation { matchAgeSecs: number; sentBySender: number; sentByOther: number }
"#;

/// The one error helper: every failure reaches JavaScript as a thrown `Error` with a message.
fn error(message: &str) -> JsError {
    JsError::new(message)
}

/// A whole number field of the conversation object, within `0..=max`. The messages are whole
/// strings: formatting one would link Rust's formatting code into the module.
fn whole(object: &JsValue, field: &str, max: f64, refusal: &str) -> Result<f64, JsError> {
    let value = js_sys::Reflect::get(object, &JsValue::from_str(field))
        .ok()
        .and_then(|v| v.as_f64())
        .filter(|v| v.fract() == 0.0 && (0.0..=max).contains(v));
    value.ok_or_else(|| error(refusal))
}

fn conversation_from_js(value: &JsValue) -> Result<Conversation, JsError> {
    if !value.is_object() {
        return Err(error(
            "conversation must be {matchAgeSecs, sentBySender, sentByOther}",
        ));
    }
    Ok(Conversation {
        match_age_secs: whole(
            value,
            "matchAgeSecs",
            9_007_199_254_740_991.0,
            "conversation.matchAgeSecs must be a whole number from 0",
        )? as i64,
        sent_by_sender: whole(
            value,
            "sentBySender",
            f64::from(u32::MAX),
            "conversation.sentBySender must be a whole number from 0",
        )? as u32,
        sent_by_other: whole(
            value,
            "sentByOther",
            f64::from(u32::MAX),
            "conversation.sentByOther must be a whole number from 0",
        )? as u32,
    })
}

/// The kinds a message is worth a caution for in this conversation (`[]`, `['MONEY']`, ...):
/// kizuna-core's `safety::screen`, as the server runs it.
#[wasm_bindgen(js_name = screenMessage, unchecked_return_type = "SafetyKind[]")]
pub fn screen_message(
    text: &str,
    #[wasm_bindgen(unchecked_param_type = "Conversation")] conversation: JsValue,
) -> Result<JsValue, JsError> {
    let conversation = conversation_from_js(&conversation)?;
    let nfkc: String = js_sys::JsString::from(text).normalize("NFKC").into();
    let codes = js_sys::Array::new();
    for code in safety::screen_nfkc(&nfkc, &conversation).codes() {
        codes.push(&JsValue::from_str(code));
    }
    Ok(codes.into())
}
