//! The approved members in memory, grouped by (gender, wanted gender) and indexed by place: a
//! pure index over the core's profiles (the cache that keeps one per process and follows the
//! changes is `super::cache`).

use std::collections::HashSet;

use kizuna_core::{
    Gender, MatchGender,
    date::Date,
    geo::GridPoint,
    matching::{self, MatchProfile},
    rules,
};
const GENDERS: [Gender; 3] = [Gender::Male, Gender::Female, Gender::NonBinary];
const WANTS: [MatchGender; 3] = [MatchGender::Male, MatchGender::Female, MatchGender::Any];

/// Grid cells per side of a bucket of the spatial index: buckets of about 4 km x 4 km.
const BUCKET_CELLS: i32 = 4;

fn group_of(gender: Gender, wants: MatchGender) -> usize {
    let g = GENDERS.iter().position(|x| *x == gender).unwrap_or(0);
    let w = WANTS.iter().position(|x| *x == wants).unwrap_or(0);
    g * WANTS.len() + w
}

/// The bucket of a home cell: rows of the grid, and columns of 1/111 degree of longitude
/// (the grid's own columns narrow with latitude, so their indices drift apart between rows;
/// plain degrees keep a bucket's neighbours its neighbours on the map).
fn bucket_of(home: GridPoint) -> (i32, i32) {
    let x = (home.centre().longitude * rules::GRID_STEPS_PER_DEGREE).floor() as i32;
    (
        home.row().div_euclid(BUCKET_CELLS),
        x.div_euclid(BUCKET_CELLS),
    )
}

/// The bucket offset of position `k` (0..8r) on the square ring `r` buckets away.
fn ring_step(r: i32, k: i32) -> (i32, i32) {
    let side = 2 * r;
    match k / side {
        0 => (-r, -r + k),
        1 => (-r + (k - side), r),
        2 => (r, r - (k - 2 * side)),
        _ => (r - (k - 3 * side), -r),
    }
}

/// The position `k` of the offset `(dr, dc)` on its ring (the inverse of [`ring_step`]).
fn ring_index(r: i32, dr: i32, dc: i32) -> i32 {
    let side = 2 * r;
    if dr == -r && dc < r {
        dc + r
    } else if dc == r && dr < r {
        side + dr + r
    } else if dr == r && dc > -r {
        2 * side + r - dc
    } else {
        3 * side + r - dr
    }
}

/// One (gender, wanted gender) group: its members sorted by bucket then id, and the buckets by
/// row then column, with each bucket row's span for a direct look-up.
#[derive(Default)]
struct Group {
    start: usize,
    /// (bucket column, first member, end) per bucket, bucket rows one after another.
    buckets: Vec<(i32, u32, u32)>,
    /// Per bucket row from `first_row`: its span in `buckets`.
    rows: Vec<(u32, u32)>,
    first_row: i32,
    cols: (i32, i32),
}

impl Group {
    fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    /// The members of a bucket, as a range of the pool.
    fn bucket(&self, row: i32, col: i32) -> Option<std::ops::Range<usize>> {
        let index = usize::try_from(row - self.first_row).ok()?;
        let (from, to) = *self.rows.get(index)?;
        let row = &self.buckets[from as usize..to as usize];
        let at = row.binary_search_by_key(&col, |b| b.0).ok()?;
        let (_, first, end) = row[at];
        Some(self.start + first as usize..self.start + end as usize)
    }

    /// The farthest ring from `(row, col)` that still holds a bucket of this group.
    fn last_ring(&self, (row, col): (i32, i32)) -> i32 {
        let last_row = self.first_row + self.rows.len() as i32 - 1;
        [
            row - self.first_row,
            last_row - row,
            col - self.cols.0,
            self.cols.1 - col,
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
        .max(0)
    }
}

/// Every APPROVED member as the core's compact profile, in nine (gender, wanted gender) groups
/// so that a viewer scans only the groups whose gender they want and who want theirs; each
/// group indexed by buckets of about 4 km so that a viewer's candidates come nearest first,
/// ring after ring of buckets, and the scan stops after [`rules::CANDIDATE_WINDOW`] eligible
/// ones (or at the radius). Deterministic: the order depends only on the pool, the viewer and
/// the day.
pub struct Pool {
    members: Vec<MatchProfile>,
    groups: [Group; 9],
    /// (member id, index in `members`), by id.
    by_id: Vec<(u64, u32)>,
}

impl Pool {
    pub fn new(members: Vec<MatchProfile>) -> Pool {
        let mut keyed: Vec<(usize, (i32, i32), MatchProfile)> = members
            .into_iter()
            .map(|m| {
                (
                    group_of(m.gender(), m.match_gender()),
                    bucket_of(m.home()),
                    m,
                )
            })
            .collect();
        keyed.sort_unstable_by_key(|(group, bucket, m)| (*group, *bucket, m.id()));
        let mut groups: [Group; 9] = Default::default();
        let mut at = 0;
        for (index, group) in groups.iter_mut().enumerate() {
            group.start = at;
            let members = keyed[at..].partition_point(|(g, _, _)| *g == index);
            let slice = &keyed[at..at + members];
            let mut i = 0;
            while i < slice.len() {
                let bucket = slice[i].1;
                let end = i + slice[i..].partition_point(|(_, b, _)| *b == bucket);
                group.buckets.push((bucket.1, i as u32, end as u32));
                i = end;
            }
            if let (Some(first), Some(last)) = (slice.first(), slice.last()) {
                group.first_row = first.1.0;
                let mut rows = vec![(0u32, 0u32); (last.1.0 - first.1.0 + 1) as usize];
                let mut cols = (i32::MAX, i32::MIN);
                let mut b = 0;
                for (r, span) in rows.iter_mut().enumerate() {
                    let row = group.first_row + r as i32;
                    let from = b;
                    while b < group.buckets.len() && slice[group.buckets[b].1 as usize].1.0 == row {
                        cols = (
                            cols.0.min(group.buckets[b].0),
                            cols.1.max(group.buckets[b].0),
                        );
                        b += 1;
                    }
                    *span = (from as u32, b as u32);
                }
                group.rows = rows;
                group.cols = cols;
            }
            at += members;
        }
        let members: Vec<MatchProfile> = keyed.into_iter().map(|(_, _, m)| m).collect();
        let mut by_id: Vec<(u64, u32)> = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id(), i as u32))
            .collect();
        by_id.sort_unstable();
        Pool {
            members,
            groups,
            by_id,
        }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn members(&self) -> &[MatchProfile] {
        &self.members
    }

    /// The member with this id, if APPROVED when the pool was loaded.
    pub fn get(&self, id: u64) -> Option<&MatchProfile> {
        let at = self.by_id.binary_search_by_key(&id, |(id, _)| *id).ok()?;
        Some(&self.members[self.by_id[at].1 as usize])
    }

    /// The members of the groups that could match `viewer` both ways, nearest first: rings of
    /// buckets around the viewer's, out to their radius (or the farthest member when they take
    /// anyone). Within a ring the walk starts at a place of its own per (day, viewer), and so
    /// within a bucket: members in the same ring are about as near, and each viewer meets a
    /// different part of a crowded bucket first. The core checks every clause of each.
    ///
    /// Ring `R` holds 8R bucket positions, so walking out to a lone far member (anyone on Earth
    /// for radius 0: thousands of rings) would visit millions of empty positions. The walk goes
    /// ring by ring only while the positions seen stay within the number of occupied buckets of
    /// the groups; past that it sorts those occupied buckets by (ring, place in the walk) and
    /// goes through them: the same order, at a cost bounded by the occupied buckets.
    pub fn nearest<'a>(
        &'a self,
        viewer: &MatchProfile,
        day: Date,
    ) -> impl Iterator<Item = &'a MatchProfile> + 'a {
        self.walk(viewer, day, None)
    }

    /// [`Pool::nearest`], counting the bucket positions it looks at in `visits` (tests).
    fn walk<'a>(
        &'a self,
        viewer: &MatchProfile,
        day: Date,
        visits: Option<&'a std::cell::Cell<usize>>,
    ) -> impl Iterator<Item = &'a MatchProfile> + 'a {
        let (my_gender, my_wants) = (viewer.gender(), viewer.match_gender());
        // At most six groups accept the viewer back; an array of them is `Copy` for the closures.
        let mut groups: [Option<&Group>; 9] = [None; 9];
        for (index, (g, w)) in GENDERS
            .iter()
            .flat_map(|g| WANTS.iter().map(move |w| (*g, *w)))
            .enumerate()
        {
            let group = &self.groups[index];
            if matching::accepts_gender(my_wants, g)
                && matching::accepts_gender(w, my_gender)
                && !group.is_empty()
            {
                groups[index] = Some(group);
            }
        }
        let home = viewer.home();
        let centre = bucket_of(home);
        let farthest = groups
            .iter()
            .flatten()
            .map(|g| g.last_ring(centre))
            .max()
            .unwrap_or(0);
        let last_ring = match viewer.recommend_distance_km() {
            0 => farthest,
            km => farthest.min(radius_rings(home, km)),
        };
        // Rings 0..=R hold (2R + 1)^2 positions: walk them only while that is no more than the
        // occupied buckets.
        let occupied: usize = groups.iter().flatten().map(|g| g.buckets.len()).sum();
        let walked_rings = ((((occupied as f64).sqrt() - 1.0) / 2.0).floor() as i32)
            .max(0)
            .min(last_ring);
        let id = viewer.id();
        let seed = matching::tie_break(day, id, u64::MAX);
        let offset_of = move |r: i32| (seed % (8 * r) as u64) as i32;
        let count = move |n: usize| {
            if let Some(visits) = visits {
                visits.set(visits.get() + n);
            }
        };
        let bucket_members = move |row: i32, col: i32, range: std::ops::Range<usize>| {
            let members = &self.members[range];
            let key = ((row as u32 as u64) << 32) | col as u32 as u64;
            let turn = (matching::tie_break(day, id, key) % members.len() as u64) as usize;
            members[turn..].iter().chain(members[..turn].iter())
        };
        let rings = (0..=walked_rings).flat_map(move |r| {
            let (positions, offset) = if r == 0 {
                (1, 0)
            } else {
                (8 * r, offset_of(r))
            };
            (0..positions).flat_map(move |k| {
                count(1);
                let (dr, dc) = if r == 0 {
                    (0, 0)
                } else {
                    ring_step(r, (k + offset) % positions)
                };
                let (row, col) = (centre.0 + dr, centre.1 + dc);
                groups
                    .into_iter()
                    .flatten()
                    .filter_map(move |g| g.bucket(row, col))
                    .flat_map(move |range| bucket_members(row, col, range))
            })
        });
        // Built only when the walk gets this far (a full window usually stops it long before).
        let beyond = std::iter::once(()).flat_map(move |()| {
            let mut far: Vec<(i32, i32, usize, i32, i32, std::ops::Range<usize>)> = Vec::new();
            for (index, group) in groups.iter().enumerate() {
                let Some(group) = group.filter(|_| walked_rings < last_ring) else {
                    continue;
                };
                count(group.buckets.len());
                for (at, (from, to)) in group.rows.iter().enumerate() {
                    let row = group.first_row + at as i32;
                    for &(col, first, end) in &group.buckets[*from as usize..*to as usize] {
                        let (dr, dc) = (row - centre.0, col - centre.1);
                        let r = dr.abs().max(dc.abs());
                        if r <= walked_rings || r > last_ring {
                            continue;
                        }
                        // The place the ring walk would reach this bucket at.
                        let k = ring_index(r, dr, dc);
                        let place = (k - offset_of(r)).rem_euclid(8 * r);
                        let range = group.start + first as usize..group.start + end as usize;
                        far.push((r, place, index, row, col, range));
                    }
                }
            }

            far.sort_unstable_by_key(|b| (b.0, b.1, b.2));
            far.into_iter()
                .flat_map(move |(_, _, _, row, col, range)| bucket_members(row, col, range))
        });
        rings.chain(beyond)
    }

    /// This pool with the `changed` members as they are now: those in `now` (still in the pool)
    /// take their old entry's place or join, every other changed id leaves. The same pool as
    /// [`Pool::new`] makes of the same members (the order depends only on them).
    pub fn with_changes(&self, changed: &HashSet<u64>, now: Vec<MatchProfile>) -> Pool {
        let mut members: Vec<MatchProfile> = self
            .members
            .iter()
            .filter(|m| !changed.contains(&m.id()))
            .copied()
            .collect();
        members.extend(now.into_iter().filter(|m| changed.contains(&m.id())));
        Pool::new(members)
    }

    /// Bytes the pool takes: the profiles and the index.
    pub fn bytes(&self) -> usize {
        self.members.capacity() * std::mem::size_of::<MatchProfile>()
            + self
                .groups
                .iter()
                .map(|g| g.buckets.capacity() * 12 + g.rows.capacity() * 8)
                .sum::<usize>()
            + self.by_id.capacity() * std::mem::size_of::<(u64, u32)>()
    }
}

/// Rings of buckets that can hold someone within `km` of `home`: rows are 1 km of latitude,
/// bucket columns 1/111 degree of longitude, which is narrower by cos(latitude) (taken at the
/// farthest latitude the radius reaches), plus a bucket of slack for where in its bucket each
/// one sits.
fn radius_rings(home: GridPoint, km: u32) -> i32 {
    let km = f64::from(km);
    let latitude = home.centre().latitude.abs() + km / 111.0 + 1.0;
    let narrowing = latitude.min(89.0).to_radians().cos().max(0.01);
    let cells = (km + 2.0) / narrowing;
    (cells / f64::from(BUCKET_CELLS)).ceil() as i32 + 1
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use kizuna_core::{
        Drink, Education, HasChildren, IncomeRange, MarriageRecord, Smoke, Tattoo,
        conditions::MatchFacts,
        geo,
        matching::{MatchColumns, PackedConditions, Relation, TagSet},
        profile::Coordinates,
        review::ReviewStatus,
    };

    use super::*;

    fn today() -> Date {
        Date::parse("2026-11-23").unwrap()
    }

    fn member(
        id: u64,
        gender: Gender,
        wants: MatchGender,
        at: (f64, f64),
        km: u32,
    ) -> MatchProfile {
        MatchProfile::new(MatchColumns {
            id,
            status: ReviewStatus::Approved,
            gender,
            match_gender: wants,
            facts: MatchFacts {
                height_cm: 170,
                birthday: Date::parse("1994-05-20").unwrap(),
                income_range: IncomeRange::From100To150,
                education: Education::Master,
                marriage_record: MarriageRecord::NeverMarried,
                has_children: HasChildren::No,
                smoke: Smoke::Never,
                tattoo: Tattoo::None,
                drink: Drink::Socially,
            },
            wants: PackedConditions::default(),
            home: geo::snap(Coordinates {
                latitude: at.0,
                longitude: at.1,
            }),
            recommend_distance_km: km,
            tags: TagSet::default(),
            last_active: today(),
            workplace: Default::default(),
        })
    }

    #[test]
    fn a_pool_with_changes_is_the_pool_of_the_members_as_they_are_now() {
        let taipei = (25.03, 121.56);
        let before: Vec<MatchProfile> = (1..=40)
            .map(|id| {
                let gender = if id % 2 == 0 {
                    Gender::Male
                } else {
                    Gender::Female
                };
                let at = (taipei.0 + id as f64 * 0.01, taipei.1 - id as f64 * 0.01);
                member(id, gender, MatchGender::Any, at, 30)
            })
            .collect();
        let pool = Pool::new(before.clone());
        // 3 leaves (suspended), 4 moves to Tainan, 99 joins (approved), 5 is announced unchanged.
        let moved = member(4, Gender::Male, MatchGender::Any, (22.99, 120.21), 30);
        let joined = member(99, Gender::NonBinary, MatchGender::Any, taipei, 0);
        let unchanged = before[4];
        let changed: HashSet<u64> = [3, 4, 5, 99].into();
        let updated = pool.with_changes(&changed, vec![moved, joined, unchanged]);

        let mut expected: Vec<MatchProfile> = before
            .into_iter()
            .filter(|m| m.id() != 3 && m.id() != 4)
            .collect();
        expected.extend([moved, joined]);
        let rebuilt = Pool::new(expected);
        assert_eq!(updated.members(), rebuilt.members());
        assert!(updated.get(3).is_none());
        assert_eq!(updated.get(4), Some(&moved));
        assert_eq!(updated.get(99), Some(&joined));
        let viewer = member(1000, Gender::Male, MatchGender::Any, taipei, 0);
        let walk = |p: &Pool| {
            p.nearest(&viewer, today())
                .map(|m| m.id())
                .collect::<Vec<_>>()
        };
        assert_eq!(walk(&updated), walk(&rebuilt));
        // A profile offered for an id nobody announced is not let in.
        let stray = member(500, Gender::Male, MatchGender::Any, taipei, 0);
        assert!(pool.with_changes(&changed, vec![stray]).get(500).is_none());
    }

    /// The walk before the bound: every position of every ring out to the last.
    fn full_ring_walk(pool: &Pool, viewer: &MatchProfile, day: Date) -> Vec<u64> {
        let mut ids = Vec::new();
        let home = viewer.home();
        let centre = bucket_of(home);
        let seed = matching::tie_break(day, viewer.id(), u64::MAX);
        let mut groups = Vec::new();
        for (index, (g, w)) in GENDERS
            .iter()
            .flat_map(|g| WANTS.iter().map(move |w| (*g, *w)))
            .enumerate()
        {
            if matching::accepts_gender(viewer.match_gender(), g)
                && matching::accepts_gender(w, viewer.gender())
                && !pool.groups[index].is_empty()
            {
                groups.push(&pool.groups[index]);
            }
        }
        let farthest = groups
            .iter()
            .map(|g| g.last_ring(centre))
            .max()
            .unwrap_or(0);
        let last = match viewer.recommend_distance_km() {
            0 => farthest,
            km => farthest.min(radius_rings(home, km)),
        };
        for r in 0..=last {
            let (positions, offset) = if r == 0 {
                (1, 0)
            } else {
                (8 * r, (seed % (8 * r) as u64) as i32)
            };
            for k in 0..positions {
                let (dr, dc) = if r == 0 {
                    (0, 0)
                } else {
                    ring_step(r, (k + offset) % positions)
                };
                let (row, col) = (centre.0 + dr, centre.1 + dc);
                for g in &groups {
                    if let Some(range) = g.bucket(row, col) {
                        let members = &pool.members[range];
                        let key = ((row as u32 as u64) << 32) | col as u32 as u64;
                        let turn = (matching::tie_break(day, viewer.id(), key)
                            % members.len() as u64) as usize;
                        ids.extend(
                            members[turn..]
                                .iter()
                                .chain(&members[..turn])
                                .map(|m| m.id()),
                        );
                    }
                }
            }
        }
        ids
    }

    #[test]
    fn ring_index_inverts_ring_step() {
        for r in 1..6 {
            for k in 0..8 * r {
                let (dr, dc) = ring_step(r, k);
                assert_eq!(dr.abs().max(dc.abs()), r);
                assert_eq!(ring_index(r, dr, dc), k, "r {r} k {k}");
            }
        }
    }

    #[test]
    fn the_bounded_walk_keeps_the_ring_walks_order() {
        // Members scattered over a few degrees around Taiwan, all genders, several per bucket in
        // places: most buckets lie beyond the rings the walk goes through one by one.
        let mut members = Vec::new();
        let mut x: u64 = 7;
        for id in 1..=400u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let lat = 22.0 + (x >> 40) as f64 / (1u64 << 24) as f64 * 4.0;
            let lon = 119.5 + (x & 0xffffff) as f64 / (1u64 << 24) as f64 * 3.0;
            let (lat, lon) = if id % 5 == 0 {
                (25.03, 121.56)
            } else {
                (lat, lon)
            };
            let gender = GENDERS[(id % 3) as usize];
            let wants = WANTS[(id / 3 % 3) as usize];
            members.push(member(
                id,
                gender,
                wants,
                (lat, lon),
                [0, 30, 100, 300][(id % 4) as usize],
            ));
        }
        let pool = Pool::new(members.clone());
        for viewer in members.iter().step_by(7) {
            for day in ["2026-11-23", "2026-11-24"] {
                let day = Date::parse(day).unwrap();
                let walked: Vec<u64> = pool.nearest(viewer, day).map(|m| m.id()).collect();
                assert_eq!(
                    walked,
                    full_ring_walk(&pool, viewer, day),
                    "viewer {}",
                    viewer.id()
                );
            }
        }
    }

    #[test]
    fn one_far_member_costs_buckets_not_rings() {
        let taipei = (25.03, 121.56);
        let mut members = vec![
            member(1, Gender::Male, MatchGender::Female, taipei, 0),
            member(2, Gender::Male, MatchGender::Female, (25.05, 121.6), 0),
            member(3, Gender::Male, MatchGender::Female, (24.15, 120.67), 0),
            member(4, Gender::Male, MatchGender::Female, (22.63, 120.3), 0),
            // Los Angeles, and the antipode of Taipei.
            member(5, Gender::Male, MatchGender::Female, (34.05, -118.24), 0),
            member(6, Gender::Male, MatchGender::Female, (-25.03, -58.44), 0),
        ];
        let viewer = member(100, Gender::Female, MatchGender::Male, taipei, 0);
        members.push(viewer);
        let pool = Pool::new(members);
        let visits = Cell::new(0);
        let walked: Vec<u64> = pool
            .walk(&viewer, today(), Some(&visits))
            .map(|m| m.id())
            .collect();
        // Nearest first in ring order: Taiwan, then the far two by ring (the ring distance counts
        // degrees of longitude without wrapping: the antipode's ring is nearer than LA's).
        let mut taiwan = walked[..4].to_vec();
        taiwan.sort();
        assert_eq!(taiwan, vec![1, 2, 3, 4]);
        assert_eq!(walked[4..], [6, 5]);
        assert!(visits.get() <= 20, "{} bucket positions", visits.get());

        let mut ranked = Vec::new();
        matching::rank_nearest(
            &viewer,
            pool.nearest(&viewer, today()),
            [],
            |_| Relation::NONE,
            today(),
            &mut ranked,
        );
        let ranked: Vec<u64> = ranked.iter().map(|r| r.candidate).collect();
        assert!(ranked.contains(&5) && ranked.contains(&6), "{ranked:?}");
    }
}
