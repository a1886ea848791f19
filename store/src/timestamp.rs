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
}
