//! The wire types: one TypeScript declaration per definition, as JSON (not as
//! any in-memory model) carries it, so a parsed answer is the value itself.
//! Objects become interfaces with `?` exactly where the schema does not
//! require a property; string enums become unions of their literals; each
//! one-of becomes a named type per alternative that allows its own member
//! only (`never` for the others), so narrowing on the member present works.
//!
//! The extension's definitions go to `types.ts`; the A2A definitions they
//! reach go to `a2a.ts` (see the package README for why these are not the
//! official SDK's types).

use super::{doc, fail, key, literal};
use crate::Result;
use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};

/// The definitions the package declares, split by the file they come from.
pub struct Model<'a> {
    definitions: &'a Map<String, Value>,
    /// The extension's own definitions, in schema order.
    extension: Vec<String>,
    /// The other files' definitions the extension reaches, in schema order.
    reached: Vec<String>,
}

/// The shared JSON value types every other module uses for free-form data.
pub fn json_module() -> String {
    "/** Any JSON value: what a schema leaves free (`{}`, `google.protobuf.Value`). */\n\
     export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;\n\n\
     /** A JSON object of free-form members (`google.protobuf.Struct`). */\n\
     export interface JsonObject {\n  [key: string]: JsonValue;\n}\n\n\
     /**\n * The alternative a one-of value holds: the first of `cases` present as a\n \
     * member (each alternative's type allows its own member only).\n */\n\
     export function oneOfCase<K extends string>(value: object, cases: readonly K[]): K | undefined {\n  \
     return cases.find((name) => Object.prototype.hasOwnProperty.call(value, name));\n}\n"
        .to_string()
}

impl<'a> Model<'a> {
    /// Collects the extension's definitions and, transitively, those of
    /// other files its definitions and `roots` (its methods' params and
    /// results) refer to.
    pub fn new(
        definitions: &'a Map<String, Value>,
        extension_file: &str,
        extension_schema: &Value,
        schemas: &[(String, Value)],
        roots: &[String],
    ) -> Result<Self> {
        let own = names_of(extension_schema);
        let mut seen: HashSet<String> = HashSet::new();
        let mut stack = own.clone();
        stack.extend(roots.iter().cloned());
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let definition = definitions
                .get(&name)
                .ok_or_else(|| fail(format!("no definition `{name}`")))?;
            let mut found = BTreeSet::new();
            refs(definition, &mut found);
            stack.extend(found);
        }
        let mut reached = Vec::new();
        for (file, schema) in schemas {
            if file != extension_file {
                reached.extend(names_of(schema).into_iter().filter(|n| seen.contains(n)));
            }
        }
        Ok(Model {
            definitions,
            extension: own,
            reached,
        })
    }

    /// True when `name` is a definition of another file than the extension's.
    pub fn is_reached(&self, name: &str) -> bool {
        self.reached.iter().any(|n| n == name)
    }

    /// True when the object definition `name` requires no member: its
    /// params may be left out of a call.
    pub fn requires_nothing(&self, name: &str) -> bool {
        let Some(definition) = self.definitions.get(name) else {
            return false;
        };
        definition.get("properties").is_some()
            && definition
                .get("required")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
    }

    /// `a2a.ts`: the reached definitions of the other files.
    pub fn a2a_module(&self) -> Result<String> {
        let mut out = String::from(
            "// The A2A definitions the extension's types refer to, in their JSON wire form.\n\n",
        );
        out.push_str(&self.imports(&self.reached, None)?);
        for name in &self.reached {
            out.push_str(&self.declaration(name)?);
        }
        Ok(out)
    }

    /// `types.ts`: every definition of the extension.
    pub fn extension_module(&self) -> Result<String> {
        let mut out = String::new();
        out.push_str(&self.imports(&self.extension, Some(&self.reached))?);
        for name in &self.extension {
            out.push_str(&self.declaration(name)?);
        }
        Ok(out)
    }

    /// The import lines a module of `names` needs: the JSON types it uses and
    /// the definitions of `other` (the A2A module) it refers to.
    fn imports(&self, names: &[String], other: Option<&Vec<String>>) -> Result<String> {
        let mut body = String::new();
        let mut used = BTreeSet::new();
        for name in names {
            body.push_str(&self.declaration(name)?);
            refs(&self.definitions[name.as_str()], &mut used);
        }
        let mut out = String::new();
        let json: Vec<&str> = ["JsonObject", "JsonValue"]
            .into_iter()
            .filter(|t| body.contains(t))
            .collect();
        let wants_case = body.contains("oneOfCase(");
        if !json.is_empty() {
            out.push_str(&format!(
                "import type {{ {} }} from \"./json.js\";\n",
                json.join(", ")
            ));
        }
        if wants_case {
            out.push_str("import { oneOfCase } from \"./json.js\";\n");
        }
        if let Some(other) = other {
            let from_other: Vec<&String> = other.iter().filter(|n| used.contains(*n)).collect();
            if !from_other.is_empty() {
                let list: Vec<&str> = from_other.iter().map(|s| s.as_str()).collect();
                out.push_str(&format!(
                    "import type {{ {} }} from \"./a2a.js\";\n",
                    list.join(", ")
                ));
            }
        }
        if !out.is_empty() {
            out.push('\n');
        }
        Ok(out)
    }

    /// The declaration(s) of one definition.
    fn declaration(&self, name: &str) -> Result<String> {
        let definition = self.definitions[name]
            .as_object()
            .ok_or_else(|| fail(format!("definition `{name}` is not an object")))?;
        let description = text(definition.get("description"));
        let is_object = definition.get("type").and_then(Value::as_str) == Some("object");
        let mut out = String::new();
        if let Some(values) = definition.get("enum").and_then(Value::as_array) {
            let literals = values
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(literal)
                        .ok_or_else(|| fail(format!("{name}: a non-string enum")))
                })
                .collect::<Result<Vec<_>>>()?;
            let descriptions = definition.get("x-enum-descriptions").and_then(Value::as_object);
            let mut tags = vec![String::new(), "Values:".to_string()];
            for value in values.iter().filter_map(Value::as_str) {
                match descriptions.and_then(|d| d.get(value)).and_then(Value::as_str) {
                    Some(said) => tags.push(format!("- `{value}`: {said}")),
                    None => tags.push(format!("- `{value}`")),
                }
            }
            out.push_str(&doc(&description, "", &tags));
            out.push_str(&format!("export type {name} = {};\n\n", literals.join(" | ")));
            out.push_str(&doc(&format!("Every value of {name}, in schema order."), "", &[]));
            out.push_str(&format!(
                "export const {}_VALUES = [{}] as const satisfies readonly {name}[];\n\n",
                name.to_shouty_snake_case(),
                literals.join(", ")
            ));
            return Ok(out);
        }
        if let Some(branches) = definition.get("oneOf").and_then(Value::as_array) {
            if is_object && definition.contains_key("properties") {
                return self.content_one_of(name, definition, branches, &description);
            }
            if branches.iter().all(|b| b.get("properties").is_some()) {
                return self.wrapper_one_of(name, branches, &description);
            }
            let alternatives = branches
                .iter()
                .map(|b| self.type_of(b, ""))
                .collect::<Result<Vec<_>>>()?;
            out.push_str(&doc(&description, "", &[]));
            out.push_str(&format!("export type {name} = {};\n\n", alternatives.join(" | ")));
            return Ok(out);
        }
        if is_object && definition.contains_key("properties") {
            out.push_str(&doc(&description, "", &[]));
            out.push_str(&format!("export interface {name} {{\n"));
            out.push_str(&self.members(definition, "  ", &[])?);
            out.push_str("}\n\n");
            return Ok(out);
        }
        out.push_str(&doc(&description, "", &[]));
        out.push_str(&format!(
            "export type {name} = {};\n\n",
            self.type_of(&Value::Object(definition.clone()), "")?
        ));
        Ok(out)
    }

    /// A "content" one-of (`Part`): shared members, and exactly one of the
    /// alternatives' members. Declares `<Name>Common`, one `<Name><Alt>` per
    /// alternative, the union, its case names and a function naming the case.
    fn content_one_of(
        &self,
        name: &str,
        definition: &Map<String, Value>,
        branches: &[Value],
        description: &str,
    ) -> Result<String> {
        let cases = branches
            .iter()
            .map(
                |b| match b.get("required").and_then(Value::as_array).map(Vec::as_slice) {
                    Some([Value::String(one)]) => Ok(one.clone()),
                    _ => Err(fail(format!(
                        "{name}: a content alternative names one required member"
                    ))),
                },
            )
            .collect::<Result<Vec<_>>>()?;
        let properties = definition
            .get("properties")
            .and_then(Value::as_object)
            .ok_or_else(|| fail(format!("{name}: no properties")))?;
        let mut out = doc(
            &format!("The members every alternative of {name} shares."),
            "",
            &[],
        );
        out.push_str(&format!("export interface {name}Common {{\n"));
        out.push_str(&self.members(definition, "  ", &cases)?);
        out.push_str("}\n\n");
        let mut variants = Vec::new();
        for case in &cases {
            let variant = self.variant_name(name, case)?;
            let schema = properties
                .get(case)
                .ok_or_else(|| fail(format!("{name}: alternative `{case}` is not a property")))?;
            out.push_str(&doc(
                &format!("{name} carrying `{case}`: {}", text(schema.get("description"))),
                "",
                &[],
            ));
            out.push_str(&format!("export interface {variant} extends {name}Common {{\n"));
            out.push_str(&self.member(case, schema, true, "  ")?);
            for other in cases.iter().filter(|c| *c != case) {
                out.push_str(&format!("  {}?: never;\n", key(other)));
            }
            out.push_str("}\n\n");
            variants.push(variant);
        }
        out.push_str(&self.union(name, description, &variants, &cases));
        Ok(out)
    }

    /// A "wrapper" one-of (`StreamResponse`): an object holding exactly one
    /// member, whose name tells the alternative.
    fn wrapper_one_of(&self, name: &str, branches: &[Value], description: &str) -> Result<String> {
        let mut cases = Vec::new();
        let mut out = String::new();
        let mut variants = Vec::new();
        for branch in branches {
            let properties = branch
                .get("properties")
                .and_then(Value::as_object)
                .filter(|p| p.len() == 1)
                .ok_or_else(|| fail(format!("{name}: a wrapper alternative has one property")))?;
            cases.extend(properties.keys().cloned());
        }
        for (branch, case) in branches.iter().zip(&cases) {
            let variant = self.variant_name(name, case)?;
            out.push_str(&doc(&text(branch.get("description")), "", &[]));
            out.push_str(&format!("export interface {variant} {{\n"));
            out.push_str(&self.member(case, &branch["properties"][case.as_str()], true, "  ")?);
            for other in cases.iter().filter(|c| *c != case) {
                out.push_str(&format!("  {}?: never;\n", key(other)));
            }
            out.push_str("}\n\n");
            variants.push(variant);
        }
        out.push_str(&self.union(name, description, &variants, &cases));
        Ok(out)
    }

    /// The union of a one-of's variants, its case names and its case function.
    fn union(&self, name: &str, description: &str, variants: &[String], cases: &[String]) -> String {
        let literals: Vec<String> = cases.iter().map(|c| literal(c)).collect();
        let constant = format!("{}_CASES", name.to_shouty_snake_case());
        let mut out = doc(description, "", &[]);
        out.push_str(&format!("export type {name} = {};\n\n", variants.join(" | ")));
        out.push_str(&doc(
            &format!("The member that tells which alternative a {name} is."),
            "",
            &[],
        ));
        out.push_str(&format!("export type {name}Case = {};\n\n", literals.join(" | ")));
        out.push_str(&doc(
            &format!("Every alternative of {name}, in schema order."),
            "",
            &[],
        ));
        out.push_str(&format!(
            "export const {constant} = [{}] as const satisfies readonly {name}Case[];\n\n",
            literals.join(", ")
        ));
        out.push_str(&doc(
            "Which alternative `value` holds (`undefined` for a value that holds none).",
            "",
            &[],
        ));
        let mut function = name.to_string();
        if let Some(first) = function.get_mut(0..1) {
            first.make_ascii_lowercase();
        }
        out.push_str(&format!(
            "export function {function}Case(value: {name}): {name}Case | undefined {{\n  \
             return oneOfCase(value, {constant});\n}}\n\n"
        ));
        out
    }

    /// `<Definition><Alternative>`, refused when it would shadow a definition.
    fn variant_name(&self, name: &str, case: &str) -> Result<String> {
        let variant = format!("{name}{}", case.to_upper_camel_case());
        if self.definitions.contains_key(&variant) || self.definitions.contains_key(&format!("{name}Common"))
        {
            return Err(fail(format!(
                "the type `{variant}` of one-of `{name}` would shadow a definition"
            )));
        }
        Ok(variant)
    }

    /// The members of an object schema, leaving out `skip` (the alternatives
    /// of a content one-of, declared by its variants).
    fn members(&self, object: &Map<String, Value>, indent: &str, skip: &[String]) -> Result<String> {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = String::new();
        for (name, schema) in object
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if skip.contains(name) {
                continue;
            }
            out.push_str(&self.member(name, schema, required.contains(&name.as_str()), indent)?);
        }
        Ok(out)
    }

    /// One member with its documentation.
    fn member(&self, name: &str, schema: &Value, required: bool, indent: &str) -> Result<String> {
        let mut tags = Vec::new();
        if let Some(since) = schema.get("x-since").and_then(Value::as_str) {
            tags.push(format!("@since extension version {since}"));
        }
        let mut out = doc(&text(schema.get("description")), indent, &tags);
        out.push_str(&format!(
            "{indent}{}{}: {};\n",
            key(name),
            if required { "" } else { "?" },
            self.type_of(schema, indent)?
        ));
        Ok(out)
    }

    /// The TypeScript type of a property or item schema.
    fn type_of(&self, schema: &Value, indent: &str) -> Result<String> {
        let Some(object) = schema.as_object() else {
            return Ok("JsonValue".into());
        };
        if let Some(Value::String(reference)) = object.get("$ref") {
            let target = reference.rsplit('/').next().unwrap_or(reference);
            if !self.definitions.contains_key(target) {
                return Err(fail(format!("unresolved reference `{reference}`")));
            }
            return Ok(target.to_string());
        }
        if let Some(constant) = object.get("const") {
            return Ok(constant.to_string());
        }
        if let Some(values) = object.get("enum").and_then(Value::as_array) {
            return Ok(values
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(" | "));
        }
        if let Some(branches) = object.get("oneOf").and_then(Value::as_array) {
            let alternatives = branches
                .iter()
                .map(|b| self.type_of(b, indent))
                .collect::<Result<Vec<_>>>()?;
            return Ok(alternatives.join(" | "));
        }
        Ok(match object.get("type").and_then(Value::as_str) {
            Some("string") => "string".into(),
            // int64 travels as a JSON number on this contract's wire; values
            // beyond 2^53 would lose precision, none of its counters get there.
            Some("integer" | "number") => "number".into(),
            Some("boolean") => "boolean".into(),
            Some("null") => "null".into(),
            Some("array") => {
                let item = self.type_of(object.get("items").unwrap_or(&Value::Null), indent)?;
                if item.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    format!("{item}[]")
                } else {
                    format!("Array<{item}>")
                }
            }
            Some("object") if object.contains_key("properties") => {
                let inner = format!("{indent}  ");
                format!("{{\n{}{indent}}}", self.members(object, &inner, &[])?)
            }
            Some("object") => match object.get("additionalProperties") {
                Some(Value::Bool(false)) => "Record<string, never>".into(),
                Some(Value::Object(values)) => {
                    let value = self.type_of(&Value::Object(values.clone()), indent)?;
                    format!("{{ [key: string]: {value} }}")
                }
                _ => "JsonObject".into(),
            },
            Some(other) => return Err(fail(format!("unsupported schema type `{other}`"))),
            None => "JsonValue".into(),
        })
    }
}

/// The definition names of one schema file, in its order.
fn names_of(schema: &Value) -> Vec<String> {
    schema
        .get("definitions")
        .and_then(Value::as_object)
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

/// The definitions a schema refers to.
fn refs(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                found.insert(reference.rsplit('/').next().unwrap_or(reference).to_string());
            }
            for (name, inner) in map {
                // Examples and annotations are data, not schemas.
                if !name.starts_with("x-") && name != "examples" {
                    refs(inner, found);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, found)),
        _ => {}
    }
}

/// A description as text (empty when absent).
fn text(value: Option<&Value>) -> String {
    value.and_then(Value::as_str).unwrap_or("").to_string()
}
