//! What the fuzz targets of kizuna-core run on each input, and what must hold for it. Shared by
//! the fuzz crate (`fuzz/fuzz_targets/*.rs` include this file) and by `tests/fuzz_corpus.rs`,
//! which runs every committed corpus file through the same function as a plain test.

use kizuna_core::date::Date;
use kizuna_core::draft::{self, RepairedDraft};
use kizuna_core::profile::UserProfileCreate;

const LINE_ID: &str = "U4af4980629a1b2c3d4e5f60718293a4b";

/// A fixed "today": the age rules depend on it, and a fuzz finding must replay the same way.
fn today() -> Date {
    Date::from_ymd(2026, 11, 22).expect("a valid date")
}

/// POST /user-profile's body as the server reads it: bytes → JSON → `from_json` → `parse`.
/// Whatever parses gives back a payload that parses into the same profile (the stored payload is
/// that normalised one, and the server reads it again on every review and match). True when the
/// payload was accepted.
pub fn registration_payload(data: &[u8]) -> bool {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return false;
    };
    let Ok(payload) = UserProfileCreate::from_json(value) else {
        return false;
    };
    let Ok(profile) = payload.clone().parse(today()) else {
        return false;
    };
    let again = profile.to_payload();
    let reparsed = again
        .clone()
        .parse(today())
        .expect("a valid profile's own payload parses again");
    assert_eq!(
        reparsed, profile,
        "the payload round trip changed the profile"
    );
    // The stored payload travels as JSON: it must come back through the wire parser too.
    let wire = serde_json::to_value(&again).expect("a payload serialises");
    let from_wire = UserProfileCreate::from_json(wire).expect("a payload's JSON reads back");
    assert_eq!(from_wire.parse(today()).ok(), Some(profile));
    true
}

/// The register draft as the web app reads it back from local storage: bytes → JSON (unreadable
/// text is a discarded draft) → `repair`. A repaired draft is stable (repairing it again keeps
/// it whole and reports nothing), and its payload, when `build_payload` gives one, is one the
/// server's parser accepts. True when the draft built a payload.
pub fn draft_repair(data: &[u8]) -> bool {
    let repaired = match serde_json::from_slice::<serde_json::Value>(data) {
        Ok(value) => draft::repair(&value),
        Err(_) => RepairedDraft::unreadable(),
    };
    let stored = serde_json::to_value(&repaired.draft).expect("a draft serialises");
    let again = draft::repair(&stored);
    assert_eq!(
        again.draft, repaired.draft,
        "repairing a repaired draft changed it"
    );
    assert!(
        again.repaired.is_empty() && again.dropped.is_empty() && !again.discarded,
        "a repaired draft still needed repair: {again:?}"
    );
    let outcome = draft::build_payload(&repaired.draft, LINE_ID, today());
    assert_eq!(
        draft::validate(&repaired.draft, LINE_ID, today()),
        outcome.errors
    );
    let built = outcome.payload.is_some();
    if let Some(payload) = outcome.payload {
        assert!(outcome.errors.is_empty());
        let wire = serde_json::to_value(&payload).expect("a payload serialises");
        let read = UserProfileCreate::from_json(wire).expect("the built payload reads back");
        if let Err(errors) = read.parse(today()) {
            panic!("the server refuses a payload the draft builder accepted: {errors:?}");
        }
    }
    let _ = draft::conditions_of(&repaired.draft);
    built
}
