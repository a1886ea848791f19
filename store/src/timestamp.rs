//! The stores' timestamps: RFC 3339 UTC with fixed millisecond precision.
//! The fixed width makes timestamps sort lexically in time order, which the
//! stores' status-time filters and orders rely on.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now, in the fixed-width form.
pub fn now() -> String {
    format_ts(OffsetDateTime::now_utc())
}

fn format_ts(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    let year = t.year();
    // Every write stamps a few statuses, so the common years are written
    // digit by digit into one fixed buffer rather than through `format!`.
    let Ok(four_digits) = u32::try_from(year) else {
        return format_ts_slow(t);
    };
    if four_digits > 9999 {
        return format_ts_slow(t);
    }
    let mut text = *b"0000-00-00T00:00:00.000Z";
    for (at, width, value) in [
        (0, 4, four_digits),
        (5, 2, u32::from(u8::from(t.month()))),
        (8, 2, u32::from(t.day())),
        (11, 2, u32::from(t.hour())),
        (14, 2, u32::from(t.minute())),
        (17, 2, u32::from(t.second())),
        (20, 3, u32::from(t.millisecond())),
    ] {
        let mut value = value;
        for digit in text[at..at + width].iter_mut().rev() {
            *digit = b'0' + (value % 10) as u8;
            value /= 10;
        }
    }
    text.iter().map(|&b| char::from(b)).collect()
}

/// The fixed-width form through `format!`, for years outside 0–9999.
fn format_ts_slow(t: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// Parses an RFC 3339 timestamp into the fixed-width UTC form.
pub fn normalize_ts(text: &str) -> Option<String> {
    OffsetDateTime::parse(text, &Rfc3339).ok().map(format_ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_fixed_width_utc() {
        assert_eq!(
            normalize_ts("2024-02-03T04:05:06+01:00").as_deref(),
            Some("2024-02-03T03:05:06.000Z")
        );
        assert_eq!(normalize_ts("yesterday"), None);
        assert_eq!(now().len(), 24);
    }

    #[test]
    fn the_digit_writer_writes_what_format_writes() {
        for text in [
            "2024-02-03T04:05:06.007Z",
            "0000-01-01T00:00:00.000Z",
            "0999-12-31T23:59:59.999Z",
            "9999-12-31T23:59:59.999Z",
            "2026-10-05T10:20:30.450Z",
        ] {
            let t = OffsetDateTime::parse(text, &Rfc3339).unwrap();
            assert_eq!(format_ts(t), text);
            assert_eq!(format_ts_slow(t), text);
        }
        // A year before 0 goes through `format!`.
        let t = time::Date::from_calendar_date(-1, time::Month::June, 15)
            .unwrap()
            .midnight()
            .assume_utc();
        assert_eq!(format_ts(t), "-001-06-15T00:00:00.000Z");
        assert_eq!(
            normalize_ts("2024-02-03T04:05:06.0071+00:00").as_deref(),
            Some("2024-02-03T04:05:06.007Z")
        );
    }
}
