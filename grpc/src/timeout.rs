//! The `grpc-timeout` header: at most eight digits and a unit (`H`ours,
//! `M`inutes, `S`econds, `m`illi-, `u` micro-, `n`anoseconds).

use std::time::Duration;

/// The duration a `grpc-timeout` value gives; `None` when it is malformed.
pub fn parse(value: &str) -> Option<Duration> {
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount * 3600),
        "M" => Duration::from_secs(amount * 60),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

/// The `grpc-timeout` value for `timeout`: the finest unit whose amount
/// fits in eight digits (rounded up, so no deadline is shortened).
pub fn format(timeout: Duration) -> String {
    const MAX: u128 = 99_999_999;
    let nanos = timeout.as_nanos();
    for (unit, per) in [
        ("n", 1u128),
        ("u", 1_000),
        ("m", 1_000_000),
        ("S", 1_000_000_000),
        ("M", 60_000_000_000),
    ] {
        let amount = nanos.div_ceil(per);
        if amount <= MAX {
            return format!("{amount}{unit}");
        }
    }
    format!("{}H", nanos.div_ceil(3_600_000_000_000).min(MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_in_every_unit() {
        assert_eq!(parse("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(parse("3M"), Some(Duration::from_secs(180)));
        assert_eq!(parse("10S"), Some(Duration::from_secs(10)));
        assert_eq!(parse("250m"), Some(Duration::from_millis(250)));
        assert_eq!(parse("99999999u"), Some(Duration::from_micros(99_999_999)));
        assert_eq!(parse("7n"), Some(Duration::from_nanos(7)));
    }

    #[test]
    fn malformed_values_are_none() {
        for value in ["", "S", "123456789S", "1.5S", "-1S", "10s", "10", "1 S"] {
            assert_eq!(parse(value), None, "{value:?}");
        }
    }

    #[test]
    fn formatting_keeps_eight_digits_and_never_shortens() {
        assert_eq!(format(Duration::from_millis(1500)), "1500000u");
        assert_eq!(format(Duration::from_secs(30)), "30000000u");
        assert_eq!(format(Duration::from_secs(3600)), "3600000m");
        assert_eq!(format(Duration::from_nanos(1)), "1n");
        for timeout in [
            Duration::from_nanos(123_456_789_123),
            Duration::from_secs(86_400 * 400),
        ] {
            let back = parse(&format(timeout)).unwrap();
            assert!(back >= timeout, "{timeout:?} became {back:?}");
        }
    }
}
