//! Kizuna's domain, shared by the server (natively) and the LIFF web app (through kizuna-wasm).
//!
//! Every rule that both sides apply lives here exactly once: the client runs it for instant
//! feedback, the server runs the same code on the same payload because a client check is no
//! security control. The crate is pure: no I/O, no clock (callers pass `today`), no framework.
//!
//! # The main jobs
//!
//! **Read and validate a registration payload** (POST /user-profile): [`profile`]. Type errors and
//! unknown fields first, then every rule, every failing field reported at once as [`FieldErrors`]
//! (`{"field": ["rule_code", ...]}`); what passes is a [`ValidProfile`] of checked, typed fields.
//!
//! ```
//! use kizuna_core::{date::Date, profile::UserProfileCreate, rules::RuleCode};
//! use serde_json::json;
//!
//! let today = Date::parse("2026-11-22").unwrap();
//! // `body`: a complete POST /user-profile body (the `profile` module shows one in full).
//! # let body = json!({
//! #     "account": "U4af4980629a1b2c3d4e5f60718293a4b",
//! #     "password": "U4af4980629a1b2c3d4e5f60718293a4b",
//! #     "nickname": "Mei", "name": "Lin Mei-Ling", "gender": "FEMALE", "matchGender": "MALE",
//! #     "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Backend engineer",
//! #     "height": 163, "incomeRange": "INCOME_100_150", "birthday": "1995-03-14",
//! #     "education": "MASTER", "marriageRecord": 0, "hasChildren": 0, "smoke": 0,
//! #     "tattoo": "NONE", "drink": 1,
//! #     "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
//! #     "personalityTagIds": [101, 104], "hobbyTagIds": [301], "fertilityPlanTagIds": [502],
//! #     "city": "TPE", "verifyMethod": "COMPANY_EMAIL", "companyEmail": "mei@tsmc.com",
//! #     "photoNameList": ["0123456789abcdef0123456789abcdef"]
//! # });
//! let profile = UserProfileCreate::from_json(body.clone())?.parse(today)?;
//! assert_eq!(profile.nickname, "Mei");
//!
//! let mut young = body;
//! young["birthday"] = json!("2010-01-01");
//! let errors = UserProfileCreate::from_json(young)?.parse(today).unwrap_err();
//! assert_eq!(errors.get("birthday"), Some(&[RuleCode::TooYoung][..]));
//! assert_eq!(serde_json::to_string(&errors).unwrap(), r#"{"birthday":["too_young"]}"#);
//! # Ok::<(), kizuna_core::rules::FieldErrors>(())
//! ```
//!
//! **Repair a stored draft** and turn it into the payload: [`draft`]. Reading a draft back never
//! fails; it keeps what it can, converts old shapes and says what it dropped.
//!
//! ```
//! use kizuna_core::{date::Date, draft, rules::RuleCode};
//! use serde_json::json;
//!
//! let stored = json!({"nickname": "Mei", "height": 163, "fertilityPlanTagIds": [502], "isAdmin": true});
//! let repaired = draft::repair(&stored);
//! assert_eq!(repaired.draft.height, "163"); // a number from a version 1 draft, now text
//! assert_eq!(repaired.draft.fertility_plan_tag_id, "502"); // version 1's list, now one id
//! assert_eq!(repaired.dropped, ["isAdmin"]);
//!
//! let today = Date::parse("2026-11-22").unwrap();
//! let errors = draft::validate(&repaired.draft, "U4af4980629a1b2c3d4e5f60718293a4b", today);
//! assert_eq!(errors.get("nickname"), None);
//! assert_eq!(errors.get("name"), Some(&[RuleCode::Required][..]));
//! assert!(draft::build_payload(&repaired.draft, "U4af4980629a1b2c3d4e5f60718293a4b", today)
//!     .payload
//!     .is_none());
//! ```
//!
//! **Check partner conditions**: [`conditions`]. A condition list (the payload's `valueItem`)
//! against the facts of a person.
//!
//! ```
//! use kizuna_core::conditions::{self, Bounds, Condition, MatchFacts};
//! use kizuna_core::date::Date;
//! use kizuna_core::{Drink, Education, HasChildren, IncomeRange, MarriageRecord, Smoke, Tattoo};
//!
//! let today = Date::parse("2026-11-22").unwrap();
//! let person = MatchFacts {
//!     height_cm: 163,
//!     birthday: Date::parse("1995-03-14").unwrap(),
//!     income_range: IncomeRange::From100To150,
//!     education: Education::Master,
//!     marriage_record: MarriageRecord::NeverMarried,
//!     has_children: HasChildren::No,
//!     smoke: Smoke::Never,
//!     tattoo: Tattoo::None,
//!     drink: Drink::Socially,
//! };
//! let wanted = [
//!     Condition::Age(Bounds { from: 28, to: 35 }),
//!     Condition::Education { value: Education::Bachelor },
//! ];
//! assert!(conditions::satisfies(&person, &wanted, today));
//! // A `ValidProfile` gives its facts with `profile.facts()`.
//! ```
//!
//! # Where the rules live
//!
//! Every limit is defined once in [`rules`]. The registration rules are declared with
//! [validator]'s `#[derive(Validate)]` on [`UserProfileCreate`], whose attributes name those
//! limits; what validator has no rule for (catalogue membership, dates and ages, e-mail and URL,
//! which are checked by hand to keep `regex` and `idna` out of the wasm) is a `custom` function,
//! and what spans fields (the verification's evidence, a location pair, the conditions) is a
//! struct-level rule. The catalogues (tags, cities, employers) are data in `core/data/*.json`,
//! compiled in by `build.rs`: [`catalogue`].
//!
//! The shared vectors in `tests/vectors/*.json` run against this crate natively
//! (`core/tests/vectors.rs`) and through the wasm package under Node (`wasm/tests/vectors.rs`).
//!
//! [`FieldErrors`]: rules::FieldErrors
//! [`ValidProfile`]: profile::ValidProfile
//! [`UserProfileCreate`]: profile::UserProfileCreate

#![recursion_limit = "256"]
#![warn(missing_docs)]

pub mod access;
pub mod appeal;
pub mod catalogue;
pub mod chat;
pub mod codes;
pub mod conditions;
pub mod conversation;
pub mod date;
pub mod draft;
pub mod email;
pub mod email_code;
pub mod error_code;
pub mod files;
pub mod geo;
pub mod like;
pub mod line;
pub mod locale;
pub mod matching;
pub mod met;
pub mod photos;
pub mod profile;
pub mod push;
pub mod report;
pub mod review;
pub mod review_guard;
pub mod review_time;
pub mod revision;
pub mod rules;
// The register form's wasm has no room for the safety rule (its budget is 60 KB gzip and the
// module alone costs bytes even unused): on wasm32 it is built only for the chat's own module
// (kizuna-wasm-safety, feature `safety`). The server always has it.
#[cfg(any(feature = "safety", not(target_arch = "wasm32")))]
pub mod safety;
pub mod url;
pub mod web_rules;

mod choices;
mod reasons;

pub use choices::*;
