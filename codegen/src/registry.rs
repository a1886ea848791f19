//! The registry model: a schema's `x-registry` section resolved against its
//! method table and definitions.
//!
//! `x-registry` names each kind of the kind enum and the path of its methods;
//! everything else about a kind (its entity, spec, list and params types, the
//! field that carries the spec) is read off the five methods the pattern names,
//! and checked, so the emitters and every generic registry built on them agree
//! with the methods by construction.

use crate::model::{Contract, MethodDef};
use crate::{Error, Result};
use heck::{ToKebabCase, ToSnakeCase, ToUpperCamelCase};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The five operations every kind has, in the order of [`Kind::methods`].
pub const OPERATIONS: [&str; 5] = ["list", "show", "add", "update", "remove"];

/// `x-registry` as written.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Section {
    description: String,
    service: String,
    kind_enum: String,
    method_pattern: String,
    kinds: serde_json::Map<String, Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindEntry {
    path: String,
}

/// A resolved registry.
#[derive(Debug, Clone)]
pub struct Registry {
    /// What the schema says of its registry (the generated docs carry it).
    pub description: String,
    /// The service whose handler trait carries the registry methods.
    pub service: String,
    /// The definition of the kind enum.
    pub kind_enum: String,
    pub kinds: Vec<Kind>,
    /// Params shared by every kind's list, show and remove methods, and the
    /// remove result (definition names).
    pub list_params: String,
    pub show_params: String,
    pub remove_params: String,
    pub remove_result: String,
}

/// One resolved kind.
#[derive(Debug, Clone)]
pub struct Kind {
    /// Wire value of the kind enum (`REGISTRY_KIND_RESOURCE_TYPE`).
    pub value: String,
    /// Rust variant of the kind enum (`ResourceType`).
    pub variant: String,
    /// Singular kebab-case name (`resource-type`).
    pub name: String,
    /// Human label (`Resource type`).
    pub label: String,
    /// Method path segment (`resource-types`).
    pub path: String,
    /// Wire names of the methods, in [`OPERATIONS`] order.
    pub methods: [String; 5],
    /// Definitions: the entity (show's result), its spec, the list page, and the
    /// add and update params.
    pub entity: String,
    pub spec: String,
    pub list: String,
    pub add_params: String,
    pub update_params: String,
    /// Wire name of the field of the add/update params that carries the spec.
    pub spec_field: String,
    /// Wire names of the spec's fields, in declaration order.
    pub spec_fields: Vec<String>,
}

/// Resolves the `x-registry` of `schema`, if it has one, against `contract` and
/// the bundled `definitions`.
pub fn resolve(
    contract: &Contract,
    schema: &Value,
    definitions: &Map<String, Value>,
) -> Result<Option<Registry>> {
    let Some(section) = schema.get("x-registry") else {
        return Ok(None);
    };
    let file = contract.file.as_str();
    let err = |message: String| Error::schema(file, format!("x-registry: {message}"));
    let section: Section = serde_json::from_value(section.clone()).map_err(|e| err(e.to_string()))?;
    let by_name: BTreeMap<&str, &MethodDef> = contract.methods.iter().map(|m| (m.name.as_str(), m)).collect();
    let kinds = resolve_kinds(&section, &by_name, definitions).map_err(err)?;
    let shared = |op: usize, pick: fn(&MethodDef) -> &String| shared(&kinds, &by_name, op, pick).map_err(err);
    Ok(Some(Registry {
        description: section.description,
        list_params: shared(0, |m| &m.params)?,
        show_params: shared(1, |m| &m.params)?,
        remove_params: shared(4, |m| &m.params)?,
        remove_result: shared(4, |m| &m.result)?,
        service: section.service,
        kind_enum: section.kind_enum,
        kinds,
    }))
}

/// One kind per value of the kind enum, in its order: `x-registry.kinds` must
/// declare exactly the enum's values, and the enum must have some.
fn resolve_kinds(
    section: &Section,
    by_name: &BTreeMap<&str, &MethodDef>,
    definitions: &Map<String, Value>,
) -> Result<Vec<Kind>, String> {
    let values: Vec<&str> = definitions
        .get(&section.kind_enum)
        .and_then(|d| d.get("enum"))
        .and_then(Value::as_array)
        .ok_or_else(|| format!("`{}` is not a string enum", section.kind_enum))?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let kinds = values
        .iter()
        .map(|value| resolve_kind(section, value, by_name, definitions))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(extra) = section.kinds.keys().find(|k| !values.contains(&k.as_str())) {
        return Err(format!("`{extra}` is not a value of `{}`", section.kind_enum));
    }
    if kinds.is_empty() {
        return Err(format!("`{}` has no values", section.kind_enum));
    }
    Ok(kinds)
}

/// The kind of one value of the kind enum (`REGISTRY_KIND_RESOURCE_TYPE`): its
/// names come from the value, its methods from the pattern and its entry's
/// path, its types from those methods.
fn resolve_kind(
    section: &Section,
    value: &str,
    by_name: &BTreeMap<&str, &MethodDef>,
    definitions: &Map<String, Value>,
) -> Result<Kind, String> {
    let entry = section
        .kinds
        .get(value)
        .ok_or_else(|| format!("kind `{value}` of `{}` is not declared", section.kind_enum))?;
    let entry: KindEntry = serde_json::from_value(entry.clone()).map_err(|e| format!("{value}: {e}"))?;
    let prefix = format!("{}_", section.kind_enum.to_snake_case().to_uppercase());
    let bare = value
        .strip_prefix(&prefix)
        .filter(|bare| !bare.is_empty())
        .ok_or_else(|| format!("`{value}` is not `{prefix}` and a name"))?;
    let methods = OPERATIONS.map(|op| {
        section
            .method_pattern
            .replace("{path}", &entry.path)
            .replace("{operation}", op)
    });
    let defs = operation_methods(section, value, &methods, by_name)?;
    let (list, show, add, update) = (defs[0], defs[1], defs[2], defs[3]);
    let (spec_field, spec) = spec_of(definitions, list, add, update)?;
    let spec_fields = definitions
        .get(&spec)
        .and_then(|d| d.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let name = bare.to_lowercase().to_kebab_case();
    let spaced = name.replace('-', " ");
    let label = spaced[..1].to_uppercase() + &spaced[1..];
    Ok(Kind {
        value: value.to_string(),
        variant: bare.to_lowercase().to_upper_camel_case(),
        name,
        label,
        path: entry.path,
        entity: show.result.clone(),
        spec,
        list: list.result.clone(),
        add_params: add.params.clone(),
        update_params: update.params.clone(),
        spec_field,
        spec_fields,
        methods,
    })
}

/// The methods of a kind, in [`OPERATIONS`] order: each must exist and be a
/// unary method of the registry's service, since the generic handler methods
/// of that service answer them.
fn operation_methods<'a>(
    section: &Section,
    value: &str,
    methods: &[String],
    by_name: &BTreeMap<&str, &'a MethodDef>,
) -> Result<Vec<&'a MethodDef>, String> {
    let mut defs = Vec::new();
    for name in methods {
        let method = by_name
            .get(name.as_str())
            .ok_or_else(|| format!("kind `{value}` lacks the method `{name}`"))?;
        if method.service != section.service || method.streaming {
            return Err(format!(
                "`{name}` must be a unary method of `{}`",
                section.service
            ));
        }
        defs.push(*method);
    }
    Ok(defs)
}

/// The spec field and spec definition of a kind, read off its add params. The
/// update params must carry the same spec and an `expectedVersion`, and the
/// list result must be a page, because `RegistryEntity` reads them that way.
fn spec_of(
    definitions: &Map<String, Value>,
    list: &MethodDef,
    add: &MethodDef,
    update: &MethodDef,
) -> Result<(String, String), String> {
    let spec_field = spec_field(definitions, &add.params).map_err(|m| format!("{}: {m}", add.name))?;
    let spec = reference(definitions, &add.params, &spec_field).map_err(|m| format!("{}: {m}", add.name))?;
    let update_spec =
        reference(definitions, &update.params, &spec_field).map_err(|m| format!("{}: {m}", update.name))?;
    if update_spec != spec || property(definitions, &update.params, "expectedVersion").is_none() {
        return Err(format!(
            "`{}` must carry `{spec_field}` ({spec}) and `expectedVersion`",
            update.name
        ));
    }
    for field in ["items", "nextCursor"] {
        if property(definitions, &list.result, field).is_none() {
            return Err(format!("`{}` has no `{field}`", list.result));
        }
    }
    Ok((spec_field, spec))
}

/// The definition every kind's method of operation `op` uses for `pick` (its
/// params or result): the generic handler method of `op` has one signature for
/// all kinds. `kinds` is never empty ([`resolve_kinds`] refuses that).
fn shared(
    kinds: &[Kind],
    by_name: &BTreeMap<&str, &MethodDef>,
    op: usize,
    pick: fn(&MethodDef) -> &String,
) -> Result<String, String> {
    let expected = pick(by_name[kinds[0].methods[op].as_str()]);
    for kind in kinds {
        let method = by_name[kind.methods[op].as_str()];
        if pick(method) != expected {
            return Err(format!("`{}` must use `{expected}` like every kind", method.name));
        }
    }
    Ok(expected.clone())
}

fn property<'a>(definitions: &'a Map<String, Value>, definition: &str, field: &str) -> Option<&'a Value> {
    definitions.get(definition)?.get("properties")?.get(field)
}

/// The one property of an add params definition besides `namespace`.
fn spec_field(definitions: &Map<String, Value>, params: &str) -> Result<String, String> {
    let properties = definitions
        .get(params)
        .and_then(|d| d.get("properties"))
        .and_then(Value::as_object)
        .ok_or("has no properties")?;
    let mut others = properties.keys().filter(|k| k.as_str() != "namespace");
    match (others.next(), others.next()) {
        (Some(field), None) => Ok(field.clone()),
        _ => Err("must have exactly one property besides `namespace`: the spec".into()),
    }
}

/// The definition a property refers to.
fn reference(definitions: &Map<String, Value>, definition: &str, field: &str) -> Result<String, String> {
    property(definitions, definition, field)
        .and_then(|p| p.get("$ref"))
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/definitions/"))
        .map(str::to_string)
        .ok_or_else(|| format!("`{field}` must refer to a definition"))
}
