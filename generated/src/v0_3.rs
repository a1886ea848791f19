//! A2A 0.3, served by the A2A 1.0 handlers on the same endpoint.
//!
//! Generated from `schema/a2a-v0.3.json`:
//!
//! - [`types`]: the 0.3 data model (`kind`-tagged parts and events, lower-case
//!   enum values, `file`/`data` parts);
//! - [`methods`]: the 0.3 method table ([`methods::METHODS`],
//!   [`methods::find_method`], which also knows the decision record's aliases),
//!   each method naming the 1.0 method that serves it.
//!
//! [`convert`] is the one conversion layer between the two versions.

pub mod convert;

pub use crate::generated::v0_3::{methods, types};
pub use methods::{find_method, METHODS, PROTOCOL_VERSION};
