//! Ranking, the daily selection and its fairness cap.

#[allow(unused_imports)]
use super::*;

/// splitmix64's finaliser: a fixed, well-mixing permutation of 64-bit values.
pub(super) fn mix(mut z: u64) -> u64 {
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
    pub(super) counts: HashMap<u64, u32>,
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
    pub(super) ids: [u64; rules::DAILY_NEW_INTRODUCTIONS],
    pub(super) len: usize,
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

    pub(super) fn is_full(&self) -> bool {
        self.len == self.ids.len()
    }

    /// Takes `candidate` if there is room in the list and in the candidate's cap.
    pub(super) fn offer(&mut self, candidate: u64, counter: &mut AppearanceCounter) {
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
    pub(super) picks: Picks,
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
