//! The shared vectors (tests/vectors/*.json) through the exported wasm functions, compiled to
//! wasm32 and run by wasm-bindgen-test in Node: the same cases core/tests/vectors.rs runs natively.
#![cfg(target_arch = "wasm32")]

use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

include!("../../tests/vectors/runner.rs");

fn to_js(value: &Value) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .expect("vector JSON converts")
}

fn from_js(value: JsValue) -> Value {
    serde_wasm_bindgen::from_value(value).expect("results are plain data")
}

fn message(error: wasm_bindgen::JsError) -> String {
    let value: JsValue = error.into();
    value.unchecked_into::<js_sys::Error>().message().into()
}

struct Wasm;

impl Engine for Wasm {
    fn repair(&self, stored: &Value) -> Value {
        from_js(
            kizuna_wasm::repair_draft(to_js(stored))
                .map_err(message)
                .expect("repairDraft never throws on data"),
        )
    }

    fn build(&self, draft: &Value, line_user_id: &str, today: &str) -> Value {
        from_js(
            kizuna_wasm::build_payload(to_js(draft), line_user_id, today)
                .map_err(message)
                .expect("buildPayload answers"),
        )
    }

    fn employer(&self, email: &str) -> Value {
        from_js(
            kizuna_wasm::employer_for_email(email)
                .map_err(message)
                .expect("employerForEmail answers"),
        )
    }

    fn satisfies(
        &self,
        person: &Value,
        seeker: &Value,
        line_user_id: &str,
        today: &str,
    ) -> Result<bool, String> {
        kizuna_wasm::satisfies_conditions(to_js(person), to_js(seeker), line_user_id, today)
            .map_err(message)
    }

    fn normalise_email(&self, email: &str) -> String {
        kizuna_wasm::normalise_email(email)
            .as_string()
            .expect("normaliseEmail answers a string")
    }

    fn is_email_code(&self, typed: &str) -> bool {
        kizuna_wasm::is_email_code(typed)
    }
}

#[wasm_bindgen_test]
fn every_shared_vector_passes_in_wasm() {
    let report = run(&Wasm);
    console_log!(
        "vectors (wasm): {} passed, {} failed",
        report.passed,
        report.failures.len()
    );
    assert!(
        report.failures.is_empty(),
        "failing vectors:\n{}",
        report.failures.join("\n")
    );
    assert!(report.passed >= 300, "only {} vectors ran", report.passed);
}
