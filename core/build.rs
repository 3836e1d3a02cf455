//! Compiles the catalogues in `data/*.json` into static Rust data, so the data stay data files
//! that anyone can edit while the wasm build carries no JSON text parser just to read them.

use serde_json::Value;
use std::fmt::Write;
use std::{env, fs, path::Path};

fn main() {
    let out =
        Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("catalogue_data.rs");
    let mut code = String::new();
    for file in ["tags", "cities", "employers"] {
        println!("cargo:rerun-if-changed=data/{file}.json");
    }
    let read = |file: &str| -> Value {
        let text = fs::read_to_string(format!("data/{file}.json"))
            .unwrap_or_else(|e| panic!("data/{file}.json: {e}"));
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("data/{file}.json is not valid JSON: {e}"))
    };
    let str_field = |item: &Value, key: &str| -> String {
        let text = item[key]
            .as_str()
            .unwrap_or_else(|| panic!("{key} must be a string in {item}"));
        format!("{text:?}")
    };
    let num_field = |item: &Value, key: &str| -> String {
        let number = item[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} must be a number in {item}"));
        format!("{number:?}")
    };

    let tags = read("tags");
    code.push_str("pub(crate) static TAGS: TagCatalogue = TagCatalogue {\n");
    for (kind, rust_name) in [
        ("personality", "personality"),
        ("exercise", "exercise"),
        ("hobby", "hobby"),
        ("marriageType", "marriage_type"),
        ("fertilityPlan", "fertility_plan"),
        ("pet", "pet"),
    ] {
        let items = tags[kind]
            .as_array()
            .unwrap_or_else(|| panic!("tags.json needs a list {kind}"));
        write!(code, "    {rust_name}: &[").unwrap();
        for tag in items {
            let id = tag["id"]
                .as_u64()
                .unwrap_or_else(|| panic!("tag id must be a whole number in {tag}"));
            write!(code, "Tag {{ id: {id}, key: {} }}, ", str_field(tag, "key")).unwrap();
        }
        code.push_str("],\n");
    }
    code.push_str("};\n");

    code.push_str("pub(crate) static CITIES: &[City] = &[\n");
    for city in read("cities").as_array().expect("cities.json is a list") {
        writeln!(
            code,
            "    City {{ code: {}, key: {}, latitude: {}, longitude: {} }},",
            str_field(city, "code"),
            str_field(city, "key"),
            num_field(city, "latitude"),
            num_field(city, "longitude")
        )
        .unwrap();
    }
    code.push_str("];\n");

    code.push_str("pub(crate) static EMPLOYERS: &[Employer] = &[\n");
    for employer in read("employers")
        .as_array()
        .expect("employers.json is a list")
    {
        let domains: Vec<String> = employer["domains"]
            .as_array()
            .expect("domains is a list")
            .iter()
            .map(|d| format!("{:?}", d.as_str().expect("a domain is a string")))
            .collect();
        writeln!(
            code,
            "    Employer {{ id: {}, name: {}, domains: &[{}], logo: {}, color: {} }},",
            str_field(employer, "id"),
            str_field(employer, "name"),
            domains.join(", "),
            str_field(employer, "logo"),
            str_field(employer, "color")
        )
        .unwrap();
    }
    code.push_str("];\n");
    fs::write(out, code).expect("write catalogue_data.rs");
    locale_data();
}

/// `data/locales.json` (the languages and how a tag picks one) and `data/texts/*.json` (the texts
/// both the web app and the server show: reason labels), as static data for `locale.rs`.
fn locale_data() {
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("locale_data.rs");
    println!("cargo:rerun-if-changed=data/locales.json");
    let read = |path: &str| -> Value {
        println!("cargo:rerun-if-changed={path}");
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not valid JSON: {e}"))
    };
    let locales = read("data/locales.json");
    let mut code = String::new();
    let tags: Vec<&str> = locales["locales"]
        .as_array()
        .expect("locales is a list")
        .iter()
        .map(|t| t.as_str().expect("a locale is a tag"))
        .collect();
    writeln!(
        code,
        "pub(crate) const LOCALE_TAGS: [&str; {}] = {tags:?};",
        tags.len()
    )
    .unwrap();
    let fallback = locales["fallback"].as_str().expect("fallback is a tag");
    writeln!(code, "pub(crate) const FALLBACK_TAG: &str = {fallback:?};").unwrap();
    code.push_str("pub(crate) static PRIMARY_LANGUAGES: &[(&str, &str)] = &[\n");
    for (language, tag) in locales["primaryLanguages"]
        .as_object()
        .expect("primaryLanguages")
    {
        let tag = tag.as_str().expect("a primary language names a tag");
        writeln!(code, "    ({language:?}, {tag:?}),").unwrap();
    }
    code.push_str("];\n");
    code.push_str("pub(crate) static TEXTS: &[(&str, &[(&str, &str)])] = &[\n");
    for tag in &tags {
        let texts = read(&format!("data/texts/{tag}.json"));
        writeln!(code, "    ({tag:?}, &[").unwrap();
        for (key, text) in texts.as_object().expect("texts are an object") {
            let text = text.as_str().expect("a text is a string");
            writeln!(code, "        ({key:?}, {text:?}),").unwrap();
        }
        code.push_str("    ]),\n");
    }
    code.push_str("];\n");
    fs::write(out, code).expect("write locale_data.rs");
}
