//! Client bindings in other languages, generated from the same schemas as the
//! Rust contract: a TypeScript package ([`typescript`]) and a Python package
//! ([`python`]), each written into its own folder under `bindings/` and held
//! to the schemas by the same drift gate.
//!
//! Each language renders only the files of its generated folders
//! ([`GENERATED_DIRS`]); the hand-written parts of a package (its manifest,
//! tests, README) live beside them and are never touched.

pub mod python;
pub mod typescript;

use crate::model::Contract;
use crate::{model, preprocess, registry, Error, Result};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Where the binding packages live, relative to the workspace root.
pub const BINDINGS_DIR: &str = "bindings";

/// The folders (relative to [`BINDINGS_DIR`]) whose files are all generated:
/// a file there that the schemas no longer produce is stale.
pub const GENERATED_DIRS: &[&str] = &[typescript::GENERATED_DIR, python::GENERATED_DIR];

/// What every language generator reads: the schemas as written, their
/// contracts, the bundled definitions of all of them and the error registry.
pub struct Input<'a> {
    /// Each schema file's name and its JSON.
    pub schemas: &'a [(String, Value)],
    /// The contract each schema declares, in the same order.
    pub contracts: &'a [Contract],
    /// Every definition of every schema, by name, as written (not rewritten
    /// for the Rust type generator).
    pub definitions: &'a Map<String, Value>,
    /// The entity registry of the contracts, when one declares `x-registry`.
    pub registry: Option<&'a registry::Registry>,
}

/// Renders every language's generated files, keyed by their path relative to
/// [`BINDINGS_DIR`].
pub fn generate(schemas: &[(String, Value)]) -> Result<BTreeMap<String, String>> {
    let contracts = schemas
        .iter()
        .map(|(file, schema)| model::Contract::from_schema(file, schema))
        .collect::<Result<Vec<_>>>()?;
    let definitions = preprocess::bundle(schemas)?;
    let mut registry = None;
    for (contract, (_, schema)) in contracts.iter().zip(schemas) {
        if let Some(found) = registry::resolve(contract, schema, &definitions)? {
            registry = Some(found);
        }
    }
    let input = Input {
        schemas,
        contracts: &contracts,
        definitions: &definitions,
        registry: registry.as_ref(),
    };
    let mut files = BTreeMap::new();
    for rendered in [typescript::render(&input)?, python::render(&input)?] {
        for (path, text) in rendered {
            if files.insert(path.clone(), text).is_some() {
                return Err(Error::Syntax {
                    what: "bindings".into(),
                    message: format!("two generators write `{path}`"),
                });
            }
        }
    }
    Ok(files)
}

/// Generates the bindings from the workspace's `schema/` folder.
pub fn generate_workspace(root: &Path) -> Result<BTreeMap<String, String>> {
    generate(&crate::load_schemas(&root.join("schema"), crate::SCHEMA_FILES)?)
}

/// The files now in the generated folders under `dir` (the bindings folder),
/// as paths relative to it.
pub fn existing_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for generated in GENERATED_DIRS {
        collect(dir, &dir.join(generated), &mut found);
    }
    found.sort();
    found
}

fn collect(base: &Path, folder: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(base, &path, found);
        } else if let Ok(relative) = path.strip_prefix(base) {
            found.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}
