//! Every params and result type of the method table. The first byte picks the
//! method (and, by its top bit, params or result); the rest is the JSON value.
//! A value decoded once must encode to a canonical form that decodes again to
//! itself.

use a2a::METHODS;

pub fn run(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let method = &METHODS[usize::from(selector & 0x7f) % METHODS.len()];
    let roundtrip = if selector & 0x80 == 0 {
        method.roundtrip_params
    } else {
        method.roundtrip_result
    };
    let Some(value) = crate::json(rest) else {
        return;
    };
    if let Ok(canonical) = roundtrip(value) {
        assert_eq!(
            roundtrip(canonical.clone()).as_ref(),
            Ok(&canonical),
            "the canonical form of a {} value is not stable",
            method.name
        );
    }
}
