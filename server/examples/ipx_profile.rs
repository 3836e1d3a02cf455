//! Times the image proxy's render steps on one file: `ipx_profile FILE`.
use std::time::Instant;

use kizuna_server::images::{
    Kind,
    ipx::{Plan, parse_modifiers, render},
};

fn main() -> anyhow::Result<()> {
    let path = std::path::PathBuf::from(std::env::args().nth(1).expect("a JPEG path"));
    let bytes = std::fs::read(&path)?;
    let t = Instant::now();
    let img = image::load_from_memory(&bytes)?;
    println!(
        "image (zune) full decode: {:?} {}x{}",
        t.elapsed(),
        img.width(),
        img.height()
    );
    let m = parse_modifiers("w_400,f_webp,q_80").unwrap();
    let plan = Plan::new(&m, img.width(), img.height(), Kind::Jpeg, true);
    for _ in 0..3 {
        let t = Instant::now();
        let out = render(&path, Kind::Jpeg, img.width(), img.height(), &plan)?;
        println!("render: {:?} ({} bytes)", t.elapsed(), out.len());
    }
    Ok(())
}
