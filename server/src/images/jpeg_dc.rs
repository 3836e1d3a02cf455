//! The image proxy's hot path: a baseline JPEG shrunk by 8 or more (a 12 MP photo → a 400 px
//! card). At 1/8 scale every 8×8 block becomes one pixel, its DC coefficient, so the 63 AC
//! coefficients of a block only have to be stepped over, never dequantised or transformed.
//!
//! libjpeg-turbo at scale 1/8 does the same arithmetic, but steps over each AC coefficient with its
//! general Huffman path: an 8-bit look-up, a bit-by-bit loop for longer codes, then a separate read
//! of the magnitude bits. Two thirds of the proxy's time went there (entropy decoding is serial and
//! has no SIMD). Here one 12-bit look-up steps over every whole AC symbol (code and magnitude bits)
//! that those 12 bits hold, often two or three at once; longer codes take one 16-bit canonical
//! search. `cargo run --release -p kizuna-server --example ipx_profile FILE` times both decoders.
//!
//! The output is byte-identical to libjpeg-turbo's 1/8-scale RGB output for 4:4:4, 4:2:2 and
//! greyscale images (tested against it). For 4:2:0 libjpeg-turbo spreads each chroma block over
//! its 2×2 output pixels with a reduced IDCT where this repeats the block's mean: the two agree on
//! every 2×2 mean within rounding (also tested), and the proxy resamples the result anyway.
//! Anything outside this scope (progressive, arithmetic coding, 12-bit, several scans, CMYK,
//! Adobe-marked or RGB-coded colour, unusual sampling, oversized or damaged data) answers `None`
//! and the caller uses libjpeg-turbo.

/// Bits of the look-up tables' index.
const LUT_BITS: u32 = 12;
const LUT_SIZE: usize = 1 << LUT_BITS;

/// A 1/8-scale decode: `ceil(w/8)` × `ceil(h/8)` RGB pixels.
pub struct Eighth {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

/// Decodes `data` at 1/8 scale, or `None` when the file is outside the fast path's scope.
pub fn decode_eighth(data: &[u8]) -> Option<Eighth> {
    let headers = Headers::parse(data)?;
    let planes = decode_scan(data, &headers)?;
    Some(headers.frame.to_rgb(&planes))
}

#[derive(Clone, Copy)]
struct Component {
    id: u8,
    h: usize,
    v: usize,
    quant_table: usize,
}

struct Frame {
    width: usize,
    height: usize,
    components: Vec<Component>,
    h_max: usize,
    v_max: usize,
}

/// The scan: components in MCU order with their Huffman tables, and where its entropy data starts.
struct Scan {
    order: Vec<ScanComponent>,
    data_start: usize,
}

#[derive(Clone, Copy)]
struct ScanComponent {
    frame_index: usize,
    dc_table: usize,
    ac_table: usize,
}

struct Headers {
    frame: Frame,
    scan: Scan,
    /// The DC quantiser of each quantisation table (the only one a 1/8 decode needs).
    dc_quant: [Option<u16>; 4],
    dc_tables: [Option<Box<Huffman>>; 4],
    ac_tables: [Option<Box<Huffman>>; 4],
    restart_interval: usize,
}

fn be16(data: &[u8], at: usize) -> Option<usize> {
    Some(usize::from(*data.get(at)?) << 8 | usize::from(*data.get(at + 1)?))
}

impl Headers {
    fn parse(data: &[u8]) -> Option<Headers> {
        if data.get(..2)? != [0xFF, 0xD8] {
            return None;
        }
        let mut pos = 2;
        let mut frame = None;
        let mut saw_jfif = false;
        let mut dc_quant = [None; 4];
        let mut dc_tables: [Option<Box<Huffman>>; 4] = Default::default();
        let mut ac_tables: [Option<Box<Huffman>>; 4] = Default::default();
        let mut restart_interval = 0;
        loop {
            if *data.get(pos)? != 0xFF {
                return None;
            }
            while *data.get(pos)? == 0xFF {
                pos += 1;
            }
            let marker = data[pos];
            pos += 1;
            // Markers without a length (SOI, EOI, RSTn, TEM) have no place before the scan.
            if matches!(marker, 0x01 | 0xD0..=0xD9) {
                return None;
            }
            let len = be16(data, pos)?;
            if len < 2 {
                return None;
            }
            let body = data.get(pos + 2..pos + len)?;
            match marker {
                // Baseline and extended sequential, Huffman-coded.
                0xC0 | 0xC1 => frame = Some(Frame::parse(body)?),
                0xC4 => parse_huffman(body, &mut dc_tables, &mut ac_tables)?,
                0xDB => parse_quant(body, &mut dc_quant)?,
                0xDD => restart_interval = be16(body, 0)?,
                0xE0 => saw_jfif |= body.starts_with(b"JFIF\0"),
                // Adobe's APP14 may say the three components are RGB: leave that to libjpeg-turbo.
                0xEE => return None,
                0xE1..=0xED | 0xEF | 0xFE => {}
                0xDA => {
                    let frame = frame?;
                    let scan = Scan::parse(body, &frame, pos + len)?;
                    // Without JFIF or Adobe markers, libjpeg-turbo reads ids 'R','G','B' as RGB.
                    let ids: Vec<u8> = frame.components.iter().map(|c| c.id).collect();
                    if !saw_jfif && ids == b"RGB" {
                        return None;
                    }
                    return Some(Headers {
                        frame,
                        scan,
                        dc_quant,
                        dc_tables,
                        ac_tables,
                        restart_interval,
                    });
                }
                // Progressive, lossless, arithmetic-coded, hierarchical, DNL, or anything unknown.
                _ => return None,
            }
            pos += len;
        }
    }
}

impl Frame {
    fn parse(body: &[u8]) -> Option<Frame> {
        let precision = *body.first()?;
        let height = be16(body, 1)?;
        let width = be16(body, 3)?;
        let count = usize::from(*body.get(5)?);
        if precision != 8 || width == 0 || height == 0 || !(count == 1 || count == 3) {
            return None;
        }
        // The upload caps: nothing bigger is ever stored, so a bigger header is damage.
        if width.max(height) > super::MAX_SIDE as usize
            || (width * height) as u64 > super::MAX_PIXELS
        {
            return None;
        }
        let mut components = Vec::with_capacity(count);
        for i in 0..count {
            let c = body.get(6 + 3 * i..9 + 3 * i)?;
            let (h, v) = (usize::from(c[1] >> 4), usize::from(c[1] & 15));
            if !(1..=4).contains(&h) || !(1..=4).contains(&v) || c[2] > 3 {
                return None;
            }
            components.push(Component {
                id: c[0],
                h,
                v,
                quant_table: usize::from(c[2]),
            });
        }
        if count == 1 {
            // A single component is coded block by block whatever sampling it declares.
            components[0].h = 1;
            components[0].v = 1;
        }
        let h_max = components.iter().map(|c| c.h).max()?;
        let v_max = components.iter().map(|c| c.v).max()?;
        // Only whole upsampling ratios, as libjpeg-turbo's plain upsamplers.
        if components
            .iter()
            .any(|c| h_max % c.h != 0 || v_max % c.v != 0)
        {
            return None;
        }
        Some(Frame {
            width,
            height,
            components,
            h_max,
            v_max,
        })
    }

    fn mcus(&self) -> (usize, usize) {
        (
            self.width.div_ceil(8 * self.h_max),
            self.height.div_ceil(8 * self.v_max),
        )
    }

    /// Converts the DC planes to RGB exactly as libjpeg-turbo's 1×1 IDCT, plain upsampling and
    /// integer YCbCr→RGB do.
    fn to_rgb(&self, planes: &[Plane]) -> Eighth {
        let (ow, oh) = (self.width.div_ceil(8), self.height.div_ceil(8));
        let mut rgb = Vec::with_capacity(ow * oh * 3);
        // Which sample of each plane every output column reads: worked out once, since a
        // division per pixel and component cost a sixth of the whole decode.
        let columns: Vec<Vec<usize>> = self
            .components
            .iter()
            .map(|c| (0..ow).map(|x| x * c.h / self.h_max).collect())
            .collect();
        for y in 0..oh {
            let row = |ci: usize| {
                let c = &self.components[ci];
                let p = &planes[ci];
                let start = (y * c.v / self.v_max) * p.stride;
                &p.samples[start..start + p.stride]
            };
            if self.components.len() == 1 {
                let grey = row(0);
                for &x in &columns[0] {
                    let g = grey[x];
                    rgb.extend_from_slice(&[g, g, g]);
                }
            } else {
                let (luma, cb, cr) = (row(0), row(1), row(2));
                for x in 0..ow {
                    rgb.extend_from_slice(&ycc_to_rgb(
                        luma[columns[0][x]],
                        cb[columns[1][x]],
                        cr[columns[2][x]],
                    ));
                }
            }
        }
        Eighth {
            width: ow as u32,
            height: oh as u32,
            rgb,
        }
    }
}

impl Scan {
    fn parse(body: &[u8], frame: &Frame, data_start: usize) -> Option<Scan> {
        let count = usize::from(*body.first()?);
        // One interleaved scan carrying every component: a sequential file with one scan.
        if count != frame.components.len() {
            return None;
        }
        let mut order = Vec::with_capacity(count);
        for i in 0..count {
            let c = body.get(1 + 2 * i..3 + 2 * i)?;
            let frame_index = frame.components.iter().position(|f| f.id == c[0])?;
            if order
                .iter()
                .any(|o: &ScanComponent| o.frame_index == frame_index)
            {
                return None;
            }
            order.push(ScanComponent {
                frame_index,
                dc_table: usize::from(c[1] >> 4),
                ac_table: usize::from(c[1] & 15),
            });
        }
        let tail = body.get(1 + 2 * count..4 + 2 * count)?;
        // Ss = 0, Se = 63, Ah = Al = 0: a sequential scan.
        if tail != [0, 63, 0] {
            return None;
        }
        Some(Scan { order, data_start })
    }
}

fn parse_quant(mut body: &[u8], dc_quant: &mut [Option<u16>; 4]) -> Option<()> {
    while let Some(&pq_tq) = body.first() {
        let (precision, id) = (pq_tq >> 4, usize::from(pq_tq & 15));
        let size = match precision {
            0 => 64,
            1 => 128,
            _ => return None,
        };
        let table = body.get(1..1 + size)?;
        let first = if precision == 0 {
            u16::from(table[0])
        } else {
            u16::from(table[0]) << 8 | u16::from(table[1])
        };
        *dc_quant.get_mut(id)? = Some(first);
        body = &body[1 + size..];
    }
    Some(())
}

fn parse_huffman(
    mut body: &[u8],
    dc_tables: &mut [Option<Box<Huffman>>; 4],
    ac_tables: &mut [Option<Box<Huffman>>; 4],
) -> Option<()> {
    while let Some(&tc_th) = body.first() {
        let (class, id) = (tc_th >> 4, usize::from(tc_th & 15));
        let counts: [u8; 16] = body.get(1..17)?.try_into().ok()?;
        let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
        let values = body.get(17..17 + total)?;
        // A DC symbol is a magnitude's bit count: at most 15, as libjpeg-turbo insists.
        if class == 0 && values.iter().any(|&v| v > 15) {
            return None;
        }
        let table = Huffman::new(&counts, values, class == 1)?;
        match class {
            0 => *dc_tables.get_mut(id)? = Some(Box::new(table)),
            1 => *ac_tables.get_mut(id)? = Some(Box::new(table)),
            _ => return None,
        }
        body = &body[17 + total..];
    }
    Some(())
}

/// A canonical Huffman table with two look-ups on the next 12 bits.
struct Huffman {
    /// `symbol | code length << 8`, or 0 when the code is longer than 12 bits.
    lookup: [u16; LUT_SIZE],
    /// AC tables only: every whole AC symbol (code and magnitude bits) that the next 12 bits
    /// hold, up to and including an end-of-block: `bits | advance << 4 | end_of_block << 11`,
    /// where advance is the coefficients they step over; 0 when not even one symbol fits.
    skip: [u16; LUT_SIZE],
    /// For codes of 13–16 bits: the largest code of each length (-1 for none) and the offset
    /// from a code of that length to its value's index.
    max_code: [i32; 17],
    value_offset: [i32; 17],
    values: [u8; 256],
}

impl Huffman {
    fn new(counts: &[u8; 16], values: &[u8], is_ac: bool) -> Option<Huffman> {
        if values.len() > 256 {
            return None;
        }
        let mut table = Huffman {
            lookup: [0; LUT_SIZE],
            skip: [0; LUT_SIZE],
            max_code: [-1; 17],
            value_offset: [0; 17],
            values: [0; 256],
        };
        table.values[..values.len()].copy_from_slice(values);
        let mut code: i32 = 0;
        let mut k = 0usize;
        for len in 1..=16u32 {
            let n = usize::from(counts[len as usize - 1]);
            // libjpeg's check: the codes of each length fit in it, and none is all ones.
            if code + n as i32 >= 1 << len {
                return None;
            }
            if n > 0 {
                table.value_offset[len as usize] = k as i32 - code;
                for _ in 0..n {
                    let symbol = values[k];
                    if len <= LUT_BITS {
                        let shift = LUT_BITS - len;
                        let first = (code as usize) << shift;
                        for entry in first..first + (1 << shift) {
                            table.lookup[entry] = u16::from(symbol) | (len as u16) << 8;
                        }
                    }
                    code += 1;
                    k += 1;
                }
                table.max_code[len as usize] = code - 1;
            }
            code <<= 1;
        }
        if is_ac {
            for index in 0..LUT_SIZE {
                table.skip[index] = table.skip_entry(index);
            }
        }
        Some(table)
    }

    /// The run of whole AC symbols at the start of a 12-bit window (see `skip`).
    fn skip_entry(&self, window: usize) -> u16 {
        let (mut used, mut advance) = (0u32, 0u32);
        loop {
            let entry = self.lookup[(window << used) & (LUT_SIZE - 1)];
            let (len, symbol) = (u32::from(entry >> 8), entry as u8);
            let (run, size) = (u32::from(symbol >> 4), u32::from(symbol & 15));
            // A code that is longer than the window, or continues past its end, ends the run.
            if entry == 0 || used + len + size > LUT_BITS {
                break;
            }
            if size == 0 && run != 15 {
                return ((used + len) | (advance << 4) | (1 << 11)) as u16;
            }
            let step = if size == 0 { 16 } else { run + 1 };
            if advance + step > 64 {
                break;
            }
            used += len + size;
            advance += step;
        }
        (used | advance << 4) as u16
    }
}

/// DC samples of one component, one per 8×8 block, already converted to 0..=255.
struct Plane {
    stride: usize,
    samples: Vec<u8>,
}

/// MSB-first bit reader over entropy-coded data, undoing 0xFF00 byte stuffing. Bits past a marker
/// read as zeros, as in libjpeg; `padding` counts them so that damaged data can be told apart.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    /// Unread bits, left-aligned; the bits below `count` are zero.
    acc: u64,
    count: u32,
    at_marker: bool,
    padding: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8], pos: usize) -> Bits<'a> {
        Bits {
            data,
            pos,
            acc: 0,
            count: 0,
            at_marker: false,
            padding: 0,
        }
    }

    #[inline(always)]
    fn ensure(&mut self) {
        if self.count < 32 {
            self.refill();
        }
    }

    /// Out of line: inlined, it crowds the hot loop's registers (measured slower).
    #[inline(never)]
    fn refill(&mut self) {
        // Fast: eight bytes of which none is 0xFF (no stuffing, no marker); take the whole
        // bytes that fit.
        if let Some(word) = self.data.get(self.pos..self.pos + 8) {
            let word = u64::from_be_bytes(word.try_into().unwrap_or_default());
            let inverted = !word;
            let has_ff =
                inverted.wrapping_sub(0x0101_0101_0101_0101) & !inverted & 0x8080_8080_8080_8080;
            if has_ff == 0 {
                let take = (63 - self.count) / 8;
                self.acc |= (word >> (64 - 8 * take)) << (64 - 8 * take - self.count);
                self.count += 8 * take;
                self.pos += take as usize;
                return;
            }
        }
        // Near a 0xFF byte or the end of the data: one byte at a time.
        while self.count <= 56 {
            let byte = self.next_byte();
            self.acc |= u64::from(byte) << (56 - self.count);
            self.count += 8;
        }
    }

    fn next_byte(&mut self) -> u8 {
        if !self.at_marker {
            match self.data.get(self.pos) {
                Some(&0xFF) => {
                    let mut next = self.pos + 1;
                    while self.data.get(next) == Some(&0xFF) {
                        next += 1;
                    }
                    if self.data.get(next) == Some(&0) {
                        self.pos = next + 1;
                        return 0xFF;
                    }
                    self.pos = next - 1;
                    self.at_marker = true;
                }
                Some(&byte) => {
                    self.pos += 1;
                    return byte;
                }
                None => self.at_marker = true,
            }
        }
        self.padding += 8;
        0
    }

    #[inline(always)]
    fn peek_lut(&self) -> usize {
        (self.acc >> (64 - LUT_BITS)) as usize
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.acc <<= n;
        self.count -= n;
    }

    /// A Huffman symbol (at least 32 bits must be buffered).
    #[inline(always)]
    fn symbol(&mut self, table: &Huffman) -> Option<u8> {
        let entry = table.lookup[self.peek_lut()];
        if entry != 0 {
            self.consume(u32::from(entry >> 8));
            return Some(entry as u8);
        }
        self.long_symbol(table)
    }

    #[cold]
    fn long_symbol(&mut self, table: &Huffman) -> Option<u8> {
        let code16 = (self.acc >> 48) as i32;
        for len in LUT_BITS + 1..=16 {
            let code = code16 >> (16 - len);
            if code <= table.max_code[len as usize] {
                self.consume(len);
                let index = code + table.value_offset[len as usize];
                return table.values.get(usize::try_from(index).ok()?).copied();
            }
        }
        None
    }

    /// Reads an `size`-bit magnitude and extends its sign (F.2.2.1's EXTEND).
    #[inline(always)]
    fn magnitude(&mut self, size: u32) -> i32 {
        if size == 0 {
            return 0;
        }
        let v = (self.acc >> (64 - size)) as i32;
        self.consume(size);
        if v < 1 << (size - 1) {
            v - (1 << size) + 1
        } else {
            v
        }
    }

    /// Decodes a block's DC difference and steps over its AC coefficients. The bit buffer lives
    /// in locals here: this loop is the proxy's hot path, and a buffer kept behind `&mut self`
    /// costs a store and a reload on every symbol.
    #[inline(always)]
    fn block(&mut self, dc: &Huffman, ac: &Huffman) -> Option<i32> {
        self.ensure();
        let size = u32::from(self.symbol(dc)?);
        let diff = self.magnitude(size);
        let (mut acc, mut count) = (self.acc, self.count);
        let mut k = 1;
        while k < 64 {
            if count < 32 {
                (self.acc, self.count) = (acc, count);
                self.refill();
                (acc, count) = (self.acc, self.count);
            }
            // Several symbols at once, unless one of them would belong to the next block.
            let entry = u32::from(ac.skip[(acc >> (64 - LUT_BITS)) as usize]);
            let (n, advance, end) = (entry & 15, entry >> 4 & 127, entry >> 11);
            if n != 0 && k + advance + end <= 64 {
                acc <<= n;
                count -= n;
                k += advance;
                if end != 0 {
                    break;
                }
                continue;
            }
            (self.acc, self.count) = (acc, count);
            let symbol = self.symbol(ac)?;
            let (run, size) = (u32::from(symbol >> 4), u32::from(symbol & 15));
            if size == 0 && run != 15 {
                return Some(diff);
            }
            self.consume(size);
            k += run + 1;
            (acc, count) = (self.acc, self.count);
        }
        (self.acc, self.count) = (acc, count);
        Some(diff)
    }

    /// True when the data read so far did not run into a marker's zero fill.
    fn intact(&self) -> bool {
        self.count >= self.padding
    }

    /// At a restart interval's end: the next thing must be marker RSTn.
    fn restart(&mut self, n: usize) -> Option<()> {
        if !self.intact() {
            return None;
        }
        let marker = 0xD0 + (n % 8) as u8;
        if self.data.get(self.pos..self.pos + 2)? != [0xFF, marker] {
            return None;
        }
        self.pos += 2;
        self.acc = 0;
        self.count = 0;
        self.at_marker = false;
        self.padding = 0;
        Some(())
    }
}

/// libjpeg-turbo's 1×1 IDCT: (DC × quantiser) / 8 rounded, level-shifted and range-limited
/// through its post-IDCT table (indexed by the value masked to 10 bits).
fn dc_sample(dc: i32, quant: i32) -> u8 {
    let coefficient = dc as i16; // JCOEF is 16 bits
    let value = (i32::from(coefficient) * quant + 4) >> 3;
    match value & 0x3FF {
        i @ 0..=127 => (i + 128) as u8,
        128..=511 => 255,
        512..=895 => 0,
        i => (i - 896) as u8,
    }
}

/// libjpeg-turbo's integer YCbCr→RGB (jdcolor.c, 16 fractional bits).
fn ycc_to_rgb(y: u8, cb: u8, cr: u8) -> [u8; 3] {
    const ONE_HALF: i32 = 1 << 15;
    let (y, cb, cr) = (i32::from(y), i32::from(cb) - 128, i32::from(cr) - 128);
    let r = y + ((91_881 * cr + ONE_HALF) >> 16);
    let g = y + ((-22_554 * cb + ONE_HALF - 46_802 * cr) >> 16);
    let b = y + ((116_130 * cb + ONE_HALF) >> 16);
    [
        r.clamp(0, 255) as u8,
        g.clamp(0, 255) as u8,
        b.clamp(0, 255) as u8,
    ]
}

fn decode_scan(data: &[u8], headers: &Headers) -> Option<Vec<Plane>> {
    let frame = &headers.frame;
    let (mcus_x, mcus_y) = frame.mcus();
    let mut planes: Vec<Plane> = frame
        .components
        .iter()
        .map(|c| Plane {
            stride: mcus_x * c.h,
            samples: vec![0; mcus_x * c.h * mcus_y * c.v],
        })
        .collect();
    struct Coding<'t> {
        frame_index: usize,
        h: usize,
        v: usize,
        quant: i32,
        dc: &'t Huffman,
        ac: &'t Huffman,
    }
    let coding: Vec<Coding> = headers
        .scan
        .order
        .iter()
        .map(|s| {
            let c = frame.components[s.frame_index];
            Some(Coding {
                frame_index: s.frame_index,
                h: c.h,
                v: c.v,
                quant: i32::from(headers.dc_quant[c.quant_table]?),
                dc: headers.dc_tables.get(s.dc_table)?.as_deref()?,
                ac: headers.ac_tables.get(s.ac_table)?.as_deref()?,
            })
        })
        .collect::<Option<_>>()?;

    let mut bits = Bits::new(data, headers.scan.data_start);
    let mut predictions = [0i32; 3];
    let interval = headers.restart_interval;
    let mut restarts = 0;
    for mcu_y in 0..mcus_y {
        // Data that ended early reads as zeros: stop at the row where that began.
        if !bits.intact() {
            return None;
        }
        for mcu_x in 0..mcus_x {
            let index = mcu_y * mcus_x + mcu_x;
            if interval > 0 && index > 0 && index % interval == 0 {
                bits.restart(restarts)?;
                restarts += 1;
                predictions = [0; 3];
            }
            for (ci, c) in coding.iter().enumerate() {
                let plane = &mut planes[c.frame_index];
                for by in 0..c.v {
                    let row = (mcu_y * c.v + by) * plane.stride + mcu_x * c.h;
                    for sample in &mut plane.samples[row..row + c.h] {
                        predictions[ci] += bits.block(c.dc, c.ac)?;
                        *sample = dc_sample(predictions[ci], c.quant);
                    }
                }
            }
        }
    }
    bits.intact().then_some(planes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dc_samples_follow_libjpeg_turbos_range_limit() {
        assert_eq!(dc_sample(0, 16), 128);
        assert_eq!(dc_sample(-64, 16), 0);
        assert_eq!(dc_sample(63, 16), 254);
        assert_eq!(dc_sample(100, 16), 255);
        // Far out of range wraps through the 10-bit table like libjpeg-turbo's.
        assert_eq!(dc_sample(300, 16), 0);
        assert_eq!(dc_sample(1000, 16), 80);
    }

    #[test]
    fn grey_maps_to_grey_in_ycbcr() {
        assert_eq!(ycc_to_rgb(77, 128, 128), [77, 77, 77]);
        assert_eq!(ycc_to_rgb(255, 128, 255), [255, 164, 255]);
    }

    /// A photo-like test card: gradients, edges and sensor-like noise in every channel.
    fn photo(w: usize, h: usize, seed: u64) -> Vec<u8> {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(seed);
        let mut px = Vec::with_capacity(w * h * 3);
        for y in 0..h {
            for x in 0..w {
                let edge = if (x / 13 + y / 7) % 2 == 0 {
                    40.0
                } else {
                    -40.0
                };
                for c in 0..3 {
                    let gradient =
                        (x * (c + 1) * 255 / w.max(1)) as f32 * 0.5 + (y * 97 / h.max(1)) as f32;
                    let noise: f32 = rng.gen_range(-12.0..12.0);
                    px.push((gradient + edge + noise).clamp(0.0, 255.0) as u8);
                }
            }
        }
        px
    }

    fn grey(rgb: &[u8]) -> Vec<u8> {
        rgb.chunks(3).map(|p| p[1]).collect()
    }

    /// What libjpeg-turbo makes of the file at scale 1/8.
    fn libjpeg_eighth(jpeg: &[u8]) -> Eighth {
        let mut d = mozjpeg::Decompress::new_mem(jpeg).expect("libjpeg-turbo reads it");
        d.scale(1);
        let mut started = d.rgb().expect("RGB output");
        let (width, height) = (started.width() as u32, started.height() as u32);
        let rgb: Vec<u8> = started.read_scanlines().expect("scanlines");
        started.finish().expect("finish");
        Eighth { width, height, rgb }
    }

    fn image_crate_jpeg(px: &[u8], w: usize, h: usize, color: image::ExtendedColorType) -> Vec<u8> {
        use image::ImageEncoder;
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
            .write_image(px, w as u32, h as u32, color)
            .expect("encodes");
        out
    }

    fn jpeg_encoder(
        px: &[u8],
        w: usize,
        h: usize,
        configure: impl FnOnce(&mut jpeg_encoder::Encoder<&mut Vec<u8>>),
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = jpeg_encoder::Encoder::new(&mut out, 90);
        configure(&mut encoder);
        encoder
            .encode(px, w as u16, h as u16, jpeg_encoder::ColorType::Rgb)
            .expect("encodes");
        out
    }

    fn assert_identical_to_libjpeg(jpeg: &[u8], what: &str) {
        let ours = decode_eighth(jpeg).unwrap_or_else(|| panic!("{what}: the fast path declined"));
        let theirs = libjpeg_eighth(jpeg);
        assert_eq!(
            (ours.width, ours.height),
            (theirs.width, theirs.height),
            "{what}: size"
        );
        assert!(
            ours.rgb == theirs.rgb,
            "{what}: pixels differ from libjpeg-turbo's"
        );
    }

    const SIZES: [(usize, usize); 6] = [(640, 480), (333, 217), (1, 1), (17, 9), (8, 8), (9, 250)];

    #[test]
    fn the_stored_format_decodes_exactly_as_libjpeg_turbo_decodes_it() {
        for (i, &(w, h)) in SIZES.iter().enumerate() {
            let px = photo(w, h, i as u64);
            let jpeg = image_crate_jpeg(&px, w, h, image::ExtendedColorType::Rgb8);
            assert_identical_to_libjpeg(&jpeg, &format!("4:4:4 {w}x{h}"));
        }
    }

    #[test]
    fn greyscale_decodes_exactly_as_libjpeg_turbo_decodes_it() {
        for (i, &(w, h)) in SIZES.iter().enumerate() {
            let px = grey(&photo(w, h, 10 + i as u64));
            let jpeg = image_crate_jpeg(&px, w, h, image::ExtendedColorType::L8);
            assert_identical_to_libjpeg(&jpeg, &format!("grey {w}x{h}"));
        }
    }

    #[test]
    fn restart_markers_and_4_2_2_decode_exactly_as_libjpeg_turbo_does() {
        use jpeg_encoder::SamplingFactor;
        for (i, &(w, h)) in SIZES.iter().enumerate() {
            let px = photo(w, h, 20 + i as u64);
            let jpeg = jpeg_encoder(&px, w, h, |e| {
                e.set_sampling_factor(SamplingFactor::F_1_1);
                e.set_restart_interval(1);
            });
            assert_identical_to_libjpeg(&jpeg, &format!("4:4:4, restart every MCU, {w}x{h}"));
            let jpeg = jpeg_encoder(&px, w, h, |e| {
                e.set_sampling_factor(SamplingFactor::F_2_1);
            });
            assert_identical_to_libjpeg(&jpeg, &format!("4:2:2 {w}x{h}"));
            let jpeg = jpeg_encoder(&px, w, h, |e| {
                e.set_sampling_factor(SamplingFactor::F_2_1);
                e.set_restart_interval(3);
            });
            assert_identical_to_libjpeg(&jpeg, &format!("4:2:2, restart every 3, {w}x{h}"));
        }
    }

    #[test]
    fn libjpeg_turbos_own_optimised_baseline_files_decode_exactly_as_it_decodes_them() {
        let (w, h) = (480, 360);
        let px = photo(w, h, 30);
        let mut c = mozjpeg::Compress::new(mozjpeg::ColorSpace::JCS_RGB);
        c.set_fastest_defaults();
        c.set_size(w, h);
        c.set_quality(90.0);
        c.set_optimize_coding(true);
        c.set_chroma_sampling_pixel_sizes((1, 1), (1, 1));
        let mut c = c.start_compress(Vec::new()).expect("starts");
        c.write_scanlines(&px).expect("writes");
        let jpeg = c.finish().expect("finishes");
        assert!(
            jpeg.windows(2).all(|m| m != [0xFF, 0xC2]),
            "baseline, not progressive"
        );
        assert_identical_to_libjpeg(&jpeg, "libjpeg-turbo optimised 4:4:4");
    }

    #[test]
    fn four_two_zero_agrees_with_libjpeg_turbo_on_every_chroma_block() {
        let (w, h) = (640, 480);
        // Kept clear of black and white: where RGB clips, no two decoders agree on a mean.
        let px: Vec<u8> = photo(w, h, 40).iter().map(|&v| 48 + v / 2).collect();
        let jpeg = jpeg_encoder(&px, w, h, |e| {
            e.set_sampling_factor(jpeg_encoder::SamplingFactor::F_2_2)
        });
        let ours = decode_eighth(&jpeg).expect("4:2:0 takes the fast path");
        let theirs = libjpeg_eighth(&jpeg);
        assert_eq!((ours.width, ours.height), (theirs.width, theirs.height));
        // libjpeg-turbo spreads each chroma block over its 2×2 pixels with a reduced IDCT where
        // this repeats the block's mean: over each 2×2 group the two agree.
        let (ow, oh) = (ours.width as usize, ours.height as usize);
        let mut worst = 0;
        for gy in (0..oh - 1).step_by(2) {
            for gx in (0..ow - 1).step_by(2) {
                for c in 0..3 {
                    let sum = |rgb: &[u8]| -> i32 {
                        [(0, 0), (1, 0), (0, 1), (1, 1)]
                            .iter()
                            .map(|(dx, dy)| i32::from(rgb[((gy + dy) * ow + gx + dx) * 3 + c]))
                            .sum()
                    };
                    worst = worst.max((sum(&ours.rgb) - sum(&theirs.rgb)).abs());
                }
            }
        }
        // Rounding alone: at most 2 levels on a 2×2 mean.
        assert!(
            worst <= 4 * 2,
            "2x2 means differ by up to {} levels",
            f64::from(worst) / 4.0
        );
    }

    #[test]
    fn progressive_multi_scan_and_cmyk_files_are_left_to_libjpeg_turbo() {
        let px = photo(64, 48, 50);
        let progressive = jpeg_encoder(&px, 64, 48, |e| e.set_progressive(true));
        assert_eq!(libjpeg_eighth(&progressive).width, 8);
        assert!(decode_eighth(&progressive).is_none());
        // jpeg-encoder writes optimised files as one sequential scan per component.
        let multi_scan = jpeg_encoder(&px, 64, 48, |e| e.set_optimized_huffman_tables(true));
        assert_eq!(libjpeg_eighth(&multi_scan).width, 8);
        assert!(decode_eighth(&multi_scan).is_none());
        let mut c = mozjpeg::Compress::new(mozjpeg::ColorSpace::JCS_CMYK);
        c.set_size(8, 8);
        let mut c = c.start_compress(Vec::new()).expect("starts");
        c.write_scanlines(&[7u8; 8 * 8 * 4]).expect("writes");
        let cmyk = c.finish().expect("finishes");
        assert!(decode_eighth(&cmyk).is_none());
    }

    #[test]
    fn damaged_files_are_refused_or_decoded_to_the_right_size_never_a_panic() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let (w, h) = (96, 72);
        let px = photo(w, h, 60);
        let jpeg = jpeg_encoder(&px, w, h, |e| e.set_restart_interval(2));
        // A file cut anywhere in its scan ran out of data: refused, never padded with grey.
        let scan_start = jpeg
            .windows(2)
            .position(|m| m == [0xFF, 0xDA])
            .expect("SOS");
        for cut in (0..jpeg.len() - 2).step_by(7) {
            let result = decode_eighth(&jpeg[..cut]);
            assert!(
                result.is_none() || cut > jpeg.len() - 4,
                "cut at {cut} (scan at {scan_start})"
            );
        }
        let mut rng = StdRng::seed_from_u64(61);
        for _ in 0..2000 {
            let mut bad = jpeg.clone();
            for _ in 0..rng.gen_range(1..4) {
                let at = rng.gen_range(0..bad.len());
                bad[at] = rng.r#gen();
            }
            if let Some(e) = decode_eighth(&bad) {
                assert_eq!(e.rgb.len(), e.width as usize * e.height as usize * 3);
            }
        }
    }

    #[test]
    fn anything_but_a_jpeg_is_left_to_libjpeg() {
        assert!(decode_eighth(b"").is_none());
        assert!(decode_eighth(b"\x89PNG\r\n\x1a\n").is_none());
        assert!(decode_eighth(&[0xFF, 0xD8, 0xFF]).is_none());
    }
}
