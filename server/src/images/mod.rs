//! Uploaded images: content sniffing, byte and pixel caps, decode + re-encode (EXIF orientation
//! applied, every metadata block dropped), and the on-disk store. `ipx` serves resized variants.

pub mod admission;
pub mod decoded;
pub mod http;
pub mod ipx;
pub mod phash;
pub mod workers;

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits, metadata::Orientation};
use rand::RngCore;

use crate::error::ApiError;

/// Largest accepted upload, in bytes.
pub const MAX_UPLOAD_BYTES: usize = 10 * 1024 * 1024;
/// Cap of a multipart upload body: the file's 10 MB plus the multipart framing (`middleware`
/// refuses anything bigger).
pub const MAX_UPLOAD_BODY: usize = MAX_UPLOAD_BYTES + 256 * 1024;
/// Largest accepted image, in pixels (width × height).
pub const MAX_PIXELS: u64 = 40_000_000;
/// Largest accepted side, in pixels.
pub const MAX_SIDE: u32 = 16_384;

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("the file is larger than 10 MB")]
    TooManyBytes,
    #[error("the image has more than 40 megapixels")]
    TooManyPixels,
    #[error("the file is not a JPEG, PNG or WebP image")]
    Unsupported,
    #[error("the image could not be decoded")]
    Undecodable,
    #[error("the image could not be encoded")]
    Encode(#[source] anyhow::Error),
}

impl From<ImageError> for ApiError {
    fn from(err: ImageError) -> ApiError {
        match err {
            ImageError::TooManyBytes | ImageError::TooManyPixels => {
                ApiError::TooLarge(err.to_string())
            }
            ImageError::Unsupported | ImageError::Undecodable => {
                ApiError::Unsupported(err.to_string())
            }
            ImageError::Encode(e) => ApiError::Internal(e),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Jpeg,
    Png,
    Webp,
}

impl Kind {
    pub fn content_type(self) -> &'static str {
        match self {
            Kind::Jpeg => "image/jpeg",
            Kind::Png => "image/png",
            Kind::Webp => "image/webp",
        }
    }

    pub fn from_content_type(ct: &str) -> Option<Kind> {
        match ct {
            "image/jpeg" => Some(Kind::Jpeg),
            "image/png" => Some(Kind::Png),
            "image/webp" => Some(Kind::Webp),
            _ => None,
        }
    }

    fn image_format(self) -> ImageFormat {
        match self {
            Kind::Jpeg => ImageFormat::Jpeg,
            Kind::Png => ImageFormat::Png,
            Kind::Webp => ImageFormat::WebP,
        }
    }
}

/// What the bytes are, from their magic numbers (never from the name or the declared type).
pub fn sniff(bytes: &[u8]) -> Option<Kind> {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Kind::Jpeg)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Kind::Png)
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(Kind::Webp)
    } else {
        None
    }
}

pub fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 4 + 64 * 1024 * 1024);
    limits
}

/// A re-encoded upload, ready to store.
pub struct Processed {
    pub bytes: Vec<u8>,
    pub kind: Kind,
    pub width: u32,
    pub height: u32,
    /// The perceptual hash of the image (and of its mirror image): `phash`.
    pub hash: kizuna_core::photos::PhotoHash,
    /// For big opaque images: a JPEG of at most PREVIEW_SIDE px a side that the image proxy
    /// decodes instead of the full file whenever the wanted size fits in it.
    pub preview: Option<Preview>,
}

pub struct Preview {
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// Longest side of the upload-time preview (covers every phone-screen variant: the web app's
/// largest breakpoint is 1536 px).
pub const PREVIEW_SIDE: u32 = 1600;

/// Whether an upload of `w`×`h` (as stored) may have a preview: a smaller one never gets one, so
/// the image proxy need not look for it.
pub fn may_have_preview(w: u32, h: u32) -> bool {
    w.max(h) > PREVIEW_SIDE * 5 / 4
}

fn make_preview(img: &DynamicImage) -> Result<Option<Preview>, ImageError> {
    let (w, h) = (img.width(), img.height());
    if !may_have_preview(w, h) || img.color().has_alpha() {
        return Ok(None);
    }
    let k = f64::from(PREVIEW_SIDE) / f64::from(w.max(h));
    let (pw, ph) = (
        ((f64::from(w) * k).round() as u32).max(1),
        ((f64::from(h) * k).round() as u32).max(1),
    );
    // Borrowed when the decode is RGB already (a JPEG): no second copy of a 40 MP image.
    let rgb = rgb8(img);
    let src = fast_image_resize::images::ImageRef::new(
        w,
        h,
        rgb.as_raw(),
        fast_image_resize::PixelType::U8x3,
    )
    .map_err(|e| ImageError::Encode(anyhow::anyhow!("{e}")))?;
    let mut dst = fast_image_resize::images::Image::new(pw, ph, fast_image_resize::PixelType::U8x3);
    fast_image_resize::Resizer::new()
        .resize(&src, &mut dst, None)
        .map_err(|e| ImageError::Encode(anyhow::anyhow!("{e}")))?;
    let mut out = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92),
        dst.buffer(),
        pw,
        ph,
        image::ExtendedColorType::Rgb8,
    )
    .map_err(|e| ImageError::Encode(e.into()))?;
    Ok(Some(Preview {
        bytes: out,
        width: pw,
        height: ph,
    }))
}

/// Sniffs, checks the caps, decodes, applies the EXIF orientation and re-encodes in the same format
/// (JPEG q90, PNG, lossy WebP q90) without any metadata. CPU-bound: call from a blocking thread.
pub fn process_upload(bytes: &[u8]) -> Result<Processed, ImageError> {
    let (img, kind) = decode(bytes)?;
    let out = encode_plain(&img, kind, 90)?;
    let preview = make_preview(&img)?;
    let hash = phash::photo_hash(&img);
    Ok(Processed {
        bytes: out,
        kind,
        hash,
        width: img.width(),
        height: img.height(),
        preview,
    })
}

/// The perceptual hash of a stored file (`phash`), decoded under the same caps as an upload: for
/// the files stored before their hashes were (`usecases::photo_backfill`). CPU-bound.
pub fn hash_stored(bytes: &[u8]) -> Result<kizuna_core::photos::PhotoHash, ImageError> {
    decode(bytes).map(|(img, _)| phash::photo_hash(&img))
}

/// Sniffs, checks the caps, decodes and applies the EXIF orientation.
fn decode(bytes: &[u8]) -> Result<(DynamicImage, Kind), ImageError> {
    if bytes.len() > MAX_UPLOAD_BYTES {
        return Err(ImageError::TooManyBytes);
    }
    let kind = sniff(bytes).ok_or(ImageError::Unsupported)?;
    if kind == Kind::Jpeg && !jpeg_is_complete(bytes) {
        return Err(ImageError::Undecodable);
    }
    let reader = |bytes| {
        let mut reader = ImageReader::with_format(Cursor::new(bytes), kind.image_format());
        reader.limits(limits());
        reader
    };
    let (w, h) = reader(bytes).into_dimensions().map_err(classify)?;
    if w == 0 || h == 0 {
        return Err(ImageError::Undecodable);
    }
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(ImageError::TooManyPixels);
    }
    let mut decoder = reader(bytes).into_decoder().map_err(classify)?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(classify)?;
    img.apply_orientation(orientation);
    Ok((img, kind))
}

fn classify(err: image::ImageError) -> ImageError {
    match err {
        image::ImageError::Limits(_) => ImageError::TooManyPixels,
        image::ImageError::Unsupported(_) => ImageError::Unsupported,
        _ => ImageError::Undecodable,
    }
}

/// A JPEG must carry its end-of-image marker: the decoders fill a truncated scan with grey instead
/// of failing, and a half-grey photo is not what the user uploaded.
fn jpeg_is_complete(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(64 * 1024)..];
    tail.windows(2).any(|w| w == [0xFF, 0xD9])
}

/// The image as RGB8: borrowed when it is that already, converted otherwise.
fn rgb8(img: &DynamicImage) -> std::borrow::Cow<'_, image::RgbImage> {
    match img {
        DynamicImage::ImageRgb8(rgb) => std::borrow::Cow::Borrowed(rgb),
        other => std::borrow::Cow::Owned(other.to_rgb8()),
    }
}

/// Encodes without metadata: image's encoders write none unless asked.
pub fn encode_plain(img: &DynamicImage, kind: Kind, quality: u8) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    match kind {
        Kind::Jpeg => {
            let rgb = rgb8(img);
            let encoder =
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality.clamp(1, 100));
            rgb.write_with_encoder(encoder)
                .map_err(|e| ImageError::Encode(e.into()))?;
        }
        Kind::Png => {
            let encoder = image::codecs::png::PngEncoder::new(&mut out);
            if img.color().has_alpha() {
                img.to_rgba8().write_with_encoder(encoder)
            } else {
                img.to_rgb8().write_with_encoder(encoder)
            }
            .map_err(|e| ImageError::Encode(e.into()))?;
        }
        Kind::Webp => {
            out = encode_webp(img, quality)?;
        }
    }
    Ok(out)
}

pub fn encode_webp(img: &DynamicImage, quality: u8) -> Result<Vec<u8>, ImageError> {
    let q = f32::from(quality.clamp(1, 100));
    let encoded = if img.color().has_alpha() {
        let rgba = img.to_rgba8();
        webp::Encoder::from_rgba(rgba.as_raw(), rgba.width(), rgba.height())
            .encode(q)
            .to_vec()
    } else {
        let rgb = rgb8(img);
        webp::Encoder::from_rgb(rgb.as_raw(), rgb.width(), rgb.height())
            .encode(q)
            .to_vec()
    };
    Ok(encoded)
}

/// 32 lowercase hex digits from the OS RNG.
pub fn random_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

pub fn is_file_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
