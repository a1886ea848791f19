//! `_gen/models.py`: one pydantic model per object definition of the
//! extensions, a `Literal` alias per string enum, and an alias per standard
//! A2A type they refer to, naming the official SDK's protobuf message.
//!
//! The models keep the wire exact: properties are snake_case in Python with
//! their camelCase wire name as the alias, timestamps and bytes stay the
//! strings the wire carries (a `datetime` would re-format them), and an
//! absent optional field is `None`, which the encoder leaves out, so absent
//! stays absent through a round trip.

use super::{docstring, literal, py_name, BANNER};
use crate::bindings::Input;
use crate::{Error, Result};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Where a `$ref` to a definition of this bundle points.
const DEFINITIONS: &str = "#/definitions/";

/// Which definitions the package generates and which it takes from the SDK.
pub struct Scope<'a> {
    /// The extensions' definitions, in schema order.
    pub local: Vec<(&'a str, &'a Value)>,
    /// Every definition of every schema.
    pub definitions: &'a Map<String, Value>,
    /// The base protocol's definitions the extensions refer to (SDK types).
    sdk: RefCell<BTreeSet<String>>,
}

impl<'a> Scope<'a> {
    pub fn new(input: &'a Input) -> Result<Self> {
        let mut local = Vec::new();
        for (contract, (file, schema)) in input.contracts.iter().zip(input.schemas) {
            if contract.info.extension_uri.is_none() {
                continue;
            }
            let definitions = schema
                .get("definitions")
                .and_then(Value::as_object)
                .ok_or_else(|| Error::schema(file, "missing `definitions`"))?;
            for name in definitions.keys() {
                let bundled = input
                    .definitions
                    .get(name)
                    .ok_or_else(|| Error::schema(file, format!("`{name}` is not bundled")))?;
                local.push((name.as_str(), bundled));
            }
        }
        Ok(Scope {
            local,
            definitions: input.definitions,
            sdk: RefCell::new(BTreeSet::new()),
        })
    }

    /// True when `name` is one of the extensions' own definitions.
    pub fn is_local(&self, name: &str) -> bool {
        self.local.iter().any(|(n, _)| *n == name)
    }

    /// The Python type naming definition `name`, noting an SDK type's use.
    pub fn named(&self, name: &str) -> Result<String> {
        if !self.is_local(name) {
            if !self.definitions.contains_key(name) {
                return Err(Error::schema("bindings", format!("no definition `{name}`")));
            }
            self.sdk.borrow_mut().insert(name.to_string());
        }
        Ok(name.to_string())
    }

    /// True when the object definition `name` requires no property, so its
    /// params can be omitted.
    pub fn all_optional(&self, name: &str) -> bool {
        self.definitions
            .get(name)
            .and_then(|d| d.get("required"))
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
    }
}

/// The text of `models.py`.
pub fn render(scope: &Scope) -> Result<String> {
    let mut aliases = String::new();
    let mut classes = Vec::new();
    for (name, definition) in &scope.local {
        render_definition(scope, name, definition, &mut aliases, &mut classes)?;
    }
    let mut out = String::from(BANNER);
    out.push_str(
        "\"\"\"Models of every definition of the extension schemas.\n\n\
         Standard A2A types are the official SDK's protobuf messages (``a2a.types``),\n\
         read and written as ProtoJSON.\n\"\"\"\n\n\
         from __future__ import annotations\n\n\
         from typing import TYPE_CHECKING, Annotated, ClassVar, Literal, TypeAlias\n\n\
         from a2a.types import a2a_pb2\n\
         from pydantic import Field, JsonValue\n\n\
         from cleveragents_contract._model import Model, ProtoEnum, ProtoMessage\n\n\
         __all__ = [\n",
    );
    let mut exported: Vec<String> = scope.sdk.borrow().iter().cloned().collect();
    exported.extend(scope.local.iter().map(|(n, _)| n.to_string()));
    exported.extend(classes.iter().map(|(n, _)| n.clone()));
    exported.sort();
    exported.dedup();
    for name in &exported {
        out.push_str(&format!("    {},\n", literal(name)));
    }
    out.push_str("]\n\n# The standard A2A types the extension refers to: the SDK's own.\n");
    for name in scope.sdk.borrow().iter() {
        let definition = &scope.definitions[name];
        if definition.get("enum").is_some() {
            // The stubs declare a protobuf enum a class of int; at run time it
            // is a wrapper object, which cannot be annotated: its values are ints.
            out.push_str(&format!(
                "if TYPE_CHECKING:\n    {name}: TypeAlias = Annotated[a2a_pb2.{name}, ProtoEnum(a2a_pb2.{name})]\n\
                 else:\n    {name} = Annotated[int, ProtoEnum(a2a_pb2.{name})]\n"
            ));
        } else {
            out.push_str(&format!(
                "{name}: TypeAlias = Annotated[a2a_pb2.{name}, ProtoMessage(a2a_pb2.{name})]\n"
            ));
        }
    }
    out.push('\n');
    out.push_str(&aliases);
    for (_, text) in &classes {
        out.push_str("\n\n");
        out.push_str(text);
    }
    // Every forward reference resolves at import, so a broken model fails
    // there and not at a caller's first call.
    out.push_str("\n\n");
    for (name, _) in &classes {
        out.push_str(&format!("{name}.model_rebuild()\n"));
    }
    Ok(out)
}

/// Renders one top-level definition: an alias, or one class (plus the classes
/// of the objects nested in it).
fn render_definition(
    scope: &Scope,
    name: &str,
    definition: &Value,
    aliases: &mut String,
    classes: &mut Vec<(String, String)>,
) -> Result<()> {
    let description = text(definition, "description");
    if is_class(definition) {
        return render_class(scope, name, definition, classes);
    }
    let mut nested = Vec::new();
    let ty = type_of(scope, definition, name, &mut nested)?;
    if !nested.is_empty() {
        return Err(Error::schema(
            "bindings",
            format!("`{name}`: an alias with nested objects"),
        ));
    }
    aliases.push_str(&format!("{name}: TypeAlias = {ty}\n"));
    let mut doc = description.to_string();
    if let Some(descriptions) = definition.get("x-enum-descriptions").and_then(Value::as_object) {
        for (value, about) in descriptions {
            doc.push_str(&format!(
                "\n\n``{value}``: {}",
                about.as_str().unwrap_or_default()
            ));
        }
    }
    aliases.push_str(&docstring(&doc, ""));
    aliases.push('\n');
    Ok(())
}

/// True when a definition is an object with named members (or a one-of of
/// such objects), so it becomes a class rather than an alias.
fn is_class(definition: &Value) -> bool {
    definition.get("properties").is_some()
        || definition
            .get("oneOf")
            .and_then(Value::as_array)
            .is_some_and(|arms| arms.iter().all(|arm| arm.get("properties").is_some()))
}

/// One model class: its fields are the definition's properties and those of
/// its one-of arms, which the base class checks are exactly one present.
fn render_class(
    scope: &Scope,
    name: &str,
    definition: &Value,
    classes: &mut Vec<(String, String)>,
) -> Result<()> {
    let mut nested = Vec::new();
    let mut properties: Vec<(&String, &Value)> = Vec::new();
    let mut required: Vec<&str> = strings(definition.get("required"));
    let mut one_of: Vec<Vec<String>> = Vec::new();
    if let Some(props) = definition.get("properties").and_then(Value::as_object) {
        properties.extend(props.iter());
    }
    for arm in definition
        .get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let arm_required = strings(arm.get("required"));
        if let Some(props) = arm.get("properties").and_then(Value::as_object) {
            // A wrapper one-of: each arm brings its own members, which are
            // required only within the arm.
            properties.extend(props.iter());
        }
        one_of.push(arm_required.iter().map(|w| py_name(w)).collect());
        if definition.get("properties").is_none() {
            continue;
        }
        // A content one-of names alternatives among the shared properties:
        // they are optional until the check picks one.
        required.retain(|r| !arm_required.contains(r));
    }
    if definition.get("properties").is_none() {
        required.clear();
    }
    let mut out = format!("class {name}(Model):\n");
    out.push_str(&docstring(text(definition, "description"), "    "));
    let proto: Vec<String> = properties
        .iter()
        .filter(|(_, schema)| holds_sdk_message(scope, schema))
        .map(|(wire, _)| literal(&py_name(wire)))
        .collect();
    if !proto.is_empty() {
        out.push_str(&format!(
            "\n    # Fields holding the SDK's messages: written back as they were read.\n    \
             proto_fields: ClassVar[tuple[str, ...]] = ({},)\n",
            proto.join(", ")
        ));
    }
    if !one_of.is_empty() {
        let groups: Vec<String> = one_of
            .iter()
            .map(|group| {
                let names: Vec<String> = group.iter().map(|n| literal(n)).collect();
                format!("({},)", names.join(", "))
            })
            .collect();
        out.push_str(&format!(
            "\n    # Exactly one of these groups of fields is present.\n    \
             one_of: ClassVar[tuple[tuple[str, ...], ...]] = ({},)\n",
            groups.join(", ")
        ));
    }
    for (wire, schema) in properties {
        let field = py_name(wire);
        let ty = type_of(scope, schema, &format!("{name}{}", pascal(wire)), &mut nested)?;
        // Not `alias=`: type checkers would make the wire name the keyword
        // of the constructor. With the two directional aliases the keyword
        // is the Python name, with or without pydantic's mypy plugin.
        let alias = if field == *wire {
            String::new()
        } else {
            format!("validation_alias={0}, serialization_alias={0}", literal(wire))
        };
        let line = if required.contains(&wire.as_str()) {
            if alias.is_empty() {
                format!("    {field}: {ty}\n")
            } else {
                format!("    {field}: {ty} = Field({alias})\n")
            }
        } else if alias.is_empty() {
            format!("    {field}: {ty} | None = None\n")
        } else {
            format!("    {field}: {ty} | None = Field(default=None, {alias})\n")
        };
        out.push('\n');
        out.push_str(&line);
        let mut doc = text(schema, "description").to_string();
        if let Some(since) = schema.get("x-since").and_then(Value::as_str) {
            doc.push_str(&format!(" (Since extension version {since}.)"));
        }
        out.push_str(&docstring(&doc, "    "));
    }
    classes.push((name.to_string(), out));
    for (nested_name, nested_schema) in nested {
        render_class(scope, &nested_name, &nested_schema, classes)?;
    }
    Ok(())
}

/// The Python type of a schema. `context` names a nested object's class;
/// the objects found are added to `nested` for the caller to render.
fn type_of(
    scope: &Scope,
    schema: &Value,
    context: &str,
    nested: &mut Vec<(String, Value)>,
) -> Result<String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.strip_prefix(DEFINITIONS).unwrap_or(reference);
        return scope.named(name);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        return Ok(format!("Literal[{}]", values.join(", ")));
    }
    if let Some(value) = schema.get("const") {
        return Ok(format!("Literal[{value}]"));
    }
    if let Some(arms) = schema.get("oneOf").and_then(Value::as_array) {
        let types = arms
            .iter()
            .map(|arm| type_of(scope, arm, context, nested))
            .collect::<Result<Vec<_>>>()?;
        return Ok(types.join(" | "));
    }
    let ty = match schema.get("type") {
        None => return Ok("JsonValue".into()),
        Some(Value::String(ty)) => ty.as_str(),
        Some(other) => {
            return Err(Error::schema(
                "bindings",
                format!("`{context}`: type {other} is not supported"),
            ))
        }
    };
    Ok(match ty {
        "string" => "str".into(),
        "integer" => "int".into(),
        "number" => "float".into(),
        "boolean" => "bool".into(),
        "null" => "None".into(),
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            format!("list[{}]", type_of(scope, &items, context, nested)?)
        }
        "object" if schema.get("properties").is_some() => {
            nested.push((context.to_string(), schema.clone()));
            context.to_string()
        }
        "object" => match schema.get("additionalProperties") {
            Some(inner @ Value::Object(_)) => {
                format!("dict[str, {}]", type_of(scope, inner, context, nested)?)
            }
            _ => "dict[str, JsonValue]".into(),
        },
        other => {
            return Err(Error::schema(
                "bindings",
                format!("`{context}`: type `{other}` is not supported"),
            ))
        }
    })
}

/// True when a property holds an SDK protobuf message, or a list of them
/// (an SDK enum is written as exactly as it is read: its name).
fn holds_sdk_message(scope: &Scope, schema: &Value) -> bool {
    let target = schema.get("items").unwrap_or(schema);
    target
        .get("$ref")
        .and_then(Value::as_str)
        .map(|reference| reference.strip_prefix(DEFINITIONS).unwrap_or(reference))
        .is_some_and(|name| {
            !scope.is_local(name)
                && scope
                    .definitions
                    .get(name)
                    .is_some_and(|definition| definition.get("enum").is_none())
        })
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn strings(value: Option<&Value>) -> Vec<&str> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn pascal(wire: &str) -> String {
    heck::ToUpperCamelCase::to_upper_camel_case(wire)
}
