//! Per-key request allowances (a session's user, a client address) on `governor`'s keyed GCRA
//! limiter: `n` requests at once, refilled at `n` a minute.
//!
//! Keys live only while they differ from a fresh one, that is for at most a minute after their
//! last request: [`spawn_housekeeping`] drops the others every minute, so a flood of made-up keys
//! costs memory for a minute, never for good, and no request ever waits on a scan.

use std::{num::NonZeroU32, sync::Arc, time::Duration};

use governor::{
    Quota,
    clock::{Clock, DefaultClock},
    middleware::NoOpMiddleware,
    state::keyed::DefaultKeyedStateStore,
};

pub struct RateLimiter<C: Clock = DefaultClock> {
    inner: governor::RateLimiter<
        String,
        DefaultKeyedStateStore<String>,
        C,
        NoOpMiddleware<C::Instant>,
    >,
}

fn quota(per_minute: u32) -> Quota {
    Quota::per_minute(NonZeroU32::new(per_minute.max(1)).expect("at least 1"))
}

impl RateLimiter {
    /// `per_minute` requests at once for each key, refilled at `per_minute` a minute.
    pub fn per_minute(per_minute: u32) -> RateLimiter {
        RateLimiter {
            inner: governor::RateLimiter::keyed(quota(per_minute)),
        }
    }
}

impl<C: Clock> RateLimiter<C> {
    /// The same on another clock (tests drive a fake one).
    pub fn with_clock(per_minute: u32, clock: C) -> RateLimiter<C> {
        RateLimiter {
            inner: governor::RateLimiter::new(
                quota(per_minute),
                DefaultKeyedStateStore::default(),
                clock,
            ),
        }
    }

    /// Takes one request of `key`'s allowance; false when it is used up.
    pub fn allow(&self, key: &str) -> bool {
        self.inner.check_key(&key.to_string()).is_ok()
    }

    /// Takes one request of `key`'s allowance; when it is used up, how long until the next one
    /// (for `Retry-After`).
    pub fn check(&self, key: &str) -> Result<(), Duration> {
        self.inner
            .check_key(&key.to_string())
            .map_err(|not_until| not_until.wait_time_from(self.inner.clock().now()))
    }

    /// Forgets every key whose allowance is whole again.
    pub fn retain_recent(&self) {
        self.inner.retain_recent();
        self.inner.shrink_to_fit();
    }

    /// How many keys are remembered.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

/// Runs `retain_recent` on each limiter every `every` until the process stops.
pub fn spawn_housekeeping(
    limiters: Vec<Arc<RateLimiter>>,
    every: Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            for limiter in &limiters {
                limiter.retain_recent();
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use governor::clock::FakeRelativeClock;

    use super::*;

    #[test]
    fn a_key_gets_its_allowance_at_once_and_then_is_refused() {
        let limiter = RateLimiter::with_clock(30, FakeRelativeClock::default());
        for i in 0..30 {
            assert!(limiter.allow("u:1"), "request {i}");
        }
        assert!(!limiter.allow("u:1"));
        assert!(!limiter.allow("u:1"));
    }

    #[test]
    fn a_refusal_says_how_long_to_wait() {
        let clock = FakeRelativeClock::default();
        let limiter = RateLimiter::with_clock(30, clock.clone());
        for _ in 0..30 {
            assert_eq!(limiter.check("m:1"), Ok(()));
        }
        // 30 a minute: the next one in two seconds.
        assert_eq!(limiter.check("m:1"), Err(Duration::from_secs(2)));
        clock.advance(Duration::from_millis(1500));
        assert_eq!(limiter.check("m:1"), Err(Duration::from_millis(500)));
        clock.advance(Duration::from_millis(500));
        assert_eq!(limiter.check("m:1"), Ok(()));
    }

    #[test]
    fn each_key_has_its_own_allowance() {
        let limiter = RateLimiter::with_clock(2, FakeRelativeClock::default());
        assert!(limiter.allow("u:1") && limiter.allow("u:1"));
        assert!(!limiter.allow("u:1"));
        assert!(limiter.allow("u:2"));
        assert!(limiter.allow("ip:127.0.0.1"));
    }

    #[test]
    fn the_allowance_refills_at_the_rate_per_minute() {
        let clock = FakeRelativeClock::default();
        let limiter = RateLimiter::with_clock(30, clock.clone());
        for _ in 0..30 {
            assert!(limiter.allow("u:1"));
        }
        assert!(!limiter.allow("u:1"));
        // 30 a minute: one more every two seconds.
        clock.advance(Duration::from_millis(1900));
        assert!(!limiter.allow("u:1"));
        clock.advance(Duration::from_millis(100));
        assert!(limiter.allow("u:1"));
        assert!(!limiter.allow("u:1"));
        // A whole minute gives the whole allowance back, and no more.
        clock.advance(Duration::from_secs(120));
        for _ in 0..30 {
            assert!(limiter.allow("u:1"));
        }
        assert!(!limiter.allow("u:1"));
    }

    #[test]
    fn keys_are_forgotten_once_their_allowance_is_whole_again() {
        let clock = FakeRelativeClock::default();
        let limiter = RateLimiter::with_clock(30, clock.clone());
        for i in 0..20_000 {
            assert!(limiter.allow(&format!("ip:{i}")));
        }
        assert_eq!(limiter.len(), 20_000);
        // Still counting within the minute: nothing may be forgotten yet.
        clock.advance(Duration::from_secs(1));
        limiter.retain_recent();
        assert_eq!(limiter.len(), 20_000);
        // One key keeps being used; every other one has long been whole again (one request of
        // thirty a minute comes back after two seconds).
        clock.advance(Duration::from_secs(4));
        for _ in 0..10 {
            assert!(limiter.allow("u:busy"));
        }
        limiter.retain_recent();
        assert_eq!(limiter.len(), 1);
        clock.advance(Duration::from_secs(60));
        limiter.retain_recent();
        assert!(limiter.is_empty());
    }

    #[test]
    fn a_key_whose_allowance_is_not_whole_yet_is_remembered() {
        let clock = FakeRelativeClock::default();
        // Two a minute: one comes back every thirty seconds.
        let limiter = RateLimiter::with_clock(2, clock.clone());
        assert!(limiter.allow("ip:x") && limiter.allow("ip:x"));
        assert!(!limiter.allow("ip:x"));
        clock.advance(Duration::from_secs(31));
        limiter.retain_recent();
        assert!(limiter.allow("ip:x"));
        assert!(
            !limiter.allow("ip:x"),
            "forgetting the key early would have handed out a whole new allowance"
        );
        clock.advance(Duration::from_secs(120));
        limiter.retain_recent();
        assert!(limiter.is_empty());
    }
}
