//! Wall-clock helpers: seconds since the epoch (what the database stores) and "today" in UTC for
//! kizuna-core's age rules.

use std::time::{SystemTime, UNIX_EPOCH};

use kizuna_core::date::Date;

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
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(date_of(1_795_305_600).to_string(), "2026-11-22");
    }
}
