//! Decoded pixels, shared by the proxy's renders of one photo that arrive together.
//!
//! A page asks for several sizes of each photo at once (the profile grid's srcset at densities 1
//! and 2, and the 10×10 placeholder), each a cold variant the first time. Decoding the stored file
//! is most of a render's time (libjpeg-turbo's Huffman decoding alone was 41.5 % of the image
//! workers' CPU in `just bench`'s case 2a, and it costs the same at every DCT scale), so the
//! renders of one file share one decode: the first asks for pixels that cover every small size
//! (`ipx::Plan::decode_want`), the others wait for them instead of decoding the same bytes again.
//!
//! Lifetime: an entry lives at most [`KEEP_FOR`] (a page's requests of one photo arrive within
//! it), fewer when [`CAP_BYTES`] needs the room (oldest first), and ends at once when its file is
//! removed (`FileStore::remove`). A render that took the pixels holds them until it ends. This is
//! one process's memory: other processes' entries end by [`KEEP_FOR`], and none can be served
//! after the file's row is gone, since the proxy checks the row before it looks here.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::sync::watch;

use super::ipx::Pixels;

/// How long decoded pixels are kept for the other sizes of the same photo.
pub const KEEP_FOR: Duration = Duration::from_secs(5);
/// The most decoded pixels kept at once, in bytes: two photos at the shared size (480×360 RGB is
/// 518,400 B), all that a browser's four requests in flight need, and little enough to keep the
/// proxy's peak memory where `just bench` holds it (2 MiB measured 0.25× ipx's, 1 MiB 0.24×).
pub const CAP_BYTES: usize = 1024 * 1024;

/// A decode's outcome as the waiting renders see it: the pixels, or that the bytes did not decode.
type Outcome = Option<Result<Arc<Pixels>, ()>>;

/// The decoded pixels of the files rendered in the last few seconds (module docs).
pub struct DecodedPixels {
    entries: Mutex<Entries>,
    cap_bytes: usize,
    keep_for: Duration,
    decodes: AtomicU64,
    shared: AtomicU64,
}

#[derive(Default)]
struct Entries {
    list: Vec<Entry>,
    next_id: u64,
}

struct Entry {
    id: u64,
    file_id: String,
    /// What the decode delivers at least, in pixels of the whole image.
    covers: (u32, u32),
    /// Exact once the pixels are there; until then, what they will take.
    bytes: usize,
    born: Instant,
    ready: watch::Receiver<Outcome>,
}

/// What a render does for its pixels.
pub enum Lookup {
    /// Another render is decoding (or has decoded) pixels that cover this one: wait for them.
    Join(Waiter),
    /// Nobody has them: decode, and hand the pixels to the ticket for the others.
    Decode(Ticket),
}

/// Waits for another render's decode.
pub struct Waiter {
    ready: watch::Receiver<Outcome>,
}

impl Waiter {
    /// The pixels, `Some(Err(()))` when the bytes did not decode, or `None` when the decoding
    /// render ended without an outcome (its client hung up before a worker was free): look up
    /// again.
    pub async fn wait(mut self) -> Option<Result<Arc<Pixels>, ()>> {
        match self.ready.wait_for(Option::is_some).await {
            Ok(outcome) => outcome.clone(),
            Err(_) => None,
        }
    }
}

/// The right, and the duty, to decode a file's pixels for everyone waiting on them. Dropped
/// without [`publish`](Ticket::publish), it withdraws the entry, and the waiters look again.
pub struct Ticket {
    cache: Arc<DecodedPixels>,
    id: u64,
    ready: Option<watch::Sender<Outcome>>,
    /// The runtime the lookup ran on: publishing schedules the entry's end there.
    runtime: Option<tokio::runtime::Handle>,
}

impl Ticket {
    /// Hands the outcome of the decode to the waiting renders (and to those that come within
    /// [`KEEP_FOR`]). A failed decode is not kept: the next render tries for itself.
    ///
    /// Kept pixels are ended [`KEEP_FOR`] later even if nothing looks here again. The expiry is
    /// scheduled here, on the image worker that decoded them, rather than by the render once it
    /// answers: a client that hangs up mid-render drops the render, but the worker's job still
    /// runs to its end and publishes.
    pub fn publish(mut self, outcome: Result<Arc<Pixels>, ()>) {
        let Some(ready) = self.ready.take() else {
            return;
        };
        self.cache.decodes.fetch_add(1, Ordering::Relaxed);
        match &outcome {
            Ok(pixels) => {
                self.cache.settle(self.id, pixels.byte_len());
                if let Some(runtime) = self.runtime.take() {
                    let cache = self.cache.clone();
                    runtime.spawn(async move {
                        tokio::time::sleep(cache.keep_for).await;
                        cache.expire();
                    });
                }
            }
            Err(()) => self.cache.withdraw(self.id),
        }
        ready.send_replace(Some(outcome));
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.ready.take().is_some() {
            self.cache.withdraw(self.id);
        }
    }
}

impl DecodedPixels {
    pub fn new() -> Arc<DecodedPixels> {
        DecodedPixels::with_limits(CAP_BYTES, KEEP_FOR)
    }

    pub fn with_limits(cap_bytes: usize, keep_for: Duration) -> Arc<DecodedPixels> {
        Arc::new(DecodedPixels {
            entries: Mutex::new(Entries::default()),
            cap_bytes,
            keep_for,
            decodes: AtomicU64::new(0),
            shared: AtomicU64::new(0),
        })
    }

    /// Pixels of `file_id` covering `want` (pixels of the whole image): another render's, or a
    /// ticket to decode them.
    pub fn lookup(self: &Arc<Self>, file_id: &str, want: (u32, u32)) -> Lookup {
        let mut entries = self.lock();
        let now = Instant::now();
        entries
            .list
            .retain(|e| now.duration_since(e.born) < self.keep_for);
        if let Some(e) = entries
            .list
            .iter()
            .find(|e| e.file_id == file_id && e.covers.0 >= want.0 && e.covers.1 >= want.1)
        {
            self.shared.fetch_add(1, Ordering::Relaxed);
            return Lookup::Join(Waiter {
                ready: e.ready.clone(),
            });
        }
        let (ready, receiver) = watch::channel(None);
        let id = entries.next_id;
        entries.next_id += 1;
        entries.list.push(Entry {
            id,
            file_id: file_id.to_string(),
            covers: want,
            bytes: want.0 as usize * want.1 as usize * 3,
            born: now,
            ready: receiver,
        });
        self.trim(&mut entries);
        Lookup::Decode(Ticket {
            cache: self.clone(),
            id,
            ready: Some(ready),
            runtime: tokio::runtime::Handle::try_current().ok(),
        })
    }

    /// Ends every entry of a removed file.
    pub fn forget(&self, file_id: &str) {
        self.lock().list.retain(|e| e.file_id != file_id);
    }

    /// Ends the entries older than [`KEEP_FOR`] (each publish schedules it that long after, so no
    /// pixels outlive it on an idle server).
    pub fn expire(&self) {
        let now = Instant::now();
        self.lock()
            .list
            .retain(|e| now.duration_since(e.born) < self.keep_for);
    }

    /// Whether any pixels of `file_id` are kept.
    pub fn holds(&self, file_id: &str) -> bool {
        self.lock().list.iter().any(|e| e.file_id == file_id)
    }

    /// The bytes kept now (pending decodes at their expected size).
    pub fn bytes(&self) -> usize {
        self.lock().list.iter().map(|e| e.bytes).sum()
    }

    /// Decodes made through this cache, and renders that took another render's decode.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.decodes.load(Ordering::Relaxed),
            self.shared.load(Ordering::Relaxed),
        )
    }

    fn settle(&self, id: u64, bytes: usize) {
        let mut entries = self.lock();
        if let Some(e) = entries.list.iter_mut().find(|e| e.id == id) {
            e.bytes = bytes;
        }
        self.trim(&mut entries);
    }

    fn withdraw(&self, id: u64) {
        self.lock().list.retain(|e| e.id != id);
    }

    /// Oldest first until the cap holds (the newest entry stays even alone over it: a render
    /// needs its pixels either way, and they leave with it).
    fn trim(&self, entries: &mut Entries) {
        let mut total: usize = entries.list.iter().map(|e| e.bytes).sum();
        while total > self.cap_bytes && entries.list.len() > 1 {
            total -= entries.list.remove(0).bytes;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic elsewhere while holding the lock leaves a list that is still valid.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixels(w: u32, h: u32) -> Arc<Pixels> {
        Arc::new(Pixels::rgb(w, h, vec![7; (w * h * 3) as usize]))
    }

    fn ticket(lookup: Lookup) -> Ticket {
        match lookup {
            Lookup::Decode(t) => t,
            Lookup::Join(_) => panic!("expected to decode"),
        }
    }

    fn waiter(lookup: Lookup) -> Waiter {
        match lookup {
            Lookup::Join(w) => w,
            Lookup::Decode(_) => panic!("expected to join"),
        }
    }

    #[tokio::test]
    async fn a_smaller_size_of_the_same_file_waits_for_the_decode_under_way() {
        let cache = DecodedPixels::new();
        let first = ticket(cache.lookup("a", (240, 320)));
        let second = waiter(cache.lookup("a", (120, 160)));
        let third = waiter(cache.lookup("a", (240, 320)));
        first.publish(Ok(pixels(240, 320)));
        assert_eq!(second.wait().await.unwrap().unwrap().w, 240);
        assert_eq!(third.wait().await.unwrap().unwrap().h, 320);
        assert_eq!(cache.counts(), (1, 2));
    }

    #[tokio::test]
    async fn a_larger_size_or_another_file_decodes_for_itself() {
        let cache = DecodedPixels::new();
        let _small = ticket(cache.lookup("a", (240, 320)));
        let _large = ticket(cache.lookup("a", (480, 640)));
        let _other = ticket(cache.lookup("b", (10, 10)));
        assert_eq!(cache.counts().1, 0);
    }

    #[tokio::test]
    async fn a_decoder_that_goes_away_sends_its_waiters_to_look_again() {
        let cache = DecodedPixels::new();
        let gone = ticket(cache.lookup("a", (240, 320)));
        let waiting = waiter(cache.lookup("a", (240, 320)));
        drop(gone);
        assert!(waiting.wait().await.is_none());
        assert!(!cache.holds("a"));
        let _next = ticket(cache.lookup("a", (240, 320)));
    }

    #[tokio::test]
    async fn a_failed_decode_tells_the_waiters_and_is_not_kept() {
        let cache = DecodedPixels::new();
        let failing = ticket(cache.lookup("a", (240, 320)));
        let waiting = waiter(cache.lookup("a", (240, 320)));
        failing.publish(Err(()));
        assert!(matches!(waiting.wait().await, Some(Err(()))));
        assert!(!cache.holds("a"));
    }

    #[test]
    fn removing_a_file_ends_its_pixels_and_only_its() {
        let cache = DecodedPixels::new();
        ticket(cache.lookup("a", (10, 10))).publish(Ok(pixels(10, 10)));
        ticket(cache.lookup("b", (10, 10))).publish(Ok(pixels(10, 10)));
        cache.forget("a");
        assert!(!cache.holds("a"));
        assert!(cache.holds("b"));
    }

    #[test]
    fn pixels_end_after_the_keeping_time() {
        let cache = DecodedPixels::with_limits(CAP_BYTES, Duration::from_millis(30));
        ticket(cache.lookup("a", (10, 10))).publish(Ok(pixels(10, 10)));
        assert!(cache.holds("a"));
        std::thread::sleep(Duration::from_millis(40));
        cache.expire();
        assert!(!cache.holds("a"));
        assert_eq!(cache.bytes(), 0);
    }

    #[tokio::test]
    async fn published_pixels_end_on_time_though_nothing_looks_again() {
        let cache = DecodedPixels::with_limits(CAP_BYTES, Duration::from_millis(30));
        let decoder = ticket(cache.lookup("a", (10, 10)));
        // Published on another thread, as an image worker does after the render's client left.
        std::thread::spawn(move || decoder.publish(Ok(pixels(10, 10))))
            .join()
            .unwrap();
        assert!(cache.holds("a"));
        let deadline = Instant::now() + Duration::from_secs(5);
        while cache.holds("a") && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!cache.holds("a"), "no expiry ran after the publish");
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn the_byte_cap_ends_the_oldest_first() {
        let cache = DecodedPixels::with_limits(3 * 100 * 100 * 3, KEEP_FOR);
        for id in ["a", "b", "c", "d"] {
            ticket(cache.lookup(id, (100, 100))).publish(Ok(pixels(100, 100)));
        }
        assert!(!cache.holds("a"));
        assert!(cache.holds("b") && cache.holds("c") && cache.holds("d"));
        assert!(cache.bytes() <= 3 * 100 * 100 * 3);
    }
}
