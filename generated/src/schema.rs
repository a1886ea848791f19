//! The contract's two schema files as compiled into the crate, parsed once and
//! bundled into one set of definitions with cross-file references made local.
//! Clients derive their options from it and conformance suites validate against
//! it, so no crate downstream keeps a copy of the files or of the bundling rule.

// The files are read through `schema/` inside the crate (links to the
// workspace's schema files), so a packaged crate carries its own copy.

use serde_json::{Map, Value};
use std::sync::OnceLock;

/// `schema/a2a.json`.
pub const A2A_JSON: &str = include_str!("../schema/a2a.json");
/// `schema/cleveragents-ext.json`.
pub const EXTENSION_JSON: &str = include_str!("../schema/cleveragents-ext.json");
/// `schema/a2a-v0.3.json`: A2A 0.3, served through the 1.0 contract (not bundled
/// with the two above: its definitions are its own).
pub const A2A_V0_3_JSON: &str = include_str!("../schema/a2a-v0.3.json");

/// Both documents, parsed, references made local (bundling order: A2A first).
pub fn documents() -> &'static [Value] {
    static DOCUMENTS: OnceLock<Vec<Value>> = OnceLock::new();
    DOCUMENTS.get_or_init(|| {
        [A2A_JSON, EXTENSION_JSON]
            .iter()
            // The files are the ones the crate was generated from (the drift gate
            // checks it); an unreadable one contributes nothing rather than panic.
            .filter_map(|text| serde_json::from_str::<Value>(text).ok())
            .map(|mut document| {
                localize_refs(&mut document);
                document
            })
            .collect()
    })
}

/// Every definition of both files in one map.
pub fn definitions() -> &'static Map<String, Value> {
    static DEFINITIONS: OnceLock<Map<String, Value>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        // Names are unique across the files (the generator refuses the schemas
        // otherwise), so the merge cannot fail on the embedded copy.
        a2a_runtime::bundle::merge_definitions(documents()).unwrap_or_default()
    })
}

/// The definition called `name`.
pub fn definition(name: &str) -> Option<&'static Value> {
    definitions().get(name)
}

/// The `x-methods` entry of a wire method name, from whichever file has it.
pub fn method_entry(name: &str) -> Option<&'static Map<String, Value>> {
    documents()
        .iter()
        .find_map(|document| document.get("x-methods")?.get(name)?.as_object())
}

/// Follows bare `$ref`s through the bundle to the schema they name.
pub fn resolve(schema: &'static Value) -> &'static Value {
    a2a_runtime::bundle::resolve(definitions(), schema)
}

pub use a2a_runtime::bundle::{localize_refs, ref_name};
