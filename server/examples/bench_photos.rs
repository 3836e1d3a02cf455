//! The reused-photo check over real and generated photos (`just bench-photos`): every distinct
//! image is hashed as the upload pipeline hashes it (`images::phash`: whole, mirrored and nine
//! regions), then copies of it recompressed, resized, cropped by up to a tenth and mirrored;
//! prints the hit rate of each kind of copy at kizuna-core's thresholds (and around them), the
//! false matches among the distinct images, and the time to compare one photo against a million
//! stored photos' hashes.
//!
//! `bench_photos DIR`: DIR holds the real photos (server/bench/photos/export.py writes them);
//! the four quarters of every real photo of at least 320 px a side count as distinct images too,
//! and generated scenes make up the rest to at least `BENCH_PHOTOS_MIN` (default 1000).
//!
//! Exits 1 when a target is missed: every kind of copy found at least `COPIES_FOUND_PCT` % of
//! the time, false matches at most `FALSE_MATCHES_PCT` % of the pairs of distinct images.

use std::time::Instant;

use image::{DynamicImage, ImageFormat, imageops::FilterType};
use kizuna_core::{
    photos::{Distances, PHOTO_REGIONS, PhotoHash, distances, resembling},
    rules::{PHOTO_REGION_RESEMBLANCE_MAX_BITS, PHOTO_RESEMBLANCE_MAX_BITS},
};
use kizuna_server::images::phash::photo_hash;
use rand::{Rng, SeedableRng, rngs::StdRng};

fn generated(rng: &mut StdRng) -> DynamicImage {
    let (w, h) = (rng.gen_range(240..640u32), rng.gen_range(240..640u32));
    let c0: [f32; 3] = [rng.r#gen(), rng.r#gen(), rng.r#gen()];
    let c1: [f32; 3] = [rng.r#gen(), rng.r#gen(), rng.r#gen()];
    let angle: f32 = rng.gen_range(0.0..std::f32::consts::TAU);
    let shapes: Vec<(f32, f32, f32, f32, [f32; 3], bool)> = (0..rng.gen_range(3..12))
        .map(|_| {
            (
                rng.r#gen(),
                rng.r#gen(),
                rng.gen_range(0.04..0.35),
                rng.gen_range(0.04..0.35),
                [rng.r#gen(), rng.r#gen(), rng.r#gen()],
                rng.gen_bool(0.5),
            )
        })
        .collect();
    let waves: Vec<(f32, f32, f32)> = (0..3)
        .map(|_| {
            (
                rng.gen_range(1.0..9.0),
                rng.gen_range(1.0..9.0),
                rng.r#gen(),
            )
        })
        .collect();
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
        let t = (fx * angle.cos() + fy * angle.sin()).clamp(0.0, 1.0);
        let mut px = [0f32; 3];
        for k in 0..3 {
            px[k] = c0[k] * (1.0 - t) + c1[k] * t;
        }
        let texture: f32 = waves
            .iter()
            .map(|(a, b, p)| ((fx * a + p * 6.0).sin() * (fy * b).cos()) * 0.06)
            .sum();
        for &(cx, cy, rx, ry, color, ellipse) in &shapes {
            let inside = if ellipse {
                ((fx - cx) / rx).powi(2) + ((fy - cy) / ry).powi(2) <= 1.0
            } else {
                (fx - cx).abs() <= rx && (fy - cy).abs() <= ry
            };
            if inside {
                px = color;
            }
        }
        image::Rgb(px.map(|v| ((v + texture).clamp(0.0, 1.0) * 255.0) as u8))
    });
    DynamicImage::ImageRgb8(img)
}

fn jpeg(img: &DynamicImage, quality: u8) -> DynamicImage {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(&img.to_rgb8())
        .expect("encoding");
    image::load_from_memory_with_format(&out, ImageFormat::Jpeg).expect("decoding")
}

/// A crop that takes `tenth` of the width and of the height away: `(left, top)` shares of it on
/// those sides, the rest on the others.
fn crop(img: &DynamicImage, tenth: f32, left: f32, top: f32) -> DynamicImage {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (cw, ch) = (w * (1.0 - tenth), h * (1.0 - tenth));
    img.crop_imm(
        (w * tenth * left) as u32,
        (h * tenth * top) as u32,
        cw as u32,
        ch as u32,
    )
}

type Transform = (&'static str, fn(&DynamicImage) -> DynamicImage);

const TRANSFORMS: [Transform; 8] = [
    ("recompress (JPEG q50)", |i| jpeg(i, 50)),
    ("resize to half", |i| {
        i.resize(i.width() / 2, i.height() / 2, FilterType::Lanczos3)
    }),
    ("resize to 160 px", |i| {
        i.resize(160, 160, FilterType::Triangle)
    }),
    ("crop 10 %, centred", |i| crop(i, 0.10, 0.5, 0.5)),
    ("crop 10 %, one corner", |i| crop(i, 0.10, 0.0, 0.0)),
    ("crop 5 %, one side", |i| crop(i, 0.05, 1.0, 0.5)),
    ("mirror", |i| i.fliph()),
    ("mirror + crop 10 % + half + q60", |i| {
        let c = crop(&i.fliph(), 0.10, 0.3, 0.7);
        jpeg(
            &c.resize(c.width() / 2, c.height() / 2, FilterType::Triangle),
            60,
        )
    }),
];

/// The targets the figures are held to (the issue: a copy is seen "through recompression,
/// resizing, a crop of up to a tenth and a mirror"; a member is not flagged for a stranger's photo).
const COPIES_FOUND_PCT: f64 = 95.0;
const FALSE_MATCHES_PCT: f64 = 0.01;

fn main() -> std::process::ExitCode {
    let mut missed: Vec<String> = Vec::new();
    let dir = std::env::args()
        .nth(1)
        .expect("usage: bench_photos DIR (real photos, see server/bench/photos/export.py)");
    let minimum: usize = std::env::var("BENCH_PHOTOS_MIN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("reading the photo folder")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    paths.sort();
    let mut images: Vec<(String, DynamicImage)> = Vec::new();
    let mut quarters = 0;
    for path in paths {
        let Ok(img) = image::open(&path) else {
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if img.width().min(img.height()) >= 320 {
            let (w, h) = (img.width() / 2, img.height() / 2);
            for (i, (x, y)) in [(0, 0), (w, 0), (0, h), (w, h)].into_iter().enumerate() {
                images.push((format!("{name}#q{i}"), img.crop_imm(x, y, w, h)));
                quarters += 1;
            }
        }
        images.push((name, img));
    }
    let real = images.len() - quarters;
    let mut rng = StdRng::seed_from_u64(40);
    let made = minimum.saturating_sub(images.len()).max(200);
    for i in 0..made {
        images.push((format!("generated-{i}"), generated(&mut rng)));
    }
    println!(
        "photos: {} distinct images ({real} real photos, {quarters} quarters of the larger ones, {made} generated)",
        images.len()
    );

    let started = Instant::now();
    let hashes: Vec<PhotoHash> = images.iter().map(|(_, i)| photo_hash(i)).collect();
    println!(
        "photos: hashing {:.1} ms an image (decoded, release)",
        started.elapsed().as_secs_f64() * 1000.0 / images.len() as f64
    );

    // Around the thresholds: both moved by the same number of bits.
    let shifts: Vec<i32> = (-4..=4).collect();
    let at = shifts.iter().position(|s| *s == 0).unwrap();
    let within = |d: Distances, shift: i32| {
        d.within(
            PHOTO_RESEMBLANCE_MAX_BITS.saturating_add_signed(shift),
            PHOTO_REGION_RESEMBLANCE_MAX_BITS.saturating_add_signed(shift),
        )
        .is_some()
    };
    println!(
        "photos: hit rate over transformed copies (thresholds {PHOTO_RESEMBLANCE_MAX_BITS} bits whole, {PHOTO_REGION_RESEMBLANCE_MAX_BITS} against a region; around them, both moved by {shifts:?})"
    );
    let mut all_hits = vec![0usize; shifts.len()];
    let mut all_copies = 0usize;
    for (label, transform) in TRANSFORMS {
        let mut hits = vec![0usize; shifts.len()];
        for ((_, img), original) in images.iter().zip(&hashes) {
            let d = distances(photo_hash(&transform(img)), *original);
            for (k, shift) in shifts.iter().enumerate() {
                hits[k] += usize::from(within(d, *shift));
            }
        }
        let rates: Vec<String> = hits
            .iter()
            .map(|h| format!("{:.1}", 100.0 * *h as f64 / images.len() as f64))
            .collect();
        let found = 100.0 * hits[at] as f64 / images.len() as f64;
        println!("photos:   {label:34} {found:5.1} %   [{}]", rates.join(" "));
        if found < COPIES_FOUND_PCT {
            missed.push(format!(
                "{label}: {found:.1} % found < {COPIES_FOUND_PCT} %"
            ));
        }
        for (k, h) in hits.iter().enumerate() {
            all_hits[k] += h;
        }
        all_copies += images.len();
    }
    println!(
        "photos:   {:34} {:5.1} %   ({} copies)",
        "all copies",
        100.0 * all_hits[at] as f64 / all_copies as f64,
        all_copies
    );

    let mut false_matches = vec![0usize; shifts.len()];
    let mut examples = Vec::new();
    let n = hashes.len();
    for a in 0..n {
        for b in (a + 1)..n {
            // Either may be the new one.
            let (ab, ba) = (
                distances(hashes[a], hashes[b]),
                distances(hashes[b], hashes[a]),
            );
            for (k, shift) in shifts.iter().enumerate() {
                false_matches[k] += usize::from(within(ab, *shift) || within(ba, *shift));
            }
            if (within(ab, 0) || within(ba, 0)) && examples.len() < 8 {
                examples.push(format!(
                    "{} ~ {} (whole {}, region {:?})",
                    images[a].0,
                    images[b].0,
                    ab.whole.min(ba.whole),
                    ab.region.min(ba.region)
                ));
            }
        }
    }
    let pairs = n * (n - 1) / 2;
    println!(
        "photos: false matches among {n} distinct images ({pairs} pairs): {} ({:.4} %)   [{}]",
        false_matches[at],
        100.0 * false_matches[at] as f64 / pairs as f64,
        false_matches
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    for e in &examples {
        println!("photos:   e.g. {e}");
    }
    let false_pct = 100.0 * false_matches[at] as f64 / pairs as f64;
    if false_pct > FALSE_MATCHES_PCT {
        missed.push(format!(
            "false matches {false_pct:.4} % > {FALSE_MATCHES_PCT} %"
        ));
    }

    let million: Vec<PhotoHash> = (0..1_000_000)
        .map(|_| PhotoHash {
            plain: rng.r#gen(),
            mirrored: rng.r#gen(),
            regions: Some(std::array::from_fn::<u64, PHOTO_REGIONS, _>(|_| {
                rng.r#gen()
            })),
        })
        .collect();
    let mut times = Vec::new();
    let mut found = 0;
    for probe in hashes.iter().take(21) {
        let started = Instant::now();
        found += resembling(*probe, std::hint::black_box(&million)).len();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "photos: one photo against 1,000,000 stored photos' hashes (whole, mirrored, {PHOTO_REGIONS} regions): {:.2} ms (median of {}; {found} random ones within the thresholds)",
        times[times.len() / 2],
        times.len()
    );
    if missed.is_empty() {
        println!(
            "photos: every target met (copies found >= {COPIES_FOUND_PCT} %, false matches <= {FALSE_MATCHES_PCT} %)"
        );
        std::process::ExitCode::SUCCESS
    } else {
        println!("photos: targets missed:");
        for m in &missed {
            println!("  {m}");
        }
        std::process::ExitCode::FAILURE
    }
}
