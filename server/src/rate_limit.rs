//! Keyed allowances (a member, a session's user, a client address): `burst` requests at once,
//! refilled evenly over `period` (GCRA). One API for every limit of the server:
//!
//! ```text
//! state.limits.get(LimitKind::Chat).check(&format!("member:{id}")).await?; // Err(wait) when used up
//! ```
//!
//! Each limit of the server is a [`LimitKind`], whose name and allowance are defined there once.
//!
//! Where the allowances live is [`Limits`]' business, not the caller's. On PostgreSQL they are
//! shared by every process on the database: one row per key in the UNLOGGED table
//! `rate_allowances` (key, theoretical arrival time in ms), taken in one upsert against the
//! database's clock, so two processes hand out one allowance, not two, and the machines' clocks
//! do not matter. On SQLite there is one process (a second one refuses to start), and the
//! allowances live in memory (`governor`'s keyed GCRA limiter). While PostgreSQL cannot be
//! reached a check falls back to this process's own memory, so a limit still holds per process.
//!
//! Keys live only while they differ from a fresh one: the housekeeping task drops the others every
//! minute (memory, and rows whose time has passed), so a flood of made-up keys costs something
//! for a minute, never for good, and no request ever waits on a scan.

use std::{
    num::NonZeroU32,
    sync::{Arc, Mutex},
    time::Duration,
};

use governor::{
    Quota,
    clock::{Clock, DefaultClock},
    middleware::NoOpMiddleware,
    state::keyed::DefaultKeyedStateStore,
};
use kizuna_core::rules;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend};

use crate::storage::rate_limits::Take;

/// Every rate limit of the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitKind {
    /// Client log lines of a member, per user.
    Log,
    /// Client log lines without a session, per client address.
    AnonymousLog,
    /// Arrivals through a push's link, per client address.
    Visit,
    /// Session look-ups the logger makes, per client address.
    LogLookup,
    /// Chat messages, per member.
    Chat,
    /// Uncached image proxy renders, per user.
    Render,
    /// Logins, per user.
    LoginUser,
    /// Logins, per client address.
    LoginAddress,
    /// Colleagues switch and employer changes, per user.
    Switch,
    /// Saves of the edit form, per user.
    Edit,
    /// Uploads started, per user.
    Upload,
    /// Look-ups of the usual review time, per user.
    ReviewTime,
}

impl LimitKind {
    /// Every kind, in the order of their discriminants.
    pub const ALL: [LimitKind; 12] = [
        LimitKind::Log,
        LimitKind::AnonymousLog,
        LimitKind::Visit,
        LimitKind::LogLookup,
        LimitKind::Chat,
        LimitKind::Render,
        LimitKind::LoginUser,
        LimitKind::LoginAddress,
        LimitKind::Switch,
        LimitKind::Edit,
        LimitKind::Upload,
        LimitKind::ReviewTime,
    ];

    /// What keeps this limit's keys apart from every other's (in the shared table) and names
    /// it in the refusals metric.
    pub fn name(self) -> &'static str {
        match self {
            LimitKind::Log => "log",
            LimitKind::AnonymousLog => "log-anonymous",
            LimitKind::Visit => "visit",
            LimitKind::LogLookup => "log-lookup",
            LimitKind::Chat => "chat",
            LimitKind::Render => "ipx-render",
            LimitKind::LoginUser => "login-user",
            LimitKind::LoginAddress => "login-address",
            LimitKind::Switch => "switch",
            LimitKind::Edit => "profile-edit",
            LimitKind::Upload => "upload",
            LimitKind::ReviewTime => "review-time",
        }
    }

    /// Requests a minute for each key, as many at once.
    pub fn per_minute(self) -> u32 {
        match self {
            LimitKind::Log => rules::LOG_LINES_PER_MINUTE_MEMBER,
            LimitKind::AnonymousLog => rules::LOG_LINES_PER_MINUTE_ANONYMOUS,
            LimitKind::Visit => kizuna_core::push::VISITS_PER_MINUTE_PER_ADDRESS,
            LimitKind::LogLookup => rules::LOG_SESSION_LOOKUPS_PER_MINUTE,
            LimitKind::Chat => rules::CHAT_MESSAGES_PER_MINUTE,
            LimitKind::Render => rules::IMAGE_RENDERS_PER_MINUTE,
            LimitKind::LoginUser => rules::LOGINS_PER_MINUTE_PER_USER,
            LimitKind::LoginAddress => rules::LOGINS_PER_MINUTE_PER_ADDRESS,
            LimitKind::Switch => rules::SWITCH_CHANGES_PER_MINUTE,
            LimitKind::Edit => rules::PROFILE_EDITS_PER_MINUTE,
            LimitKind::Upload => rules::UPLOADS_PER_MINUTE,
            LimitKind::ReviewTime => rules::REVIEW_TIME_LOOKUPS_PER_MINUTE,
        }
    }
}

/// The server's limits, one per [`LimitKind`], and where their allowances live.
#[derive(Clone)]
pub struct Limits {
    shared: Option<DatabaseConnection>,
    /// Every limiter made here, for the housekeeping.
    limiters: Arc<Mutex<Vec<Arc<RateLimiter>>>>,
    /// The limiter of each kind, at the kind's discriminant.
    kinds: Arc<Vec<Arc<RateLimiter>>>,
}

impl Limits {
    /// Shared through the database when it is PostgreSQL, in this process's memory otherwise.
    pub fn for_database(db: &DatabaseConnection) -> Limits {
        Limits::with((db.get_database_backend() == DbBackend::Postgres).then(|| db.clone()))
    }

    /// In this process's memory only (tests; tools without a database).
    pub fn in_process() -> Limits {
        Limits::with(None)
    }

    fn with(shared: Option<DatabaseConnection>) -> Limits {
        let mut limits = Limits {
            shared,
            limiters: Arc::default(),
            kinds: Arc::default(),
        };
        limits.kinds = Arc::new(
            LimitKind::ALL
                .iter()
                .map(|kind| limits.per_minute(kind.name(), kind.per_minute()))
                .collect(),
        );
        limits
    }

    /// The limit of this kind.
    pub fn get(&self, kind: LimitKind) -> &RateLimiter {
        &self.kinds[kind as usize]
    }

    /// Whether the allowances are shared by every process on the database.
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// `per_minute` requests at once for each key, refilled at `per_minute` a minute. `name`
    /// keeps this limit's keys apart from every other's (one name per limit).
    pub fn per_minute(&self, name: &'static str, per_minute: u32) -> Arc<RateLimiter> {
        self.per_period(name, per_minute, Duration::from_secs(60))
    }

    /// `burst` requests at once for each key, refilled evenly over `period`.
    pub fn per_period(&self, name: &'static str, burst: u32, period: Duration) -> Arc<RateLimiter> {
        let burst = burst.max(1);
        let period = period.max(Duration::from_millis(burst as u64));
        let limiter = Arc::new(RateLimiter {
            name,
            shared: self.shared.clone().map(|db| Shared {
                db,
                interval_ms: (period.as_millis() / burst as u128).max(1) as i64,
                burst,
            }),
            local: Local::new(quota(burst, period), DefaultClock::default()),
        });
        self.limiters
            .lock()
            .expect("the limits' lock")
            .push(limiter.clone());
        limiter
    }

    /// Forgets, every `every` until the process stops, every key whose allowance is whole again:
    /// in memory, and on PostgreSQL the rows whose time has passed.
    pub fn spawn_housekeeping(&self, every: Duration) -> tokio::task::JoinHandle<()> {
        let limits = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                limits.forget_whole().await;
            }
        })
    }

    async fn forget_whole(&self) {
        let limiters = self.limiters.lock().expect("the limits' lock").clone();
        for limiter in &limiters {
            limiter.local.retain_recent();
        }
        if let Some(db) = &self.shared {
            let forgot = crate::storage::rate_limits::forget_whole(db).await;
            if let Err(err) = forgot {
                tracing::warn!(error = %err, "rate limits: old allowances not forgotten");
            }
        }
    }
}

/// One limit: an allowance per key.
pub struct RateLimiter {
    name: &'static str,
    shared: Option<Shared>,
    /// The allowances when they are not shared, and while the database cannot be reached.
    local: Local,
}

struct Shared {
    db: DatabaseConnection,
    /// One request comes back every `interval_ms`.
    interval_ms: i64,
    burst: u32,
}

impl RateLimiter {
    /// Takes one request of `key`'s allowance; when it is used up, how long until the next one
    /// (for `Retry-After`).
    pub async fn check(&self, key: &str) -> Result<(), Duration> {
        let answer = self.take(key).await;
        self.counted(answer)
    }

    /// [`check`](Self::check) on the caller's connection, a transaction's: a shared allowance
    /// then holds its row until the transaction ends and comes back if it rolls back, and the
    /// check takes no second connection from the pool (it cannot wait for one while holding the
    /// first). A database error is the caller's (its transaction is lost anyway).
    pub async fn check_in(
        &self,
        conn: &impl ConnectionTrait,
        key: &str,
    ) -> Result<Result<(), Duration>, sea_orm::DbErr> {
        let answer = match &self.shared {
            Some(shared) => shared.take(conn, &format!("{}:{key}", self.name)).await?,
            None => self.local.check(key),
        };
        Ok(self.counted(answer))
    }

    /// The take of [`check_in`](Self::check_in), for a statement of the caller's own that
    /// reads what it decides on and takes the allowance at once (one round trip, not two); None
    /// when the allowances are not shared (then call `check_in`). The statement's answer goes to
    /// [`taken`](Self::taken). Like `check_in`'s, the take holds its row until the transaction
    /// ends and comes back if it rolls back.
    pub fn take_in_statement(&self, key: &str) -> Option<Take> {
        self.shared
            .as_ref()
            .map(|shared| shared.take_of(format!("{}:{key}", self.name)))
    }

    /// What `take`, made by the caller's statement ([`take_in_statement`](Self::take_in_statement)),
    /// answered (`limit_wait`'s row, if any), as [`check_in`](Self::check_in) answers.
    pub fn taken(&self, take: &Take, wait_ms: Option<i64>) -> Result<(), Duration> {
        self.counted(answer(take, wait_ms))
    }

    /// A refusal counts in the refusals metric, under this limit's name.
    fn counted(&self, answer: Result<(), Duration>) -> Result<(), Duration> {
        if answer.is_err() {
            metrics::counter!(crate::metric_names::LIMIT_REFUSALS, "limit" => self.name)
                .increment(1);
        }
        answer
    }

    async fn take(&self, key: &str) -> Result<(), Duration> {
        let Some(shared) = &self.shared else {
            return self.local.check(key);
        };
        match shared
            .take(&shared.db, &format!("{}:{key}", self.name))
            .await
        {
            Ok(answer) => answer,
            Err(err) => {
                tracing::warn!(
                    limit = self.name,
                    error = %err,
                    "rate limits: the database is unreachable; limiting in this process"
                );
                metrics::counter!(crate::metric_names::STORE_UNAVAILABLE).increment(1);
                self.local.check(key)
            }
        }
    }

    /// Takes one request of `key`'s allowance; false when it is used up.
    pub async fn allow(&self, key: &str) -> bool {
        self.check(key).await.is_ok()
    }

    /// How many keys this process remembers in memory.
    pub fn len(&self) -> usize {
        self.local.len()
    }

    pub fn is_empty(&self) -> bool {
        self.local.is_empty()
    }
}

impl Shared {
    /// One request of `key`'s allowance (its limit's name in front): `burst - 1` intervals of
    /// tolerance.
    fn take_of(&self, key: String) -> Take {
        Take {
            key,
            interval_ms: self.interval_ms,
            tolerance_ms: self.interval_ms * (self.burst as i64 - 1),
        }
    }

    /// One request of the key's allowance, or how long until one is allowed.
    async fn take(
        &self,
        conn: &impl ConnectionTrait,
        key: &str,
    ) -> Result<Result<(), Duration>, sea_orm::DbErr> {
        let take = self.take_of(key.to_string());
        let wait_ms = crate::storage::rate_limits::take(conn, &take).await?;
        Ok(answer(&take, wait_ms))
    }
}

/// What a take answered (`storage::rate_limits::take`): allowed, or how long until it is.
fn answer(take: &Take, wait_ms: Option<i64>) -> Result<(), Duration> {
    // None: refused, and the row that refused us is newer than the statement's snapshot.
    let wait_ms = wait_ms.unwrap_or(take.interval_ms);
    if wait_ms <= 0 {
        Ok(())
    } else {
        Err(Duration::from_millis(wait_ms as u64))
    }
}

fn quota(burst: u32, period: Duration) -> Quota {
    let burst = NonZeroU32::new(burst.max(1)).expect("at least 1");
    Quota::with_period(period / burst.get())
        .expect("a period longer than zero")
        .allow_burst(burst)
}

/// The in-memory allowances (`governor`'s keyed GCRA), on any clock (tests drive a fake one).
struct Local<C: Clock = DefaultClock> {
    inner: governor::RateLimiter<
        String,
        DefaultKeyedStateStore<String>,
        C,
        NoOpMiddleware<C::Instant>,
    >,
}

impl<C: Clock> Local<C> {
    fn new(quota: Quota, clock: C) -> Local<C> {
        Local {
            inner: governor::RateLimiter::new(quota, DefaultKeyedStateStore::default(), clock),
        }
    }

    fn check(&self, key: &str) -> Result<(), Duration> {
        self.inner
            .check_key(&key.to_string())
            .map_err(|not_until| not_until.wait_time_from(self.inner.clock().now()))
    }

    fn retain_recent(&self) {
        self.inner.retain_recent();
        self.inner.shrink_to_fit();
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use governor::clock::FakeRelativeClock;

    use super::*;

    fn per_minute(n: u32, clock: &FakeRelativeClock) -> Local<FakeRelativeClock> {
        Local::new(quota(n, Duration::from_secs(60)), clock.clone())
    }

    #[test]
    fn a_key_gets_its_allowance_at_once_and_then_is_refused() {
        let limiter = per_minute(30, &FakeRelativeClock::default());
        for i in 0..30 {
            assert!(limiter.check("u:1").is_ok(), "request {i}");
        }
        assert!(limiter.check("u:1").is_err());
        assert!(limiter.check("u:1").is_err());
    }

    #[test]
    fn a_refusal_says_how_long_to_wait() {
        let clock = FakeRelativeClock::default();
        let limiter = per_minute(30, &clock);
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
        let limiter = per_minute(2, &FakeRelativeClock::default());
        assert!(limiter.check("u:1").is_ok() && limiter.check("u:1").is_ok());
        assert!(limiter.check("u:1").is_err());
        assert!(limiter.check("u:2").is_ok());
        assert!(limiter.check("ip:127.0.0.1").is_ok());
    }

    #[test]
    fn the_allowance_refills_at_the_rate_per_minute() {
        let clock = FakeRelativeClock::default();
        let limiter = per_minute(30, &clock);
        for _ in 0..30 {
            assert!(limiter.check("u:1").is_ok());
        }
        assert!(limiter.check("u:1").is_err());
        // 30 a minute: one more every two seconds.
        clock.advance(Duration::from_millis(1900));
        assert!(limiter.check("u:1").is_err());
        clock.advance(Duration::from_millis(100));
        assert!(limiter.check("u:1").is_ok());
        assert!(limiter.check("u:1").is_err());
        // A whole minute gives the whole allowance back, and no more.
        clock.advance(Duration::from_secs(120));
        for _ in 0..30 {
            assert!(limiter.check("u:1").is_ok());
        }
        assert!(limiter.check("u:1").is_err());
    }

    #[test]
    fn a_longer_period_refills_evenly_over_it() {
        let clock = FakeRelativeClock::default();
        // 5 a day: one back every 4.8 hours.
        let limiter = Local::new(quota(5, Duration::from_secs(86_400)), clock.clone());
        for _ in 0..5 {
            assert!(limiter.check("a").is_ok());
        }
        assert_eq!(limiter.check("a"), Err(Duration::from_secs(17_280)));
        clock.advance(Duration::from_secs(17_280));
        assert!(limiter.check("a").is_ok());
    }

    #[test]
    fn keys_are_forgotten_once_their_allowance_is_whole_again() {
        let clock = FakeRelativeClock::default();
        let limiter = per_minute(30, &clock);
        for i in 0..20_000 {
            assert!(limiter.check(&format!("ip:{i}")).is_ok());
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
            assert!(limiter.check("u:busy").is_ok());
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
        let limiter = per_minute(2, &clock);
        assert!(limiter.check("ip:x").is_ok() && limiter.check("ip:x").is_ok());
        assert!(limiter.check("ip:x").is_err());
        clock.advance(Duration::from_secs(31));
        limiter.retain_recent();
        assert!(limiter.check("ip:x").is_ok());
        assert!(
            limiter.check("ip:x").is_err(),
            "forgetting the key early would have handed out a whole new allowance"
        );
        clock.advance(Duration::from_secs(120));
        limiter.retain_recent();
        assert!(limiter.is_empty());
    }

    #[test]
    fn each_kind_has_its_own_limiter_with_its_own_allowance() {
        let limits = Limits::in_process();
        for (i, kind) in LimitKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, i, "{kind:?} out of order");
            assert_eq!(limits.get(*kind).name, kind.name());
        }
        let names: std::collections::HashSet<_> = LimitKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), LimitKind::ALL.len(), "one name per limit");
        assert_eq!(
            LimitKind::Chat.per_minute(),
            rules::CHAT_MESSAGES_PER_MINUTE
        );
    }

    #[tokio::test]
    async fn a_kind_refuses_beyond_its_allowance_and_no_other_kind_does() {
        let limits = Limits::in_process();
        for _ in 0..rules::CHAT_MESSAGES_PER_MINUTE {
            assert!(limits.get(LimitKind::Chat).allow("member:1").await);
        }
        assert!(!limits.get(LimitKind::Chat).allow("member:1").await);
        assert!(limits.get(LimitKind::Upload).allow("member:1").await);
    }

    #[tokio::test]
    async fn limits_in_process_check_through_memory() {
        let limits = Limits::in_process();
        assert!(!limits.is_shared());
        let limiter = limits.per_minute("t", 2);
        assert!(limiter.allow("k").await && limiter.allow("k").await);
        assert!(!limiter.allow("k").await);
        assert!(limiter.allow("other").await);
    }
}
