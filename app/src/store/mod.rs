//! The store as the services use it: the storage API of the store crate,
//! re-exported whole, and the handle every service shares.

mod handle;

pub use ::store::*;
pub use handle::{Internal, StoreHandle};
