//! Payload types: runs typify over the prepared definitions and hands the
//! result to the post-pass, then documents what typify left undocumented.

mod docs;

use crate::preprocess::Notes;
use crate::since::Since;
use crate::{postpass, variants};
use crate::{Error, Result};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use typify::{TypeSpace, TypeSpaceSettings};

/// The payload types as a syntax tree, with the Rust name of every definition.
pub struct Types {
    pub file: syn::File,
    /// Definition name → Rust type name.
    pub names: BTreeMap<String, String>,
    /// Definitions whose type implements `rpc::FitVersion` (see [`crate::since`]).
    pub fitted: BTreeSet<String>,
}

/// `base`: the definitions of the base protocol's schema, whose `x-since`
/// members get `FitVersion` impls (see [`crate::since`]).
pub fn generate(definitions: &Map<String, Value>, notes: &Notes, base: &BTreeSet<String>) -> Result<Types> {
    let mut settings = TypeSpaceSettings::default();
    settings
        .with_struct_builder(false)
        .with_derive("PartialEq".to_string());
    let mut space = TypeSpace::new(&settings);
    let root = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": definitions,
    });
    let root: schemars::schema::RootSchema =
        serde_json::from_value(root).map_err(|e| Error::Typify(format!("schema model: {e}")))?;
    space
        .add_root_schema(root)
        .map_err(|e| Error::Typify(e.to_string()))?;

    let mut names = BTreeMap::new();
    for name in definitions.keys() {
        let reference: schemars::schema::Schema =
            serde_json::from_value(json!({ "$ref": format!("#/definitions/{name}") }))
                .map_err(|e| Error::Typify(e.to_string()))?;
        let id = space
            .add_type(&reference)
            .map_err(|e| Error::Typify(format!("{name}: {e}")))?;
        let ty = space
            .get_type(&id)
            .map_err(|e| Error::Typify(format!("{name}: {e}")))?;
        names.insert(name.clone(), ty.name());
    }

    let tokens = space.to_stream();
    let mut file: syn::File = syn::parse2(tokens).map_err(|e| Error::Syntax {
        what: "typify output".into(),
        message: e.to_string(),
    })?;
    variants::strip_enum_name_prefixes(&mut file);
    postpass::apply(&mut file, definitions, notes, &names)?;
    let since = Since::of(definitions, base)?;
    let fits = since.impls(&file, &names)?;
    file.items.extend(fits);
    docs::fill(&mut file, definitions, notes, &names)?;
    Ok(Types {
        file,
        names,
        fitted: since.fitted,
    })
}
