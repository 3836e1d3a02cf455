//! The perceptual hash of an upload (`image_hasher`, the maintained fork of `img_hash`, on the
//! same `image` 0.25 as the rest of the pipeline): a DCT median hash of 8 × 8 bits (pHash: each of the lowest 64 frequencies against their median, which a mean dominated by the DC term would not split evenly) of the
//! image as uploaded, of its mirror image, and of the nine regions of kizuna-core's
//! `photos::region_offsets` (so that a crop of up to a tenth is caught). kizuna-core's `photos`
//! compares them.

use image::{DynamicImage, imageops::FilterType};
use image_hasher::{HashAlg, Hasher, HasherConfig};
use kizuna_core::{
    photos::{PhotoHash, region_offsets},
    rules::PHOTO_REGION_CUT,
};

/// Side the image is brought down to before hashing: the hash reads 16 × 16 pixels, so a 40 MP
/// upload need not be resized to that in one go by the hasher.
const HASH_SOURCE_SIDE: u32 = 256;

fn hasher() -> Hasher<[u8; 8]> {
    HasherConfig::with_bytes_type::<[u8; 8]>()
        .hash_size(8, 8)
        .hash_alg(HashAlg::Median)
        .resize_filter(FilterType::Triangle)
        .preproc_dct()
        .to_hasher()
}

fn bits(hasher: &Hasher<[u8; 8]>, img: &DynamicImage) -> u64 {
    let hash = hasher.hash_image(img);
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(hash.as_bytes());
    u64::from_be_bytes(bytes)
}

/// The region of `img` that starts at `(left, top)` (shares of its width and height) and is
/// `PHOTO_REGION_CUT` smaller each way.
fn region(img: &DynamicImage, left: f32, top: f32) -> DynamicImage {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let keep = 1.0 - PHOTO_REGION_CUT;
    img.crop_imm(
        (w * left) as u32,
        (h * top) as u32,
        ((w * keep) as u32).max(1),
        ((h * keep) as u32).max(1),
    )
}

/// The hashes of `img`: whole, mirrored and its regions. CPU-bound (a few milliseconds once the
/// image is decoded): call from an image worker.
pub fn photo_hash(img: &DynamicImage) -> PhotoHash {
    let small = if img.width().max(img.height()) > HASH_SOURCE_SIDE {
        DynamicImage::ImageLuma8(
            img.resize(HASH_SOURCE_SIDE, HASH_SOURCE_SIDE, FilterType::Triangle)
                .to_luma8(),
        )
    } else {
        DynamicImage::ImageLuma8(img.to_luma8())
    };
    let hasher = hasher();
    // The regions are cut from the small copy: the hash reads 16 × 16 pixels of each anyway.
    let regions = region_offsets().map(|(left, top)| bits(&hasher, &region(&small, left, top)));
    PhotoHash {
        plain: bits(&hasher, &small),
        mirrored: bits(&hasher, &small.fliph()),
        regions: Some(regions),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kizuna_core::photos::{distance, resembles};

    fn scene(w: u32, h: u32, seed: u32) -> DynamicImage {
        DynamicImage::ImageRgb8(image::RgbImage::from_fn(w, h, |x, y| {
            let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
            let s = seed as f32;
            let v = ((fx * (3.0 + s)).sin() * (fy * (2.0 + s * 0.7)).cos() * 0.5 + 0.5) * 255.0;
            let blob = if ((fx - 0.3).powi(2) + (fy - 0.6).powi(2)) < 0.04 {
                90.0
            } else {
                0.0
            };
            image::Rgb([v as u8, (255.0 - v) as u8, (v * 0.5 + blob) as u8])
        }))
    }

    #[test]
    fn a_resized_cropped_mirrored_copy_resembles_and_another_scene_does_not() {
        let original = photo_hash(&scene(800, 600, 1));
        let copy = scene(800, 600, 1)
            .crop_imm(40, 30, 720, 540)
            .resize(400, 400, FilterType::Lanczos3)
            .fliph();
        assert!(resembles(photo_hash(&copy), original).is_some());
        let other = photo_hash(&scene(800, 600, 4));
        assert!(resembles(other, original).is_none());
        assert!(distance(original.plain, original.mirrored) > 0);
    }

    #[test]
    fn a_crop_of_a_tenth_from_one_corner_resembles_either_way() {
        let whole = scene(800, 600, 2);
        let crop = whole.crop_imm(0, 0, 720, 540);
        let (whole, crop) = (photo_hash(&whole), photo_hash(&crop));
        assert!(resembles(crop, whole).is_some());
        assert!(resembles(whole, crop).is_some());
        // Neither way is it caught without the regions: this is what they are for.
        let bare = |h: PhotoHash| PhotoHash { regions: None, ..h };
        assert!(resembles(bare(crop), bare(whole)).is_none());
    }
}
