use super::*;

#[test]
fn only_an_approved_member_taking_no_break_and_no_kept_apart_colleague_may_be_picked() {
    let mine = Workplace {
        employer: 1,
        hides_colleagues: true,
    };
    let elsewhere = Workplace {
        employer: 2,
        hides_colleagues: false,
    };
    let standing = |status, paused, workplace| PoolStanding {
        status,
        paused,
        workplace,
    };
    assert!(may_be_picked(
        mine,
        &standing(ReviewStatus::Approved, false, elsewhere)
    ));
    for status in [
        ReviewStatus::Pending,
        ReviewStatus::Rejected,
        ReviewStatus::Suspended,
    ] {
        assert!(!may_be_picked(mine, &standing(status, false, elsewhere)));
    }
    assert!(!may_be_picked(
        mine,
        &standing(ReviewStatus::Approved, true, elsewhere)
    ));
    let colleague = Workplace {
        employer: 1,
        hides_colleagues: false,
    };
    assert!(!may_be_picked(
        mine,
        &standing(ReviewStatus::Approved, false, colleague)
    ));
    assert!(standing(ReviewStatus::Approved, false, colleague).takes_part());
}
use crate::conditions::Bounds;
use crate::profile::{Coordinates, UserProfileCreate};

fn day(text: &str) -> Date {
    Date::parse(text).unwrap()
}

fn today() -> Date {
    day("2026-11-22")
}

fn taipei() -> GridPoint {
    geo::snap(Coordinates {
        latitude: 25.0330,
        longitude: 121.5654,
    })
}

/// `km` kilometres due north of Taipei 101.
fn north_of_taipei(km: f64) -> GridPoint {
    geo::snap(Coordinates {
        latitude: 25.0330 + km / (geo::EARTH_RADIUS_KM * std::f64::consts::PI / 180.0),
        longitude: 121.5654,
    })
}

fn facts(birthday: &str) -> MatchFacts {
    MatchFacts {
        height_cm: 170,
        birthday: day(birthday),
        income_range: IncomeRange::From100To150,
        education: Education::Master,
        marriage_record: MarriageRecord::NeverMarried,
        has_children: HasChildren::No,
        smoke: Smoke::Never,
        tattoo: Tattoo::None,
        drink: Drink::Socially,
    }
}

fn columns(id: u64, gender: Gender, match_gender: MatchGender) -> MatchColumns {
    MatchColumns {
        id,
        status: ReviewStatus::Approved,
        gender,
        match_gender,
        facts: facts("1994-05-20"),
        wants: PackedConditions::default(),
        home: taipei(),
        recommend_distance_km: 30,
        tags: TagSet::from_ids([101, 202, 301, 302, 402, 502, 601]),
        last_active: today(),
        workplace: Workplace::default(),
    }
}

fn her() -> MatchColumns {
    columns(1, Gender::Female, MatchGender::Male)
}

fn him() -> MatchColumns {
    columns(2, Gender::Male, MatchGender::Female)
}

fn at(employer: &str, hides_colleagues: bool) -> Workplace {
    Workplace::of(Some(employer), hides_colleagues)
}

#[test]
fn colleagues_are_kept_apart_when_either_asked_and_only_then() {
    let pair = |mine: Workplace, theirs: Workplace| {
        let viewer = MatchProfile::new(MatchColumns {
            workplace: mine,
            ..her()
        });
        let candidate = MatchProfile::new(MatchColumns {
            workplace: theirs,
            ..him()
        });
        (
            check_pair(&viewer, &candidate, today()),
            pair_allowed(&viewer, &candidate, today()),
            check_pair(&candidate, &viewer, today()),
        )
    };
    let apart = (Err(Refusal::Colleagues), false, Err(Refusal::Colleagues));
    let met = (Ok(()), true, Ok(()));
    assert_eq!(pair(at("tsmc", true), at("tsmc", true)), apart);
    assert_eq!(pair(at("tsmc", true), at("tsmc", false)), apart);
    assert_eq!(pair(at("tsmc", false), at("tsmc", true)), apart);
    assert_eq!(pair(at("tsmc", false), at("tsmc", false)), met);
    assert_eq!(pair(at("tsmc", true), at("mediatek", true)), met);
    // No employer on record: no colleagues, whatever the switch says.
    assert_eq!(
        pair(Workplace::of(None, true), Workplace::of(None, true)),
        met
    );
    assert_eq!(
        pair(
            Workplace::of(Some("no-such"), true),
            Workplace::of(Some("no-such"), true)
        ),
        met
    );
}

fn pair(viewer: MatchColumns, candidate: MatchColumns) -> Result<(), Refusal> {
    check_pair(
        &MatchProfile::new(viewer),
        &MatchProfile::new(candidate),
        today(),
    )
}

/// Checks a refusal both ways: the same clause, from the other side.
fn refused_both_ways(viewer: MatchColumns, candidate: MatchColumns, refusal: Refusal) {
    assert_eq!(pair(viewer, candidate), Err(refusal));
    let mirrored = match refusal {
        Refusal::NotApproved(side) => Refusal::NotApproved(other(side)),
        Refusal::GenderNotWanted(side) => Refusal::GenderNotWanted(other(side)),
        Refusal::TooFar(side) => Refusal::TooFar(other(side)),
        Refusal::ConditionsNotMet(side) => Refusal::ConditionsNotMet(other(side)),
        symmetric => symmetric,
    };
    assert_eq!(pair(candidate, viewer), Err(mirrored));
}

fn other(side: Side) -> Side {
    match side {
        Side::Viewer => Side::Candidate,
        Side::Candidate => Side::Viewer,
    }
}

#[test]
fn a_compact_member_is_copy_and_fits_in_two_cache_lines() {
    assert!(std::mem::size_of::<MatchProfile>() <= 128);
    let member = MatchProfile::new(her());
    let copy = member;
    assert_eq!(copy, member);
}

#[test]
fn compatible_people_may_be_introduced_both_ways() {
    assert_eq!(pair(her(), him()), Ok(()));
    assert_eq!(pair(him(), her()), Ok(()));
}

#[test]
fn nobody_is_introduced_to_themselves() {
    let mut same = her();
    same.match_gender = MatchGender::Any;
    assert_eq!(pair(same, same), Err(Refusal::Oneself));
}

#[test]
fn only_approved_members_take_part() {
    for status in [
        ReviewStatus::Pending,
        ReviewStatus::Rejected,
        ReviewStatus::Suspended,
    ] {
        let mut candidate = him();
        candidate.status = status;
        refused_both_ways(her(), candidate, Refusal::NotApproved(Side::Candidate));
    }
}

#[test]
fn each_gender_wish_must_accept_the_other() {
    let mut candidate = him();
    candidate.match_gender = MatchGender::Male;
    refused_both_ways(her(), candidate, Refusal::GenderNotWanted(Side::Candidate));
    let mut non_binary = him();
    non_binary.gender = Gender::NonBinary;
    non_binary.match_gender = MatchGender::Any;
    refused_both_ways(her(), non_binary, Refusal::GenderNotWanted(Side::Viewer));
    let mut open = her();
    open.match_gender = MatchGender::Any;
    assert_eq!(pair(open, non_binary), Ok(()));
}

#[test]
fn the_distance_must_be_within_both_radii_and_zero_is_anywhere() {
    let mut far = him();
    far.home = north_of_taipei(40.0);
    far.recommend_distance_km = 0;
    refused_both_ways(her(), far, Refusal::TooFar(Side::Viewer));
    let mut wide = her();
    wide.recommend_distance_km = 50;
    assert_eq!(pair(wide, far), Ok(()));
    far.recommend_distance_km = 35;
    refused_both_ways(wide, far, Refusal::TooFar(Side::Candidate));
    wide.recommend_distance_km = 0;
    far.recommend_distance_km = 0;
    far.home = geo::home_point(None, "KIN").unwrap();
    assert_eq!(pair(wide, far), Ok(()));
}

#[test]
fn each_ones_conditions_must_be_met_by_the_other_on_the_day() {
    let mut picky = her();
    picky.wants = PackedConditions::from_list(&[Condition::Height(Bounds { from: 175, to: 0 })]);
    refused_both_ways(picky, him(), Refusal::ConditionsNotMet(Side::Viewer));
    // Born 1994-05-20: 32 on 2026-11-22, 31 the day before the birthday.
    picky.wants = PackedConditions::from_list(&[Condition::Age(Bounds { from: 32, to: 0 })]);
    assert_eq!(pair(picky, him()), Ok(()));
    let viewer = MatchProfile::new(picky);
    let candidate = MatchProfile::new(him());
    assert_eq!(
        check_pair(&viewer, &candidate, day("2026-05-19")),
        Err(Refusal::ConditionsNotMet(Side::Viewer))
    );
}

#[test]
fn blocks_reports_matches_likes_and_open_introductions_keep_people_apart() {
    let (a, b) = (MatchProfile::new(her()), MatchProfile::new(him()));
    for (relation, refusal) in [
        (
            Relation {
                blocked: true,
                ..Relation::NONE
            },
            Refusal::Blocked,
        ),
        (
            Relation {
                reported: true,
                ..Relation::NONE
            },
            Refusal::Reported,
        ),
        (
            Relation {
                matched: true,
                ..Relation::NONE
            },
            Refusal::Matched,
        ),
        (
            Relation {
                viewer_liked: true,
                ..Relation::NONE
            },
            Refusal::AlreadyLiked,
        ),
        (
            Relation {
                pending_introduction: true,
                ..Relation::NONE
            },
            Refusal::AlreadyIntroduced,
        ),
    ] {
        assert_eq!(check_introduction(&a, &b, &relation, today()), Err(refusal));
        assert!(!may_introduce(&a, &b, &relation, today()));
    }
    let liked_by_candidate = Relation {
        candidate_liked: true,
        ..Relation::NONE
    };
    assert!(may_introduce(&a, &b, &liked_by_candidate, today()));
}

#[test]
fn a_pass_keeps_two_people_apart_for_thirty_days() {
    let (a, b) = (MatchProfile::new(her()), MatchProfile::new(him()));
    let passed = |on: &str| Relation {
        last_pass: Some(day(on)),
        ..Relation::NONE
    };
    // 2026-10-24 is 29 days before 2026-11-22; 2026-10-23 is 30.
    assert_eq!(
        check_introduction(&a, &b, &passed("2026-10-24"), today()),
        Err(Refusal::PassedRecently)
    );
    assert!(may_introduce(&a, &b, &passed("2026-10-23"), today()));
}

#[test]
fn a_pair_kept_by_a_departure_stays_apart_for_a_year_after_it() {
    let (a, b) = (MatchProfile::new(her()), MatchProfile::new(him()));
    let kept = |on: &str| Relation {
        former_pair: Some(day(on)),
        ..Relation::NONE
    };
    // 2025-11-23 is 364 days before 2026-11-22; 2025-11-22 is 365.
    for (viewer, candidate) in [(&a, &b), (&b, &a)] {
        assert_eq!(
            check_introduction(viewer, candidate, &kept("2025-11-23"), today()),
            Err(Refusal::FormerPair)
        );
        assert!(may_introduce(
            viewer,
            candidate,
            &kept("2025-11-22"),
            today()
        ));
    }
}

#[test]
fn packed_conditions_answer_like_the_condition_list() {
    let list = [
        Condition::Height(Bounds { from: 160, to: 180 }),
        Condition::Age(Bounds { from: 30, to: 35 }),
        Condition::Income(Bounds { from: 100, to: 0 }),
        Condition::Education {
            value: Education::Bachelor,
        },
        Condition::Drink {
            value: Drink::Socially,
        },
    ];
    let packed = PackedConditions::from_list(&list);
    for birthday in ["1994-05-20", "1990-01-01", "1996-11-23", "1996-11-22"] {
        let person = facts(birthday);
        assert_eq!(
            packed.admits(&person, today()),
            crate::conditions::satisfies(&person, &list, today()),
            "{birthday}"
        );
    }
}

fn score_of(viewer: MatchColumns, candidate: MatchColumns) -> u32 {
    score(
        &MatchProfile::new(viewer),
        &MatchProfile::new(candidate),
        &Relation::NONE,
        today(),
    )
}

#[test]
fn shared_hobbies_weigh_more_than_shared_pets() {
    let mut viewer = her();
    viewer.tags = TagSet::from_ids([301, 601]);
    let mut hobby = him();
    hobby.tags = TagSet::from_ids([301]);
    let mut pet = him();
    pet.tags = TagSet::from_ids([601]);
    assert!(score_of(viewer, hobby) > score_of(viewer, pet));
    let parts = score_parts(
        &MatchProfile::new(viewer),
        &MatchProfile::new(hobby),
        &Relation::NONE,
        today(),
    );
    assert_eq!(parts.tags, rules::SCORE.shared_hobby);
}

#[test]
fn the_middle_of_a_range_is_more_comfortable_than_its_edge() {
    let mut viewer = her();
    viewer.wants = PackedConditions::from_list(&[Condition::Height(Bounds { from: 160, to: 180 })]);
    let mut middle = him();
    middle.facts.height_cm = 170;
    let mut edge = him();
    edge.facts.height_cm = 180;
    let (middle, edge) = (score_of(viewer, middle), score_of(viewer, edge));
    assert_eq!(middle - edge, rules::SCORE.comfort_max / 2);
}

#[test]
fn someone_active_today_scores_more_than_someone_away_for_weeks() {
    let mut away = him();
    away.last_active = day("2026-11-01");
    let parts = score_parts(
        &MatchProfile::new(her()),
        &MatchProfile::new(away),
        &Relation::NONE,
        today(),
    );
    assert_eq!(parts.activity, 20);
    assert!(score_of(her(), him()) > score_of(her(), away));
}

#[test]
fn nearer_scores_more_by_band() {
    let mut near = him();
    near.home = north_of_taipei(2.0);
    let mut farther = him();
    farther.home = north_of_taipei(25.0);
    assert!(score_of(her(), near) > score_of(her(), farther));
}

#[test]
fn the_score_is_deterministic_but_not_symmetric() {
    let mut away = him();
    away.last_active = day("2026-10-01");
    assert_eq!(score_of(her(), away), score_of(her(), away));
    assert_ne!(score_of(her(), away), score_of(away, her()));
    let (a, b) = (MatchProfile::new(her()), MatchProfile::new(him()));
    let liked = Relation {
        candidate_liked: true,
        ..Relation::NONE
    };
    assert_eq!(
        score(&a, &b, &liked, today()) - score(&a, &b, &Relation::NONE, today()),
        rules::SCORE.liked_you
    );
}

#[test]
fn members_others_want_to_see_again_score_a_little_more_and_never_beyond_the_bound() {
    let viewer = MatchProfile::new(her());
    let plain = MatchProfile::new(him());
    let points = |wanted: u32| {
        score(
            &viewer,
            &plain.with_seen_again(wanted),
            &Relation::NONE,
            today(),
        ) - score(&viewer, &plain, &Relation::NONE, today())
    };
    assert_eq!(points(0), 0);
    assert_eq!(points(1), rules::SEEN_AGAIN_POINTS_EACH);
    assert_eq!(points(1_000), rules::SEEN_AGAIN_POINTS_MAX);
    // A better fit still wins: a shared hobby and fertility plan outweigh any number of "see
    // again".
    let mut mine = her();
    mine.tags = TagSet::from_ids([301, 502]);
    let mut fits = him();
    fits.tags = TagSet::from_ids([301, 502]);
    let mut other = him();
    other.tags = TagSet::from_ids([602]);
    let viewer = MatchProfile::new(mine);
    let popular = MatchProfile::new(other).with_seen_again(1_000);
    let (fits, popular) = (
        score(&viewer, &MatchProfile::new(fits), &Relation::NONE, today()),
        score(&viewer, &popular, &Relation::NONE, today()),
    );
    assert!(fits > popular, "{fits} > {popular}");
    // The weight is the candidate's alone: the viewer's own count changes nothing.
    assert_eq!(
        score(
            &plain.with_seen_again(9),
            &MatchProfile::new(her()),
            &Relation::NONE,
            today()
        ),
        score(&plain, &MatchProfile::new(her()), &Relation::NONE, today())
    );
}

#[test]
fn the_tie_break_is_stable_for_a_day_and_changes_across_days() {
    let monday = tie_break(today(), 1, 2);
    assert_eq!(monday, tie_break(today(), 1, 2));
    assert_ne!(monday, tie_break(day("2026-11-23"), 1, 2));
    assert_ne!(monday, tie_break(today(), 2, 1));
    let order = |on: Date| {
        let mut ranked: Vec<Ranked> = (10..20).map(|c| Ranked::new(on, 1, c, 500)).collect();
        ranked.sort();
        ranked.iter().map(|r| r.candidate).collect::<Vec<_>>()
    };
    assert_eq!(order(today()), order(today()));
    assert_ne!(order(today()), order(day("2026-11-23")));
}

#[test]
fn a_higher_score_always_ranks_before_any_tie_break() {
    let mut ranked = [
        Ranked {
            candidate: 1,
            score: 10,
            tie: 0,
        },
        Ranked {
            candidate: 2,
            score: 20,
            tie: u64::MAX,
        },
        Ranked {
            candidate: 3,
            score: 20,
            tie: 5,
        },
    ];
    ranked.sort();
    assert_eq!(ranked.map(|r| r.candidate), [3, 2, 1]);
}

#[test]
fn a_list_takes_five_and_skips_anyone_at_the_cap() {
    let mut counter = AppearanceCounter::from_counts([(11, rules::DAILY_APPEARANCE_CAP)]);
    let mut pick = DailyPick::new();
    pick.offer([10, 11, 12, 12, 13, 14, 15, 16], &mut counter);
    assert_eq!(pick.picks().as_slice(), [10, 12, 13, 14, 15]);
    assert!(pick.is_full());
    assert_eq!(counter.appearances(10), 1);
    assert_eq!(counter.appearances(11), rules::DAILY_APPEARANCE_CAP);
    assert_eq!(counter.appearances(16), 0);
    let mut again = DailyPick::new();
    again.offer([11], &mut counter);
    assert!(again.picks().is_empty());
}

#[test]
fn a_pick_offered_round_by_round_equals_the_pick_over_the_whole_ranking() {
    let (viewer, men) = nearest_first(200);
    let mut ranked = Vec::new();
    rank_nearest(&viewer, &men, [], |_| Relation::NONE, today(), &mut ranked);
    let full: Vec<u64> = ranked.iter().map(|r| r.candidate).take(40).collect();
    // Most of the best are at their cap: the list needs a second round.
    let capped = AppearanceCounter::from_counts(
        full.iter()
            .take(rules::PICK_ROUND + 2)
            .map(|id| (*id, rules::DAILY_APPEARANCE_CAP)),
    );
    let whole = DailyPick::from_ranking(&ranked, &mut capped.clone());
    let mut by_round = DailyPick::new();
    let mut counter = capped.clone();
    for round in DailyPick::rounds(&ranked) {
        if by_round.is_full() {
            break;
        }
        by_round.offer(round.iter().map(|r| r.candidate), &mut counter);
    }
    assert_eq!(whole.len(), rules::DAILY_NEW_INTRODUCTIONS);
    assert_eq!(by_round.picks(), &whole);
    assert_eq!(
        whole.as_slice(),
        &full[rules::PICK_ROUND + 2..rules::PICK_ROUND + 7]
    );
}

/// A member's list over `members` as the job makes it: the core's ranking, then the pick.
fn list_of(
    viewer: &MatchProfile,
    members: &[MatchProfile],
    relation_of: impl FnMut(u64) -> Relation,
    counter: &mut AppearanceCounter,
) -> Picks {
    let mut ranked = Vec::new();
    rank_nearest(viewer, members, [], relation_of, today(), &mut ranked);
    DailyPick::from_ranking(&ranked, counter)
}

/// 40 women and 10 men, all compatible: every woman's best candidates are the same men.
fn crowd() -> Vec<MatchProfile> {
    (0..50u64)
        .map(|id| {
            let mut member = if id < 40 { her() } else { him() };
            member.id = id;
            if id >= 40 {
                member.tags = TagSet::from_ids([101 + (id % 5) as u32, 301]);
            }
            MatchProfile::new(member)
        })
        .collect()
}

#[test]
fn nobody_appears_in_more_lists_than_the_cap() {
    let members = crowd();
    let mut counter = AppearanceCounter::new();
    // 10 men x a cap of 20 = 200 places for 40 lists of 5.
    for viewer in &members[..40] {
        let picks = list_of(viewer, &members, |_| Relation::NONE, &mut counter);
        if picks.len() < rules::DAILY_NEW_INTRODUCTIONS {
            // A short list only when every man left out is full.
            for man in &members[40..] {
                assert!(
                    picks.as_slice().contains(&man.id()) || !counter.has_room(man.id()),
                    "{} was left out of {}'s short list",
                    man.id(),
                    viewer.id()
                );
            }
        }
    }
    for man in &members[40..] {
        assert!(counter.appearances(man.id()) <= rules::DAILY_APPEARANCE_CAP);
    }
    let served: u32 = members[40..]
        .iter()
        .map(|m| counter.appearances(m.id()))
        .sum();
    assert!(served >= 190, "{served}");
}

/// 1 woman, then `men` compatible men (ids 1000..), every third one wanting men instead.
fn nearest_first(men: u64) -> (MatchProfile, Vec<MatchProfile>) {
    let viewer = MatchProfile::new(her());
    let candidates = (0..men)
        .map(|n| {
            let mut man = him();
            man.id = 1000 + n;
            man.tags = TagSet::from_ids([101 + (n % 5) as u32, 301]);
            if n % 3 == 2 {
                man.match_gender = MatchGender::Male;
            }
            MatchProfile::new(man)
        })
        .collect();
    (viewer, candidates)
}

#[test]
fn a_ranking_scores_only_the_nearest_window_of_eligible_candidates() {
    let (viewer, men) = nearest_first(600);
    let mut out = Vec::new();
    rank_nearest(&viewer, &men, [], |_| Relation::NONE, today(), &mut out);
    assert_eq!(out.len(), rules::CANDIDATE_WINDOW);
    let eligible: Vec<u64> = men
        .iter()
        .filter(|m| pair_allowed(&viewer, m, today()))
        .map(|m| m.id())
        .take(rules::CANDIDATE_WINDOW)
        .collect();
    let mut ids: Vec<u64> = out.iter().map(|r| r.candidate).collect();
    ids.sort_unstable();
    assert_eq!(
        ids, eligible,
        "the first eligible ones in the given order, no others"
    );
    assert!(out.windows(2).all(|w| w[0] <= w[1]), "sorted best first");
}

#[test]
fn refused_relations_do_not_use_up_the_window() {
    let (viewer, men) = nearest_first(1200);
    let blocked = |id: u64| Relation {
        blocked: id.is_multiple_of(2),
        ..Relation::NONE
    };
    let mut out = Vec::new();
    rank_nearest(&viewer, &men, [], blocked, today(), &mut out);
    assert_eq!(out.len(), rules::CANDIDATE_WINDOW);
    assert!(out.iter().all(|r| r.candidate % 2 == 1));
    assert!(
        out.iter().any(|r| r.candidate >= 1000 + 450),
        "scanned on past the refused"
    );
}

#[test]
fn someone_who_liked_the_viewer_is_ranked_beyond_the_window_and_only_once() {
    let (viewer, men) = nearest_first(900);
    let (near, far) = (&men[0], &men[898]);
    let liked = |id: u64| Relation {
        candidate_liked: id == near.id() || id == far.id(),
        ..Relation::NONE
    };
    let mut out = Vec::new();
    rank_nearest(&viewer, &men, [near, far], liked, today(), &mut out);
    assert_eq!(out.len(), rules::CANDIDATE_WINDOW + 1);
    for id in [near.id(), far.id()] {
        assert_eq!(out.iter().filter(|r| r.candidate == id).count(), 1);
    }
}

#[test]
fn a_ranking_of_fewer_candidates_than_the_window_takes_them_all_and_is_the_same_each_time() {
    let (viewer, men) = nearest_first(30);
    let rank = || {
        let mut out = Vec::new();
        rank_nearest(&viewer, &men, [], |_| Relation::NONE, today(), &mut out);
        out
    };
    assert_eq!(rank().len(), 20);
    assert_eq!(rank(), rank());
}

#[test]
fn a_list_asked_for_again_the_same_day_is_the_same() {
    let members = crowd();
    let list = || {
        list_of(
            &members[0],
            &members,
            |_| Relation::NONE,
            &mut AppearanceCounter::new(),
        )
    };
    let first = list();
    assert_eq!(first.len(), 5);
    assert_eq!(first, list());
    assert!(first.as_slice().iter().all(|id| *id >= 40));
}

#[test]
fn introductions_leave_out_refused_relations() {
    let members = crowd();
    let blocked_all_but_41 = |id: u64| Relation {
        blocked: id != 41,
        ..Relation::NONE
    };
    let picks = list_of(
        &members[0],
        &members,
        blocked_all_but_41,
        &mut AppearanceCounter::new(),
    );
    assert_eq!(picks.as_slice(), [41]);
}

fn valid_profile() -> ValidProfile {
    let payload = serde_json::json!({
        "account": "U4af4980629a1b2c3d4e5f60718293a4b",
        "password": "U4af4980629a1b2c3d4e5f60718293a4b",
        "nickname": "Mei", "name": "Lin Mei-Ling", "gender": "FEMALE", "matchGender": "MALE",
        "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Backend engineer",
        "achievement": "Led the payments migration", "height": 163, "incomeRange": "INCOME_100_150",
        "birthday": "1995-03-14", "school": "NTU", "education": "MASTER", "marriageRecord": 0,
        "hasChildren": 0, "smoke": 0, "tattoo": "NONE", "drink": 1,
        "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
        "personalityTagIds": [101, 104], "exerciseTagIds": [204], "hobbyTagIds": [301, 310],
        "marriageTypeTagIds": [402], "fertilityPlanTagIds": [502], "petTagIds": [602],
        "datingQuestion": "Favourite trail?", "dailyLife": "Code, climb, cook.",
        "city": "TPE", "address": "Da'an District", "latitude": 25.026, "longitude": 121.543,
        "recommendDistanceKm": 30, "feedback": "A friend told me", "mbti": "INTJ",
        "verifyMethod": "COMPANY_EMAIL", "companyEmail": "mei@tsmc.com",
        "verifyDescription": "Team lead",
        "photoNameList": ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"],
        "valueItem": [{"type": "HEIGHT", "from": 170, "to": 190}]
    });
    UserProfileCreate::from_json(payload)
        .unwrap()
        .parse(today())
        .unwrap()
}

#[test]
fn a_validated_profile_becomes_a_compact_member() {
    let profile = valid_profile();
    let member = MatchProfile::from_profile(
        7,
        &profile,
        ReviewStatus::Approved,
        today(),
        Workplace::default(),
    )
    .unwrap();
    assert_eq!(member.id(), 7);
    assert_eq!(member.recommend_distance_km(), 30);
    assert_eq!(member.tags().len(), 8);
    assert!(member.tags().contains(502) && !member.tags().contains(501));
    assert_eq!(member.wants().height, Range16 { from: 170, to: 190 });
    assert_eq!(
        member.home(),
        geo::snap(Coordinates {
            latitude: 25.026,
            longitude: 121.543
        })
    );
    let mut seat_only = profile.clone();
    seat_only.location = None;
    let member = MatchProfile::from_profile(
        7,
        &seat_only,
        ReviewStatus::Approved,
        today(),
        Workplace::default(),
    )
    .unwrap();
    assert_eq!(member.home(), geo::home_point(None, "TPE").unwrap());
}

#[test]
fn a_public_profile_shows_only_what_another_member_may_see() {
    let profile = valid_profile();
    let public = PublicProfile::new(
        &profile,
        ReviewStatus::Approved,
        today(),
        DistanceBand::From5To20Km,
    );
    assert_eq!(public.age, 31);
    assert!(public.verified_employer);
    assert_eq!(public.height, profile.height_cm);
    assert_eq!(public.education, profile.education);
    assert_eq!(public.marriage_record, profile.marriage_record);
    assert_eq!(public.has_children, profile.has_children);
    assert_eq!(public.smoke, profile.smoke);
    assert_eq!(public.drink, profile.drink);
    assert_eq!(public.tattoo, profile.tattoo);
    assert_eq!(public.mbti, Some(Mbti::Intj));
    let json = serde_json::to_value(&public).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(
        keys.iter().all(|key| PublicProfile::FIELDS.contains(key)),
        "{keys:?}"
    );
    assert_eq!(json["distanceBand"], "FROM_5_TO_20_KM");
    let text = json.to_string();
    for private in [
        "Lin Mei-Ling",
        "1995-03-14",
        "Da'an",
        "25.026",
        "121.543",
        "mei@tsmc.com",
        "tsmc",
        "INCOME_100_150",
        "Team lead",
        "COMPANY_EMAIL",
        "Led the payments",
        "A friend told me",
        "NTU",
    ] {
        assert!(!text.contains(private), "{private} leaked: {text}");
    }
}

#[test]
fn every_approved_member_carries_the_verified_badge_however_they_proved_their_work() {
    let mut profile = valid_profile();
    profile.verification.employer_id = None;
    let shown = |status| {
        PublicProfile::new(&profile, status, today(), DistanceBand::Under5Km).verified_employer
    };
    assert!(shown(ReviewStatus::Approved));
    for status in [
        ReviewStatus::Pending,
        ReviewStatus::Rejected,
        ReviewStatus::Suspended,
    ] {
        assert!(!shown(status), "{status:?}");
    }
}

#[test]
fn a_public_profile_never_reads_a_private_field_back_in() {
    let profile = valid_profile();
    let mut json = serde_json::to_value(PublicProfile::new(
        &profile,
        ReviewStatus::Approved,
        today(),
        DistanceBand::Under5Km,
    ))
    .unwrap();
    json["birthday"] = "1995-03-14".into();
    assert!(serde_json::from_value::<PublicProfile>(json).is_err());
}
