//! A dialect: an older version of the protocol whose methods the current
//! version's handlers serve. Each method of a dialect names the current method
//! that serves it; its params are upgraded into that method's params and every
//! result (or stream event) is downgraded back, so both versions see one state.
//! The generated dialect method table fills in [`DialectMethod`]s.

use crate::error::Error;
use crate::params::Params;
use serde_json::Value;

/// Everything the dialect's schema says about one of its methods, and the two
/// conversions that carry a call to the current protocol and back.
#[derive(Debug)]
pub struct DialectMethod {
    /// Wire name in the dialect (`message/send`).
    pub name: &'static str,
    /// Further wire names the method answers to (the decision record's names).
    pub aliases: &'static [&'static str],
    /// Wire name of the current protocol's method that serves it (`SendMessage`).
    pub serves: &'static str,
    /// Whether the method answers with a stream of events.
    pub streaming: bool,
    /// Schema definition of the params, in the dialect's schema.
    pub params_type: &'static str,
    /// Schema definition of the result (of one event, for streaming methods).
    pub result_type: &'static str,
    /// What the method does, from the dialect's schema.
    pub description: &'static str,
    /// Decodes dialect params (absent: `{}`) and encodes them as the served
    /// method's params; a mismatch is invalid-params.
    pub upgrade_params: fn(Params) -> Result<Value, Error>,
    /// Decodes the served method's result (or one event) and encodes it in the
    /// dialect; what the dialect cannot express is an internal error.
    pub downgrade_result: fn(Value) -> Result<Value, Error>,
    /// The reverse of `upgrade_params`: the served method's params in the
    /// dialect (for a client speaking the dialect to a current server, and to
    /// check that the conversion round-trips).
    pub downgrade_params: fn(Value) -> Result<Value, Error>,
    /// The reverse of `downgrade_result`.
    pub upgrade_result: fn(Value) -> Result<Value, Error>,
    /// Decodes params into the dialect's Rust type and encodes them again.
    pub roundtrip_params: fn(Value) -> Result<Value, String>,
    /// Decodes a result (or one event) into the dialect's Rust type and encodes it again.
    pub roundtrip_result: fn(Value) -> Result<Value, String>,
}

impl DialectMethod {
    /// True when `wire_name` is the method's name or one of its aliases.
    pub fn answers_to(&self, wire_name: &str) -> bool {
        self.name == wire_name || self.aliases.contains(&wire_name)
    }
}

/// The method of `table` that answers to `wire_name`, by name or alias.
pub fn find_dialect_method<'t>(table: &'t [DialectMethod], wire_name: &str) -> Option<&'t DialectMethod> {
    table.iter().find(|method| method.answers_to(wire_name))
}
