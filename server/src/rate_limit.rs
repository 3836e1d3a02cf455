//! A small in-memory token bucket per key (session or client address).

use std::{collections::HashMap, sync::Mutex, time::Instant};

pub struct RateLimiter {
    capacity: f64,
    per_second: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

const MAX_KEYS: usize = 10_000;

impl RateLimiter {
    /// `capacity` requests at once, refilled at `per_minute`.
    pub fn new(capacity: u32, per_minute: u32) -> RateLimiter {
        RateLimiter {
            capacity: f64::from(capacity),
            per_second: f64::from(per_minute) / 60.0,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `key`; false when the bucket is empty.
    pub fn allow(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("rate limiter lock");
        if buckets.len() > MAX_KEYS {
            let (cap, rate) = (self.capacity, self.per_second);
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < cap
            });
        }
        let (tokens, at) = buckets
            .entry(key.to_string())
            .or_insert((self.capacity, now));
        *tokens =
            (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.capacity);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}
