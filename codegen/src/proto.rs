//! The `.proto` of a contract whose schema declares `x-proto` (the gRPC
//! binding's package and service): one message per definition marked
//! `x-proto`, one enum per definition with `x-proto-numbers`, and the service
//! with one rpc per dispatched method of `x-methods`, named as the method's
//! marker type (`SendMessage`, `_cleveragents/plan/use` → `PlanUse`). The rpcs
//! of every proto, each with the method it calls, go to the contract crate's
//! table ([`rpc_table`]), so a gRPC front needs no naming rule of its own.
//!
//! A definition marked `"x-proto": {"name": …}` is not emitted: it stands for
//! a well-known type (`google.protobuf.Empty`) or a scalar (`string`, for a
//! string enum carried as its JSON text). A `$ref` into another schema with
//! `x-proto` names that schema's type in its package and imports its proto.
//!
//! A field is a property (of the definition, or of one of its `oneOf`
//! branches) annotated `x-proto: {number, type?, oneof?, optional?}`.
//! Its proto type follows from the property's JSON Schema: a `$ref` names
//! the message or enum (or the well-known type a definition's `x-proto.name`
//! gives); strings are `string`, `bytes` when base64-encoded and
//! `google.protobuf.Timestamp` when `date-time`; booleans are `bool`; an
//! array is `repeated`; an object of `additionalProperties` of one schema is
//! a `map<string, …>`, an object with `properties` a message nested in the
//! field's message (named after the property), any other object
//! `google.protobuf.Struct`, and a property of any JSON value
//! `google.protobuf.Value`. Integers are their `format` (`int32`, `int64`,
//! `uint32`, `uint64`) or say their width (`type: int32`); numbers are
//! `double`; `type` overrides the rule wherever it is given.
//! The field name is the property's in snake_case unless `x-proto-name` (the
//! property's proto name, which decoders also accept) says otherwise.

use crate::model::Contract;
use crate::preprocess::method_type_name;
use crate::{Error, Result};
use heck::{ToSnakeCase, ToUpperCamelCase};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The well-known types a field may name, and the file each comes from.
const WELL_KNOWN: &[(&str, &str)] = &[
    ("google.protobuf.Empty", "google/protobuf/empty.proto"),
    ("google.protobuf.Struct", "google/protobuf/struct.proto"),
    ("google.protobuf.Value", "google/protobuf/struct.proto"),
    ("google.protobuf.Timestamp", "google/protobuf/timestamp.proto"),
];

/// The file name of the `.proto` generated from `file` (`a2a.json` → `a2a.proto`).
pub fn file_name(file: &str) -> String {
    format!("{}.proto", file.trim_end_matches(".json"))
}

/// One rpc of a generated service: its HTTP/2 path and the method it calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcEntry {
    pub path: String,
    pub method: String,
}

/// A generated `.proto`: its text and its service's rpcs.
pub struct Rendered {
    pub text: String,
    pub rpcs: Vec<RpcEntry>,
}

/// The `.proto` of `schema` (from `file`, whose contract is `contract`), or
/// `None` when it declares no `x-proto`. `schemas` are all the files, for
/// references into another one.
pub fn render(
    file: &str,
    schema: &Value,
    contract: &Contract,
    schemas: &[(String, Value)],
) -> Result<Option<Rendered>> {
    let Some(root) = schema.get("x-proto") else {
        return Ok(None);
    };
    let fail = |message: String| Error::schema(file, message);
    let text = |key: &str| {
        root.get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| fail(format!("x-proto.{key} must be a string")))
    };
    let (package, service) = (text("package")?, text("service")?);
    let definitions = schema
        .get("definitions")
        .and_then(Value::as_object)
        .ok_or_else(|| fail("no definitions".into()))?;
    let mut file_out = ProtoFile {
        definitions,
        file,
        schemas,
        imports: BTreeSet::new(),
        body: String::new(),
    };
    let mut rpcs = Vec::new();
    writeln!(file_out.body, "service {service} {{").ok();
    for method in contract.methods.iter().filter(|m| m.binding.is_none()) {
        let input = file_out.named(&method.params)?;
        let output = file_out.named(&method.result)?;
        let stream = if method.streaming { "stream " } else { "" };
        let rpc = method_type_name(&method.name);
        comment(&mut file_out.body, "  ", &method.description);
        writeln!(file_out.body, "  rpc {rpc}({input}) returns ({stream}{output});").ok();
        rpcs.push(RpcEntry {
            path: format!("/{package}.{service}/{rpc}"),
            method: method.name.clone(),
        });
    }
    writeln!(file_out.body, "}}").ok();
    for (name, definition) in definitions {
        if definition.get("x-proto-numbers").is_some() {
            file_out.enumeration(name, definition)?;
        } else if definition.get("x-proto").is_some_and(|p| p.get("name").is_none()) {
            let text = file_out.message(name, definition, "")?;
            file_out.body.push_str(&text);
        }
    }
    let mut out = format!(
        "// Generated by cleveragents-codegen from schema/{file}: do not edit.\n\nsyntax = \"proto3\";\n\npackage {package};\n\n"
    );
    for import in &file_out.imports {
        writeln!(out, "import \"{import}\";").ok();
    }
    if !file_out.imports.is_empty() {
        out.push('\n');
    }
    out.push_str(&file_out.body);
    Ok(Some(Rendered { text: out, rpcs }))
}

/// The contract crate's table of the generated protos and their rpcs:
/// `FILES` (name, text) and `RPCS` (path, method).
pub fn rpc_table(protos: &[(String, Vec<RpcEntry>)]) -> proc_macro2::TokenStream {
    let files = protos
        .iter()
        .map(|(name, _)| quote::quote!((#name, include_str!(#name))));
    let rpcs = protos.iter().flat_map(|(_, rpcs)| rpcs).map(|rpc| {
        let (path, method) = (&rpc.path, &rpc.method);
        quote::quote!((#path, #method))
    });
    quote::quote! {
        /// Each generated `.proto`: its file name (the name imports use) and its text.
        pub const FILES: &[(&str, &str)] = &[#(#files),*];
        /// Each rpc of the generated services: its HTTP/2 path
        /// (`/<package>.<Service>/<Rpc>`) and the contract method it calls.
        pub const RPCS: &[(&str, &str)] = &[#(#rpcs),*];
    }
}

struct ProtoFile<'a> {
    definitions: &'a Map<String, Value>,
    file: &'a str,
    schemas: &'a [(String, Value)],
    imports: BTreeSet<String>,
    body: String,
}

/// The proto scalar types a definition's `x-proto.name` may stand for.
const SCALARS: &[&str] = &[
    "string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "double", "float",
];

/// One field of a message.
struct Field {
    number: i64,
    name: String,
    /// `repeated `, `optional ` or nothing.
    label: &'static str,
    ty: String,
    oneof: Option<String>,
    description: String,
}

impl ProtoFile<'_> {
    fn fail(&self, message: String) -> Error {
        Error::schema(self.file, message)
    }

    /// The proto name of definition `name`: its `x-proto.name` (a
    /// well-known type or a scalar), else its own name.
    fn named(&mut self, name: &str) -> Result<String> {
        let Some(definition) = self.definitions.get(name) else {
            // A method's params or result may be another file's definition.
            let other = self
                .schemas
                .iter()
                .find(|(file, schema)| {
                    file != self.file && schema.pointer(&format!("/definitions/{name}")).is_some()
                })
                .map(|(file, _)| file.clone())
                .ok_or_else(|| self.fail(format!("x-proto: no definition `{name}`")))?;
            return self.named_in(&other, name);
        };
        match definition.pointer("/x-proto/name").and_then(Value::as_str) {
            Some(scalar) if SCALARS.contains(&scalar) => Ok(scalar.to_string()),
            Some(well_known) => self.well_known(well_known),
            None if definition.get("x-proto").is_some() || definition.get("x-proto-numbers").is_some() => {
                Ok(name.to_string())
            }
            None => Err(self.fail(format!(
                "x-proto: `{name}` is referenced by the proto but has no x-proto (a message, or a name it stands for)"
            ))),
        }
    }

    /// The proto name of definition `name` of another schema (`file`): in
    /// that schema's package, its proto imported.
    fn named_in(&mut self, file: &str, name: &str) -> Result<String> {
        let schema = self
            .schemas
            .iter()
            .find(|(f, _)| f == file)
            .map(|(_, schema)| schema)
            .ok_or_else(|| self.fail(format!("x-proto: a reference into `{file}`, which is not loaded")))?;
        let package = schema
            .pointer("/x-proto/package")
            .and_then(Value::as_str)
            .ok_or_else(|| self.fail(format!("x-proto: `{file}` declares no x-proto package")))?;
        let definition = schema
            .pointer(&format!("/definitions/{name}"))
            .ok_or_else(|| self.fail(format!("x-proto: `{file}` has no definition `{name}`")))?;
        if let Some(known) = definition.pointer("/x-proto/name").and_then(Value::as_str) {
            return if SCALARS.contains(&known) {
                Ok(known.to_string())
            } else {
                self.well_known(known)
            };
        }
        if definition.get("x-proto").is_none() && definition.get("x-proto-numbers").is_none() {
            return Err(self.fail(format!(
                "x-proto: `{file}#{name}` is no message or enum of its proto"
            )));
        }
        self.imports.insert(file_name(file));
        Ok(format!("{package}.{name}"))
    }

    fn well_known(&mut self, name: &str) -> Result<String> {
        let (_, import) = WELL_KNOWN
            .iter()
            .find(|(known, _)| *known == name)
            .ok_or_else(|| {
                self.fail(format!(
                    "x-proto: `{name}` is not a well-known type this generator knows"
                ))
            })?;
        self.imports.insert(import.to_string());
        Ok(name.to_string())
    }

    /// The type of `property` (named `name`) by the rules of the module
    /// documentation, and whether it repeats; a nested message it needs is
    /// added to `nested`.
    fn derive(
        &mut self,
        at: &str,
        name: &str,
        property: &Value,
        nested: &mut Vec<(String, Value)>,
    ) -> Result<(String, bool)> {
        if let Some(reference) = property.get("$ref").and_then(Value::as_str) {
            let definition = reference.rsplit('/').next().unwrap_or(reference);
            return Ok(match reference.split_once('#') {
                Some((file, _)) if !file.is_empty() => (self.named_in(file, definition)?, false),
                _ => (self.named(definition)?, false),
            });
        }
        let scalar = match property.get("type").and_then(Value::as_str) {
            Some("string") if property.get("format").and_then(Value::as_str) == Some("date-time") => {
                self.well_known("google.protobuf.Timestamp")?
            }
            Some("string") if property.get("contentEncoding").and_then(Value::as_str) == Some("base64") => {
                "bytes".into()
            }
            Some("string") => "string".into(),
            Some("boolean") => "bool".into(),
            Some("integer") => match property.get("format").and_then(Value::as_str) {
                Some(format @ ("int32" | "int64" | "uint32" | "uint64")) => format.into(),
                _ => {
                    return Err(self.fail(format!(
                        "{at}: an integer needs a format (int32, int64, …) or x-proto.type"
                    )))
                }
            },
            Some("number") => "double".into(),
            Some("array") => {
                let items = property
                    .get("items")
                    .ok_or_else(|| self.fail(format!("{at}: an array without items")))?;
                let (item, _) = self.derive(at, name, items, nested)?;
                return Ok((item, true));
            }
            Some("object") if property.get("properties").is_some() => {
                let message = name.to_upper_camel_case();
                nested.push((message.clone(), property.clone()));
                message
            }
            Some("object") => match property.get("additionalProperties") {
                Some(values @ Value::Object(_)) => {
                    let (value, _) = self.derive(at, name, values, nested)?;
                    format!("map<string, {value}>")
                }
                _ => self.well_known("google.protobuf.Struct")?,
            },
            None => self.well_known("google.protobuf.Value")?,
            Some(other) => {
                return Err(self.fail(format!(
                    "{at}: a property of type `{other}` needs x-proto.type (int32, int64, …)"
                )))
            }
        };
        Ok((scalar, false))
    }

    /// The text of message `name` at `indent`, its nested messages inside it.
    fn message(&mut self, name: &str, definition: &Value, indent: &str) -> Result<String> {
        let mut properties: Vec<(&String, &Value)> = Vec::new();
        let own = definition.get("properties").and_then(Value::as_object);
        properties.extend(own.into_iter().flatten());
        for branch in definition
            .get("oneOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            properties.extend(
                branch
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten(),
            );
        }
        let mut fields = Vec::new();
        let mut nested = Vec::new();
        for (property, schema) in properties {
            let Some(proto) = schema.get("x-proto") else {
                continue;
            };
            let at = format!("{name}.{property}");
            let number = proto
                .get("number")
                .and_then(Value::as_i64)
                .filter(|n| (1..=536_870_911).contains(n))
                .ok_or_else(|| self.fail(format!("{at}: x-proto.number must be a field number")))?;
            let (ty, repeated) = match proto.get("type").and_then(Value::as_str) {
                Some(ty) if ty.starts_with("google.") => (self.well_known(ty)?, false),
                Some(ty) => {
                    let repeated = schema.get("type").and_then(Value::as_str) == Some("array");
                    (ty.to_string(), repeated)
                }
                None => self.derive(&at, property, schema, &mut nested)?,
            };
            let optional = proto.get("optional").and_then(Value::as_bool).unwrap_or(false);
            let label = match (repeated, optional) {
                (true, _) => "repeated ",
                (false, true) => "optional ",
                (false, false) => "",
            };
            fields.push(Field {
                number,
                name: match schema.get("x-proto-name").and_then(Value::as_str) {
                    Some(name) => name.to_string(),
                    // As the decoders derive the alias they accept.
                    None => property.to_snake_case(),
                },
                label,
                ty,
                oneof: proto.get("oneof").and_then(Value::as_str).map(str::to_string),
                description: schema
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            });
        }
        fields.sort_by_key(|f| f.number);
        let mut numbers = BTreeSet::new();
        for field in &fields {
            if !numbers.insert(field.number) {
                return Err(self.fail(format!("{name}: field number {} given twice", field.number)));
            }
        }
        // A blank line between top-level blocks, none inside one.
        let mut out = String::from(if indent.is_empty() { "\n" } else { "" });
        let inner = format!("{indent}  ");
        comment(&mut out, indent, description_of(definition));
        writeln!(out, "{indent}message {name} {{").ok();
        for (message, schema) in nested {
            let text = self.message(&message, &schema, &inner)?;
            out.push_str(&text);
        }
        // A oneof's members, where the first of them stands.
        let mut groups: BTreeMap<&str, Vec<&Field>> = BTreeMap::new();
        for field in &fields {
            if let Some(group) = &field.oneof {
                groups.entry(group).or_default().push(field);
            }
        }
        let mut written = BTreeSet::new();
        for field in &fields {
            match &field.oneof {
                None => write_field(&mut out, &inner, field),
                Some(group) if written.insert(group.as_str()) => {
                    writeln!(out, "{inner}oneof {group} {{").ok();
                    for member in &groups[group.as_str()] {
                        write_field(&mut out, &format!("{inner}  "), member);
                    }
                    writeln!(out, "{inner}}}").ok();
                }
                Some(_) => {}
            }
        }
        writeln!(out, "{indent}}}").ok();
        Ok(out)
    }

    fn enumeration(&mut self, name: &str, definition: &Value) -> Result<()> {
        // The same reading of the numbers the decoders are generated from.
        let values = crate::preprocess::proto_numbers(name, definition)?.unwrap_or_default();
        self.body.push('\n');
        comment(&mut self.body, "", description_of(definition));
        writeln!(self.body, "enum {name} {{").ok();
        for (value, number) in values {
            writeln!(self.body, "  {value} = {number};").ok();
        }
        writeln!(self.body, "}}").ok();
        Ok(())
    }
}

fn description_of(definition: &Value) -> &str {
    definition
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn write_field(out: &mut String, indent: &str, field: &Field) {
    comment(out, indent, &field.description);
    // A oneof's members take no label.
    let label = if field.oneof.is_some() { "" } else { field.label };
    writeln!(
        out,
        "{indent}{label}{} {} = {};",
        field.ty, field.name, field.number
    )
    .ok();
}

/// `text` as `//` comment lines of at most about 96 columns.
fn comment(out: &mut String, indent: &str, text: &str) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + word.len() > 92 {
            writeln!(out, "{indent}// {line}").ok();
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        writeln!(out, "{indent}// {line}").ok();
    }
}
