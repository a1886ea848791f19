//! RFC 3339 timestamps as `google.protobuf.Timestamp` reads them from
//! ProtoJSON: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of one to nine
//! digits, and `Z` or an offset `±HH:MM`, between years 1 and 9999. Strict:
//! any other form is `None` (the reflective path then judges it).

/// The first and last second a `Timestamp` may hold (0001-01-01T00:00:00Z
/// and 9999-12-31T23:59:59Z), as every protobuf runtime bounds it.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;

/// Whether `seconds` since the Unix epoch is a second a `Timestamp` may hold.
pub fn in_range(seconds: i64) -> bool {
    (MIN_SECONDS..=MAX_SECONDS).contains(&seconds)
}

/// Seconds since the Unix epoch and nanoseconds, from `text`.
pub fn parse(text: &str) -> Option<(i64, i32)> {
    let b = text.as_bytes();
    let digits = |from: usize, n: usize| -> Option<i64> {
        let part = b.get(from..from + n)?;
        part.iter().try_fold(0i64, |acc, d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(at(4, b'-') && at(7, b'-') && at(10, b'T') && at(13, b':') && at(16, b':')) {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 2)?, digits(8, 2)?);
    let (hour, minute, second) = (digits(11, 2)?, digits(14, 2)?, digits(17, 2)?);
    if year < 1 || !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut i = 19;
    let mut nanos = 0i64;
    if at(i, b'.') {
        let start = i + 1;
        let mut end = start;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        let n = end - start;
        if n == 0 || n > 9 {
            return None;
        }
        nanos = digits(start, n)? * 10i64.pow((9 - n) as u32);
        i = end;
    }
    let offset = match b.get(i)? {
        b'Z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && at(i + 3, b':') => {
            let (h, m) = (digits(i + 1, 2)?, digits(i + 4, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let offset = h * 3600 + m * 60;
            if *sign == b'-' {
                -offset
            } else {
                offset
            }
        }
        _ => return None,
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    (MIN_SECONDS..=MAX_SECONDS)
        .contains(&seconds)
        .then_some((seconds, nanos as i32))
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn timestamps_read_as_seconds_and_nanos() {
        assert_eq!(parse("1970-01-01T00:00:00Z"), Some((0, 0)));
        assert_eq!(
            parse("2026-12-03T14:14:36.123Z"),
            Some((1_796_307_276, 123_000_000))
        );
        assert_eq!(
            parse("2026-12-03T15:14:36.123456789+01:00"),
            Some((1_796_307_276, 123_456_789))
        );
        assert_eq!(parse("1969-12-31T23:59:59.5Z"), Some((-1, 500_000_000)));
        assert_eq!(parse("2024-02-29T00:00:00Z"), Some((1_709_164_800, 0)));
        assert_eq!(parse("0001-01-01T00:00:00Z"), Some((-62_135_596_800, 0)));
        assert_eq!(parse("9999-12-31T23:59:59Z"), Some((253_402_300_799, 0)));
    }

    #[test]
    fn other_forms_are_not_read() {
        for text in [
            "2023-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-12-03 14:14:36Z",
            "2026-12-03T14:14:36",
            "2026-12-03T14:14:36.Z",
            "2026-12-03T14:14:36.1234567890Z",
            "2026-12-03T24:00:00Z",
            "2026-12-03T14:14:60Z",
            "2026-12-03T14:14:36z",
            "2026-12-03T14:14:36+0100",
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:00:00+00:01",
            "2026-12-03T14:14:36Z ",
            "+2026-12-03T14:14:36Z",
            "",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
