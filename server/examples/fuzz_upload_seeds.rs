//! Writes the image seeds of the `upload_decode` fuzz target (`cargo run -p kizuna-server
//! --example fuzz_upload_seeds`): small images of every kind and colour type the upload path
//! meets, and the damaged files it must refuse. The seeds are kept in git; this is how they were
//! made, so a new kind of image is added here and written again.

use std::path::PathBuf;

use image::{DynamicImage, ImageEncoder, codecs};

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/upload_decode");
    std::fs::create_dir_all(&dir).unwrap();
    let write =
        |name: &str, bytes: &[u8]| std::fs::write(dir.join(format!("seed-{name}")), bytes).unwrap();
    let rgb = image::RgbImage::from_fn(24, 16, |x, y| {
        image::Rgb([(x * 10) as u8, (y * 15) as u8, 90])
    });
    let rgba = image::RgbaImage::from_fn(16, 12, |x, y| {
        image::Rgba([200, (x * 15) as u8, 40, (y * 20) as u8])
    });
    let encode = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut out = Vec::new();
        f(&mut out);
        out
    };
    let jpeg = encode(&|out| {
        codecs::jpeg::JpegEncoder::new_with_quality(out, 80)
            .write_image(&rgb, 24, 16, image::ExtendedColorType::Rgb8)
            .unwrap()
    });
    write("baseline.jpg", &jpeg);
    let gray = DynamicImage::ImageRgb8(rgb.clone()).to_luma8();
    write(
        "gray.jpg",
        &encode(&|out| {
            codecs::jpeg::JpegEncoder::new_with_quality(out, 60)
                .write_image(&gray, 24, 16, image::ExtendedColorType::L8)
                .unwrap()
        }),
    );
    let progressive = encode(&|out| {
        let mut encoder = jpeg_encoder::Encoder::new(out, 70);
        encoder.set_progressive(true);
        encoder
            .encode(rgb.as_raw(), 24, 16, jpeg_encoder::ColorType::Rgb)
            .unwrap();
    });
    write("progressive.jpg", &progressive);
    // EXIF orientation 6 (rotate 90°): the stored image is 16×24.
    let mut exif = b"II*\0".to_vec();
    exif.extend_from_slice(&8u32.to_le_bytes());
    exif.extend_from_slice(&1u16.to_le_bytes());
    exif.extend_from_slice(&0x0112u16.to_le_bytes());
    exif.extend_from_slice(&3u16.to_le_bytes());
    exif.extend_from_slice(&1u32.to_le_bytes());
    exif.extend_from_slice(&6u16.to_le_bytes());
    exif.extend_from_slice(&0u16.to_le_bytes());
    exif.extend_from_slice(&0u32.to_le_bytes());
    let mut with_exif = img_parts::jpeg::Jpeg::from_bytes(jpeg.clone().into()).unwrap();
    img_parts::ImageEXIF::set_exif(&mut with_exif, Some(exif.into()));
    let mut oriented = Vec::new();
    with_exif.encoder().write_to(&mut oriented).unwrap();
    write("exif-orientation-6.jpg", &oriented);
    // Cut before its end-of-image marker: refused, never stored half grey.
    write("truncated.jpg", &jpeg[..jpeg.len() / 2]);
    let png = |img: &DynamicImage| {
        encode(&|out| {
            img.write_with_encoder(codecs::png::PngEncoder::new(out))
                .unwrap();
        })
    };
    write("rgb.png", &png(&DynamicImage::ImageRgb8(rgb.clone())));
    write("rgba.png", &png(&DynamicImage::ImageRgba8(rgba.clone())));
    write(
        "gray16.png",
        &png(&DynamicImage::ImageLuma16(
            DynamicImage::ImageRgb8(rgb.clone()).to_luma16(),
        )),
    );
    // A PNG header that claims 20000×20000 (over the caps) and carries no pixels.
    let mut huge = png(&DynamicImage::ImageRgb8(image::RgbImage::new(1, 1)));
    huge[16..20].copy_from_slice(&20_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&20_000u32.to_be_bytes());
    write("claims-400mp.png", &huge);
    let webp_lossy = webp::Encoder::from_rgb(rgb.as_raw(), 24, 16)
        .encode(75.0)
        .to_vec();
    write("lossy.webp", &webp_lossy);
    write(
        "alpha.webp",
        &webp::Encoder::from_rgba(rgba.as_raw(), 16, 12).encode(75.0),
    );
    write(
        "lossless.webp",
        &encode(&|out| {
            DynamicImage::ImageRgba8(rgba.clone())
                .write_with_encoder(codecs::webp::WebPEncoder::new_lossless(out))
                .unwrap();
        }),
    );
    write("riff-header-only.webp", b"RIFF\x04\0\0\0WEBP");
    write("not-an-image.gif", b"GIF89a\x01\0\x01\0\0\0\0;");
}
