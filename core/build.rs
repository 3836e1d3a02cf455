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
}
