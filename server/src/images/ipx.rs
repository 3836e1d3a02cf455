//! The image proxy: `/_ipx/{modifiers}/{source}` in ipx's syntax, where the source is a stored
//! file's fetch path (`api/file/fetch/{fileId}`), never a remote URL.
//!
//! Modifiers (joined by `,` or `&`, `_` for none): `w_N`/`width_N`, `h_N`/`height_N`,
//! `s_WxH`/`resize_WxH`, `fit_cover|contain|fill|inside|outside`, `f_webp|jpeg|jpg|png|auto`
//! (`format_…`), `q_1..100` (`quality_…`), `b_rrggbb` (`background_…`). `enlarge`, `pos_…` and
//! `position_…` are accepted and ignored. Images are never enlarged; each output side is capped at
//! [`MAX_OUTPUT_SIDE`] (3072 px, the largest the web app's srcset asks for: 1536 px at density 2).
//! As in sharp/ipx, `fit` defaults to cover, `contain` pads with the background (black unless
//! `b`), JPEG output is flattened onto the background (white unless `b`); a padded canvas is never
//! larger than what holds the source at its own size (a 1×1 upload is no 40 MP render).
//!
//! Pipeline: JPEG sources are decoded by libjpeg-turbo (mozjpeg crate) with DCT downscaling to the
//! smallest scale (1/8…1) still at least the target size (for the small sizes, the size covering
//! [`SHARED_DECODE_BOX`], so that one decode serves them all: `images::decoded`); others through
//! `image`. Resizing by
//! fast_image_resize (SIMD, Lanczos3), WebP by libwebp. Work runs on the KIZUNA_IMAGE_WORKERS image
//! threads (`images::workers`); variants are cached on disk keyed by file id + canonical modifiers.

use fast_image_resize::{
    PixelType, ResizeOptions, Resizer,
    images::{Image, ImageRef},
};
use image::{DynamicImage, ExtendedColorType, ImageEncoder, ImageReader};
use sha2::{Digest, Sha256};

use super::{ImageError, Kind, limits};
use crate::error::ApiError;

pub const MAX_OUTPUT_SIDE: u32 = 3072;
pub const MAX_OUTPUT_PIXELS: u64 = super::MAX_PIXELS;
const DEFAULT_QUALITY: u8 = 80;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    Cover,
    Contain,
    Fill,
    Inside,
    Outside,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    Source,
    Auto,
    Fixed(Kind),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Modifiers {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub fit: Option<Fit>,
    pub format: Option<OutFormat>,
    pub quality: Option<u8>,
    pub background: Option<[u8; 3]>,
}

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError::BadRequest(msg.into())
}

fn dimension(v: &str) -> Result<u32, ApiError> {
    match v.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n.min(MAX_OUTPUT_SIDE)),
        _ => Err(bad(format!("invalid image dimension {v:?}"))),
    }
}

pub fn parse_modifiers(text: &str) -> Result<Modifiers, ApiError> {
    let mut m = Modifiers::default();
    if text == "_" || text.is_empty() {
        return Ok(m);
    }
    for part in text.split([',', '&']) {
        if part.is_empty() {
            continue;
        }
        let (key, value) = part
            .split_once(['_', '='])
            .map_or((part, ""), |(k, v)| (k, v));
        match key {
            "w" | "width" => m.width = Some(dimension(value)?),
            "h" | "height" => m.height = Some(dimension(value)?),
            "s" | "resize" => {
                let (w, h) = value
                    .split_once('x')
                    .ok_or_else(|| bad(format!("invalid size {value:?}")))?;
                m.width = Some(dimension(w)?);
                m.height = Some(dimension(h)?);
            }
            "fit" => {
                m.fit = Some(match value {
                    "cover" => Fit::Cover,
                    "contain" => Fit::Contain,
                    "fill" => Fit::Fill,
                    "inside" => Fit::Inside,
                    "outside" => Fit::Outside,
                    _ => return Err(bad(format!("invalid fit {value:?}"))),
                })
            }
            "f" | "format" => {
                m.format = Some(match value {
                    "webp" => OutFormat::Fixed(Kind::Webp),
                    "jpeg" | "jpg" => OutFormat::Fixed(Kind::Jpeg),
                    "png" => OutFormat::Fixed(Kind::Png),
                    "auto" => OutFormat::Auto,
                    _ => return Err(bad(format!("unsupported format {value:?}"))),
                })
            }
            "q" | "quality" => match value.parse::<u8>() {
                Ok(q) if (1..=100).contains(&q) => m.quality = Some(q),
                _ => return Err(bad(format!("invalid quality {value:?}"))),
            },
            "b" | "background" => {
                let hex = value.trim_start_matches('#');
                let bytes = hex::decode(hex)
                    .ok()
                    .filter(|b| b.len() == 3)
                    .ok_or_else(|| bad(format!("invalid background {value:?}")))?;
                m.background = Some([bytes[0], bytes[1], bytes[2]]);
            }
            "enlarge" | "pos" | "position" => {}
            _ => return Err(bad(format!("unknown modifier {key:?}"))),
        }
    }
    Ok(m)
}

/// The proxy's path of the stored file `file_id` at `w` × `h`, cropped to cover it, as WebP: what
/// the web app's `ipxUrl` writes for the same rendition (`s_{w}x{h},fit_cover,f_webp`), so that a
/// page the server writes and the card the app draws name the same file.
pub fn cover_webp_path(file_id: &str, w: u32, h: u32) -> String {
    format!("/_ipx/s_{w}x{h},fit_cover,f_webp/api/file/fetch/{file_id}")
}

/// The file id named by an ipx source path.
pub fn parse_source(source: &str) -> Result<String, ApiError> {
    let path = source.trim_start_matches('/');
    let id = path
        .strip_prefix("api/file/fetch/")
        .ok_or_else(|| bad("the image source must be /api/file/fetch/{fileId}"))?;
    if super::is_file_id(id) {
        Ok(id.to_string())
    } else {
        Err(ApiError::NotFound)
    }
}

/// What to produce from a source of `sw`×`sh`.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Output canvas.
    pub out_w: u32,
    pub out_h: u32,
    /// Size the (cropped) source is resized to, and where it goes on the canvas.
    pub scaled_w: u32,
    pub scaled_h: u32,
    pub offset_x: u32,
    pub offset_y: u32,
    /// Centre-crop the source to the scaled aspect ratio first (cover).
    pub crop: bool,
    pub kind: Kind,
    pub quality: u8,
    pub background: Option<[u8; 3]>,
}

fn round(v: f64) -> u32 {
    (v.round() as u32).max(1)
}

impl Plan {
    pub fn new(m: &Modifiers, sw: u32, sh: u32, source: Kind, accepts_webp: bool) -> Plan {
        let (swf, shf) = (f64::from(sw), f64::from(sh));
        let kind = match m.format.unwrap_or(OutFormat::Source) {
            OutFormat::Source => source,
            OutFormat::Auto if accepts_webp => Kind::Webp,
            OutFormat::Auto => Kind::Jpeg,
            OutFormat::Fixed(k) => k,
        };
        let mut plan = Plan {
            out_w: sw,
            out_h: sh,
            scaled_w: sw,
            scaled_h: sh,
            offset_x: 0,
            offset_y: 0,
            crop: false,
            kind,
            quality: m.quality.unwrap_or(DEFAULT_QUALITY),
            background: m.background,
        };
        match (m.width, m.height) {
            (None, None) => {}
            (Some(w), None) => {
                let w = w.min(sw);
                plan.set_scaled(w, round(shf * f64::from(w) / swf));
            }
            (None, Some(h)) => {
                let h = h.min(sh);
                plan.set_scaled(round(swf * f64::from(h) / shf), h);
            }
            (Some(w), Some(h)) => {
                let (wf, hf) = (f64::from(w), f64::from(h));
                match m.fit.unwrap_or(Fit::Cover) {
                    Fit::Cover => {
                        // Never enlarge: shrink the box until the source covers it.
                        let k = (swf / wf).min(shf / hf).min(1.0);
                        plan.set_scaled(round(wf * k), round(hf * k));
                        plan.crop = true;
                    }
                    Fit::Fill => plan.set_scaled(w.min(sw), h.min(sh)),
                    Fit::Inside => {
                        let s = (wf / swf).min(hf / shf).min(1.0);
                        plan.set_scaled(round(swf * s), round(shf * s));
                    }
                    Fit::Outside => {
                        let s = (wf / swf).max(hf / shf).min(1.0);
                        plan.set_scaled(round(swf * s), round(shf * s));
                    }
                    Fit::Contain => {
                        let s = (wf / swf).min(hf / shf).min(1.0);
                        plan.set_scaled(round(swf * s), round(shf * s));
                        // A box larger than the source both ways shrinks (keeping its shape)
                        // until the source touches two of its sides: padding, not pixels.
                        let k = (swf / wf).max(shf / hf).min(1.0);
                        let (w, h) = (
                            round(wf * k).max(plan.scaled_w),
                            round(hf * k).max(plan.scaled_h),
                        );
                        plan.out_w = w;
                        plan.out_h = h;
                        plan.offset_x = (w - plan.scaled_w.min(w)) / 2;
                        plan.offset_y = (h - plan.scaled_h.min(h)) / 2;
                    }
                }
            }
        }
        plan.cap();
        plan
    }

    fn set_scaled(&mut self, w: u32, h: u32) {
        self.scaled_w = w;
        self.scaled_h = h;
        self.out_w = w;
        self.out_h = h;
    }

    /// Every side at most [`MAX_OUTPUT_SIDE`] (the source itself may be up to 16384), and at most
    /// 40 megapixels in all.
    fn cap(&mut self) {
        let (w, h) = (f64::from(self.out_w), f64::from(self.out_h));
        let k = (f64::from(MAX_OUTPUT_SIDE) / w.max(h))
            .min((MAX_OUTPUT_PIXELS as f64 / (w * h)).sqrt());
        if k < 1.0 {
            let s = |v: u32| ((f64::from(v) * k).floor() as u32).max(1);
            self.out_w = s(self.out_w);
            self.out_h = s(self.out_h);
            // A small image padded onto a huge canvas keeps its size if it still fits.
            if self.scaled_w > self.out_w || self.scaled_h > self.out_h {
                self.scaled_w = s(self.scaled_w).min(self.out_w);
                self.scaled_h = s(self.scaled_h).min(self.out_h);
            }
            self.offset_x = (self.out_w - self.scaled_w) / 2;
            self.offset_y = (self.out_h - self.scaled_h) / 2;
        }
    }

    /// The cache key: file id + everything that shapes the output bytes.
    pub fn cache_key(&self, file_id: &str) -> String {
        let canonical = format!(
            "v1|{file_id}|{}x{}|{}x{}+{}+{}|{}|{:?}|{}|{:?}",
            self.out_w,
            self.out_h,
            self.scaled_w,
            self.scaled_h,
            self.offset_x,
            self.offset_y,
            self.crop,
            self.kind,
            self.quality,
            self.background
        );
        hex::encode(&Sha256::digest(canonical.as_bytes())[..16])
    }

    pub fn extension(&self) -> &'static str {
        match self.kind {
            Kind::Jpeg => "jpg",
            Kind::Png => "png",
            Kind::Webp => "webp",
        }
    }

    /// What a decode for this plan of a `sw`×`sh` source delivers at least (pixels of the whole
    /// image): the plan's own need, or, for the small sizes a page asks for together, the size
    /// that covers [`SHARED_DECODE_BOX`], so that one decode serves them all
    /// (`images::decoded`).
    pub fn decode_want(&self, sw: u32, sh: u32) -> (u32, u32) {
        let own = self.decode_target(sw, sh);
        let (bw, bh) = SHARED_DECODE_BOX;
        let shared = cover_size(sw, sh, bw, bh);
        if own.0 <= shared.0 && own.1 <= shared.1 {
            shared
        } else {
            own
        }
    }

    /// The size the decoder must deliver at least (before cropping).
    fn decode_target(&self, sw: u32, sh: u32) -> (u32, u32) {
        if self.crop {
            cover_size(sw, sh, self.scaled_w, self.scaled_h)
        } else {
            (self.scaled_w, self.scaled_h)
        }
    }
}

/// The box whose cover-size decode every smaller rendition of a photo shares: the profile grid's
/// photo at density 2 (`<Image width={110} height={147}>` in profile-page.tsx), the largest of
/// the sizes a page asks for together with the 10×10 placeholder. Larger renditions (the day's
/// card) decode for themselves.
pub const SHARED_DECODE_BOX: (u32, u32) = (220, 294);

/// The `sw`×`sh` image scaled (never up) until it covers `w`×`h`.
fn cover_size(sw: u32, sh: u32, w: u32, h: u32) -> (u32, u32) {
    let s = (f64::from(w) / f64::from(sw))
        .max(f64::from(h) / f64::from(sh))
        .min(1.0);
    (
        ((f64::from(sw) * s).ceil() as u32).min(sw),
        ((f64::from(sh) * s).ceil() as u32).min(sh),
    )
}

/// Decoded pixels: 3 (RGB) or 4 (RGBA) bytes per pixel.
pub struct Pixels {
    pub(crate) w: u32,
    pub(crate) h: u32,
    alpha: bool,
    data: Vec<u8>,
}

impl Pixels {
    #[cfg(test)]
    pub(crate) fn rgb(w: u32, h: u32, data: Vec<u8>) -> Pixels {
        Pixels {
            w,
            h,
            alpha: false,
            data,
        }
    }

    /// What they take in memory.
    pub fn byte_len(&self) -> usize {
        self.data.len()
    }
}

/// Decodes a stored file to at least `want` (pixels of the whole image: a JPEG is scaled down in
/// the decoder to the smallest scale that covers it; other formats decode whole).
pub fn decode(bytes: &[u8], source: Kind, want: (u32, u32)) -> Result<Pixels, ImageError> {
    if source == Kind::Jpeg
        && let Some(p) = decode_jpeg_scaled(bytes, want)?
    {
        return Ok(p);
    }
    let mut reader = ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| ImageError::Undecodable)?;
    reader.limits(limits());
    let img = reader.decode().map_err(|_| ImageError::Undecodable)?;
    Ok(match img {
        DynamicImage::ImageRgb8(b) => Pixels {
            w: b.width(),
            h: b.height(),
            alpha: false,
            data: b.into_raw(),
        },
        other if other.color().has_alpha() => {
            let b = other.to_rgba8();
            Pixels {
                w: b.width(),
                h: b.height(),
                alpha: true,
                data: b.into_raw(),
            }
        }
        other => {
            let b = other.to_rgb8();
            Pixels {
                w: b.width(),
                h: b.height(),
                alpha: false,
                data: b.into_raw(),
            }
        }
    })
}

/// JPEG through libjpeg-turbo with DCT-domain downscaling: the smallest n/8 scale (n = 1..8)
/// whose output still covers the target, as libvips' shrink-on-load does.
fn decode_jpeg_scaled(bytes: &[u8], want: (u32, u32)) -> Result<Option<Pixels>, ImageError> {
    let mut d = mozjpeg::Decompress::new_mem(bytes).map_err(|_| ImageError::Undecodable)?;
    let (w, h) = (d.width() as u64, d.height() as u64);
    let (ww, wh) = (u64::from(want.0.max(1)), u64::from(want.1.max(1)));
    let n = (1..=8u64)
        .find(|n| (w * n).div_ceil(8) >= ww && (h * n).div_ceil(8) >= wh)
        .unwrap_or(8);
    d.scale(n as u8);
    let mut started = d.rgb().map_err(|_| ImageError::Undecodable)?;
    let (ow, oh) = (started.width() as u32, started.height() as u32);
    let data = started
        .read_scanlines::<u8>()
        .map_err(|_| ImageError::Undecodable)?;
    started.finish().map_err(|_| ImageError::Undecodable)?;
    if data.len() != ow as usize * oh as usize * 3 {
        return Ok(None);
    }
    Ok(Some(Pixels {
        w: ow,
        h: oh,
        alpha: false,
        data,
    }))
}

/// The steps of [`render`], in order, as [`render_marked`] reports their ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Decoded,
    Resized,
    Composed,
    Encoded,
}

/// Produces the variant's bytes from the stored file. CPU-bound: run on an image worker.
pub fn render(
    bytes: &[u8],
    source: Kind,
    sw: u32,
    sh: u32,
    plan: &Plan,
) -> Result<Vec<u8>, ImageError> {
    render_marked(bytes, source, sw, sh, plan, |_| {})
}

/// [`render`], calling `mark` as each stage ends: the profile of where a render's time goes
/// (`examples/ipx_profile`), at no cost to the server, whose `mark` does nothing.
pub fn render_marked(
    bytes: &[u8],
    source: Kind,
    sw: u32,
    sh: u32,
    plan: &Plan,
    mut mark: impl FnMut(Stage),
) -> Result<Vec<u8>, ImageError> {
    let px = decode(bytes, source, plan.decode_want(sw, sh))?;
    mark(Stage::Decoded);
    render_pixels_marked(&px, plan, mark)
}

/// Produces the variant's bytes from decoded pixels (of the whole image, at any size that covers
/// the plan's need). CPU-bound: run on an image worker.
pub fn render_pixels(px: &Pixels, plan: &Plan) -> Result<Vec<u8>, ImageError> {
    render_pixels_marked(px, plan, |_| {})
}

fn render_pixels_marked(
    px: &Pixels,
    plan: &Plan,
    mut mark: impl FnMut(Stage),
) -> Result<Vec<u8>, ImageError> {
    let pixel_type = if px.alpha {
        PixelType::U8x4
    } else {
        PixelType::U8x3
    };
    let channels: usize = if px.alpha { 4 } else { 3 };

    let resized = if px.w == plan.scaled_w && px.h == plan.scaled_h {
        px.data.clone()
    } else {
        let src = ImageRef::new(px.w, px.h, &px.data, pixel_type)
            .map_err(|e| ImageError::Encode(anyhow::anyhow!("{e}")))?;
        let mut dst = Image::new(plan.scaled_w, plan.scaled_h, pixel_type);
        let mut options = ResizeOptions::new();
        if plan.crop {
            options = options.fit_into_destination(Some((0.5, 0.5)));
        }
        Resizer::new()
            .resize(&src, &mut dst, &options)
            .map_err(|e| ImageError::Encode(anyhow::anyhow!("{e}")))?;
        dst.into_vec()
    };
    mark(Stage::Resized);

    // Place on the canvas (contain) and flatten alpha for JPEG.
    let needs_canvas = plan.out_w != plan.scaled_w || plan.out_h != plan.scaled_h;
    let flatten = px.alpha && plan.kind == Kind::Jpeg;
    let (data, alpha) = if needs_canvas || flatten {
        let out_alpha = px.alpha && !flatten;
        let oc: usize = if out_alpha { 4 } else { 3 };
        let pad = plan.background.unwrap_or([0, 0, 0]);
        let under = plan.background.unwrap_or([255, 255, 255]);
        let mut fill = pad.to_vec();
        if out_alpha {
            fill.push(255);
        }
        let mut canvas = fill.repeat(plan.out_w as usize * plan.out_h as usize);
        let row = plan.out_w as usize * oc;
        for y in 0..plan.scaled_h as usize {
            for x in 0..plan.scaled_w as usize {
                let s = (y * plan.scaled_w as usize + x) * channels;
                let d = (y + plan.offset_y as usize) * row + (x + plan.offset_x as usize) * oc;
                if channels == 4 && !out_alpha {
                    let a = u32::from(resized[s + 3]);
                    for c in 0..3 {
                        let v = u32::from(resized[s + c]) * a + u32::from(under[c]) * (255 - a);
                        canvas[d + c] = (v / 255) as u8;
                    }
                } else {
                    canvas[d..d + oc].copy_from_slice(&resized[s..s + oc]);
                }
            }
        }
        (canvas, out_alpha)
    } else {
        (resized, px.alpha)
    };
    mark(Stage::Composed);

    let (w, h) = (plan.out_w, plan.out_h);
    let mut out = Vec::new();
    match plan.kind {
        Kind::Webp => {
            let q = f32::from(plan.quality);
            let enc = if alpha {
                webp::Encoder::from_rgba(&data, w, h)
            } else {
                webp::Encoder::from_rgb(&data, w, h)
            };
            out = enc.encode(q).to_vec();
        }
        Kind::Jpeg => {
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, plan.quality)
                .write_image(&data, w, h, ExtendedColorType::Rgb8)
                .map_err(|e| ImageError::Encode(e.into()))?;
        }
        Kind::Png => {
            let color = if alpha {
                ExtendedColorType::Rgba8
            } else {
                ExtendedColorType::Rgb8
            };
            image::codecs::png::PngEncoder::new(&mut out)
                .write_image(&data, w, h, color)
                .map_err(|e| ImageError::Encode(e.into()))?;
        }
    }
    mark(Stage::Encoded);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_photo_path_is_one_the_proxy_reads_back() {
        let id = "0123456789abcdef0123456789abcdef";
        let path = cover_webp_path(id, 360, 450);
        assert_eq!(
            path,
            format!("/_ipx/s_360x450,fit_cover,f_webp/api/file/fetch/{id}")
        );
        let (modifiers, source) = path
            .strip_prefix("/_ipx/")
            .unwrap()
            .split_once('/')
            .unwrap();
        let m = parse_modifiers(modifiers).unwrap();
        assert_eq!(
            (m.width, m.height, m.fit),
            (Some(360), Some(450), Some(Fit::Cover))
        );
        assert_eq!(m.format, Some(OutFormat::Fixed(Kind::Webp)));
        assert_eq!(parse_source(source).unwrap(), id);
    }

    #[test]
    fn parses_ipx_modifiers() {
        let m = parse_modifiers("w_400,f_webp,q_80").unwrap();
        assert_eq!(m.width, Some(400));
        assert_eq!(m.format, Some(OutFormat::Fixed(Kind::Webp)));
        assert_eq!(m.quality, Some(80));
        let m = parse_modifiers("s_300x200&fit_contain&b_ffffff").unwrap();
        assert_eq!((m.width, m.height), (Some(300), Some(200)));
        assert_eq!(m.fit, Some(Fit::Contain));
        assert_eq!(m.background, Some([255, 255, 255]));
        assert_eq!(parse_modifiers("_").unwrap(), Modifiers::default());
        assert!(parse_modifiers("w_0").is_err());
        assert!(parse_modifiers("q_101").is_err());
        assert!(parse_modifiers("f_avif").is_err());
        assert!(parse_modifiers("x_1").is_err());
        assert_eq!(parse_modifiers("w_99999").unwrap().width, Some(3072));
    }

    #[test]
    fn plans_never_enlarge_and_cover_crops() {
        let m = parse_modifiers("w_400").unwrap();
        let p = Plan::new(&m, 4000, 3000, Kind::Jpeg, true);
        assert_eq!((p.out_w, p.out_h), (400, 300));
        let p = Plan::new(
            &parse_modifiers("w_8000").unwrap(),
            400,
            300,
            Kind::Jpeg,
            true,
        );
        assert_eq!((p.out_w, p.out_h), (400, 300));
        let p = Plan::new(
            &parse_modifiers("s_200x200").unwrap(),
            4000,
            3000,
            Kind::Jpeg,
            true,
        );
        assert_eq!((p.out_w, p.out_h, p.crop), (200, 200, true));
        let p = Plan::new(
            &parse_modifiers("s_200x200,fit_contain").unwrap(),
            4000,
            2000,
            Kind::Png,
            true,
        );
        assert_eq!(
            (p.out_w, p.out_h, p.scaled_w, p.scaled_h, p.offset_y),
            (200, 200, 200, 100, 50)
        );
    }

    #[test]
    fn outputs_are_capped_by_side_and_by_area() {
        let wide = Plan::new(
            &parse_modifiers("_").unwrap(),
            16_000,
            900,
            Kind::Jpeg,
            true,
        );
        assert_eq!((wide.out_w, wide.out_h), (3072, 172));
        // The box is 3072 a side once capped: its shape at the source's size is 1×1.
        let padded = Plan::new(
            &parse_modifiers("s_8192x4882,fit_contain").unwrap(),
            1,
            1,
            Kind::Png,
            true,
        );
        assert_eq!(
            (padded.out_w, padded.out_h),
            (1, 1),
            "no canvas beyond the source"
        );
        assert_eq!((padded.scaled_w, padded.scaled_h), (1, 1));
        let square = Plan::new(
            &parse_modifiers("s_800x400,fit_contain").unwrap(),
            100,
            100,
            Kind::Png,
            true,
        );
        assert_eq!((square.out_w, square.out_h), (200, 100));
        assert_eq!(
            (square.scaled_w, square.offset_x, square.offset_y),
            (100, 50, 0)
        );
        let ordinary = Plan::new(
            &parse_modifiers("w_400").unwrap(),
            4000,
            3000,
            Kind::Jpeg,
            true,
        );
        assert_eq!((ordinary.out_w, ordinary.out_h), (400, 300));
    }

    #[test]
    fn sources_are_stored_files_only() {
        let id = "0123456789abcdef0123456789abcdef";
        assert_eq!(parse_source(&format!("api/file/fetch/{id}")).unwrap(), id);
        assert!(parse_source("https://example.com/a.jpg").is_err());
        assert!(parse_source("api/file/fetch/../../etc/passwd").is_err());
    }
}
