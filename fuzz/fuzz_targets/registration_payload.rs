#![no_main]
//! See core/tests/fuzz_checks: the check and its invariants live with the crate they test.

#[path = "../../core/tests/fuzz_checks/mod.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    checks::registration_payload(data);
});
