//! Properties over generated input: nothing panics on any input, and whatever the client-side
//! builder accepts, the server-side validator accepts too.
#![cfg(not(target_arch = "wasm32"))]

use kizuna_core::catalogue;
use kizuna_core::date::Date;
use kizuna_core::draft::{self, RegisterDraft};
use kizuna_core::email::EmailAddress;
use kizuna_core::files::FileName;
use kizuna_core::line::LineUserId;
use kizuna_core::profile::UserProfileCreate;
use kizuna_core::url::HttpsUrl;
use kizuna_core::{NumericChoice, Smoke};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value};

const LINE_ID: &str = "U4af4980629a1b2c3d4e5f60718293a4b";

fn today() -> Date {
    Date::parse("2026-11-22").unwrap()
}

/// Field names that the draft and the payload know, so generated objects hit real code paths.
const KEYS: [&str; 16] = [
    "nickname",
    "height",
    "birthday",
    "gender",
    "smoke",
    "personalityTagIds",
    "fertilityPlanTagId",
    "fertilityPlanTagIds",
    "latitude",
    "photoNameList",
    "conditions",
    "valueItem",
    "HEIGHT",
    "selected",
    "from",
    "version",
];

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|n| serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::String),
        "[0-9]{1,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(&KEYS[..]).prop_map(str::to_owned),
                        ".{0,6}"
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(Config { cases: 512, failure_persistence: None, ..Config::default() })]

    #[test]
    fn no_stored_value_makes_repair_or_validation_panic(stored in any_json()) {
        let repaired = draft::repair(&stored);
        let _ = draft::build_payload(&repaired.draft, LINE_ID, today());
        let _ = draft::conditions_of(&repaired.draft);
        let _ = draft::satisfies(&repaired.draft, &repaired.draft, LINE_ID, today());
    }

    #[test]
    fn no_request_body_makes_the_server_side_validator_panic(body in any_json()) {
        if let Ok(payload) = UserProfileCreate::from_json(body) {
            let _ = payload.parse(today());
        }
    }

    #[test]
    fn no_text_makes_a_parser_panic(text in ".{0,80}") {
        let _ = Date::parse(&text);
        let _ = EmailAddress::parse(&text);
        let _ = HttpsUrl::parse(&text);
        let _ = LineUserId::parse(&text);
        let _ = FileName::parse(&text);
        let _ = catalogue::employer_for_email(&text);
        let _ = Smoke::from_json_text(&text);
    }

    #[test]
    fn every_valid_birthday_round_trips(year in 1900u16..=9999, month in 1u8..=12, day in 1u8..=31) {
        if let Some(date) = Date::from_ymd(year, month, day) {
            prop_assert_eq!(Date::parse(&date.to_string()), Some(date));
        }
    }
}

/// Drafts that are mostly valid: every choice from its catalogue, texts of random length around
/// their limits, so that a good share validates and the rest fails in varied ways.
fn plausible_draft() -> impl Strategy<Value = RegisterDraft> {
    let choices = catalogue::choices();
    let pick = |options: Vec<kizuna_core::ChoiceOption>| {
        let values: Vec<String> = options
            .iter()
            .map(|o| {
                serde_json::to_value(o.value)
                    .unwrap()
                    .to_string()
                    .trim_matches('"')
                    .to_owned()
            })
            .collect();
        prop::sample::select(values)
    };
    let tags = catalogue::tags();
    let tag_ids = |tags: &'static [catalogue::Tag], max: usize| {
        prop::sample::subsequence(
            tags.iter().map(|t| t.id.to_string()).collect::<Vec<_>>(),
            0..=max,
        )
    };
    let cities: Vec<String> = catalogue::cities()
        .iter()
        .map(|c| c.code.to_owned())
        .collect();
    (
        (
            "[a-zA-Z 小明]{0,22}",
            "[a-zA-Z ]{1,30}",
            pick(choices.gender),
            pick(choices.match_gender),
            1930u16..2012,
            1u8..=12,
            1u8..=28,
            110u32..240,
        ),
        (
            pick(choices.occupation_type),
            pick(choices.income_range),
            pick(choices.education),
            pick(choices.marriage_record),
            pick(choices.has_children),
            pick(choices.smoke),
            pick(choices.drink),
            pick(choices.tattoo),
        ),
        (
            tag_ids(tags.personality, 6),
            tag_ids(tags.hobby, 9),
            tag_ids(tags.pet, 3),
            prop::sample::select(
                tags.fertility_plan
                    .iter()
                    .map(|t| t.id.to_string())
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "[a-z ,.]{15,60}",
            prop::sample::select(cities),
            prop::option::of((21.0f64..27.0, 118.0f64..123.0)),
            0u32..600,
        ),
        (
            prop::sample::select(vec!["COMPANY_EMAIL", "EMPLOYEE_ID", "REVIEW_LINK"]),
            prop::sample::select(vec!["mei@tsmc.com", "x@gmail.com", "kim@mail.google.com"]),
            prop::collection::vec(prop::option::of("[a-f0-9]{32}"), 6),
        ),
        (
            any::<bool>(),
            100u32..240,
            100u32..240,
            prop::option::of(pick(catalogue::choices().education)),
        ),
    )
        .prop_map(|(basic, life, tag, about, verify, wanted)| {
            let (nickname, name, gender, match_gender, year, month, day, height) = basic;
            let (
                occupation_type,
                income_range,
                education,
                marriage_record,
                has_children,
                smoke,
                drink,
                tattoo,
            ) = life;
            let (personality, hobby, pet, fertility) = tag;
            let (about_me, city, location, distance) = about;
            let (method, email, photos) = verify;
            let (height_wanted, from, to, education_wanted) = wanted;
            let mut draft = RegisterDraft {
                nickname,
                name,
                gender,
                match_gender,
                birthday: format!("{year:04}-{month:02}-{day:02}"),
                height: height.to_string(),
                occupation_type,
                occupation: "Engineer".into(),
                income_range,
                education,
                marriage_record,
                has_children,
                smoke,
                drink,
                tattoo,
                personality_tag_ids: personality,
                hobby_tag_ids: hobby,
                pet_tag_ids: pet,
                fertility_plan_tag_id: fertility,
                about_me,
                city,
                latitude: location.map(|l| l.0),
                longitude: location.map(|l| l.1),
                recommend_distance_km: distance.to_string(),
                verify_method: method.into(),
                company_email: email.into(),
                review_link: "https://www.linkedin.com/in/someone".into(),
                verify_temp_file_name: "aaaabbbbccccddddeeeeffff00001111".into(),
                photo_name_list: photos.into_iter().map(Option::unwrap_or_default).collect(),
                ..RegisterDraft::default()
            };
            draft.conditions.height.selected = height_wanted;
            draft.conditions.height.from = from.to_string();
            draft.conditions.height.to = to.to_string();
            if let Some(level) = education_wanted {
                draft.conditions.education.selected = true;
                draft.conditions.education.value = level;
            }
            draft
        })
}

#[test]
fn whatever_the_client_builds_the_server_accepts() {
    let mut runner = TestRunner::new(Config {
        cases: 1024,
        failure_persistence: None,
        ..Config::default()
    });
    let accepted = std::cell::Cell::new(0u32);
    let refused = std::cell::Cell::new(0u32);
    runner
        .run(&plausible_draft(), |draft| {
            match draft::build_payload(&draft, LINE_ID, today()).payload {
                Some(payload) => {
                    accepted.set(accepted.get() + 1);
                    let body = serde_json::to_value(&payload).unwrap();
                    let parsed = UserProfileCreate::from_json(body).and_then(|p| p.parse(today()));
                    prop_assert!(
                        parsed.is_ok(),
                        "server refused what the client built: {:?}",
                        parsed.err()
                    );
                    let normalised = parsed.unwrap().to_payload();
                    let again =
                        UserProfileCreate::from_json(serde_json::to_value(&normalised).unwrap())
                            .and_then(|p| p.parse(today()));
                    prop_assert!(again.is_ok(), "the normalised payload does not parse again");
                }
                None => refused.set(refused.get() + 1),
            }
            Ok(())
        })
        .unwrap();
    let (accepted, refused) = (accepted.get(), refused.get());
    println!(
        "client-built payloads: {accepted} accepted by the server, {refused} drafts refused by the client"
    );
    // The generator must exercise both outcomes, or the property says nothing.
    assert!(
        accepted >= 50 && refused >= 50,
        "accepted {accepted}, refused {refused}"
    );
}
