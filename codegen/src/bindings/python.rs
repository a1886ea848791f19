//! The Python client package (`bindings/python/`).

use super::Input;
use crate::Result;
use std::collections::BTreeMap;

/// The package's generated folder, relative to the bindings folder.
pub const GENERATED_DIR: &str = "python/src/cleveragents_contract/_gen";

/// The generated files of the package, keyed by path relative to the
/// bindings folder.
pub fn render(_input: &Input) -> Result<BTreeMap<String, String>> {
    Ok(BTreeMap::new())
}
