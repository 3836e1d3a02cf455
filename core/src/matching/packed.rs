//! The member as matching reads them: tags as a bitset, partner conditions in fixed fields, and
//! the compact [`MatchProfile`] with the standing and workplace the rule reads.

#[allow(unused_imports)]
use super::*;

pub(super) const TAG_KIND_LENGTHS: [usize; 6] = [
    catalogue::TAGS.personality.len(),
    catalogue::TAGS.exercise.len(),
    catalogue::TAGS.hobby.len(),
    catalogue::TAGS.marriage_type.len(),
    catalogue::TAGS.fertility_plan.len(),
    catalogue::TAGS.pet.len(),
];

pub(super) const TAG_COUNT: usize = {
    let [a, b, c, d, e, f] = TAG_KIND_LENGTHS;
    a + b + c + d + e + f
};

const _: () = assert!(
    TAG_COUNT <= 128,
    "TagSet holds 128 tags: widen it before the catalogue grows past that"
);

/// The bits of the kind at `index` in catalogue order.
pub(super) const fn kind_mask(index: usize) -> u128 {
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

pub(super) const PERSONALITY: u128 = kind_mask(0);
pub(super) const EXERCISE: u128 = kind_mask(1);
pub(super) const HOBBY: u128 = kind_mask(2);
pub(super) const MARRIAGE_TYPE: u128 = kind_mask(3);
pub(super) const FERTILITY_PLAN: u128 = kind_mask(4);
pub(super) const PET: u128 = kind_mask(5);

pub(super) fn catalogue_tags() -> impl Iterator<Item = &'static Tag> {
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

    pub(super) fn shared(self, other: TagSet, kind: u128) -> u32 {
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

    pub(super) fn admits(self, value: u32) -> bool {
        (self.from == 0 || value >= u32::from(self.from))
            && (self.to == 0 || value <= u32::from(self.to))
    }

    /// How comfortably `value` sits inside, from 1000 (the middle of a two-sided range, or at
    /// least `width` past a one-sided bound) down to 0 at an edge or outside.
    pub(super) fn comfort_permille(self, value: u32, width: u32) -> u32 {
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
    pub(super) fn lane_bounds(&self) -> ([u8; 8], [u8; 8]) {
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
    pub(super) fn comfort_permille(&self, height_cm: u32, age: u32, income: u32) -> u32 {
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
pub(super) fn fact_lanes(person: &MatchFacts) -> [u8; 8] {
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
pub(super) fn lanes_admit(lowest: &[u8; 8], highest: &[u8; 8], value: &[u8; 8]) -> bool {
    let mut inside = true;
    for lane in 0..8 {
        inside &= (lowest[lane] <= value[lane]) & (value[lane] <= highest[lane]);
    }
    inside
}

#[inline]
pub(super) fn age_admits(range: Range16, birthday: Date, today: Date) -> bool {
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

/// Where a member stands for matchmaking as the tables say it now: their review status, whether
/// they take a break, and their workplace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolStanding {
    /// The profile's review status.
    pub status: ReviewStatus,
    /// The member takes a break from matchmaking.
    pub paused: bool,
    /// Their employer on record and colleagues switch.
    pub workplace: Workplace,
}

impl PoolStanding {
    /// Takes part in matchmaking: APPROVED and not taking a break. The server's pool query
    /// filters the same way first, only so as to read fewer rows.
    pub fn takes_part(&self) -> bool {
        self.status == ReviewStatus::Approved && !self.paused
    }
}

/// May `candidate` be picked today for a viewer whose workplace is `mine`: they take part in
/// matchmaking and the two are not colleagues kept apart. Picks are checked against the
/// database with this just before they are stored, so a stale pool never introduces anyone.
pub fn may_be_picked(mine: Workplace, candidate: &PoolStanding) -> bool {
    candidate.takes_part() && !colleagues_kept_apart(mine, candidate.workplace)
}

/// A member as matching sees them: `Copy`, 112 bytes, built once per load. Holds no name, text,
/// coordinates or anything else to show; the home is a grid cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchProfile {
    pub(super) unit: [f64; 3],
    pub(super) reach: f64,
    pub(super) tags: TagSet,
    pub(super) id: u64,
    /// The facts as [`fact_lanes`], and the conditions as lane bounds.
    pub(super) lanes: [u8; 8],
    pub(super) want_lowest: [u8; 8],
    pub(super) want_highest: [u8; 8],
    pub(super) birthday: Date,
    pub(super) wants: PackedConditions,
    pub(super) home: GridPoint,
    pub(super) last_active: Date,
    pub(super) radius_km: u16,
    pub(super) workplace: Workplace,
    pub(super) status: ReviewStatus,
    pub(super) gender: Gender,
    pub(super) match_gender: MatchGender,
    /// One bit for the member's gender.
    pub(super) gender_bit: u8,
    /// The genders the member accepts as bits, or none while not APPROVED: one AND each way then
    /// covers both the status and the gender clauses.
    pub(super) accepts: u8,
    /// How many members met this one and would like to see them again (saturating), for
    /// [`crate::met::seen_again_points`].
    pub(super) seen_again: u8,
}

pub(super) fn gender_bit(gender: Gender) -> u8 {
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
            seen_again: 0,
        }
    }

    /// The same member, whom `members` others met and would like to see again (the server
    /// counts them from the "We met" answers when it loads the pool).
    pub fn with_seen_again(mut self, members: u32) -> MatchProfile {
        self.seen_again = u8::try_from(members).unwrap_or(u8::MAX);
        self
    }

    /// How many members met this one and would like to see them again (at most 255).
    pub fn seen_again(&self) -> u32 {
        u32::from(self.seen_again)
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
    pub(super) fn meets(&self, seeker: &MatchProfile, today: Date) -> bool {
        lanes_admit(&seeker.want_lowest, &seeker.want_highest, &self.lanes)
            && age_admits(seeker.wants.age, self.birthday, today)
    }

    /// How comfortably this member sits inside `seeker`'s ranges, 0 to 1000.
    pub(super) fn comfort_for(&self, seeker: &MatchProfile, today: Date) -> u32 {
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
