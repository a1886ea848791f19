//! Dialects: older protocol versions served through the current contract.
//!
//! A dialect schema (`schema/a2a-v0.3.json`) has the conventions of the others
//! plus, on each method, `serves` (the current method that handles it) and
//! `aliases` (further wire names). It is generated on its own, into a module of
//! its own (`gen/v0_3/`): payload types and a method table whose entries carry
//! the upgrade and downgrade of each call. The conversions themselves are the
//! contract crate's one hand-written conversion layer.

use crate::model::{Contract, MethodDef};
use crate::{emit, preprocess, types, Error, Result};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One dialect of the workspace: its schema file and the module it becomes.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    pub file: &'static str,
    /// Module name inside the generated folder and the contract crate (`v0_3`).
    pub module: &'static str,
}

/// The dialects of the project.
pub const DIALECTS: &[Dialect] = &[Dialect {
    file: "a2a-v0.3.json",
    module: "v0_3",
}];

/// The current contract as the dialect generator sees it: its methods and the
/// Rust names of its definitions.
pub struct Current<'a> {
    pub contracts: &'a [Contract],
    pub type_names: &'a BTreeMap<String, String>,
}

/// Generates one dialect's files, keyed by their path inside the generated folder.
pub fn generate(dialect: Dialect, schema: &Value, current: &Current) -> Result<BTreeMap<String, String>> {
    let contract = Contract::from_schema(dialect.file, schema)?;
    let mut definitions = preprocess::bundle(&[(dialect.file.to_string(), schema.clone())])?;
    check(&contract, &definitions, current)?;
    let notes = preprocess::prepare_types(&mut definitions)?;
    let types = types::generate(&definitions, &notes, &Default::default())?;
    let sources = [dialect.file];
    let methods = emit::dialect::emit(dialect.module, &contract, &types.names, current)?;
    let methods = syn::parse2::<syn::File>(methods).map_err(|e| Error::Syntax {
        what: format!("{}/methods", dialect.module),
        message: e.to_string(),
    })?;
    let mut files = BTreeMap::new();
    files.insert(
        "types.rs".to_string(),
        emit::render("types", &sources, types.file)?,
    );
    files.insert(
        "methods.rs".to_string(),
        emit::render("dialect-methods", &sources, methods)?,
    );
    // 0.3's `OAuthFlows` holds every flow inline, which makes its security
    // scheme enum lopsided; cards are built once, not per call, so no boxing.
    let index = emit::module_index(&sources, files.keys())?.replace(
        "pub mod types;",
        "#[allow(clippy::large_enum_variant)]\npub mod types;",
    );
    files.insert("mod.rs".to_string(), index);
    Ok(files
        .into_iter()
        .map(|(name, text)| (format!("{}/{name}", dialect.module), text))
        .collect())
}

/// The method of the current contracts that serves `method`.
pub fn served<'c>(method: &MethodDef, current: &'c Current) -> Option<&'c MethodDef> {
    let serves = method.serves.as_deref()?;
    current
        .contracts
        .iter()
        .flat_map(|c| &c.methods)
        .find(|m| m.name == serves && m.binding.is_none())
}

/// Every method serves a dispatched current method of the same kind (streaming
/// or not); every name and alias is unique and none is a current method's name;
/// params and results are definitions of the dialect.
fn check(contract: &Contract, definitions: &serde_json::Map<String, Value>, current: &Current) -> Result<()> {
    let at = |method: &MethodDef, what: &str| {
        Error::schema(&contract.file, format!("x-methods.{}: {what}", method.name))
    };
    let mut names = BTreeSet::new();
    for method in &contract.methods {
        let target = served(method, current).ok_or_else(|| {
            at(
                method,
                "`serves` must name a dispatched method of the current contract",
            )
        })?;
        if target.streaming != method.streaming {
            return Err(at(method, "streams exactly when the method it serves streams"));
        }
        for name in std::iter::once(&method.name).chain(&method.aliases) {
            let taken = current
                .contracts
                .iter()
                .flat_map(|c| &c.methods)
                .any(|m| &m.name == name);
            if taken || !names.insert(name.clone()) {
                return Err(at(method, &format!("the name `{name}` is already taken")));
            }
        }
        for type_name in [&method.params, &method.result] {
            if !definitions.contains_key(type_name.as_str()) {
                return Err(at(method, &format!("no definition `{type_name}`")));
            }
        }
    }
    Ok(())
}
