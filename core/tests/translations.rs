//! The code catalogues (reasons, distance bands) are served by the server and shown by the web
//! app's lazy screens, so the wasm-based translation test of the web cannot see them: this test
//! checks that every one of their keys has a label in each built catalogue: the web app's locale
//! file together with the texts it shares with the server (`core/data/texts`).

use std::path::Path;

fn read(path: &Path) -> serde_json::Map<String, serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("reading {}: {err}", path.display()));
    serde_json::from_str(&text).expect("a locale file is a JSON object")
}

fn locale(name: &str) -> serde_json::Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = read(&root.join(format!("../web/src/lib/i18n/locales/{name}.json")));
    all.extend(read(&root.join(format!("data/texts/{name}.json"))));
    serde_json::Value::Object(all)
}

#[test]
fn every_reason_and_distance_band_has_a_label_in_every_locale() {
    let codes = kizuna_core::codes::all();
    let entries: Vec<_> = [
        &codes.reject,
        &codes.suspend,
        &codes.report,
        &codes.distance_bands,
    ]
    .into_iter()
    .flatten()
    .collect();
    assert!(codes.reject.len() >= 8 && codes.distance_bands.len() == 4);
    for name in ["en", "zh-TW", "ja"] {
        let labels = locale(name);
        let missing: Vec<_> = entries
            .iter()
            .filter(|entry| {
                labels
                    .get(entry.key)
                    .and_then(|label| label.as_str())
                    .is_none_or(|label| label.trim().is_empty())
            })
            .map(|entry| entry.key)
            .collect();
        assert!(missing.is_empty(), "{name} has no label for {missing:?}");
    }
}
