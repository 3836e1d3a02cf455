//! The shared vectors (tests/vectors/*.json) against kizuna-core natively. The same files run in
//! wasm under Node from wasm/tests/vectors.rs.

use kizuna_core::{catalogue, date::Date, draft};

include!("../../tests/vectors/runner.rs");

struct Native;

fn today(text: &str) -> Date {
    Date::parse(text).expect("vector dates are valid")
}

impl Engine for Native {
    fn repair(&self, stored: &Value) -> Value {
        serde_json::to_value(draft::repair(stored)).expect("serialises")
    }

    fn build(&self, draft_json: &Value, line_user_id: &str, day: &str) -> Value {
        let draft = draft::repair(draft_json).draft;
        serde_json::to_value(draft::build_payload(&draft, line_user_id, today(day)))
            .expect("serialises")
    }

    fn employer(&self, email: &str) -> Value {
        serde_json::to_value(catalogue::employer_for_email(email)).expect("serialises")
    }

    fn satisfies(
        &self,
        person: &Value,
        seeker: &Value,
        line_user_id: &str,
        day: &str,
    ) -> Result<bool, String> {
        let (person, seeker) = (draft::repair(person).draft, draft::repair(seeker).draft);
        draft::satisfies(&person, &seeker, line_user_id, today(day))
            .map_err(|errors| format!("{errors:?}"))
    }
}

#[test]
fn every_shared_vector_passes_natively() {
    let report = run(&Native);
    println!(
        "vectors (native): {} passed, {} failed",
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
