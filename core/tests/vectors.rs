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

    fn normalise_email(&self, email: &str) -> String {
        kizuna_core::email::normalise(email)
    }

    fn is_email_code(&self, typed: &str) -> bool {
        kizuna_core::email_code::EmailCode::parse(typed).is_some()
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

mod safety_vectors {
    use kizuna_core::safety::{self, Conversation};

    include!("../../tests/vectors/safety_runner.rs");

    struct Native;

    impl Screener for Native {
        fn screen(&self, text: &str, conversation: &serde_json::Value) -> Vec<String> {
            let conversation: Conversation =
                serde_json::from_value(conversation.clone()).expect("a conversation");
            safety::screen(text, &conversation)
                .codes()
                .into_iter()
                .map(String::from)
                .collect()
        }
    }

    #[test]
    fn every_safety_vector_passes_natively() {
        let (passed, failures) = run_safety(&Native);
        println!(
            "safety vectors (native): {passed} passed, {} failed",
            failures.len()
        );
        assert!(
            failures.is_empty(),
            "failing vectors:\n{}",
            failures.join("\n")
        );
        assert!(passed >= 40, "only {passed} safety vectors ran");
    }
}
