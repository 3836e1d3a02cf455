//! Properties of matching over generated members: the packed conditions answer exactly like the
//! condition list, the radius clause agrees with great-circle kilometres, snapping moves a point
//! by less than a cell, and the symmetric parts of the score are symmetric.
#![cfg(not(target_arch = "wasm32"))]

use kizuna_core::conditions::{self, Bounds, Condition, MatchFacts};
use kizuna_core::date::Date;
use kizuna_core::geo::{self, GridPoint};
use kizuna_core::matching::{
    self, MatchColumns, MatchProfile, PackedConditions, Refusal, Relation, TagSet,
};
use kizuna_core::profile::Coordinates;
use kizuna_core::review::ReviewStatus;
use kizuna_core::{
    Drink, Education, Gender, HasChildren, IncomeRange, MarriageRecord, MatchGender, Smoke, Tattoo,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

fn today() -> Date {
    Date::parse("2026-11-22").unwrap()
}

fn one_of<T: Copy + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    prop::sample::select(all)
}

fn facts() -> impl Strategy<Value = MatchFacts> {
    (
        (120u32..=230, 1930u16..=2008, 1u8..=12, 1u8..=28),
        (
            one_of(IncomeRange::ALL),
            one_of(Education::ALL),
            one_of(MarriageRecord::ALL),
            one_of(HasChildren::ALL),
            one_of(Smoke::ALL),
            one_of(Tattoo::ALL),
            one_of(Drink::ALL),
        ),
    )
        .prop_map(
            |(
                (height_cm, year, month, day),
                (income_range, education, marriage_record, has_children, smoke, tattoo, drink),
            )| MatchFacts {
                height_cm,
                birthday: Date::from_ymd(year, month, day).unwrap(),
                income_range,
                education,
                marriage_record,
                has_children,
                smoke,
                tattoo,
                drink,
            },
        )
}

/// A valid range: one or both bounds set, in order.
fn bounds(min: u32, max: u32) -> impl Strategy<Value = Bounds> {
    (min..=max, min..=max, 0u8..3).prop_map(|(a, b, shape)| match shape {
        0 => Bounds {
            from: a.min(b),
            to: a.max(b),
        },
        1 => Bounds { from: a, to: 0 },
        _ => Bounds { from: 0, to: a },
    })
}

/// A validated-shape condition list: each kind at most once.
fn conditions() -> impl Strategy<Value = Vec<Condition>> {
    (
        prop::option::of(bounds(120, 230).prop_map(Condition::Height)),
        prop::option::of(bounds(18, 99).prop_map(Condition::Age)),
        prop::option::of(bounds(0, 400).prop_map(Condition::Income)),
        prop::option::of(one_of(Education::ALL).prop_map(|value| Condition::Education { value })),
        prop::option::of(
            one_of(MarriageRecord::ALL).prop_map(|value| Condition::MarriageRecord { value }),
        ),
        prop::option::of(
            one_of(HasChildren::ALL).prop_map(|value| Condition::HasChildren { value }),
        ),
        prop::option::of(one_of(Smoke::ALL).prop_map(|value| Condition::Smoke { value })),
        prop::option::of(one_of(Tattoo::ALL).prop_map(|value| Condition::Tattoo { value })),
        prop::option::of(one_of(Drink::ALL).prop_map(|value| Condition::Drink { value })),
    )
        .prop_map(|(a, b, c, d, e, f, g, h, i)| {
            [a, b, c, d, e, f, g, h, i].into_iter().flatten().collect()
        })
}

/// Somewhere in or around Taiwan, Kinmen and Matsu.
fn coordinates() -> impl Strategy<Value = Coordinates> {
    (21.8f64..26.5, 118.0f64..122.1).prop_map(|(latitude, longitude)| Coordinates {
        latitude,
        longitude,
    })
}

fn member(
    id: u64,
    facts: MatchFacts,
    wants: &[Condition],
    at: Coordinates,
    radius: u32,
) -> MatchProfile {
    MatchProfile::new(MatchColumns {
        id,
        status: ReviewStatus::Approved,
        gender: if id == 1 {
            Gender::Female
        } else {
            Gender::Male
        },
        match_gender: if id == 1 {
            MatchGender::Male
        } else {
            MatchGender::Female
        },
        facts,
        wants: PackedConditions::from_list(wants),
        home: geo::snap(at),
        recommend_distance_km: radius,
        tags: TagSet::from_ids([101 + id as u32, 301, 302 + id as u32, 502]),
        last_active: today(),
        workplace: Default::default(),
    })
}

proptest! {
    #![proptest_config(Config { cases: 2048, failure_persistence: None, ..Config::default() })]

    #[test]
    fn packed_conditions_admit_exactly_whom_the_list_admits(person in facts(), list in conditions()) {
        prop_assert_eq!(
            PackedConditions::from_list(&list).admits(&person, today()),
            conditions::satisfies(&person, &list, today())
        );
    }

    #[test]
    fn the_radius_clause_agrees_with_great_circle_kilometres(
        a in coordinates(), b in coordinates(), ra in 0u32..=500, rb in 0u32..=500, f in facts()
    ) {
        let km = geo::snap(a).distance_km(geo::snap(b));
        let near_an_edge = [ra, rb].iter().any(|&r| r != 0 && (km - f64::from(r)).abs() < 1e-6);
        prop_assume!(!near_an_edge);
        let (viewer, candidate) = (member(1, f, &[], a, ra), member(2, f, &[], b, rb));
        let too_far = matches!(
            matching::check_pair(&viewer, &candidate, today()),
            Err(Refusal::TooFar(_))
        );
        prop_assert_eq!(too_far, !(geo::within_radius(km, ra) && geo::within_radius(km, rb)));
    }

    #[test]
    fn snapping_moves_a_point_by_less_than_half_a_cell_diagonal(
        latitude in -80.0f64..80.0, longitude in -180.0f64..180.0
    ) {
        let at = Coordinates { latitude, longitude };
        let cell = geo::snap(at);
        prop_assert_eq!(geo::snap(cell.centre()), cell);
        prop_assert_eq!(GridPoint::from_cell(cell.row(), cell.col()), Some(cell));
        // The great-circle distance from the point itself to its cell's centre (haversine).
        let centre = cell.centre();
        let (p1, p2) = (latitude.to_radians(), centre.latitude.to_radians());
        let dl = (centre.longitude - longitude).to_radians();
        let h = ((p2 - p1) / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
        let offset_km = 2.0 * geo::EARTH_RADIUS_KM * h.sqrt().asin();
        prop_assert!(offset_km < 0.75, "{offset_km} km from {at:?} to {centre:?}");
    }

    #[test]
    fn the_symmetric_parts_of_the_score_are_symmetric(
        fa in facts(), fb in facts(), wa in conditions(), wb in conditions(),
        a in coordinates(), b in coordinates()
    ) {
        let (x, y) = (member(1, fa, &wa, a, 0), member(2, fb, &wb, b, 0));
        let xy = matching::score_parts(&x, &y, &Relation::NONE, today());
        let yx = matching::score_parts(&y, &x, &Relation::NONE, today());
        prop_assert_eq!((xy.tags, xy.comfort, xy.distance), (yx.tags, yx.comfort, yx.distance));
    }
}
