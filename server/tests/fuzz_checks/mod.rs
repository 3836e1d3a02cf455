//! What the fuzz targets of kizuna-server run on each input, and what must hold for it. Shared by
//! the fuzz crate (`fuzz/fuzz_targets/*.rs` include this file) and by `tests/fuzz_corpus.rs`,
//! which runs every committed corpus file through the same function as a plain test.

use kizuna_server::images::{
    self, Kind, MAX_PIXELS, MAX_SIDE, PREVIEW_SIDE,
    ipx::{self, MAX_OUTPUT_PIXELS, MAX_OUTPUT_SIDE, Plan},
};

/// The image proxy's modifiers (`/_ipx/{modifiers}/…`) and the plan made of them for a source
/// size. The first four bytes pick the source's width and height (1..=16384 each, at most 40 MP,
/// as uploads are); the rest is the modifier text. Every plan stays within 3072 px a side and
/// 40 MP, never enlarges, places the scaled image inside its canvas, and a padded canvas has the
/// source touching two of its sides. True when the modifiers parsed.
pub fn ipx_modifiers(data: &[u8]) -> bool {
    let (size, text) = data.split_at(data.len().min(4));
    let mut size = size.to_vec();
    size.resize(4, 0);
    let side = |b: &[u8]| u32::from(u16::from_le_bytes([b[0], b[1]])) % MAX_SIDE + 1;
    let (sw, mut sh) = (side(&size[..2]), side(&size[2..]));
    while u64::from(sw) * u64::from(sh) > MAX_PIXELS {
        sh /= 2;
    }
    let text = String::from_utf8_lossy(text);
    let Ok(m) = ipx::parse_modifiers(&text) else {
        return false;
    };
    for side in [m.width, m.height].into_iter().flatten() {
        assert!(
            (1..=MAX_OUTPUT_SIDE).contains(&side),
            "{text:?} asks {side} px"
        );
    }
    if let Some(q) = m.quality {
        assert!((1..=100).contains(&q));
    }
    for accepts_webp in [false, true] {
        let plan = Plan::new(&m, sw, sh, Kind::Jpeg, accepts_webp);
        let what = format!("{text:?} on {sw}x{sh}: {plan:?}");
        assert!(plan.out_w >= 1 && plan.out_h >= 1, "{what}");
        assert!(
            plan.out_w <= MAX_OUTPUT_SIDE && plan.out_h <= MAX_OUTPUT_SIDE,
            "{what}"
        );
        assert!(
            u64::from(plan.out_w) * u64::from(plan.out_h) <= MAX_OUTPUT_PIXELS,
            "{what}"
        );
        assert!(plan.scaled_w >= 1 && plan.scaled_h >= 1, "{what}");
        assert!(
            plan.scaled_w <= sw && plan.scaled_h <= sh,
            "never enlarged: {what}"
        );
        assert!(plan.offset_x + plan.scaled_w <= plan.out_w, "{what}");
        assert!(plan.offset_y + plan.scaled_h <= plan.out_h, "{what}");
        if (plan.out_w, plan.out_h) != (plan.scaled_w, plan.scaled_h) {
            assert!(
                plan.out_w == plan.scaled_w || plan.out_h == plan.scaled_h,
                "padding beyond what holds the source: {what}"
            );
        }
        assert!((1..=100).contains(&plan.quality), "{what}");
        assert_eq!(plan.cache_key("f").len(), 32);
    }
    true
}

/// POST /file/tempUpload's image path: sniff the magic numbers, check the caps, decode, orient
/// and re-encode. What comes out is an image of the sniffed kind within the caps, whose stored
/// bytes sniff and decode again to the same size, and whose preview (if any) is a small JPEG.
/// True when the upload was accepted.
pub fn upload_decode(data: &[u8]) -> bool {
    let sniffed = images::sniff(data);
    let Ok(processed) = images::process_upload(data) else {
        return false;
    };
    assert_eq!(
        Some(processed.kind),
        sniffed,
        "stored as another kind than sniffed"
    );
    assert!(processed.width >= 1 && processed.height >= 1);
    assert!(processed.width <= MAX_SIDE && processed.height <= MAX_SIDE);
    assert!(u64::from(processed.width) * u64::from(processed.height) <= MAX_PIXELS);
    assert_eq!(images::sniff(&processed.bytes), Some(processed.kind));
    let again = images::process_upload(&processed.bytes).expect("a stored upload decodes again");
    assert_eq!(
        (again.width, again.height),
        (processed.width, processed.height)
    );
    if let Some(preview) = processed.preview {
        assert_eq!(images::sniff(&preview.bytes), Some(Kind::Jpeg));
        assert!(preview.width.max(preview.height) <= PREVIEW_SIDE);
    }
    true
}
