//! Writes test photos for `just bench`: `bench_images OUT_DIR COUNT [WIDTH HEIGHT [QUALITY]]`.
//! Each is a JPEG (by default 12 MP, 4000×3000, quality 90, as a phone camera writes it) with
//! gradients, shapes and sensor-like noise, so that it compresses like a real photo. Nothing is
//! downloaded. Files are named `photo-{WIDTH}x{HEIGHT}-{i}.jpg`, so runs of several sizes can
//! share a directory.

use image::{Rgb, RgbImage};
use rand::{Rng, SeedableRng, rngs::StdRng};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out = std::path::PathBuf::from(args.get(1).map(String::as_str).unwrap_or("bench-images"));
    let count: u32 = args.get(2).map_or(Ok(8), |v| v.parse())?;
    let width: u32 = args.get(3).map_or(Ok(4000), |v| v.parse())?;
    let height: u32 = args.get(4).map_or(Ok(3000), |v| v.parse())?;
    let quality: u8 = args.get(5).map_or(Ok(90), |v| v.parse())?;
    std::fs::create_dir_all(&out)?;
    for i in 0..count {
        let mut rng = StdRng::seed_from_u64(u64::from(i) + 1);
        let (cx, cy) = (
            rng.gen_range(0..width) as f32,
            rng.gen_range(0..height) as f32,
        );
        let base = [
            rng.gen_range(40..200) as f32,
            rng.gen_range(40..200) as f32,
            rng.gen_range(40..200) as f32,
        ];
        let img = RgbImage::from_fn(width, height, |x, y| {
            let (fx, fy) = (x as f32, y as f32);
            let d = ((fx - cx).powi(2) + (fy - cy).powi(2)).sqrt() / width as f32;
            let wave = ((fx / 37.0).sin() * (fy / 53.0).cos()) * 25.0;
            let stripes = if ((fx + fy) as u32 / 180).is_multiple_of(2) {
                18.0
            } else {
                -18.0
            };
            let mut px = [0u8; 3];
            for (c, v) in px.iter_mut().enumerate() {
                let noise: f32 = rng.gen_range(-8.0..8.0);
                *v = (base[c] * (1.2 - d) + wave * (c as f32 - 1.0) + stripes + noise)
                    .clamp(0.0, 255.0) as u8;
            }
            Rgb(px)
        });
        let path = out.join(format!("photo-{width}x{height}-{i:02}.jpg"));
        let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        image::codecs::jpeg::JpegEncoder::new_with_quality(file, quality).encode_image(&img)?;
        println!("{}", path.display());
    }
    Ok(())
}
