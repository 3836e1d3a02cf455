//! Matchmaking: who may be introduced to whom (the two-way rule), how well two people fit (the
//! score), the daily selection with its fairness cap, and what one member sees of another.
//!
//! Built for the server's daily job over every approved member, so the hot path is
//! allocation-free and branch-light: [`MatchProfile`] is a small `Copy` value holding everything
//! the rule and the score read (conditions packed into fixed fields, tags as a bitset, the home
//! cell as a unit vector, the radius as a squared chord), and [`check_pair`] is pure arithmetic
//! on two of them. The relations between two people (blocks, reports, likes, passes) live in the
//! server's tables; it looks them up only for pairs that pass [`check_pair`] and hands them over
//! as a [`Relation`].
#![warn(missing_docs)]

use crate::catalogue::{self, Tag};
use crate::choices::*;
use crate::conditions::{Condition, MatchFacts};
use crate::date::Date;
use crate::geo::{self, DistanceBand, GridPoint};
use crate::profile::ValidProfile;
use crate::review::ReviewStatus;
use crate::rules;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------------
// Tags as a bitset

const TAG_KIND_LENGTHS: [usize; 6] = [
    catalogue::TAGS.personality.len(),
    catalogue::TAGS.exercise.len(),
    catalogue::TAGS.hobby.len(),
    catalogue::TAGS.marriage_type.len(),
    catalogue::TAGS.fertility_plan.len(),
    catalogue::TAGS.pet.len(),
];

const TAG_COUNT: usize = {
    let [a, b, c, d, e, f] = TAG_KIND_LENGTHS;
    a + b + c + d + e + f
};

const _: () = assert!(
    TAG_COUNT <= 128,
    "TagSet holds 128 tags: widen it before the catalogue grows past that"
);

/// The bits of the kind at `index` in catalogue order.
const fn kind_mask(index: usize) -> u128 {
    let mut start = 0;
    let mut i = 0;
    while i < index {
        start += TAG_KIND_LENGTHS[i];
        i += 1;
    }
    let length = TAG_KIND_LENGTHS[index];
    if length == 0 {
        0
    } else {
        (u128::MAX >> (128 - length)) << start
    }
}

const PERSONALITY: u128 = kind_mask(0);
const EXERCISE: u128 = kind_mask(1);
const HOBBY: u128 = kind_mask(2);
const MARRIAGE_TYPE: u128 = kind_mask(3);
const FERTILITY_PLAN: u128 = kind_mask(4);
const PET: u128 = kind_mask(5);

fn catalogue_tags() -> impl Iterator<Item = &'static Tag> {
    let t = catalogue::tags();
    t.personality
        .iter()
        .chain(t.exercise)
        .chain(t.hobby)
        .chain(t.marriage_type)
        .chain(t.fertility_plan)
        .chain(t.pet)
}

/// A set of catalogue tags (every kind together) as a bitset: one AND and a popcount per kind
/// tell what two people share. Bit positions follow the compiled catalogue's order, so a set is
/// rebuilt from tag ids whenever it is loaded and never stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TagSet(u128);

impl TagSet {
    /// The set of these tag ids; ids that are not in the catalogue are left out (a validated
    /// profile holds none).
    pub fn from_ids(ids: impl IntoIterator<Item = u32>) -> TagSet {
        let mut bits = 0u128;
        for id in ids {
            if let Some(position) = catalogue_tags().position(|tag| tag.id == id) {
                bits |= 1 << position;
            }
        }
        TagSet(bits)
    }

    /// Every tag of a validated profile, all kinds together.
    pub fn of_profile(tags: &crate::profile::ProfileTags) -> TagSet {
        TagSet::from_ids(
            tags.personality
                .iter()
                .chain(&tags.exercise)
                .chain(&tags.hobby)
                .chain(&tags.marriage_type)
                .chain(std::iter::once(&tags.fertility_plan))
                .chain(&tags.pet)
                .copied(),
        )
    }

    /// Whether the set holds the tag with this id.
    pub fn contains(self, id: u32) -> bool {
        catalogue_tags()
            .position(|tag| tag.id == id)
            .is_some_and(|position| self.0 & (1 << position) != 0)
    }

    /// How many tags the set holds.
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    fn shared(self, other: TagSet, kind: u128) -> u32 {
        (self.0 & other.0 & kind).count_ones()
    }
}

// ---------------------------------------------------------------------------------------------
// Conditions in fixed fields

/// One range condition in 4 bytes: bounds as in [`crate::conditions::Bounds`], 0 being open, and
/// both 0 meaning no condition (a validated list never holds an empty range).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Range16 {
    /// The lower bound, 0 for none.
    pub from: u16,
    /// The upper bound, 0 for none.
    pub to: u16,
}

impl Range16 {
    /// Bounds beyond `u16` are clamped; validated bounds never exceed 10,000.
    pub fn new(from: u32, to: u32) -> Range16 {
        let clamp = |bound: u32| u16::try_from(bound).unwrap_or(u16::MAX);
        Range16 {
            from: clamp(from),
            to: clamp(to),
        }
    }

    /// Whether any bound is set.
    pub fn is_set(self) -> bool {
        self.from != 0 || self.to != 0
    }

    fn admits(self, value: u32) -> bool {
        (self.from == 0 || value >= u32::from(self.from))
            && (self.to == 0 || value <= u32::from(self.to))
    }

    /// How comfortably `value` sits inside, from 1000 (the middle of a two-sided range, or at
    /// least `width` past a one-sided bound) down to 0 at an edge or outside.
    fn comfort_permille(self, value: u32, width: u32) -> u32 {
        let (from, to) = (u32::from(self.from), u32::from(self.to));
        let above = value.saturating_sub(from);
        let below = to.saturating_sub(value);
        let outside = (from != 0 && value < from) || (to != 0 && value > to);
        if outside {
            return 0;
        }
        match (from != 0, to != 0) {
            (true, true) if to == from => 1000,
            (true, true) => (above.min(below) * 2000 / (to - from)).min(1000),
            (true, false) => (above * 1000 / width.max(1)).min(1000),
            (false, true) => (below * 1000 / width.max(1)).min(1000),
            (false, false) => 1000,
        }
    }
}

/// A condition list (`valueItem`) in fixed fields: at most one condition per kind, which is all a
/// validated list holds. The fields are public so the server can keep them as columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackedConditions {
    /// HEIGHT, in cm.
    pub height: Range16,
    /// AGE, in completed years on the day of matching.
    pub age: Range16,
    /// INCOME, in 10,000 TWD a year, against the lower bound of the person's income range.
    pub income: Range16,
    /// EDUCATION: at least this.
    pub education: Option<Education>,
    /// MARRIAGE_RECORD: exactly this.
    pub marriage_record: Option<MarriageRecord>,
    /// HAS_CHILDREN: exactly this.
    pub has_children: Option<HasChildren>,
    /// SMOKE: at most this.
    pub smoke: Option<Smoke>,
    /// TATTOO: at most this.
    pub tattoo: Option<Tattoo>,
    /// DRINK: at most this.
    pub drink: Option<Drink>,
}

impl PackedConditions {
    /// Packs a condition list; should a kind repeat (a validated list never does), the last one
    /// counts.
    pub fn from_list(conditions: &[Condition]) -> PackedConditions {
        let mut packed = PackedConditions::default();
        for condition in conditions {
            match *condition {
                Condition::Height(b) => packed.height = Range16::new(b.from, b.to),
                Condition::Age(b) => packed.age = Range16::new(b.from, b.to),
                Condition::Income(b) => packed.income = Range16::new(b.from, b.to),
                Condition::Education { value } => packed.education = Some(value),
                Condition::MarriageRecord { value } => packed.marriage_record = Some(value),
                Condition::HasChildren { value } => packed.has_children = Some(value),
                Condition::Smoke { value } => packed.smoke = Some(value),
                Condition::Tattoo { value } => packed.tattoo = Some(value),
                Condition::Drink { value } => packed.drink = Some(value),
            }
        }
        packed
    }

    /// Does a person meet every condition on `today`? The same answer as
    /// [`crate::conditions::satisfies`] gives for the unpacked list (a property test holds them
    /// together).
    pub fn admits(&self, person: &MatchFacts, today: Date) -> bool {
        let (lowest, highest) = self.lane_bounds();
        lanes_admit(&lowest, &highest, &fact_lanes(person))
            && age_admits(self.age, person.birthday, today)
    }

    /// The conditions other than age as the lowest and highest admitted value of each of the
    /// eight [`fact_lanes`]: one comparison per lane, no branch per kind.
    fn lane_bounds(&self) -> ([u8; 8], [u8; 8]) {
        let mut lowest = [0u8; 8];
        let mut highest = [u8::MAX; 8];
        let clamp = |bound: u16| u8::try_from(bound).unwrap_or(u8::MAX);
        if self.height.from != 0 {
            lowest[0] = clamp(self.height.from);
        }
        if self.height.to != 0 {
            highest[0] = clamp(self.height.to);
        }
        // Income conditions compare the lower bound of the person's range, which grows with the
        // range's position, so a bound becomes the first (or last) position it admits; a bound
        // that admits no position gets an empty lane.
        let position = |range: Option<usize>| range.map(|p| p as u8);
        let lower_bounds = || IncomeRange::ALL.iter().map(|range| range.lower_bound());
        if self.income.from != 0 {
            let from = u32::from(self.income.from);
            lowest[1] = position(lower_bounds().position(|lower| lower >= from)).unwrap_or(u8::MAX);
        }
        if self.income.to != 0 {
            let to = u32::from(self.income.to);
            match position(lower_bounds().rposition(|lower| lower <= to)) {
                Some(last) => highest[1] = last,
                None => (lowest[1], highest[1]) = (u8::MAX, 0),
            }
        }
        if let Some(least) = self.education {
            lowest[2] = least as u8;
        }
        if let Some(record) = self.marriage_record {
            (lowest[3], highest[3]) = (record as u8, record as u8);
        }
        if let Some(children) = self.has_children {
            (lowest[4], highest[4]) = (children as u8, children as u8);
        }
        if let Some(most) = self.smoke {
            highest[5] = most as u8;
        }
        if let Some(most) = self.tattoo {
            highest[6] = most as u8;
        }
        if let Some(most) = self.drink {
            highest[7] = most as u8;
        }
        (lowest, highest)
    }

    /// How comfortably a person meets the range conditions, 0 to 1000: the mean over the ranges
    /// that are set, 1000 when none is.
    fn comfort_permille(&self, height_cm: u32, age: u32, income: u32) -> u32 {
        let w = rules::SCORE;
        let mut total = 0;
        let mut count = 0;
        for (range, value, width) in [
            (self.height, height_cm, w.comfort_width_height_cm),
            (self.age, age, w.comfort_width_age_years),
            (self.income, income, w.comfort_width_income),
        ] {
            if range.is_set() {
                total += range.comfort_permille(value, width);
                count += 1;
            }
        }
        total.checked_div(count).unwrap_or(1000)
    }
}

/// A person's facts other than the birthday as eight byte lanes: height in cm (clamped to 255),
/// then the positions of income range, education, marriage record, children, smoke, tattoo and
/// drink in their ordered choices (declaration order, which is the order they compare in).
fn fact_lanes(person: &MatchFacts) -> [u8; 8] {
    [
        u8::try_from(person.height_cm).unwrap_or(u8::MAX),
        person.income_range as u8,
        person.education as u8,
        person.marriage_record as u8,
        person.has_children as u8,
        person.smoke as u8,
        person.tattoo as u8,
        person.drink as u8,
    ]
}

/// Every lane within its bounds; written without short-circuits so that it compiles to a few
/// vector instructions.
#[inline]
fn lanes_admit(lowest: &[u8; 8], highest: &[u8; 8], value: &[u8; 8]) -> bool {
    let mut inside = true;
    for lane in 0..8 {
        inside &= (lowest[lane] <= value[lane]) & (value[lane] <= highest[lane]);
    }
    inside
}

#[inline]
fn age_admits(range: Range16, birthday: Date, today: Date) -> bool {
    match birthday.age_on(today) {
        Some(age) => range.admits(u32::from(age)),
        None => !range.is_set(),
    }
}

// ---------------------------------------------------------------------------------------------
// The member as matching sees them

/// Whether someone who wants `match_gender` accepts a person of `gender`: ANY accepts everyone,
/// MALE and FEMALE only that gender.
pub fn accepts_gender(match_gender: MatchGender, gender: Gender) -> bool {
    match match_gender {
        MatchGender::Any => true,
        MatchGender::Male => gender == Gender::Male,
        MatchGender::Female => gender == Gender::Female,
    }
}

/// The plain values a [`MatchProfile`] is built from, as the server keeps them in columns: no JSON
/// and no catalogue look-up besides the tag ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchColumns {
    /// The server's member id (any stable number: it identifies the member in relations, lists
    /// and tie-breaks).
    pub id: u64,
    /// The review status; only APPROVED members are introduced.
    pub status: ReviewStatus,
    /// The member's gender.
    pub gender: Gender,
    /// Whom the member wants to meet.
    pub match_gender: MatchGender,
    /// What partner conditions are checked against.
    pub facts: MatchFacts,
    /// The member's own partner conditions.
    pub wants: PackedConditions,
    /// The snapped home cell ([`geo::home_point`]).
    pub home: GridPoint,
    /// `recommendDistanceKm`: 0 is anywhere.
    pub recommend_distance_km: u32,
    /// Every tag of the member.
    pub tags: TagSet,
    /// The Asia/Taipei day the member last used the app.
    pub last_active: Date,
    /// Where the member works as review confirmed it, and whether they asked never to meet
    /// colleagues.
    pub workplace: Workplace,
}

/// The employer on record of a member (confirmed by review) and their "never introduce me to
/// people of my employer" switch. Matching reads it only to keep colleagues apart; it is never
/// shown to anyone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Workplace {
    /// [`catalogue::employer_key`] of the employer on record, `0` while none is (a member with no
    /// employer on record has no colleagues).
    pub employer: u16,
    /// The member asked never to be introduced to people of their employer.
    pub hides_colleagues: bool,
}

impl Workplace {
    /// The workplace of an employer id on record (None or an id unknown to this build: none).
    pub fn of(employer_id: Option<&str>, hides_colleagues: bool) -> Workplace {
        Workplace {
            employer: employer_id.map_or(0, crate::catalogue::employer_key),
            hides_colleagues,
        }
    }
}

/// Whether two members are kept apart as colleagues: both have the same employer on record and
/// either of them asked never to meet colleagues. Symmetric, so neither learns who asked.
#[inline]
pub fn colleagues_kept_apart(a: Workplace, b: Workplace) -> bool {
    (a.employer != 0) & (a.employer == b.employer) & (a.hides_colleagues | b.hides_colleagues)
}

/// A member as matching sees them: `Copy`, 112 bytes, built once per load. Holds no name, text,
/// coordinates or anything else to show; the home is a grid cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchProfile {
    unit: [f64; 3],
    reach: f64,
    tags: TagSet,
    id: u64,
    /// The facts as [`fact_lanes`], and the conditions as lane bounds.
    lanes: [u8; 8],
    want_lowest: [u8; 8],
    want_highest: [u8; 8],
    birthday: Date,
    wants: PackedConditions,
    home: GridPoint,
    last_active: Date,
    radius_km: u16,
    workplace: Workplace,
    status: ReviewStatus,
    gender: Gender,
    match_gender: MatchGender,
    /// One bit for the member's gender.
    gender_bit: u8,
    /// The genders the member accepts as bits, or none while not APPROVED: one AND each way then
    /// covers both the status and the gender clauses.
    accepts: u8,
}

fn gender_bit(gender: Gender) -> u8 {
    match gender {
        Gender::Male => 1,
        Gender::Female => 2,
        Gender::NonBinary => 4,
    }
}

impl MatchProfile {
    /// Builds the compact form; computes the home cell's unit vector and the radius's squared
    /// chord once, so that [`check_pair`] needs no trigonometry. Radii beyond `u16` are clamped.
    pub fn new(columns: MatchColumns) -> MatchProfile {
        let radius_km = u16::try_from(columns.recommend_distance_km).unwrap_or(u16::MAX);
        let reach = if radius_km == 0 {
            f64::INFINITY
        } else {
            geo::chord_squared_of_km(f64::from(radius_km))
        };
        MatchProfile {
            unit: columns.home.unit_vector(),
            reach,
            tags: columns.tags,
            id: columns.id,
            lanes: fact_lanes(&columns.facts),
            want_lowest: columns.wants.lane_bounds().0,
            want_highest: columns.wants.lane_bounds().1,
            birthday: columns.facts.birthday,
            wants: columns.wants,
            home: columns.home,
            last_active: columns.last_active,
            radius_km,
            workplace: columns.workplace,
            status: columns.status,
            gender: columns.gender,
            match_gender: columns.match_gender,
            gender_bit: gender_bit(columns.gender),
            accepts: if columns.status == ReviewStatus::Approved {
                [Gender::Male, Gender::Female, Gender::NonBinary]
                    .into_iter()
                    .filter(|gender| accepts_gender(columns.match_gender, *gender))
                    .fold(0, |bits, gender| bits | gender_bit(gender))
            } else {
                0
            },
        }
    }

    /// The member of a validated profile; `None` only when its city is not in the catalogue and
    /// it has no coordinates (never for a profile this build parsed). The workplace is review's,
    /// not the form's: a work e-mail typed into the form is no employer on record.
    pub fn from_profile(
        id: u64,
        profile: &ValidProfile,
        status: ReviewStatus,
        last_active: Date,
        workplace: Workplace,
    ) -> Option<MatchProfile> {
        Some(MatchProfile::new(MatchColumns {
            id,
            status,
            gender: profile.gender,
            match_gender: profile.match_gender,
            facts: profile.facts(),
            wants: PackedConditions::from_list(&profile.conditions),
            home: geo::home_point(profile.location, &profile.city)?,
            recommend_distance_km: profile.recommend_distance_km,
            tags: TagSet::of_profile(&profile.tags),
            last_active,
            workplace,
        }))
    }

    /// The server's member id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The review status it was built with.
    pub fn status(&self) -> ReviewStatus {
        self.status
    }

    /// The member's gender.
    pub fn gender(&self) -> Gender {
        self.gender
    }

    /// Whom the member wants to meet (the server can keep one pool per gender).
    pub fn match_gender(&self) -> MatchGender {
        self.match_gender
    }

    /// The snapped home cell.
    pub fn home(&self) -> GridPoint {
        self.home
    }

    /// `recommendDistanceKm`, 0 for anywhere.
    pub fn recommend_distance_km(&self) -> u32 {
        u32::from(self.radius_km)
    }

    /// The member's tags.
    pub fn tags(&self) -> TagSet {
        self.tags
    }

    /// The day the member was last active.
    pub fn last_active(&self) -> Date {
        self.last_active
    }

    /// The employer on record and the colleagues switch.
    pub fn workplace(&self) -> Workplace {
        self.workplace
    }

    /// What partner conditions are checked against (heights beyond 255 cm read back as 255).
    pub fn facts(&self) -> MatchFacts {
        let [
            height,
            income,
            education,
            marriage,
            children,
            smoke,
            tattoo,
            drink,
        ] = self.lanes;
        MatchFacts {
            height_cm: u32::from(height),
            birthday: self.birthday,
            income_range: IncomeRange::ALL[usize::from(income)],
            education: Education::ALL[usize::from(education)],
            marriage_record: MarriageRecord::ALL[usize::from(marriage)],
            has_children: HasChildren::ALL[usize::from(children)],
            smoke: Smoke::ALL[usize::from(smoke)],
            tattoo: Tattoo::ALL[usize::from(tattoo)],
            drink: Drink::ALL[usize::from(drink)],
        }
    }

    /// Does this member meet `seeker`'s partner conditions on `today`?
    #[inline]
    fn meets(&self, seeker: &MatchProfile, today: Date) -> bool {
        lanes_admit(&seeker.want_lowest, &seeker.want_highest, &self.lanes)
            && age_admits(seeker.wants.age, self.birthday, today)
    }

    /// How comfortably this member sits inside `seeker`'s ranges, 0 to 1000.
    fn comfort_for(&self, seeker: &MatchProfile, today: Date) -> u32 {
        let age = self.birthday.age_on(today).map_or(0, u32::from);
        let income = IncomeRange::ALL[usize::from(self.lanes[1])].lower_bound();
        seeker
            .wants
            .comfort_permille(u32::from(self.lanes[0]), age, income)
    }

    /// The member's own partner conditions.
    pub fn wants(&self) -> &PackedConditions {
        &self.wants
    }

    /// The distance between two members' home cells, in km (for their band).
    pub fn distance_km(&self, other: &MatchProfile) -> f64 {
        geo::arc_km(geo::chord_squared(&self.unit, &other.unit))
    }

    /// The band another member is told.
    pub fn band(&self, other: &MatchProfile) -> DistanceBand {
        DistanceBand::of(self.distance_km(other))
    }
}

// ---------------------------------------------------------------------------------------------
// The two-way rule

/// Whose rule refused an introduction: the member whose list it is, or the person who would be
/// shown to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The member whose list is being made.
    Viewer,
    /// The person who would be introduced to them.
    Candidate,
}

impl Side {
    /// `VIEWER` or `CANDIDATE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Viewer => "VIEWER",
            Side::Candidate => "CANDIDATE",
        }
    }
}

/// The first reason two people may not be introduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// Nobody is introduced to themselves.
    Oneself,
    /// This side is not APPROVED (pending, rejected or suspended).
    NotApproved(Side),
    /// They work at the same employer and one of them asked never to meet colleagues (which one
    /// is not said: the rule is the same both ways).
    Colleagues,
    /// This side's `matchGender` does not accept the other's gender.
    GenderNotWanted(Side),
    /// The other lives beyond this side's `recommendDistanceKm`.
    TooFar(Side),
    /// The other does not meet this side's partner conditions.
    ConditionsNotMet(Side),
    /// One of them blocked the other.
    Blocked,
    /// One of them reported the other.
    Reported,
    /// They are or were matched (an unmatch does not make them strangers again).
    Matched,
    /// The viewer already liked the candidate.
    AlreadyLiked,
    /// The candidate is still in one of the viewer's earlier lists, waiting for a like or a pass.
    AlreadyIntroduced,
    /// One of them passed the other less than [`rules::PASS_COOLDOWN_DAYS`] days ago.
    PassedRecently,
}

impl Refusal {
    /// A stable SCREAMING_SNAKE code (without the side), for logs and vectors.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::Oneself => "ONESELF",
            Refusal::NotApproved(_) => "NOT_APPROVED",
            Refusal::Colleagues => "COLLEAGUES",
            Refusal::GenderNotWanted(_) => "GENDER_NOT_WANTED",
            Refusal::TooFar(_) => "TOO_FAR",
            Refusal::ConditionsNotMet(_) => "CONDITIONS_NOT_MET",
            Refusal::Blocked => "BLOCKED",
            Refusal::Reported => "REPORTED",
            Refusal::Matched => "MATCHED",
            Refusal::AlreadyLiked => "ALREADY_LIKED",
            Refusal::AlreadyIntroduced => "ALREADY_INTRODUCED",
            Refusal::PassedRecently => "PASSED_RECENTLY",
        }
    }

    /// Whose rule refused, for the clauses that belong to one side.
    pub fn side(self) -> Option<Side> {
        match self {
            Refusal::NotApproved(side)
            | Refusal::GenderNotWanted(side)
            | Refusal::TooFar(side)
            | Refusal::ConditionsNotMet(side) => Some(side),
            _ => None,
        }
    }
}

/// What the server's tables say about two people, from the viewer's side. Everything but the
/// likes is symmetric: a block, report, match or pass by either one counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relation {
    /// Either one blocked the other.
    pub blocked: bool,
    /// Either one reported the other.
    pub reported: bool,
    /// They are or were matched.
    pub matched: bool,
    /// The viewer liked the candidate.
    pub viewer_liked: bool,
    /// The candidate liked the viewer: no obstacle, a bonus in the score.
    pub candidate_liked: bool,
    /// The candidate is in one of the viewer's earlier lists without a like or a pass yet.
    pub pending_introduction: bool,
    /// The Asia/Taipei day of the latest pass between them, either way.
    pub last_pass: Option<Date>,
}

impl Relation {
    /// Strangers: no relation at all.
    pub const NONE: Relation = Relation {
        blocked: false,
        reported: false,
        matched: false,
        viewer_liked: false,
        candidate_liked: false,
        pending_introduction: false,
        last_pass: None,
    };

    /// The relation's part of the rule. A pass on day D keeps them apart through D + 29.
    pub fn check(&self, today: Date) -> Result<(), Refusal> {
        if self.blocked {
            Err(Refusal::Blocked)
        } else if self.reported {
            Err(Refusal::Reported)
        } else if self.matched {
            Err(Refusal::Matched)
        } else if self.viewer_liked {
            Err(Refusal::AlreadyLiked)
        } else if self.pending_introduction {
            Err(Refusal::AlreadyIntroduced)
        } else if self
            .last_pass
            .is_some_and(|day| today.days_since(day) < rules::PASS_COOLDOWN_DAYS)
        {
            Err(Refusal::PassedRecently)
        } else {
            Ok(())
        }
    }
}

/// The profiles' part of the two-way rule: not oneself; both APPROVED; not colleagues kept apart
/// ([`colleagues_kept_apart`]); each one's `matchGender`
/// accepts the other's gender; their home cells within both radii (0 = anywhere); each one's
/// partner conditions met by the other on `today`. Allocation-free; checks the cheapest clauses
/// first and answers the first that fails, the viewer's side before the candidate's.
pub fn check_pair(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    today: Date,
) -> Result<(), Refusal> {
    if pair_allowed(viewer, candidate, today) {
        Ok(())
    } else {
        first_refusal(viewer, candidate, today)
    }
}

/// [`check_pair`] as a yes or no, for the hot loop: the cheap clauses are combined without
/// branches (random candidates make every branch a coin toss), the conditions only then.
#[inline]
pub fn pair_allowed(viewer: &MatchProfile, candidate: &MatchProfile, today: Date) -> bool {
    let chord_squared = geo::chord_squared(&viewer.unit, &candidate.unit);
    let cheap = (viewer.id != candidate.id)
        & (viewer.accepts & candidate.gender_bit != 0)
        & (candidate.accepts & viewer.gender_bit != 0)
        & !colleagues_kept_apart(viewer.workplace, candidate.workplace)
        & (chord_squared <= viewer.reach)
        & (chord_squared <= candidate.reach);
    cheap && candidate.meets(viewer, today) && viewer.meets(candidate, today)
}

/// The clauses of [`check_pair`] one by one, in order, to name the first that fails.
fn first_refusal(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    today: Date,
) -> Result<(), Refusal> {
    if viewer.id == candidate.id {
        return Err(Refusal::Oneself);
    }
    for (side, member) in [(Side::Viewer, viewer), (Side::Candidate, candidate)] {
        if member.status != ReviewStatus::Approved {
            return Err(Refusal::NotApproved(side));
        }
    }
    if colleagues_kept_apart(viewer.workplace, candidate.workplace) {
        return Err(Refusal::Colleagues);
    }
    if !accepts_gender(viewer.match_gender, candidate.gender) {
        return Err(Refusal::GenderNotWanted(Side::Viewer));
    }
    if !accepts_gender(candidate.match_gender, viewer.gender) {
        return Err(Refusal::GenderNotWanted(Side::Candidate));
    }
    let chord_squared = geo::chord_squared(&viewer.unit, &candidate.unit);
    if chord_squared > viewer.reach {
        return Err(Refusal::TooFar(Side::Viewer));
    }
    if chord_squared > candidate.reach {
        return Err(Refusal::TooFar(Side::Candidate));
    }
    if !candidate.meets(viewer, today) {
        return Err(Refusal::ConditionsNotMet(Side::Viewer));
    }
    if !viewer.meets(candidate, today) {
        return Err(Refusal::ConditionsNotMet(Side::Candidate));
    }
    Ok(())
}

/// The whole rule: [`check_pair`], then the [`Relation`]. The server can run [`check_pair`] first
/// over many candidates and look relations up only for those that pass.
pub fn check_introduction(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> Result<(), Refusal> {
    check_pair(viewer, candidate, today)?;
    relation.check(today)
}

/// May `candidate` be introduced to `viewer` today?
pub fn may_introduce(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> bool {
    pair_allowed(viewer, candidate, today) && relation.check(today).is_ok()
}

// ---------------------------------------------------------------------------------------------
// The score

/// The parts of a compatibility score, each documented at [`rules::ScoreWeights`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoreParts {
    /// Shared tags, weighted per kind, capped at `tags_max`.
    pub tags: u32,
    /// How comfortably each meets the other's ranges, up to `comfort_max`.
    pub comfort: u32,
    /// How recently the candidate was active.
    pub activity: u32,
    /// How near they live, by band.
    pub distance: u32,
    /// The candidate already liked the viewer.
    pub liked_you: u32,
}

impl ScoreParts {
    /// The score: the sum of the parts.
    pub fn total(self) -> u32 {
        self.tags + self.comfort + self.activity + self.distance + self.liked_you
    }
}

/// The parts of [`score`].
pub fn score_parts(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> ScoreParts {
    let w = rules::SCORE;
    let (a, b) = (viewer.tags, candidate.tags);
    let tags = w.shared_hobby * a.shared(b, HOBBY)
        + w.shared_exercise * a.shared(b, EXERCISE)
        + w.shared_personality * a.shared(b, PERSONALITY)
        + w.shared_marriage_type * a.shared(b, MARRIAGE_TYPE)
        + w.same_fertility_plan * a.shared(b, FERTILITY_PLAN)
        + w.shared_pet * a.shared(b, PET);
    let comfort = w.comfort_max / 2 * candidate.comfort_for(viewer, today) / 1000
        + w.comfort_max / 2 * viewer.comfort_for(candidate, today) / 1000;
    let idle_days = u32::try_from(today.days_since(candidate.last_active)).unwrap_or(0);
    let activity = w
        .activity
        .iter()
        .find(|(most_days, _)| idle_days <= *most_days)
        .map_or(0, |(_, points)| *points);
    ScoreParts {
        tags: tags.min(w.tags_max),
        comfort,
        activity,
        distance: w.distance[viewer.band(candidate).index()],
        liked_you: if relation.candidate_liked {
            w.liked_you
        } else {
            0
        },
    }
}

/// How well `candidate` fits `viewer`, higher is better: shared tags (hobbies weigh most), how
/// comfortably each sits inside the other's ranges, the candidate's recent activity, the distance
/// band, and a bonus when the candidate already liked the viewer. Deterministic integer
/// arithmetic. Not symmetric: activity and the like bonus are the candidate's; the rest is.
pub fn score(
    viewer: &MatchProfile,
    candidate: &MatchProfile,
    relation: &Relation,
    today: Date,
) -> u32 {
    score_parts(viewer, candidate, relation, today).total()
}

// ---------------------------------------------------------------------------------------------
// Ranking, the daily selection and its fairness cap

/// splitmix64's finaliser: a fixed, well-mixing permutation of 64-bit values.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The tie-break between equal scores: a hash of (day, viewer, candidate). The same for the
/// whole day (asking again gives the same list), different across days and viewers (equal
/// candidates take turns). Lower goes first.
pub fn tie_break(day: Date, viewer: u64, candidate: u64) -> u64 {
    // The day number as two's complement: days before 1970 hash as well as later ones.
    let day = u64::from(day.days_since_epoch().cast_unsigned());
    mix(mix(mix(day) ^ viewer) ^ candidate)
}

/// The order in which the daily job should serve members (ascending): a different order every
/// day, so nobody is always served last when popular candidates reach their cap.
pub fn job_order_key(day: Date, member: u64) -> u64 {
    mix(mix(u64::from(day.days_since_epoch().cast_unsigned()) ^ 0x6a6f_625f_6f72_6465) ^ member)
}

/// A scored candidate. Sorting ascending puts the best first: higher score, then lower tie-break,
/// then lower id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranked {
    /// The candidate's member id.
    pub candidate: u64,
    /// Their [`score`].
    pub score: u32,
    /// Their [`tie_break`] for this viewer and day.
    pub tie: u64,
}

impl Ranked {
    /// Ranks a candidate of `viewer` on `day`.
    pub fn new(day: Date, viewer: u64, candidate: u64, score: u32) -> Ranked {
        Ranked {
            candidate,
            score,
            tie: tie_break(day, viewer, candidate),
        }
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Ranked) -> Ordering {
        other
            .score
            .cmp(&self.score)
            .then(self.tie.cmp(&other.tie))
            .then(self.candidate.cmp(&other.candidate))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// How many of today's lists each member already appears in. The daily job keeps one for the
/// whole run; an on-demand list starts from today's counts in the database.
#[derive(Clone, Debug, Default)]
pub struct AppearanceCounter {
    counts: HashMap<u64, u32>,
}

impl AppearanceCounter {
    /// Nobody appears anywhere yet.
    pub fn new() -> AppearanceCounter {
        AppearanceCounter::default()
    }

    /// Starts from known counts `(member id, lists today)`.
    pub fn from_counts(counts: impl IntoIterator<Item = (u64, u32)>) -> AppearanceCounter {
        AppearanceCounter {
            counts: counts.into_iter().collect(),
        }
    }

    /// The lists `member` appears in today.
    pub fn appearances(&self, member: u64) -> u32 {
        self.counts.get(&member).copied().unwrap_or(0)
    }

    /// Whether `member` may appear in one more list today ([`rules::DAILY_APPEARANCE_CAP`]).
    pub fn has_room(&self, member: u64) -> bool {
        self.appearances(member) < rules::DAILY_APPEARANCE_CAP
    }

    /// Counts one more list for `member`.
    pub fn record(&mut self, member: u64) {
        *self.counts.entry(member).or_insert(0) += 1;
    }
}

/// A member's new introductions of the day: at most [`rules::DAILY_NEW_INTRODUCTIONS`] ids, best
/// first, with no allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Picks {
    ids: [u64; rules::DAILY_NEW_INTRODUCTIONS],
    len: usize,
}

impl Picks {
    /// The picked member ids, best first.
    pub fn as_slice(&self) -> &[u64] {
        &self.ids[..self.len]
    }

    /// How many were picked.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nobody was picked.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn is_full(&self) -> bool {
        self.len == self.ids.len()
    }

    /// Takes `candidate` if there is room in the list and in the candidate's cap.
    fn offer(&mut self, candidate: u64, counter: &mut AppearanceCounter) {
        if !self.is_full() && !self.as_slice().contains(&candidate) && counter.has_room(candidate) {
            self.ids[self.len] = candidate;
            self.len += 1;
            counter.record(candidate);
        }
    }
}

/// One member's pick of the day: candidates are offered in rank order (best first), a round of
/// [`rules::PICK_ROUND`] at a time, until the list holds [`rules::DAILY_NEW_INTRODUCTIONS`]. The
/// daily job offers every round of its ranking straight away; a list made on demand first drops
/// from each round whoever the database says may no longer be introduced (its pool may be a
/// little stale) and takes the round's appearance counts from the database. Either way this is the
/// one place candidates are taken, so both pick alike on the same state.
#[derive(Clone, Debug, Default)]
pub struct DailyPick {
    picks: Picks,
}

impl DailyPick {
    /// An empty list.
    pub fn new() -> DailyPick {
        DailyPick::default()
    }

    /// The rounds of a ranking (best first), in the order they are offered.
    pub fn rounds(ranked: &[Ranked]) -> impl Iterator<Item = &[Ranked]> {
        ranked.chunks(rules::PICK_ROUND)
    }

    /// Whether the list is full (no further round is needed).
    pub fn is_full(&self) -> bool {
        self.picks.is_full()
    }

    /// Offers one round's candidates, best first: each is taken while the list has room, unless
    /// already taken or in [`rules::DAILY_APPEARANCE_CAP`] lists today; every pick is recorded in
    /// `counter`.
    pub fn offer(
        &mut self,
        candidates: impl IntoIterator<Item = u64>,
        counter: &mut AppearanceCounter,
    ) {
        for candidate in candidates {
            if self.picks.is_full() {
                break;
            }
            self.picks.offer(candidate, counter);
        }
    }

    /// The picks, in the order taken.
    pub fn picks(&self) -> &Picks {
        &self.picks
    }

    /// The whole pick over a ranking whose candidates all may still be introduced (the daily
    /// job's case): every round offered until the list is full.
    pub fn from_ranking(ranked: &[Ranked], counter: &mut AppearanceCounter) -> Picks {
        let mut pick = DailyPick::new();
        for round in DailyPick::rounds(ranked) {
            if pick.is_full() {
                break;
            }
            pick.offer(round.iter().map(|r| r.candidate), counter);
        }
        pick.picks
    }
}

/// One member's ranking, as the server computes it at any scale: `nearest` yields candidates
/// nearest first (the server's spatial index walks rings of growing distance); the first
/// [`rules::CANDIDATE_WINDOW`] that pass the two-way rule and their [`Relation`] are scored and
/// the scan stops there. `liked_viewer` are the candidates who already liked the viewer: ranked
/// too wherever they live, since a like back makes a match. `out` ends sorted best first, each
/// candidate once. Given the same candidates in the same order (the same pool, day and
/// relations), the same ranking: the daily job and a list made on demand pick from it alike.
pub fn rank_nearest<'p>(
    viewer: &MatchProfile,
    nearest: impl IntoIterator<Item = &'p MatchProfile>,
    liked_viewer: impl IntoIterator<Item = &'p MatchProfile>,
    mut relation_of: impl FnMut(u64) -> Relation,
    today: Date,
    out: &mut Vec<Ranked>,
) {
    out.clear();
    let mut consider = |candidate: &MatchProfile, out: &mut Vec<Ranked>| {
        if pair_allowed(viewer, candidate, today) {
            let relation = relation_of(candidate.id);
            if relation.check(today).is_ok() {
                let points = score(viewer, candidate, &relation, today);
                out.push(Ranked::new(today, viewer.id, candidate.id, points));
            }
        }
    };
    for candidate in nearest {
        consider(candidate, out);
        if out.len() == rules::CANDIDATE_WINDOW {
            break;
        }
    }
    for candidate in liked_viewer {
        consider(candidate, out);
    }
    out.sort_unstable();
    // A candidate met both ways ranks the same both times: equal neighbours after the sort.
    out.dedup();
}

// ---------------------------------------------------------------------------------------------
// What a member sees of another

/// Everything one member is shown of another, and by construction nothing else: no name,
/// birthday, address, coordinates, e-mail, income, employer name or verification can be put in
/// it. Serialised in camelCase; the photos are file names for the server's image proxy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublicProfile {
    /// The nickname.
    pub nickname: String,
    /// Age in completed years on the day shown (never the birthday).
    pub age: u16,
    /// City code of the catalogue.
    pub city: String,
    /// How far the member is (never a finer distance).
    pub distance_band: DistanceBand,
    /// Occupation type.
    pub occupation_type: OccupationType,
    /// Job title (the `occupation` field).
    pub occupation: String,
    /// A reviewer checked the member's proof of employment and approved them (every APPROVED
    /// member, however they proved it; the employer's name and the proof stay private).
    pub verified_employer: bool,
    /// Height in centimetres.
    pub height: u32,
    /// Highest completed education.
    pub education: Education,
    /// Marital history.
    pub marriage_record: MarriageRecord,
    /// Children, and whether they live with the member (the plans are `fertility_plan_tag_ids`).
    pub has_children: HasChildren,
    /// Smoking.
    pub smoke: Smoke,
    /// Drinking.
    pub drink: Drink,
    /// Tattoo visibility.
    pub tattoo: Tattoo,
    /// Myers–Briggs type, if the member shares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbti: Option<Mbti>,
    /// Personality tag ids.
    pub personality_tag_ids: Vec<u32>,
    /// Exercise tag ids.
    pub exercise_tag_ids: Vec<u32>,
    /// Hobby tag ids.
    pub hobby_tag_ids: Vec<u32>,
    /// Marriage-type tag ids.
    pub marriage_type_tag_ids: Vec<u32>,
    /// The fertility plan tag id (one).
    pub fertility_plan_tag_ids: Vec<u32>,
    /// Pet tag ids.
    pub pet_tag_ids: Vec<u32>,
    /// About me.
    pub about_me: String,
    /// Q&A: what the member would like to be asked on a date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dating_question: Option<String>,
    /// Q&A: the member's daily life.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_life: Option<String>,
    /// Q&A: something surprising about the member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surprise_point: Option<String>,
    /// Photo file names, in the member's order.
    pub photo_name_list: Vec<String>,
}

impl PublicProfile {
    /// Every wire field a public profile can carry.
    pub const FIELDS: [&'static str; 26] = [
        "nickname",
        "age",
        "city",
        "distanceBand",
        "occupationType",
        "occupation",
        "verifiedEmployer",
        "height",
        "education",
        "marriageRecord",
        "hasChildren",
        "smoke",
        "drink",
        "tattoo",
        "mbti",
        "personalityTagIds",
        "exerciseTagIds",
        "hobbyTagIds",
        "marriageTypeTagIds",
        "fertilityPlanTagIds",
        "petTagIds",
        "aboutMe",
        "datingQuestion",
        "dailyLife",
        "surprisePoint",
        "photoNameList",
    ];

    /// What another member sees of `profile`, whose review stands at `status`, on `today`,
    /// `band` away ([`MatchProfile::band`] or [`DistanceBand::between`]).
    pub fn new(
        profile: &ValidProfile,
        status: ReviewStatus,
        today: Date,
        band: DistanceBand,
    ) -> PublicProfile {
        PublicProfile {
            nickname: profile.nickname.clone(),
            age: profile.birthday.age_on(today).unwrap_or(0),
            city: profile.city.clone(),
            distance_band: band,
            occupation_type: profile.occupation_type,
            occupation: profile.occupation.clone(),
            verified_employer: status == ReviewStatus::Approved,
            height: profile.height_cm,
            education: profile.education,
            marriage_record: profile.marriage_record,
            has_children: profile.has_children,
            smoke: profile.smoke,
            drink: profile.drink,
            tattoo: profile.tattoo,
            mbti: profile.mbti,
            personality_tag_ids: profile.tags.personality.clone(),
            exercise_tag_ids: profile.tags.exercise.clone(),
            hobby_tag_ids: profile.tags.hobby.clone(),
            marriage_type_tag_ids: profile.tags.marriage_type.clone(),
            fertility_plan_tag_ids: vec![profile.tags.fertility_plan],
            pet_tag_ids: profile.tags.pet.clone(),
            about_me: profile.about_me.clone(),
            dating_question: profile.dating_question.clone(),
            daily_life: profile.daily_life.clone(),
            surprise_point: profile.surprise_point.clone(),
            photo_name_list: profile.photos.iter().map(|f| f.to_string()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        picky.wants =
            PackedConditions::from_list(&[Condition::Height(Bounds { from: 175, to: 0 })]);
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
        viewer.wants =
            PackedConditions::from_list(&[Condition::Height(Bounds { from: 160, to: 180 })]);
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
}
