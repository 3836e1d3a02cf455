//! Matching conditions (`valueItem`): what a person asks of the people they are introduced to.

use crate::choices::*;
use crate::date::Date;
use crate::rules::{self, FieldErrors, RangeRule, RuleCode};
use serde::{Deserialize, Serialize};

/// One condition. Range bounds of 0 are open (spec: a missing bound becomes 0), so `{from: 170}`
/// means "at least 170 cm".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum Condition {
    Height(Bounds),
    Age(Bounds),
    /// In 10,000 TWD a year, compared with the lower bound of the person's income range.
    Income(Bounds),
    /// At least this education.
    Education {
        value: Education,
    },
    MarriageRecord {
        value: MarriageRecord,
    },
    HasChildren {
        value: HasChildren,
    },
    /// At most this much smoking.
    Smoke {
        value: Smoke,
    },
    /// At most this visible a tattoo.
    Tattoo {
        value: Tattoo,
    },
    /// At most this much drinking.
    Drink {
        value: Drink,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Bounds {
    #[serde(default)]
    pub from: u32,
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

    pub fn error_key(self) -> String {
        format!("valueItem.{}", self.type_name())
    }
}

/// The facts about a person that conditions are checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchFacts {
    pub height_cm: u32,
    pub birthday: Date,
    pub income_range: IncomeRange,
    pub education: Education,
    pub marriage_record: MarriageRecord,
    pub has_children: HasChildren,
    pub smoke: Smoke,
    pub tattoo: Tattoo,
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
/// 0 for open), `from <= to` when both are set, and no range without any bound.
pub fn check(conditions: &[Condition], errors: &mut FieldErrors) {
    let mut seen = Vec::with_capacity(conditions.len());
    for condition in conditions {
        let key = condition.error_key();
        if seen.contains(&condition.type_name()) {
            errors.add(&key, RuleCode::Duplicate);
            continue;
        }
        seen.push(condition.type_name());
        let (bounds, rule) = match *condition {
            Condition::Height(bounds) => (bounds, rules::HEIGHT_CM),
            Condition::Age(bounds) => (bounds, rules::AGE_YEARS),
            Condition::Income(bounds) => (bounds, rules::INCOME_CONDITION),
            _ => continue,
        };
        check_bounds(&key, bounds, rule, errors);
    }
}

fn check_bounds(key: &str, bounds: Bounds, rule: RangeRule, errors: &mut FieldErrors) {
    let in_rule = |bound: u32| bound == 0 || rule.contains(bound);
    if !in_rule(bounds.from) || !in_rule(bounds.to) {
        errors.add(key, RuleCode::OutOfRange);
    }
    let empty = bounds.from == 0 && bounds.to == 0;
    let reversed = bounds.from != 0 && bounds.to != 0 && bounds.from > bounds.to;
    if empty || reversed {
        errors.add(key, RuleCode::InvalidRange);
    }
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
