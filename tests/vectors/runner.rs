// The one runner of the shared vectors in tests/vectors/*.json. It is `include!`d by
// core/tests/vectors.rs (native, calling kizuna-core) and wasm/tests/vectors.rs (wasm32 under
// Node, calling the exported wasm functions with JsValues), so both sides check the same cases
// the same way and differ only in the engine. The matching, geo, day and review vectors
// (core_cases.rs) call kizuna-core directly on both sides: the web does not run them, but they
// must answer alike on wasm32.

use serde_json::{Map, Value};

pub trait Engine {
    /// RepairedDraft as JSON.
    fn repair(&self, stored: &Value) -> Value;
    /// BuildOutcome as JSON.
    fn build(&self, draft: &Value, line_user_id: &str, today: &str) -> Value;
    /// The employer as JSON, or null.
    fn employer(&self, email: &str) -> Value;
    fn satisfies(&self, person: &Value, seeker: &Value, line_user_id: &str, today: &str) -> Result<bool, String>;
    /// The address as stored and compared.
    fn normalise_email(&self, email: &str) -> String;
    /// Whether the typed text is an e-mail code.
    fn is_email_code(&self, typed: &str) -> bool;
}

pub struct Report {
    pub passed: usize,
    pub failures: Vec<String>,
}

const BUILD: &str = include_str!("build.json");
const REPAIR: &str = include_str!("repair.json");
const EMPLOYER: &str = include_str!("employer.json");
const SATISFIES: &str = include_str!("satisfies.json");
const EMAIL: &str = include_str!("email.json");

pub fn run(engine: &dyn Engine) -> Report {
    let mut report = Report { passed: 0, failures: Vec::new() };
    let mut check = |file: &str, name: &str, outcome: Result<(), String>| match outcome {
        Ok(()) => report.passed += 1,
        Err(why) => report.failures.push(format!("{file}: {name}: {why}")),
    };

    let build = expand(serde_json::from_str(BUILD).expect("build.json parses"));
    let empty = engine.repair(&Value::Null)["draft"].clone();
    for case in build["cases"].as_array().expect("cases") {
        let draft = if case["set"] == "EMPTY" { empty.clone() } else { merged(&build["base"], &case["set"]) };
        let line_user_id = case.get("lineUserId").unwrap_or(&build["lineUserId"]).as_str().expect("lineUserId");
        let outcome = engine.build(&draft, line_user_id, build["today"].as_str().expect("today"));
        check("build.json", name(case), check_build(&outcome, &case["expect"]));
    }

    let repair = expand(serde_json::from_str(REPAIR).expect("repair.json parses"));
    for case in repair["cases"].as_array().expect("cases") {
        let stored = if case["stored"] == "BASE" { repair["base"].clone() } else { case["stored"].clone() };
        check("repair.json", name(case), check_repair(&engine.repair(&stored), &case["expect"]));
    }

    let employer: Value = serde_json::from_str(EMPLOYER).expect("employer.json parses");
    for case in employer["cases"].as_array().expect("cases") {
        let found = engine.employer(case["email"].as_str().expect("email"));
        let id = found.get("id").cloned().unwrap_or(Value::Null);
        let outcome = if id == case["expect"] { Ok(()) } else { Err(format!("got {found}")) };
        check("employer.json", name(case), outcome);
    }

    let satisfies: Value = serde_json::from_str(SATISFIES).expect("satisfies.json parses");
    let (line_user_id, today) = (satisfies["lineUserId"].as_str().expect("lineUserId"), satisfies["today"].as_str().expect("today"));
    for case in satisfies["cases"].as_array().expect("cases") {
        let person = merged(&satisfies["base"], &case["person"]);
        let seeker = merged(&empty, &Value::Object(Map::from_iter([("conditions".to_owned(), case["seekerConditions"].clone())])));
        let got = match engine.satisfies(&person, &seeker, line_user_id, today) {
            Ok(answer) => Value::Bool(answer),
            Err(_) => Value::String("error".into()),
        };
        let outcome = if got == case["expect"] { Ok(()) } else { Err(format!("got {got}")) };
        check("satisfies.json", name(case), outcome);
    }

    let email: Value = serde_json::from_str(EMAIL).expect("email.json parses");
    for case in email["normalise"].as_array().expect("normalise") {
        let got = engine.normalise_email(case["email"].as_str().expect("email"));
        let outcome = if case["expect"] == got.as_str() { Ok(()) } else { Err(format!("got {got:?}")) };
        check("email.json", name(case), outcome);
    }
    for case in email["codes"].as_array().expect("codes") {
        let got = engine.is_email_code(case["typed"].as_str().expect("typed"));
        let outcome = if case["expect"] == got { Ok(()) } else { Err(format!("got {got}")) };
        check("email.json", name(case), outcome);
    }

    run_core_cases(&mut check);
    report
}

include!("core_cases.rs");

fn name(case: &Value) -> &str {
    case["name"].as_str().unwrap_or("unnamed case")
}

fn check_build(outcome: &Value, expect: &Value) -> Result<(), String> {
    if !same(&outcome["errors"], &expect["errors"]) {
        return Err(format!("errors {} instead of {}", outcome["errors"], expect["errors"]));
    }
    let payload = outcome.get("payload");
    match (expect.get("payloadIncludes"), payload) {
        (Some(Value::Object(fields)), Some(payload)) => includes(payload, fields),
        (Some(_), None) => Err("no payload".into()),
        (Some(other), Some(_)) => Err(format!("payloadIncludes must be an object, not {other}")),
        (None, Some(payload)) => Err(format!("unexpected payload {payload}")),
        (None, None) => Ok(()),
    }
}

fn check_repair(outcome: &Value, expect: &Value) -> Result<(), String> {
    for key in ["discarded", "repaired", "dropped"] {
        if let Some(wanted) = expect.get(key)
            && !same(&outcome[key], wanted)
        {
            return Err(format!("{key} {} instead of {wanted}", outcome[key]));
        }
    }
    match expect.get("draftIncludes") {
        Some(Value::Object(fields)) => includes(&outcome["draft"], fields),
        _ => Ok(()),
    }
}

fn includes(actual: &Value, fields: &Map<String, Value>) -> Result<(), String> {
    for (key, wanted) in fields {
        if !same(&actual[key], wanted) {
            return Err(format!("{key} is {} instead of {wanted}", actual[key]));
        }
    }
    Ok(())
}

/// JSON equality that compares numbers by value (3 and 3.0 are the same number in JavaScript).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// The base draft with a case's changes; `conditions` is merged one level deeper.
fn merged(base: &Value, changes: &Value) -> Value {
    let mut draft = base.clone();
    if let Value::Object(changes) = changes {
        for (key, value) in changes {
            match (key.as_str(), value) {
                ("conditions", Value::Object(kinds)) => {
                    for (kind, condition) in kinds {
                        draft["conditions"][kind] = condition.clone();
                    }
                }
                _ => draft[key] = value.clone(),
            }
        }
    }
    draft
}

/// Expands `{"$repeat": "a", "times": 21}` into "aaa…", so long-text cases stay readable.
fn expand(value: Value) -> Value {
    match value {
        Value::Object(map) if map.contains_key("$repeat") => {
            let unit = map["$repeat"].as_str().expect("$repeat is text");
            Value::String(unit.repeat(map["times"].as_u64().expect("times is a count") as usize))
        }
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, expand(v))).collect()),
        Value::Array(items) => Value::Array(items.into_iter().map(expand).collect()),
        other => other,
    }
}
