//! Calendar dates without a clock or time zone: the caller says what day it is.

use std::fmt;

/// A valid proleptic Gregorian date between years 1900 and 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
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

    pub fn year(self) -> u16 {
        self.year
    }

    pub fn month(self) -> u8 {
        self.month
    }

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
    fn a_leap_day_birthday_comes_of_age_on_the_first_of_march() {
        let birthday = date("2004-02-29");
        assert_eq!(birthday.age_on(date("2022-02-28")), Some(17));
        assert_eq!(birthday.age_on(date("2022-03-01")), Some(18));
    }
}
