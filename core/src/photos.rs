//! Reused photos: whether two photos' perceptual hashes resemble each other. The server hashes
//! every upload where it decodes it (64 bits of the image, and 64 of its mirror image); this is
//! only the comparison, with its threshold `rules::PHOTO_RESEMBLANCE_MAX_BITS`.

use crate::rules::PHOTO_RESEMBLANCE_MAX_BITS;

/// A photo's perceptual hash: of the image as uploaded and of its mirror image (left to right).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhotoHash {
    /// The image as uploaded.
    pub plain: u64,
    /// The image mirrored left to right.
    pub mirrored: u64,
}

/// How many bits two hashes differ in (their Hamming distance).
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// How far `new` is from `stored`, the nearer of the two ways (as it is, or mirrored): a mirrored
/// copy of a stored photo hashes like its mirror.
pub fn nearest(new: PhotoHash, stored: PhotoHash) -> u32 {
    distance(new.plain, stored.plain).min(distance(new.mirrored, stored.plain))
}

/// Whether `new` resembles `stored` (a copy recompressed, resized, cropped by up to a tenth or
/// mirrored): `Some` of the distance when it does.
pub fn resembles(new: PhotoHash, stored: PhotoHash) -> Option<u32> {
    let d = nearest(new, stored);
    (d <= PHOTO_RESEMBLANCE_MAX_BITS).then_some(d)
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
        PhotoHash { plain, mirrored }
    }

    #[test]
    fn the_threshold_is_inclusive_and_counts_bits() {
        let stored = hash(0, u64::MAX);
        let at = (1u64 << PHOTO_RESEMBLANCE_MAX_BITS) - 1;
        let past = (1u64 << (PHOTO_RESEMBLANCE_MAX_BITS + 1)) - 1;
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
