//! Reused photos: whether two photos' perceptual hashes resemble each other. The server hashes
//! every upload where it decodes it (64 bits of the image, of its mirror image, and of nine
//! regions of it, `region_offsets`); this is only the comparison, with its thresholds
//! `rules::PHOTO_RESEMBLANCE_MAX_BITS` and `rules::PHOTO_REGION_RESEMBLANCE_MAX_BITS`.
//!
//! A whole-image hash survives recompression, resizing and (through the mirror hash) a mirror,
//! but a crop of a tenth from one corner moves most of its bits. So each photo also carries the
//! hashes of regions of itself as big as such a crop: a new photo cropped out of a stored one
//! hashes like one of the stored photo's regions, and a stored photo cropped out of the new one
//! like one of the new photo's.

use crate::rules::{
    PHOTO_REGION_CUT, PHOTO_REGION_RESEMBLANCE_MAX_BITS, PHOTO_REGION_SHARES,
    PHOTO_RESEMBLANCE_MAX_BITS,
};

/// How many regions of a photo are hashed besides the whole image.
pub const PHOTO_REGIONS: usize = PHOTO_REGION_SHARES.len() * PHOTO_REGION_SHARES.len();

/// A photo's perceptual hashes: of the image as uploaded, of its mirror image (left to right),
/// and of its regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhotoHash {
    /// The image as uploaded.
    pub plain: u64,
    /// The image mirrored left to right.
    pub mirrored: u64,
    /// The regions of `region_offsets`, in its order; None for a photo hashed before regions
    /// were (it is still compared by its whole image, and against the other photo's regions).
    pub regions: Option<[u64; PHOTO_REGIONS]>,
}

/// The regions of a photo that are hashed, in the order of `PhotoHash::regions`: each is the
/// image less `PHOTO_REGION_CUT` of its width and of its height, and starts at these shares of
/// the width and of the height (left, top).
pub fn region_offsets() -> [(f32, f32); PHOTO_REGIONS] {
    let n = PHOTO_REGION_SHARES.len();
    std::array::from_fn(|i| {
        (
            PHOTO_REGION_CUT * PHOTO_REGION_SHARES[i / n],
            PHOTO_REGION_CUT * PHOTO_REGION_SHARES[i % n],
        )
    })
}

/// How many bits two hashes differ in (their Hamming distance).
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// How far two photos are, the nearest of the ways they are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distances {
    /// Whole image against whole image, as it is or mirrored.
    pub whole: u32,
    /// One photo's whole image (as it is or mirrored) against a region of the other: None when
    /// neither photo has its regions hashed.
    pub region: Option<u32>,
}

impl Distances {
    /// `Some` of the nearest distance within its threshold, if any is.
    pub fn within(self, whole_max: u32, region_max: u32) -> Option<u32> {
        let whole = (self.whole <= whole_max).then_some(self.whole);
        let region = self.region.filter(|d| *d <= region_max);
        match (whole, region) {
            (Some(w), Some(r)) => Some(w.min(r)),
            (w, r) => w.or(r),
        }
    }
}

fn nearest_of(hash: u64, regions: &[u64; PHOTO_REGIONS]) -> u32 {
    regions
        .iter()
        .map(|r| distance(hash, *r))
        .min()
        .unwrap_or(u64::BITS)
}

/// How far `new` is from `stored`, every way: whole images (a mirrored copy of a stored photo
/// hashes like its mirror), `new` (or its mirror) against the regions of `stored` (a copy
/// cropped out of it), and the regions of `new` against `stored` or its mirror (`stored` was
/// cropped out of the new one).
pub fn distances(new: PhotoHash, stored: PhotoHash) -> Distances {
    let whole = distance(new.plain, stored.plain).min(distance(new.mirrored, stored.plain));
    let cropped_from_stored = stored
        .regions
        .map(|r| nearest_of(new.plain, &r).min(nearest_of(new.mirrored, &r)));
    let stored_cropped_from_new = new
        .regions
        .map(|r| nearest_of(stored.plain, &r).min(nearest_of(stored.mirrored, &r)));
    let region = match (cropped_from_stored, stored_cropped_from_new) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    Distances { whole, region }
}

/// How far `new` is from `stored`, whole image against whole image (the nearer of as it is and
/// mirrored).
pub fn nearest(new: PhotoHash, stored: PhotoHash) -> u32 {
    distances(new, stored).whole
}

/// Whether `new` resembles `stored` (a copy recompressed, resized, cropped by up to a tenth or
/// mirrored, either way): `Some` of the distance when it does.
pub fn resembles(new: PhotoHash, stored: PhotoHash) -> Option<u32> {
    distances(new, stored).within(
        PHOTO_RESEMBLANCE_MAX_BITS,
        PHOTO_REGION_RESEMBLANCE_MAX_BITS,
    )
}

/// Of `stored`, the indices (with their distance) of those `new` resembles, nearest first.
pub fn resembling(new: PhotoHash, stored: &[PhotoHash]) -> Vec<(usize, u32)> {
    let mut found: Vec<(usize, u32)> = stored
        .iter()
        .enumerate()
        .filter_map(|(i, s)| resembles(new, *s).map(|d| (i, d)))
        .collect();
    found.sort_by_key(|&(i, d)| (d, i));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(plain: u64, mirrored: u64) -> PhotoHash {
        PhotoHash {
            plain,
            mirrored,
            regions: None,
        }
    }

    fn with_regions(plain: u64, mirrored: u64, regions: [u64; PHOTO_REGIONS]) -> PhotoHash {
        PhotoHash {
            plain,
            mirrored,
            regions: Some(regions),
        }
    }

    /// `bits` low bits set: a hash that many bits from 0.
    fn ones(bits: u32) -> u64 {
        if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }

    #[test]
    fn the_threshold_is_inclusive_and_counts_bits() {
        let stored = hash(0, u64::MAX);
        let at = ones(PHOTO_RESEMBLANCE_MAX_BITS);
        let past = ones(PHOTO_RESEMBLANCE_MAX_BITS + 1);
        assert_eq!(
            resembles(hash(at, u64::MAX), stored),
            Some(PHOTO_RESEMBLANCE_MAX_BITS)
        );
        assert_eq!(resembles(hash(past, u64::MAX), stored), None);
        assert_eq!(resembles(hash(0, u64::MAX), stored), Some(0));
    }

    #[test]
    fn a_mirrored_copy_resembles_through_its_mirror_hash() {
        let stored = hash(0x0F0F_0F0F_0F0F_0F0F, 0xF0F0_F0F0_F0F0_F0F0);
        // The copy is the stored image mirrored: its plain hash is the stored one's mirror, its
        // mirror hash the stored plain one (give or take a few bits).
        let copy = hash(0xF0F0_F0F0_F0F0_F0F0, 0x0F0F_0F0F_0F0F_0F0B);
        assert_eq!(distance(copy.plain, stored.plain), 64);
        assert_eq!(resembles(copy, stored), Some(1));
    }

    #[test]
    fn a_copy_cropped_out_of_a_stored_photo_resembles_through_the_stored_regions() {
        let mut regions = [u64::MAX; PHOTO_REGIONS];
        regions[4] = 0xFF00;
        let stored = with_regions(0xFFFF_FFFF_0000_0000, u64::MAX, regions);
        // The crop's whole image hashes like the stored photo's region, 3 bits off; nothing
        // like its whole image.
        let crop = hash(0xFF00 ^ 0b111, 0x0000_FFFF_0000_0000);
        assert_eq!(nearest(crop, stored), 16);
        assert_eq!(resembles(crop, stored), Some(3));
        // Mirrored too: the mirrored crop's mirror hash is the region's.
        let mirrored_crop = hash(0x00FF_0000, 0xFF00 ^ 0b1);
        assert_eq!(resembles(mirrored_crop, stored), Some(1));
    }

    #[test]
    fn a_stored_photo_cropped_out_of_the_new_one_resembles_through_the_new_regions() {
        let mut regions = [u64::MAX; PHOTO_REGIONS];
        regions[0] = 0xABCD ^ 0b11;
        let far = 0xFFFF_FFFF_0000_0000;
        let new = with_regions(far, far, regions);
        // The stored photo predates regions: it is the new photo's region 0, and mirrored it is
        // the mirror of region 8.
        let stored = hash(0xABCD, 0x1234);
        assert_eq!(resembles(new, stored), Some(2));
        regions[0] = u64::MAX;
        regions[8] = 0x1234;
        let new = with_regions(far, far, regions);
        assert_eq!(resembles(new, stored), Some(0));
    }

    #[test]
    fn a_region_match_is_held_to_the_tighter_threshold() {
        let regions = [ones(PHOTO_REGION_RESEMBLANCE_MAX_BITS + 1); PHOTO_REGIONS];
        let stored = with_regions(u64::MAX, u64::MAX, regions);
        let new = hash(0, 0);
        assert_eq!(
            distances(new, stored),
            Distances {
                whole: 64,
                region: Some(PHOTO_REGION_RESEMBLANCE_MAX_BITS + 1)
            }
        );
        assert_eq!(resembles(new, stored), None);
        // Within the whole-image threshold but past the region one: still not a match.
        const { assert!(PHOTO_REGION_RESEMBLANCE_MAX_BITS < PHOTO_RESEMBLANCE_MAX_BITS) };
        let regions = [ones(PHOTO_REGION_RESEMBLANCE_MAX_BITS); PHOTO_REGIONS];
        let stored = with_regions(u64::MAX, u64::MAX, regions);
        assert_eq!(
            resembles(new, stored),
            Some(PHOTO_REGION_RESEMBLANCE_MAX_BITS)
        );
    }

    #[test]
    fn photos_without_regions_are_compared_by_the_whole_image_only() {
        let new = hash(0, u64::MAX);
        let stored = hash(ones(5), 0);
        assert_eq!(
            distances(new, stored),
            Distances {
                whole: 5,
                region: None
            }
        );
        assert_eq!(resembles(new, stored), Some(5));
    }

    #[test]
    fn the_nearest_of_whole_and_region_is_the_distance() {
        let within = |whole, region| Distances { whole, region }.within(10, 8);
        assert_eq!(within(9, Some(4)), Some(4));
        assert_eq!(within(6, Some(8)), Some(6));
        assert_eq!(within(11, Some(8)), Some(8));
        assert_eq!(within(10, Some(9)), Some(10));
        assert_eq!(within(11, Some(9)), None);
        assert_eq!(within(11, None), None);
    }

    #[test]
    fn the_regions_cover_a_tenth_around_the_middle_and_near_the_corners() {
        let offsets = region_offsets();
        assert_eq!(offsets.len(), 9);
        for (left, top) in offsets {
            assert!((0.0..=PHOTO_REGION_CUT).contains(&left));
            assert!((0.0..=PHOTO_REGION_CUT).contains(&top));
        }
        let mid = PHOTO_REGION_CUT / 2.0;
        assert!(
            offsets
                .iter()
                .any(|(l, t)| (l - mid).abs() < 1e-6 && (t - mid).abs() < 1e-6)
        );
        // Every crop of a tenth, wherever it starts, is within about 2 % of a side of a region.
        for i in 0..=20 {
            for j in 0..=20 {
                let (x, y) = (
                    PHOTO_REGION_CUT * i as f32 / 20.0,
                    PHOTO_REGION_CUT * j as f32 / 20.0,
                );
                let off = offsets
                    .iter()
                    .map(|(l, t)| (l - x).abs().max((t - y).abs()))
                    .fold(f32::MAX, f32::min);
                assert!(off <= 0.02, "({x}, {y}) is {off} from a region");
            }
        }
    }

    #[test]
    fn resembling_lists_the_near_ones_nearest_first() {
        let new = hash(0, 0xFFFF_FFFF_0000_0000);
        let stored = [
            hash(0b111, 1),
            hash(u64::MAX, 0),
            hash(0b1, 0),
            hash(0xFFFF, 0),
        ];
        assert_eq!(resembling(new, &stored), vec![(2, 1), (0, 3)]);
        assert!(resembling(new, &[]).is_empty());
    }
}
