//! The committed fuzz corpora (fuzz/corpus/<target>/, seeds and every finding kept as a
//! regression case) run as plain tests: each file through the same check its fuzz target runs.

mod fuzz_checks;

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .map(|path| {
            let bytes = std::fs::read(&path).expect("a corpus file");
            (path, bytes)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no seed", dir.display());
    files
}

/// Every file of the corpus through `check`; the corpus must hold both inputs the parser
/// accepts (so that the invariants on what it accepts are exercised) and inputs it refuses.
fn run(target: &str, check: fn(&[u8]) -> bool) {
    let (mut accepted, mut refused) = (0, 0);
    for (path, bytes) in corpus(target) {
        match std::panic::catch_unwind(|| check(&bytes)) {
            Ok(true) => accepted += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("{} failed its check", path.display()),
        }
    }
    assert!(
        accepted > 0 && refused > 0,
        "{target}: {accepted} accepted, {refused} refused"
    );
}

#[test]
fn ipx_modifier_corpus_plans_stay_within_the_caps() {
    run("ipx_modifiers", fuzz_checks::ipx_modifiers);
}

#[test]
fn upload_corpus_decodes_without_panic_into_images_within_the_caps() {
    run("upload_decode", fuzz_checks::upload_decode);
}
