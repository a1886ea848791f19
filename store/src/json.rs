//! The JSON text a stored body is kept as, in both backends: encoding
//! failures and unreadable text are store failures, never panics.

use super::{StoreError, StoreResult};
use serde::{de::DeserializeOwned, Serialize};

/// The JSON text of a typed body.
pub fn encode<T: Serialize>(value: &T) -> StoreResult<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Backend(e.to_string()))
}

/// A stored body, decoded straight into its type.
pub fn decode<T: DeserializeOwned>(text: &str) -> StoreResult<T> {
    serde_json::from_str(text).map_err(|e| StoreError::Backend(format!("stored data is unreadable: {e}")))
}

/// A stored body as it is sent, checked to be JSON but not decoded.
pub fn raw(text: String) -> StoreResult<a2a::rpc::RawJson> {
    serde_json::value::RawValue::from_string(text)
        .map_err(|e| StoreError::Backend(format!("stored data is unreadable: {e}")))
}
