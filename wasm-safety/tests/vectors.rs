//! The safety vectors (tests/vectors/safety.json) through the exported screenMessage, compiled to
//! wasm32 and run by wasm-bindgen-test in Node: the same cases core/tests/vectors.rs runs natively.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

include!("../../tests/vectors/safety_runner.rs");

fn conversation(value: &serde_json::Value) -> JsValue {
    let object = js_sys::Object::new();
    for field in ["matchAgeSecs", "sentBySender", "sentByOther"] {
        let number = value[field].as_f64().expect("a number");
        js_sys::Reflect::set(&object, &field.into(), &number.into()).expect("set");
    }
    object.into()
}

struct Wasm;

impl Screener for Wasm {
    fn screen(&self, text: &str, value: &serde_json::Value) -> Vec<String> {
        let kinds = kizuna_wasm_safety::screen_message(text, conversation(value))
            .map_err(|e| JsValue::from(e).unchecked_into::<js_sys::Error>().message())
            .expect("screenMessage answers");
        js_sys::Array::from(&kinds)
            .iter()
            .map(|k| k.as_string().expect("a code"))
            .collect()
    }
}

#[wasm_bindgen_test]
fn every_safety_vector_passes_in_wasm() {
    let (passed, failures) = run_safety(&Wasm);
    console_log!(
        "safety vectors (wasm): {passed} passed, {} failed",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "failing vectors:\n{}",
        failures.join("\n")
    );
    assert!(passed >= 40, "only {passed} safety vectors ran");
}

#[wasm_bindgen_test]
fn a_conversation_that_is_not_whole_numbers_is_refused_with_a_message() {
    let message = |value: JsValue| {
        let error = kizuna_wasm_safety::screen_message("hello", value).expect_err("refused");
        JsValue::from(error)
            .unchecked_into::<js_sys::Error>()
            .message()
            .as_string()
            .unwrap_or_default()
    };
    assert!(message(JsValue::NULL).contains("conversation must be"));
    let negative =
        conversation(&serde_json::json!({"matchAgeSecs": -1, "sentBySender": 0, "sentByOther": 0}));
    assert!(message(negative).contains("matchAgeSecs"));
    let fraction = conversation(
        &serde_json::json!({"matchAgeSecs": 10, "sentBySender": 1.5, "sentByOther": 0}),
    );
    assert!(message(fraction).contains("sentBySender"));
}
