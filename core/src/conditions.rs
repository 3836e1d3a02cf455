//! Matching conditions (`valueItem`): what a person asks of the people they are introduced to.
//!
//! A condition list is checked as part of the registration payload (by struct-level rules of its
//! validator derive), or alone with [`check`]; a person's [`MatchFacts`] meet it or not with
//! [`satisfies`].
//!
//! ```
//! use kizuna_core::conditions::{self, Bounds, Condition, MatchFacts};
//! use kizuna_core::date::Date;
//! use kizuna_core::rules::{FieldErrors, RuleCode};
//! use kizuna_core::{Drink, Education, HasChildren, IncomeRange, MarriageRecord, Smoke, Tattoo};
//!
//! let today = Date::parse("2026-11-22").unwrap();
//! let person = MatchFacts {
//!     height_cm: 172,
//!     birthday: Date::parse("1994-05-20").unwrap(),
//!     income_range: IncomeRange::From100To150,
//!     education: Education::Master,
//!     marriage_record: MarriageRecord::NeverMarried,
//!     has_children: HasChildren::No,
//!     smoke: Smoke::Never,
//!     tattoo: Tattoo::Hidden,
//!     drink: Drink::Socially,
//! };
//! // At least 170 cm (a bound of 0 is open), at least a bachelor's degree, at most social drinking.
//! let wanted = [
//!     Condition::Height(Bounds { from: 170, to: 0 }),
//!     Condition::Education { value: Education::Bachelor },
//!     Condition::Drink { value: Drink::Socially },
//! ];
//! assert!(conditions::satisfies(&person, &wanted, today));
//! assert!(!conditions::satisfies(&person, &[Condition::Age(Bounds { from: 20, to: 30 })], today));
//!
//! let mut errors = FieldErrors::new();
//! conditions::check(&[Condition::Height(Bounds { from: 190, to: 170 })], &mut errors);
//! assert_eq!(errors.get("valueItem.HEIGHT"), Some(&[RuleCode::InvalidRange][..]));
//! ```

use crate::choices::*;
use crate::date::Date;
use crate::rules::{self, FieldErrors, RuleCode};
use serde::{Deserialize, Serialize};

/// One condition. Range bounds of 0 are open (spec: a missing bound becomes 0), so `{from: 170}`
/// means "at least 170 cm".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum Condition {
    /// Height in centimetres, within [`rules::HEIGHT_CM`].
    Height(Bounds),
    /// Age in completed years, within [`rules::AGE_YEARS`].
    Age(Bounds),
    /// In 10,000 TWD a year, compared with the lower bound of the person's income range.
    Income(Bounds),
    /// At least this education.
    Education {
        /// The lowest education admitted.
        value: Education,
    },
    /// Exactly this marital history.
    MarriageRecord {
        /// The marital history admitted.
        value: MarriageRecord,
    },
    /// Exactly this situation with children.
    HasChildren {
        /// The situation admitted.
        value: HasChildren,
    },
    /// At most this much smoking.
    Smoke {
        /// The most smoking admitted.
        value: Smoke,
    },
    /// At most this visible a tattoo.
    Tattoo {
        /// The most visible tattoo admitted.
        value: Tattoo,
    },
    /// At most this much drinking.
    Drink {
        /// The most drinking admitted.
        value: Drink,
    },
}

/// The bounds of a range condition, both inclusive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Bounds {
    /// The lowest value admitted; 0 (or absent on the wire) for no lower bound.
    #[serde(default)]
    pub from: u32,
    /// The highest value admitted; 0 (or absent on the wire) for no upper bound.
    #[serde(default)]
    pub to: u32,
}

impl Bounds {
    fn admits(self, value: u32) -> bool {
        (self.from == 0 || value >= self.from) && (self.to == 0 || value <= self.to)
    }
}

/// The condition kinds, in the order the form lists them; the wire name doubles as the key of a
/// condition's errors (`valueItem.HEIGHT`).
pub const CONDITION_TYPES: [&str; 9] = [
    "HEIGHT",
    "AGE",
    "INCOME",
    "EDUCATION",
    "MARRIAGE_RECORD",
    "HAS_CHILDREN",
    "SMOKE",
    "TATTOO",
    "DRINK",
];

impl Condition {
    /// The wire name of the condition's type (`HEIGHT`).
    pub fn type_name(self) -> &'static str {
        match self {
            Condition::Height(_) => "HEIGHT",
            Condition::Age(_) => "AGE",
            Condition::Income(_) => "INCOME",
            Condition::Education { .. } => "EDUCATION",
            Condition::MarriageRecord { .. } => "MARRIAGE_RECORD",
            Condition::HasChildren { .. } => "HAS_CHILDREN",
            Condition::Smoke { .. } => "SMOKE",
            Condition::Tattoo { .. } => "TATTOO",
            Condition::Drink { .. } => "DRINK",
        }
    }

    /// The key of the condition's errors (`valueItem.HEIGHT`).
    pub fn error_key(self) -> String {
        self.key().to_owned()
    }

    /// [`error_key`](Self::error_key) as a literal: the struct-level rules of the payload report
    /// these, and formatting them would cost the wasm more code.
    fn key(self) -> &'static str {
        match self {
            Condition::Height(_) => "valueItem.HEIGHT",
            Condition::Age(_) => "valueItem.AGE",
            Condition::Income(_) => "valueItem.INCOME",
            Condition::Education { .. } => "valueItem.EDUCATION",
            Condition::MarriageRecord { .. } => "valueItem.MARRIAGE_RECORD",
            Condition::HasChildren { .. } => "valueItem.HAS_CHILDREN",
            Condition::Smoke { .. } => "valueItem.SMOKE",
            Condition::Tattoo { .. } => "valueItem.TATTOO",
            Condition::Drink { .. } => "valueItem.DRINK",
        }
    }
}

/// The facts about a person that conditions are checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchFacts {
    /// Height in centimetres.
    pub height_cm: u32,
    /// Date of birth; the age is computed on the day of the check.
    pub birthday: Date,
    /// Yearly income band; income conditions compare its lower bound.
    pub income_range: IncomeRange,
    /// Highest completed education.
    pub education: Education,
    /// Marital history.
    pub marriage_record: MarriageRecord,
    /// Children.
    pub has_children: HasChildren,
    /// Smoking.
    pub smoke: Smoke,
    /// Tattoo visibility.
    pub tattoo: Tattoo,
    /// Drinking.
    pub drink: Drink,
}

/// Does a person meet every condition? An empty list is met by everyone.
pub fn satisfies(person: &MatchFacts, conditions: &[Condition], today: Date) -> bool {
    conditions.iter().all(|condition| match *condition {
        Condition::Height(bounds) => bounds.admits(person.height_cm),
        Condition::Age(bounds) => person
            .birthday
            .age_on(today)
            .is_some_and(|age| bounds.admits(u32::from(age))),
        Condition::Income(bounds) => bounds.admits(person.income_range.lower_bound()),
        Condition::Education { value } => person.education >= value,
        Condition::MarriageRecord { value } => person.marriage_record == value,
        Condition::HasChildren { value } => person.has_children == value,
        Condition::Smoke { value } => person.smoke <= value,
        Condition::Tattoo { value } => person.tattoo <= value,
        Condition::Drink { value } => person.drink <= value,
    })
}

/// Checks a condition list: one condition per type, range bounds within their field's limits (or
/// 0 for open), `from <= to` when both are set, and no range without any bound. Errors are keyed
/// `valueItem.<TYPE>`, as in the registration payload.
pub fn check(conditions: &[Condition], errors: &mut FieldErrors) {
    for code in LIST_RULES {
        for key in keys_breaking(conditions, code) {
            errors.add(key, code);
        }
    }
}

/// The rules of a condition list, by the code each reports.
pub(crate) const LIST_RULES: [RuleCode; 3] = [
    RuleCode::OutOfRange,
    RuleCode::InvalidRange,
    RuleCode::Duplicate,
];

/// The error keys (`valueItem.<TYPE>`) of the conditions that break the rule reporting `code`,
/// one of [`LIST_RULES`].
pub(crate) fn keys_breaking(conditions: &[Condition], code: RuleCode) -> Vec<&'static str> {
    let breaks = |condition: &Condition| {
        let (bounds, rule) = match *condition {
            Condition::Height(bounds) => (bounds, rules::HEIGHT_CM),
            Condition::Age(bounds) => (bounds, rules::AGE_YEARS),
            Condition::Income(bounds) => (bounds, rules::INCOME_CONDITION),
            _ => return false,
        };
        let in_rule = |bound: u32| bound == 0 || rule.contains(bound);
        match code {
            RuleCode::OutOfRange => !in_rule(bounds.from) || !in_rule(bounds.to),
            RuleCode::InvalidRange => {
                let empty = bounds.from == 0 && bounds.to == 0;
                empty || (bounds.from != 0 && bounds.to != 0 && bounds.from > bounds.to)
            }
            _ => false,
        }
    };
    let mut keys = Vec::new();
    for (index, condition) in conditions.iter().enumerate() {
        let repeated = conditions[..index]
            .iter()
            .any(|earlier| earlier.type_name() == condition.type_name());
        let broken = match code {
            RuleCode::Duplicate => repeated,
            _ => breaks(condition),
        };
        let key = condition.key();
        if broken && !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person() -> MatchFacts {
        MatchFacts {
            height_cm: 172,
            birthday: Date::parse("1994-05-20").unwrap(),
            income_range: IncomeRange::From100To150,
            education: Education::Master,
            marriage_record: MarriageRecord::NeverMarried,
            has_children: HasChildren::No,
            smoke: Smoke::Never,
            tattoo: Tattoo::Hidden,
            drink: Drink::Socially,
        }
    }

    fn today() -> Date {
        Date::parse("2026-11-22").unwrap()
    }

    #[test]
    fn everyone_meets_an_empty_condition_list() {
        assert!(satisfies(&person(), &[], today()));
    }

    #[test]
    fn a_zero_bound_is_open() {
        let at_least_170 = Condition::Height(Bounds { from: 170, to: 0 });
        let at_most_170 = Condition::Height(Bounds { from: 0, to: 170 });
        assert!(satisfies(&person(), &[at_least_170], today()));
        assert!(!satisfies(&person(), &[at_most_170], today()));
    }

    #[test]
    fn age_is_computed_on_the_given_day() {
        let thirty_two_to_forty = Condition::Age(Bounds { from: 32, to: 40 });
        assert!(satisfies(&person(), &[thirty_two_to_forty], today()));
        assert!(!satisfies(
            &person(),
            &[thirty_two_to_forty],
            Date::parse("2026-05-19").unwrap()
        ));
    }

    #[test]
    fn income_compares_the_lower_bound_of_the_range() {
        assert!(satisfies(
            &person(),
            &[Condition::Income(Bounds { from: 100, to: 0 })],
            today()
        ));
        assert!(!satisfies(
            &person(),
            &[Condition::Income(Bounds { from: 120, to: 0 })],
            today()
        ));
    }

    #[test]
    fn education_is_at_least_and_habits_are_at_most() {
        let p = person();
        assert!(satisfies(
            &p,
            &[Condition::Education {
                value: Education::Bachelor
            }],
            today()
        ));
        assert!(!satisfies(
            &p,
            &[Condition::Education {
                value: Education::Doctorate
            }],
            today()
        ));
        assert!(satisfies(
            &p,
            &[Condition::Drink {
                value: Drink::Regularly
            }],
            today()
        ));
        assert!(!satisfies(
            &p,
            &[Condition::Drink {
                value: Drink::Never
            }],
            today()
        ));
        assert!(!satisfies(
            &p,
            &[Condition::Tattoo {
                value: Tattoo::None
            }],
            today()
        ));
        assert!(satisfies(
            &p,
            &[Condition::Smoke {
                value: Smoke::Never
            }],
            today()
        ));
    }

    #[test]
    fn marriage_record_and_children_must_match_exactly() {
        let p = person();
        assert!(satisfies(
            &p,
            &[Condition::MarriageRecord {
                value: MarriageRecord::NeverMarried
            }],
            today()
        ));
        assert!(!satisfies(
            &p,
            &[Condition::HasChildren {
                value: HasChildren::YesLivingApart
            }],
            today()
        ));
    }

    #[test]
    fn every_condition_must_hold() {
        let conditions = [
            Condition::Height(Bounds { from: 160, to: 180 }),
            Condition::Education {
                value: Education::Doctorate,
            },
        ];
        assert!(!satisfies(&person(), &conditions, today()));
    }

    #[test]
    fn conditions_travel_with_their_type_tag_and_missing_bounds_become_zero() {
        let parsed: Condition =
            serde_json::from_value(serde_json::json!({"type": "HEIGHT", "from": 160})).unwrap();
        assert_eq!(parsed, Condition::Height(Bounds { from: 160, to: 0 }));
        let smoke = serde_json::to_value(Condition::Smoke { value: Smoke::Quit }).unwrap();
        assert_eq!(smoke, serde_json::json!({"type": "SMOKE", "value": 1}));
    }

    #[test]
    fn every_condition_type_has_its_error_key() {
        let one_of_each = [
            Condition::Height(Bounds::default()),
            Condition::Age(Bounds::default()),
            Condition::Income(Bounds::default()),
            Condition::Education {
                value: Education::Bachelor,
            },
            Condition::MarriageRecord {
                value: MarriageRecord::NeverMarried,
            },
            Condition::HasChildren {
                value: HasChildren::No,
            },
            Condition::Smoke {
                value: Smoke::Never,
            },
            Condition::Tattoo {
                value: Tattoo::None,
            },
            Condition::Drink {
                value: Drink::Never,
            },
        ];
        let names: Vec<&str> = one_of_each.iter().map(|c| c.type_name()).collect();
        assert_eq!(names, CONDITION_TYPES);
        for condition in one_of_each {
            assert_eq!(
                condition.error_key(),
                format!("valueItem.{}", condition.type_name())
            );
        }
    }

    #[test]
    fn reversed_empty_out_of_range_and_repeated_conditions_are_reported() {
        let mut errors = FieldErrors::new();
        check(
            &[
                Condition::Height(Bounds { from: 180, to: 160 }),
                Condition::Age(Bounds { from: 0, to: 0 }),
                Condition::Income(Bounds {
                    from: 20_000,
                    to: 0,
                }),
                Condition::Smoke {
                    value: Smoke::Never,
                },
                Condition::Smoke { value: Smoke::Quit },
            ],
            &mut errors,
        );
        assert_eq!(
            errors.get("valueItem.HEIGHT"),
            Some(&[RuleCode::InvalidRange][..])
        );
        assert_eq!(
            errors.get("valueItem.AGE"),
            Some(&[RuleCode::InvalidRange][..])
        );
        assert_eq!(
            errors.get("valueItem.INCOME"),
            Some(&[RuleCode::OutOfRange][..])
        );
        assert_eq!(
            errors.get("valueItem.SMOKE"),
            Some(&[RuleCode::Duplicate][..])
        );
    }
}
