//! Calendar dates without a clock or time zone: the caller says what day it is.
//!
//! ```
//! use kizuna_core::date::Date;
//!
//! let birthday = Date::parse("2008-11-23").unwrap();
//! assert_eq!(birthday.age_on(Date::parse("2026-11-22").unwrap()), Some(17));
//! assert_eq!(birthday.age_on(Date::parse("2026-11-23").unwrap()), Some(18));
//! assert_eq!(Date::parse("2023-02-29"), None);
//! assert_eq!(Date::from_ymd(2024, 2, 29).unwrap().to_string(), "2024-02-29");
//! ```

use std::fmt;

/// A valid proleptic Gregorian date between years 1900 and 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// The date of a year, month (1–12) and day, if it exists and the year is 1900–9999.
    pub fn from_ymd(year: u16, month: u8, day: u8) -> Option<Date> {
        let valid = (1900..=9999).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month);
        valid.then_some(Date { year, month, day })
    }

    /// Parses exactly `YYYY-MM-DD`; anything else (other separators, missing zero padding,
    /// trailing text, impossible days such as 2023-02-29) is refused.
    pub fn parse(text: &str) -> Option<Date> {
        let bytes = text.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return None;
        }
        let number = |range: std::ops::Range<usize>| -> Option<u16> {
            bytes[range].iter().try_fold(0u16, |acc, &b| {
                b.is_ascii_digit().then(|| acc * 10 + u16::from(b - b'0'))
            })
        };
        let year = number(0..4)?;
        let month = u8::try_from(number(5..7)?).ok()?;
        let day = u8::try_from(number(8..10)?).ok()?;
        Date::from_ymd(year, month, day)
    }

    /// The year.
    pub fn year(self) -> u16 {
        self.year
    }

    /// The month, 1–12.
    pub fn month(self) -> u8 {
        self.month
    }

    /// The day of the month.
    pub fn day(self) -> u8 {
        self.day
    }

    /// Completed years of a person born on `self` as of `today`; `None` when born after today.
    /// Someone born on 29 February comes of age on 1 March in common years.
    pub fn age_on(self, today: Date) -> Option<u16> {
        if self > today {
            return None;
        }
        let had_birthday = (today.month, today.day) >= (self.month, self.day);
        Some(today.year - self.year - u16::from(!had_birthday))
    }

    /// Days since 1970-01-01 (negative before it), for day arithmetic.
    pub fn days_since_epoch(self) -> i32 {
        // Howard Hinnant's days_from_civil, on a year that starts in March.
        let (month, day) = (i32::from(self.month), i32::from(self.day));
        let year = i32::from(self.year) - i32::from(month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The date `days` after 1970-01-01; `None` outside the years 1900 to 9999.
    pub fn from_days_since_epoch(days: i64) -> Option<Date> {
        // Hinnant's civil_from_days; the bound keeps every intermediate well inside i64.
        if !(-30_000_000..=30_000_000).contains(&days) {
            return None;
        }
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let day_of_era = z - era * 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let shifted_month = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
        let month = if shifted_month < 10 {
            shifted_month + 3
        } else {
            shifted_month - 9
        };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        Date::from_ymd(
            u16::try_from(year).ok()?,
            u8::try_from(month).ok()?,
            u8::try_from(day).ok()?,
        )
    }

    /// The Asia/Taipei calendar day of a Unix time (UTC+8, no daylight saving): the service's
    /// "today" for daily introductions. `None` outside the years 1900 to 9999.
    pub fn taipei_day(unix_secs: i64) -> Option<Date> {
        let local = unix_secs.checked_add(crate::rules::TAIPEI_UTC_OFFSET_SECS)?;
        Date::from_days_since_epoch(local.div_euclid(86_400))
    }

    /// Whole days from `earlier` to `self` (negative when `earlier` is later).
    pub fn days_since(self, earlier: Date) -> i32 {
        self.days_since_epoch() - earlier.days_since_epoch()
    }
}

fn is_leap(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> Date {
        Date::parse(text).unwrap()
    }

    #[test]
    fn a_well_formed_date_round_trips_through_display() {
        assert_eq!(date("1990-07-04").to_string(), "1990-07-04");
    }

    #[test]
    fn impossible_or_sloppy_dates_are_refused() {
        for text in [
            "2023-02-29",
            "1990-13-01",
            "1990-00-10",
            "1990-1-01",
            "1990/01/01",
            "1990-01-01 ",
            "",
            "１９９０-01-01",
            "1899-12-31",
        ] {
            assert_eq!(Date::parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn leap_days_exist_only_in_leap_years() {
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2000-02-29").is_some());
        assert!(Date::parse("1900-02-29").is_none());
    }

    #[test]
    fn age_counts_only_completed_years() {
        let birthday = date("2000-06-15");
        assert_eq!(birthday.age_on(date("2018-06-14")), Some(17));
        assert_eq!(birthday.age_on(date("2018-06-15")), Some(18));
        assert_eq!(birthday.age_on(date("1999-01-01")), None);
    }

    #[test]
    fn day_numbers_count_from_the_unix_epoch_and_round_trip() {
        assert_eq!(date("1970-01-01").days_since_epoch(), 0);
        assert_eq!(date("2024-02-29").days_since_epoch(), 19_782);
        assert_eq!(date("1969-12-31").days_since_epoch(), -1);
        assert_eq!(date("1900-01-01").days_since_epoch(), -25_567);
        for text in [
            "1900-01-01",
            "1900-03-01",
            "2000-02-29",
            "2026-11-22",
            "9999-12-31",
        ] {
            let day = date(text);
            assert_eq!(
                Date::from_days_since_epoch(i64::from(day.days_since_epoch())),
                Some(day)
            );
        }
        assert_eq!(Date::from_days_since_epoch(-25_568), None);
        assert_eq!(Date::from_days_since_epoch(i64::MAX), None);
        assert_eq!(date("2026-03-01").days_since(date("2026-02-27")), 2);
    }

    #[test]
    fn a_taipei_day_starts_at_four_in_the_afternoon_utc() {
        // 2026-11-21T15:59:59Z is 23:59:59 in Taipei; one second later it is the 22nd there.
        assert_eq!(Date::taipei_day(1_795_276_799), Some(date("2026-11-21")));
        assert_eq!(Date::taipei_day(1_795_276_800), Some(date("2026-11-22")));
        assert_eq!(Date::taipei_day(-28_800), Some(date("1970-01-01")));
        assert_eq!(Date::taipei_day(-28_801), Some(date("1969-12-31")));
        assert_eq!(Date::taipei_day(i64::MAX), None);
    }

    #[test]
    fn a_leap_day_birthday_comes_of_age_on_the_first_of_march() {
        let birthday = date("2004-02-29");
        assert_eq!(birthday.age_on(date("2022-02-28")), Some(17));
        assert_eq!(birthday.age_on(date("2022-03-01")), Some(18));
    }
}
