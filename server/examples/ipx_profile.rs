//! Times the image proxy's render steps on one photo: `ipx_profile FILE [MODIFIERS…]`.
//!
//! The photo is first processed as an upload (re-encoded as the server stores it), then each
//! variant (by default the 12 MP card `w_400,f_webp,q_80` and what the profile page asks for) is
//! rendered from the stored bytes, best of several runs, beside libjpeg-turbo's 1/8-scale decode
//! (what a small variant of a big photo costs). CPU time per request, free of the HTTP and scheduling noise of `just bench`.
//! Each render is split into its stages (decode, resize, canvas, WebP/JPEG/PNG encode), medians of
//! the runs: where a variant's time goes.
use std::time::{Duration, Instant};

use kizuna_server::images::{
    Kind,
    ipx::{Plan, Stage, parse_modifiers, render, render_marked},
    process_upload,
};

fn best<T>(runs: u32, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed());
    }
    (best, out.expect("at least one run"))
}

fn libjpeg_turbo_decode(bytes: &[u8], eighths: u8) -> usize {
    let mut d = mozjpeg::Decompress::new_mem(bytes).expect("a JPEG");
    d.scale(eighths);
    let mut s = d.rgb().expect("rgb");
    let px: Vec<u8> = s.read_scanlines().expect("scanlines");
    s.finish().expect("finish");
    px.len()
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("a JPEG path"));
    let mut variants: Vec<String> = args.collect();
    if variants.is_empty() {
        variants = [
            "w_400,f_webp,q_80",
            "s_110x147,fit_cover,f_webp",
            "s_220x294,fit_cover,f_webp",
            "s_10x10,fit_cover,f_webp,q_50",
        ]
        .map(String::from)
        .to_vec();
    }
    let stored = process_upload(&std::fs::read(&path)?)?;
    anyhow::ensure!(stored.kind == Kind::Jpeg, "a JPEG, please");
    let (w, h) = (stored.width, stored.height);
    println!(
        "{}: stored as {w}x{h}, {} KB",
        path.display(),
        stored.bytes.len() / 1024
    );
    let runs = 7;
    let (t, _) = best(runs, || libjpeg_turbo_decode(&stored.bytes, 1));
    println!("  libjpeg-turbo decode at 1/8        best of {runs}: {t:>10.2?}");
    for text in &variants {
        let plan = Plan::new(&parse_modifiers(text).unwrap(), w, h, Kind::Jpeg, true);
        let (t, out) = best(runs, || render(&stored.bytes, Kind::Jpeg, w, h, &plan));
        println!(
            "  render {text:<30} best of {runs}: {t:>10.2?}  ({} bytes)",
            out?.len()
        );
        stages(&stored.bytes, w, h, &plan)?;
    }
    Ok(())
}

/// Medians over 25 renders of each stage's time: decode, resize, canvas, encode.
fn stages(bytes: &[u8], w: u32, h: u32, plan: &Plan) -> anyhow::Result<()> {
    let runs = 25;
    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..runs {
        let mut last = Instant::now();
        render_marked(bytes, Kind::Jpeg, w, h, plan, |stage| {
            let now = Instant::now();
            let i = match stage {
                Stage::Decoded => 0,
                Stage::Resized => 1,
                Stage::Composed => 2,
                Stage::Encoded => 3,
            };
            times[i].push(now - last);
            last = now;
        })?;
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let [d, r, c, e] = &mut times;
    println!(
        "    stages, medians of {runs}: decode {:>9.2?}  resize {:>9.2?}  canvas {:>9.2?}  encode {:>9.2?}",
        median(d),
        median(r),
        median(c),
        median(e)
    );
    Ok(())
}
