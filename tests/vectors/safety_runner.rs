// The runner of the safety vectors (tests/vectors/safety.json). `include!`d by core/tests/vectors.rs
// (native, kizuna_core::safety::screen) and wasm-safety/tests/vectors.rs (wasm32 under Node, the
// exported screenMessage with the text normalised by JavaScript's String.prototype.normalize),
// so both check the same cases the same way and differ only in the engine.

pub trait Screener {
    /// The kinds' codes for `text` in `conversation` ({matchAgeSecs, sentBySender, sentByOther}).
    fn screen(&self, text: &str, conversation: &serde_json::Value) -> Vec<String>;
}

const SAFETY: &str = include_str!("safety.json");

/// (passed, failures)
pub fn run_safety(screener: &dyn Screener) -> (usize, Vec<String>) {
    let vectors: serde_json::Value = serde_json::from_str(SAFETY).expect("safety.json parses");
    let (mut passed, mut failures) = (0, Vec::new());
    for case in vectors["cases"].as_array().expect("cases") {
        let conversation = case.get("conversation").unwrap_or(&vectors["conversation"]);
        let got = screener.screen(case["text"].as_str().expect("text"), conversation);
        let wanted: Vec<String> = serde_json::from_value(case["expect"].clone()).expect("expect is a list of codes");
        if got == wanted {
            passed += 1;
        } else {
            failures.push(format!("safety.json: {}: got {got:?} instead of {wanted:?}", case["name"]));
        }
    }
    (passed, failures)
}
