//! A quick look at the cost of the matching hot path, not a test: builds synthetic members spread
//! over Taiwan's city seats and times `check_pair`, `score` and one member's `introductions`.
//!
//! `cargo run --release -p kizuna-core --example match_bench [members]` (or `just bench-core`).

use kizuna_core::catalogue;
use kizuna_core::conditions::{Bounds, Condition, MatchFacts};
use kizuna_core::date::Date;
use kizuna_core::geo;
use kizuna_core::matching::{
    self, AppearanceCounter, MatchColumns, MatchProfile, PackedConditions, Relation, TagSet,
};
use kizuna_core::profile::Coordinates;
use kizuna_core::review::ReviewStatus;
use kizuna_core::{
    Drink, Education, Gender, HasChildren, IncomeRange, MarriageRecord, MatchGender, Smoke, Tattoo,
};
use std::hint::black_box;

/// CPU time of this thread in seconds (Linux's schedstat), so that other processes on a busy
/// machine do not inflate the figures; wall-clock time where it is unavailable.
struct Clock {
    wall: std::time::Instant,
    cpu: Option<u64>,
}

fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: std::time::Instant::now(),
            cpu: thread_cpu_ns(),
        }
    }

    fn seconds(&self) -> f64 {
        match (self.cpu, thread_cpu_ns()) {
            (Some(start), Some(now)) => (now - start) as f64 / 1e9,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

/// splitmix64: a deterministic stream, so every run measures the same members.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn member(id: u64, s: &mut Stream, today: Date) -> MatchProfile {
    let female = s.below(2) == 0;
    let cities = catalogue::cities();
    // Most people live in the big six cities, as real sign-ups would.
    let city = if s.below(10) < 8 {
        &cities[s.below(6)]
    } else {
        &cities[s.below(cities.len())]
    };
    let at = Coordinates {
        latitude: city.latitude + (s.unit() - 0.5) * 0.3,
        longitude: city.longitude + (s.unit() - 0.5) * 0.3,
    };
    let year = 1975 + s.below(30) as u16;
    let mut wants = Vec::new();
    if s.below(2) == 0 {
        let from = 25 + s.below(10) as u32;
        wants.push(Condition::Age(Bounds {
            from,
            to: from + 5 + s.below(10) as u32,
        }));
    }
    if s.below(3) == 0 {
        wants.push(Condition::Height(Bounds {
            from: if female { 168 } else { 150 },
            to: 0,
        }));
    }
    if s.below(4) == 0 {
        wants.push(Condition::Education {
            value: Education::Bachelor,
        });
    }
    if s.below(4) == 0 {
        wants.push(Condition::Smoke { value: Smoke::Quit });
    }
    let t = catalogue::tags();
    let mut tag = |list: &[catalogue::Tag]| list[s.below(list.len())].id;
    let tags = [
        tag(t.personality),
        tag(t.personality),
        tag(t.hobby),
        tag(t.hobby),
        tag(t.hobby),
        tag(t.exercise),
        tag(t.fertility_plan),
    ];
    MatchProfile::new(MatchColumns {
        id,
        status: ReviewStatus::Approved,
        gender: if female { Gender::Female } else { Gender::Male },
        match_gender: if female {
            MatchGender::Male
        } else {
            MatchGender::Female
        },
        facts: MatchFacts {
            height_cm: if female { 150 } else { 163 } + s.below(25) as u32,
            birthday: Date::from_ymd(year, 1 + s.below(12) as u8, 1 + s.below(28) as u8).unwrap(),
            income_range: s.pick(IncomeRange::ALL),
            education: s.pick(Education::ALL),
            marriage_record: s.pick(&[MarriageRecord::NeverMarried; 1]),
            has_children: s.pick(&[HasChildren::No; 1]),
            smoke: s.pick(Smoke::ALL),
            tattoo: s.pick(Tattoo::ALL),
            drink: s.pick(Drink::ALL),
        },
        wants: PackedConditions::from_list(&wants),
        home: geo::snap(at),
        recommend_distance_km: s.pick(&[0, 10, 30, 50, 100, 300]),
        tags: TagSet::from_ids(tags),
        last_active: Date::from_days_since_epoch(
            i64::from(today.days_since_epoch()) - s.below(40) as i64,
        )
        .unwrap(),
        workplace: Default::default(),
    })
}

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let today = Date::parse("2026-11-22").unwrap();
    let mut stream = Stream(42);
    let members: Vec<MatchProfile> = (0..count as u64)
        .map(|id| member(id, &mut stream, today))
        .collect();
    println!(
        "MatchProfile: {} bytes, align {}; {count} members",
        std::mem::size_of::<MatchProfile>(),
        std::mem::align_of::<MatchProfile>()
    );

    // The server keeps one pool per gender and scans only the pool a viewer wants; the
    // two-way rule then still checks everything else.
    let pool_of = |wanted: MatchGender| -> Vec<MatchProfile> {
        members
            .iter()
            .filter(|m| matching::accepts_gender(wanted, m.gender()))
            .copied()
            .collect()
    };
    let (men, women) = (pool_of(MatchGender::Male), pool_of(MatchGender::Female));
    let pool = |viewer: &MatchProfile| match viewer.match_gender() {
        MatchGender::Male => &men,
        _ => &women,
    };
    let viewers = &members[..count.min(2_000)];
    let pairs: usize = viewers.iter().map(|v| pool(v).len()).sum();
    let pairs = pairs as f64;

    let started = Clock::start();
    let mut allowed = 0u64;
    for viewer in viewers {
        for candidate in pool(viewer) {
            allowed += u64::from(matching::may_introduce(
                black_box(viewer),
                black_box(candidate),
                &Relation::NONE,
                today,
            ));
        }
    }
    let elapsed = started.seconds();
    println!(
        "may_introduce: {:.2} ns per pair over {pairs:.0} pairs of the wanted gender, {:.2}% allowed",
        elapsed * 1e9 / pairs,
        100.0 * allowed as f64 / pairs
    );

    let started = Clock::start();
    let mut passed = 0u64;
    for viewer in viewers {
        for candidate in pool(viewer) {
            passed += u64::from(
                matching::check_pair(black_box(viewer), black_box(candidate), today).is_ok(),
            );
        }
    }
    let elapsed = started.seconds();
    println!(
        "check_pair (naming the first failing clause): {:.2} ns per pair ({passed} pass)",
        elapsed * 1e9 / pairs
    );

    let eligible: Vec<(&MatchProfile, &MatchProfile)> = viewers
        .iter()
        .flat_map(|v| pool(v).iter().map(move |c| (v, c)))
        .filter(|(v, c)| matching::pair_allowed(v, c, today))
        .take(2_000_000)
        .collect();
    let started = Clock::start();
    let mut total = 0u64;
    for (viewer, candidate) in &eligible {
        total += u64::from(matching::score(
            black_box(viewer),
            black_box(candidate),
            &Relation::NONE,
            today,
        ));
    }
    let elapsed = started.seconds();
    println!(
        "score: {:.2} ns per allowed pair over {} pairs (mean score {})",
        elapsed * 1e9 / eligible.len().max(1) as f64,
        eligible.len(),
        total / eligible.len().max(1) as u64
    );

    let mut counter = AppearanceCounter::new();
    let mut scratch = Vec::new();
    let mut order: Vec<&MatchProfile> = members.iter().collect();
    order.sort_by_key(|m| matching::job_order_key(today, m.id()));
    let served = order.len().min(2_000);
    let mut scanned = 0;
    let started = Clock::start();
    let mut introduced = 0;
    for viewer in &order[..served] {
        // As the job does: the ranking stops once its window of eligible candidates is full.
        let mut seen = 0;
        matching::rank_nearest(
            viewer,
            pool(viewer).iter().inspect(|_| seen += 1),
            [],
            |_| Relation::NONE,
            today,
            &mut scratch,
        );
        scanned += seen;
        let picks = matching::DailyPick::from_ranking(&scratch, &mut counter);
        introduced += picks.len();
    }
    let seconds = started.seconds();
    let per_candidate = seconds / scanned as f64;
    println!(
        "introductions: {:.3} ms per member, {:.2} ns per candidate scanned ({introduced} picks for {served} members)",
        seconds * 1e3 / served as f64,
        per_candidate * 1e9
    );
    println!(
        "=> a daily job scanning P candidates per member costs {:.0} core-seconds per 1,000,000 members per 1,000 candidates",
        per_candidate * 1e6 * 1e3
    );
}
