//! Times the image proxy's render steps on one file: `ipx_profile FILE`.
use std::time::Instant;

use kizuna_server::images::{
    Kind,
    ipx::{Plan, parse_modifiers, render},
    jpeg_dc,
};

fn time<T>(label: &str, runs: u32, mut f: impl FnMut() -> T) -> T {
    let mut best = std::time::Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed());
    }
    println!("{label:<40} best of {runs}: {best:?}");
    out.expect("at least one run")
}

fn main() -> anyhow::Result<()> {
    let path = std::path::PathBuf::from(std::env::args().nth(1).expect("a JPEG path"));
    let bytes = std::fs::read(&path)?;
    let img = time("image crate full decode", 1, || {
        image::load_from_memory(&bytes)
    })?;
    time("libjpeg-turbo 1/8 decode", 5, || {
        let mut d = mozjpeg::Decompress::new_mem(&bytes).expect("a JPEG");
        d.scale(1);
        let mut s = d.rgb().expect("rgb");
        let px: Vec<u8> = s.read_scanlines().expect("scanlines");
        s.finish().expect("finish");
        px.len()
    });
    let eighth = time("jpeg_dc 1/8 decode", 5, || jpeg_dc::decode_eighth(&bytes));
    println!(
        "  jpeg_dc: {}",
        eighth.map_or("not decodable by the fast path".into(), |e| format!(
            "{}x{}",
            e.width, e.height
        ))
    );
    let m = parse_modifiers("w_400,f_webp,q_80").unwrap();
    let plan = Plan::new(&m, img.width(), img.height(), Kind::Jpeg, true);
    let out = time("render w_400,f_webp,q_80", 5, || {
        render(&path, Kind::Jpeg, img.width(), img.height(), &plan)
    })?;
    println!("  {} bytes of WebP", out.len());
    let card = image::imageops::thumbnail(&img.to_rgb8(), 400, 300);
    time("WebP encode of the 400x300 card", 5, || {
        webp::Encoder::from_rgb(card.as_raw(), 400, 300)
            .encode(80.0)
            .len()
    });
    time("read the file", 5, || {
        std::fs::read(&path).map_or(0, |b| b.len())
    });
    Ok(())
}
