//! What JavaScript sees at the edge of the wasm package: plain objects out, clear errors for
//! arguments that are not what the TypeScript types promise, and no throw on stored garbage.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn message(error: wasm_bindgen::JsError) -> String {
    let value: JsValue = error.into();
    value.unchecked_into::<js_sys::Error>().message().into()
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).expect("an object")
}

#[wasm_bindgen_test]
fn a_stored_function_or_symbol_is_discarded_rather_than_thrown() {
    for stored in [
        js_sys::Function::new_no_args("return 1").into(),
        JsValue::symbol(Some("x")),
        JsValue::bigint_from_str("12"),
    ] {
        let repaired = kizuna_wasm::repair_draft(stored)
            .map_err(message)
            .expect("never throws");
        assert_eq!(get(&repaired, "discarded"), JsValue::TRUE);
    }
}

#[wasm_bindgen_test]
fn catalogues_come_out_as_plain_objects_with_thirty_one_employers() {
    let catalogues = kizuna_wasm::catalogues().map_err(message).unwrap();
    assert!(!catalogues.is_instance_of::<js_sys::Map>());
    let employers = js_sys::Array::from(&get(&catalogues, "employers"));
    assert_eq!(employers.length(), 31);
    let limits = get(&catalogues, "limits");
    assert_eq!(get(&get(&limits, "nickname"), "max").as_f64(), Some(20.0));
    assert_eq!(
        get(&get(&limits, "likeComment"), "max").as_f64(),
        Some(140.0)
    );
    // The rules that code without the core applies are the build's (kizuna-wasm-rules), not here.
    assert!(get(&catalogues, "passUndoSecs").is_undefined());
}

#[wasm_bindgen_test]
fn a_draft_that_is_not_an_object_is_refused_with_a_message() {
    let error = kizuna_wasm::validate_draft(
        JsValue::from_str("nope"),
        "U4af4980629a1b2c3d4e5f60718293a4b",
        "2026-11-22",
    )
    .map_err(message)
    .unwrap_err();
    assert_eq!(error, "draft must be an object");
}

#[wasm_bindgen_test]
fn a_malformed_today_is_refused_with_a_message() {
    let draft = kizuna_wasm::empty_draft().map_err(message).unwrap();
    let error =
        kizuna_wasm::validate_draft(draft, "U4af4980629a1b2c3d4e5f60718293a4b", "22/11/2026")
            .map_err(message)
            .unwrap_err();
    assert_eq!(error, "today must be YYYY-MM-DD, got \"22/11/2026\"");
}

#[wasm_bindgen_test]
fn an_empty_draft_reports_required_fields_as_arrays_of_codes() {
    let draft = kizuna_wasm::empty_draft().map_err(message).unwrap();
    let errors =
        kizuna_wasm::validate_draft(draft, "U4af4980629a1b2c3d4e5f60718293a4b", "2026-11-22")
            .map_err(message)
            .unwrap();
    let nickname = js_sys::Array::from(&get(&errors, "nickname"));
    assert_eq!(nickname.get(0).as_string().as_deref(), Some("required"));
}

#[wasm_bindgen_test]
fn every_rule_and_error_code_is_listed_for_translation() {
    assert_eq!(
        js_sys::Array::from(&kizuna_wasm::rule_codes().map_err(message).unwrap()).length(),
        kizuna_core::rules::RuleCode::ALL.len() as u32
    );
    assert_eq!(
        js_sys::Array::from(&kizuna_wasm::error_codes().map_err(message).unwrap()).length(),
        kizuna_core::error_code::ErrorCode::ALL.len() as u32
    );
}
