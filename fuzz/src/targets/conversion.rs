//! The conversions between A2A 0.3 and A2A 1.0, chosen from the 0.3 dialect's
//! method table. The first byte picks the method (low six bits) and the
//! direction (top two bits); the rest is the JSON value.
//!
//! | top bits | input | conversion |
//! | --- | --- | --- |
//! | `00` | 0.3 params | upgrade (what a 0.3 client sends us) |
//! | `01` | 0.3 result or event | upgrade (what a 0.3 server answers our client) |
//! | `10` | 1.0 params | downgrade (what our client sends a 0.3 server) |
//! | `11` | 1.0 result or event | downgrade (what we answer a 0.3 client) |
//!
//! What holds for every input: nothing panics; a converted value is the
//! canonical form of its version's type and converts back; and a value that
//! has been there and back once is a fixpoint: there and back again gives it
//! unchanged. (The first trip may normalize: what one version cannot say is
//! lost, and a 0.3 push configuration without an id comes back with the task's
//! id, which is what the absent id means; after that nothing may drift.)
//! Inputs the source version's type refuses are only checked not to panic on
//! upgrade; a 1.0 value reaches a downgrade only from our own handlers or
//! callers of our client, typed, so only valid ones are driven there.

use a2a::rpc::{DialectMethod, Error};
use a2a::v0_3::METHODS;
use serde_json::Value;

type Convert<'m> = Box<dyn Fn(Value) -> Result<Value, Error> + 'm>;

/// One direction: the conversion there and back, and what checks a value is
/// canonical on each side.
struct Direction<'m> {
    label: &'static str,
    there: Convert<'m>,
    back: Convert<'m>,
    /// The source side's canonical form.
    source: fn(Value) -> Result<Value, String>,
    /// Whether inputs the source type refuses are driven too (upgrades of
    /// params: the bytes a 0.3 client sends).
    raw_input: bool,
    /// The target side's canonical form.
    target: fn(Value) -> Result<Value, String>,
}

pub fn run(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let dialect = &METHODS[usize::from(selector & 0x3f) % METHODS.len()];
    let Some(current) = a2a::find_method(dialect.serves) else {
        panic!(
            "{} serves {}, which the method table lacks",
            dialect.name, dialect.serves
        );
    };
    let Some(value) = crate::json(rest) else {
        return;
    };
    // The table's params upgrade takes the params member, which may be absent.
    let upgrade_params = || -> Convert<'_> { Box::new(|value| (dialect.upgrade_params)(value.into())) };
    let direction = match selector >> 6 {
        0 => Direction {
            label: "params upgrade",
            there: upgrade_params(),
            back: Box::new(dialect.downgrade_params),
            source: dialect.roundtrip_params,
            raw_input: true,
            target: current.roundtrip_params,
        },
        1 => Direction {
            label: "result upgrade",
            there: Box::new(dialect.upgrade_result),
            back: Box::new(dialect.downgrade_result),
            source: dialect.roundtrip_result,
            raw_input: false,
            target: current.roundtrip_result,
        },
        2 => Direction {
            label: "params downgrade",
            there: Box::new(dialect.downgrade_params),
            back: upgrade_params(),
            source: current.roundtrip_params,
            raw_input: false,
            target: dialect.roundtrip_params,
        },
        _ => Direction {
            label: "result downgrade",
            there: Box::new(dialect.downgrade_result),
            back: Box::new(dialect.upgrade_result),
            source: current.roundtrip_result,
            raw_input: false,
            target: dialect.roundtrip_result,
        },
    };
    check(dialect, &direction, value);
}

fn check(dialect: &DialectMethod, direction: &Direction<'_>, value: Value) {
    let (name, label) = (dialect.name, direction.label);
    let value = match (direction.source)(value.clone()) {
        Ok(canonical) => canonical,
        Err(_) if direction.raw_input => value,
        Err(_) => return,
    };
    let Ok(converted) = (direction.there)(value) else {
        return;
    };
    let canonical = |side: fn(Value) -> Result<Value, String>, value: &Value, what: &str| {
        assert_eq!(
            side(value.clone()).as_ref(),
            Ok(value),
            "{name} {label}: the {what} value is not its type's canonical form"
        );
    };
    let trip = |value: &Value, step: &Convert<'_>, what: &str| match step(value.clone()) {
        Ok(result) => result,
        Err(e) => panic!("{name} {label}: a {what} value does not convert: {e:?}\n{value}"),
    };
    canonical(direction.target, &converted, "converted");
    let returned = trip(&converted, &direction.back, "converted");
    canonical(direction.source, &returned, "returned");
    let again = trip(&returned, &direction.there, "returned");
    canonical(direction.target, &again, "converted again");
    let returned_again = trip(&again, &direction.back, "converted again");
    assert_eq!(
        returned_again, returned,
        "{name} {label}: there and back again changed a value that had been there and back once"
    );
}
