//! Wall-clock time: seconds since the epoch (what the database stores), "today" in UTC for
//! kizuna-core's age rules, and the Asia/Taipei day that daily introductions follow.
//!
//! Request handling reads time from the application's [`Clock`] (in `AppState`), so tests can move
//! it forward (a claim expiring, a code going stale, tomorrow's introductions) without sleeping.
//! Production runs on the system clock; `now_secs()` is the system clock for code that has no
//! application at hand (the CLI, the mock LINE platform, ID-token expiry which LINE's own clock
//! decides).

use std::sync::{
    Arc,
    atomic::{AtomicI64, Ordering},
};
use std::time::{SystemTime, UNIX_EPOCH};

use kizuna_core::date::Date;

/// The application's clock: the system clock plus an offset that only tests ever change.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    offset_secs: Arc<AtomicI64>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// Seconds since the epoch.
    pub fn now_secs(&self) -> i64 {
        now_secs() + self.offset_secs.load(Ordering::Relaxed)
    }

    /// Milliseconds since the epoch (LINE's event timestamps).
    pub fn now_millis(&self) -> i64 {
        let system = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        system + self.offset_secs.load(Ordering::Relaxed) * 1000
    }

    /// The UTC date (the age rules' "today").
    pub fn today(&self) -> Date {
        date_of(self.now_secs())
    }

    /// The Asia/Taipei date: the day of daily introductions.
    pub fn taipei_today(&self) -> Date {
        Date::taipei_day(self.now_secs()).expect("a representable date")
    }

    /// Moves this clock (and every copy of it) forward by `secs`: tests, and the mock platform's
    /// `/__mock/clock` for end-to-end runs (never in production).
    pub fn advance(&self, secs: i64) {
        self.offset_secs.fetch_add(secs, Ordering::Relaxed);
    }
}

pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The server's UTC date.
pub fn today() -> Date {
    date_of(now_secs())
}

/// The UTC civil date of a Unix time (Howard Hinnant's days-to-civil).
pub fn date_of(secs: i64) -> Date {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    Date::from_ymd(y as u16, m as u8, d as u8).expect("a valid civil date")
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_advanced_clock_moves_every_copy_and_nothing_else() {
        let clock = Clock::system();
        let copy = clock.clone();
        let before = Clock::system().now_secs();
        clock.advance(86_400);
        assert!(copy.now_secs() - before >= 86_400);
        assert!(Clock::system().now_secs() - before < 86_400);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(date_of(1_795_305_600).to_string(), "2026-11-22");
    }
}
