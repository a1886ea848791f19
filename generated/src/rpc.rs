//! `a2a::rpc`: the contract runtime (crate `cleveragents-a2a-runtime`) under the
//! path the generated code and its users name it by, with the pieces that need
//! the schemas' facts fixed to this contract: [`MethodDescriptor`] of
//! [`crate::Contract`], and the lookups the generator emits in
//! [`crate::methods`].

pub use crate::client::Client;
pub use crate::methods::{contract_of_name, method_not_found, resolve, MethodDescriptor};
pub use a2a_runtime::*;
