//! The contract generator: reads the contract's JSON Schemas and emits the Rust
//! crate every other part of the project builds on — payload types, the method
//! table, handler traits, the dispatcher, client stubs and the error registry,
//! and the `.proto` of a contract that declares its gRPC package ([`proto`]).
//!
//! Entry point: [`generate`]. The CLI in `main.rs` writes the result into
//! `generated/src/gen/` or checks that the committed files are current.
//! [`extension`] is the other route: a downstream crate's `build.rs`
//! generating its own extension beside the contract into `OUT_DIR`.

pub mod bindings;
pub mod dialect;
mod emit;
pub mod extension;
pub mod model;
mod openrpc;
mod postpass;
pub mod preprocess;
pub mod proto;
pub mod registry;
pub mod routes;
mod since;
mod types;
mod variants;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Everything that can go wrong while generating.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{file}: {message}")]
    Schema { file: String, message: String },
    #[error("reading {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path} is not JSON: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("typify rejected the schema: {0}")]
    Typify(String),
    #[error("generated code does not parse ({what}): {message}")]
    Syntax { what: String, message: String },
}

impl Error {
    pub(crate) fn schema(file: &str, message: impl Into<String>) -> Self {
        Error::Schema {
            file: file.to_string(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Generated source files keyed by their file name inside the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub files: BTreeMap<String, String>,
}

/// The schema files of the project, in the order they are bundled.
pub const SCHEMA_FILES: &[&str] = &["a2a.json", "cleveragents-ext.json"];

/// The OpenRPC document among the generated files (beside the Rust modules).
pub const OPENRPC_FILE: &str = "openrpc.json";

/// Loads the named schema files from `dir`.
pub fn load_schemas(dir: &Path, files: &[&str]) -> Result<Vec<(String, Value)>> {
    files
        .iter()
        .map(|file| {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
            let value = serde_json::from_str(&text).map_err(|source| Error::Json { path, source })?;
            Ok((file.to_string(), value))
        })
        .collect()
}

/// Generates the contract crate's sources from already-loaded schemas.
pub fn generate(schemas: &[(String, Value)]) -> Result<Output> {
    generate_with_dialects(schemas, &[])
}

/// Generates the contract crate's sources and those of the given dialects
/// (each schema paired with its [`dialect::Dialect`]), which the current
/// contracts serve.
pub fn generate_with_dialects(
    schemas: &[(String, Value)],
    dialects: &[(dialect::Dialect, Value)],
) -> Result<Output> {
    let contracts = schemas
        .iter()
        .map(|(file, schema)| model::Contract::from_schema(file, schema))
        .collect::<Result<Vec<_>>>()?;
    check_unique_methods(&contracts)?;
    check_capabilities(&contracts)?;
    let mut definitions = preprocess::bundle(schemas)?;
    let registry = single_registry(&contracts, schemas, &definitions)?;
    // A method's params and result may name a definition of any bundled file.
    for contract in &contracts {
        for method in &contract.methods {
            for type_name in [&method.params, &method.result] {
                if !definitions.contains_key(type_name.as_str()) {
                    return Err(Error::schema(
                        &contract.file,
                        format!("x-methods.{}: no definition `{type_name}`", method.name),
                    ));
                }
            }
        }
    }
    // The OpenRPC document shows the definitions as written, before the
    // rewrites that serve the Rust type generator.
    let openrpc = openrpc::render(&contracts, &definitions)?;
    let notes = preprocess::prepare(&mut definitions, &contracts)?;
    let base: std::collections::BTreeSet<String> = schemas
        .iter()
        .zip(&contracts)
        .filter(|(_, contract)| contract.info.protocol_version.is_some())
        .filter_map(|((_, schema), _)| schema.get("definitions").and_then(Value::as_object))
        .flat_map(|definitions| definitions.keys().cloned())
        .collect();
    let types = types::generate(&definitions, &notes, &base)?;
    let sources = schemas.iter().map(|(file, _)| file.as_str()).collect::<Vec<_>>();
    let mut files = BTreeMap::new();
    files.insert(
        "types.rs".to_string(),
        emit::render("types", &sources, types.file)?,
    );
    for (name, tokens) in emit::emit_all(&contracts, registry.as_ref(), &types.names, &types.fitted)? {
        files.insert(format!("{name}.rs"), emit::render(&name, &sources, tokens)?);
    }
    let mut protos = Vec::new();
    for ((file, schema), contract) in schemas.iter().zip(&contracts) {
        if let Some(rendered) = proto::render(file, schema, contract, schemas)? {
            let name = proto::file_name(file);
            files.insert(name.clone(), rendered.text);
            protos.push((name, rendered.rpcs));
        }
    }
    let table = syn::parse2(proto::rpc_table(&protos)).map_err(|e| Error::Syntax {
        what: "rpcs".into(),
        message: e.to_string(),
    })?;
    files.insert("rpcs.rs".to_string(), emit::render("rpcs", &sources, table)?);
    let modules: Vec<&str> = dialects.iter().map(|(d, _)| d.module).collect();
    let rust_files: Vec<&String> = files.keys().filter(|f| f.ends_with(".rs")).collect();
    let index = emit::module_index_with(&sources, rust_files.into_iter(), &modules)?;
    files.insert("mod.rs".to_string(), index);
    files.insert(OPENRPC_FILE.to_string(), openrpc);
    let current = dialect::Current {
        contracts: &contracts,
        type_names: &types.names,
    };
    for (which, schema) in dialects {
        files.extend(dialect::generate(*which, schema, &current)?);
    }
    Ok(Output { files })
}

/// The registry of the contracts: at most one schema declares `x-registry`.
fn single_registry(
    contracts: &[model::Contract],
    schemas: &[(String, Value)],
    definitions: &serde_json::Map<String, Value>,
) -> Result<Option<registry::Registry>> {
    let mut found = None;
    for (contract, (_, schema)) in contracts.iter().zip(schemas) {
        if let Some(registry) = registry::resolve(contract, schema, definitions)? {
            if found.is_some() {
                return Err(Error::schema(
                    &contract.file,
                    "a second `x-registry`: one contract set has one registry",
                ));
            }
            found = Some(registry);
        }
    }
    Ok(found)
}

fn check_unique_methods(contracts: &[model::Contract]) -> Result<()> {
    let mut seen = BTreeMap::new();
    for contract in contracts {
        for method in &contract.methods {
            let rust = preprocess::method_type_name(&method.name);
            if let Some(other) = seen.insert(rust.clone(), method.name.clone()) {
                return Err(Error::schema(
                    &contract.file,
                    format!(
                        "methods `{other}` and `{}` map to the same Rust name `{rust}`",
                        method.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Every capability a method needs is declared in the `x-capabilities` of one
/// of the contracts (an extension's methods may need the base protocol's).
fn check_capabilities(contracts: &[model::Contract]) -> Result<()> {
    let declared = |name: &str| {
        contracts
            .iter()
            .any(|c| c.capabilities.iter().any(|(key, _)| key == name))
    };
    for contract in contracts {
        for method in &contract.methods {
            if let Some(capability) = method.capability.as_deref().filter(|c| !declared(c)) {
                return Err(Error::schema(
                    &contract.file,
                    format!(
                        "x-methods.{}: capability `{capability}` is not declared in any x-capabilities",
                        method.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Where the generated files live, relative to the workspace root.
pub const OUTPUT_DIR: &str = "generated/src/gen";

/// Generates from the workspace's `schema/` folder.
pub fn generate_workspace(root: &Path) -> Result<Output> {
    let dir = root.join("schema");
    let schemas = load_schemas(&dir, SCHEMA_FILES)?;
    generate_with_dialects(&schemas, &load_dialects(&dir)?)
}

/// Loads the schema of every dialect of the project from `dir`.
pub fn load_dialects(dir: &Path) -> Result<Vec<(dialect::Dialect, Value)>> {
    let files: Vec<&str> = dialect::DIALECTS.iter().map(|d| d.file).collect();
    Ok(dialect::DIALECTS
        .iter()
        .copied()
        .zip(load_schemas(dir, &files)?.into_iter().map(|(_, schema)| schema))
        .collect())
}

/// Writes the output, removing generated files that are no longer produced.
pub fn write_output(dir: &Path, output: &Output) -> Result<()> {
    write_files(dir, &output.files, &generated_sources(dir))
}

/// The files in `dir` that differ from `output` (missing, changed or extra).
pub fn stale_files(dir: &Path, output: &Output) -> Result<Vec<String>> {
    Ok(stale_among(dir, &output.files, &generated_sources(dir)))
}

/// Writes `files` (paths relative to `dir`) and removes those of `existing`
/// (the generated files now there) that are no longer produced.
pub fn write_files(dir: &Path, files: &BTreeMap<String, String>, existing: &[String]) -> Result<()> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for name in existing {
        if !files.contains_key(name) {
            let path = dir.join(name);
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    for (name, text) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    Ok(())
}

/// The paths among `files` whose copy in `dir` is missing or differs, and
/// those of `existing` (the generated files now there) no longer produced.
pub fn stale_among(dir: &Path, files: &BTreeMap<String, String>, existing: &[String]) -> Vec<String> {
    let mut stale = Vec::new();
    for (name, text) in files {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(current) if &current == text => {}
            _ => stale.push(name.clone()),
        }
    }
    for name in existing {
        if !files.contains_key(name) {
            stale.push(name.clone());
        }
    }
    stale.sort();
    stale
}

/// The Rust files in `dir` and in its dialect folders, as paths relative to `dir`.
fn generated_sources(dir: &Path) -> Vec<String> {
    let rust_files = |folder: &Path| -> Vec<String> {
        std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().to_string())
            .filter(|name| name.ends_with(".rs"))
            .collect()
    };
    let mut names = rust_files(dir);
    for which in dialect::DIALECTS {
        let folder = dir.join(which.module);
        names.extend(
            rust_files(&folder)
                .into_iter()
                .map(|n| format!("{}/{n}", which.module)),
        );
    }
    names
}
