//! Documentation for the payload items typify leaves undocumented.
//!
//! typify turns a schema `description` into the doc comment of the type,
//! field or one-of arm it describes, but a JSON Schema `enum` has no place for
//! a description per value, an arm that is a bare `$ref` carries none, and a
//! definition or property may lack one. The contract crate denies missing
//! docs, so every such item gets one: an enum value the description its
//! definition gives it in `x-enum-descriptions` (an object from wire value to
//! text), else a generated sentence naming the value on the wire (with its
//! proto number where it has one); a one-of arm what it holds (the first
//! sentence of the referenced type's own description); a field whose inline
//! object type took its property's description, that description.

use crate::postpass::serde_rename;
use crate::preprocess::Notes;
use crate::{Error, Result};
use proc_macro2::Span;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use syn::{Attribute, Fields, Item, LitStr};

/// The schema keyword that describes each value of an `enum`.
const ENUM_DESCRIPTIONS: &str = "x-enum-descriptions";

/// Adds a doc comment to every type, field and variant of `file` that has none.
/// An `x-enum-descriptions` key that is not a value of its enum is an error.
pub fn fill(
    file: &mut syn::File,
    definitions: &Map<String, Value>,
    notes: &Notes,
    names: &BTreeMap<String, String>,
) -> Result<()> {
    check_enum_descriptions(definitions)?;
    let rust_to_def: BTreeMap<&str, &str> = names.iter().map(|(d, r)| (r.as_str(), d.as_str())).collect();
    let summaries = type_summaries(file);
    for item in &mut file.items {
        match item {
            Item::Struct(item) => {
                let name = item.ident.to_string();
                let def = rust_to_def.get(name.as_str()).copied().unwrap_or(&name);
                if !has_doc(&item.attrs) {
                    push_doc(&mut item.attrs, &format!("The `{def}` object of the schema."));
                }
                if let Fields::Named(fields) = &mut item.fields {
                    for field in fields.named.iter_mut().filter(|f| !has_doc(&f.attrs)) {
                        let ident = field.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
                        let wire =
                            serde_rename(&field.attrs).unwrap_or_else(|| ident.trim_end_matches('_').into());
                        // typify gives an inline object's description to the
                        // type it makes of it, not to the field: take it from
                        // the property.
                        let described = definitions
                            .get(def)
                            .and_then(|d| d.get("properties"))
                            .and_then(|p| p.get(&wire))
                            .and_then(|p| p.get("description"))
                            .and_then(Value::as_str);
                        let text = match described {
                            Some(text) => text.to_string(),
                            None => format!("The `{wire}` member of `{def}`."),
                        };
                        push_doc(&mut field.attrs, &text);
                    }
                }
            }
            Item::Enum(item) => {
                let name = item.ident.to_string();
                let def = rust_to_def.get(name.as_str()).copied().unwrap_or(&name);
                if !has_doc(&item.attrs) {
                    push_doc(&mut item.attrs, &format!("The `{def}` value of the schema."));
                }
                let untagged = item.attrs.iter().any(|a| serde_says(a, "untagged"));
                let single = item.variants.len() == 1;
                let numbers = notes.proto_enums.get(def);
                let described = definitions
                    .get(def)
                    .and_then(|d| d.get(ENUM_DESCRIPTIONS))
                    .and_then(Value::as_object);
                for variant in item.variants.iter_mut().filter(|v| !has_doc(&v.attrs)) {
                    let text = match &variant.fields {
                        Fields::Unit if untagged => "JSON `null`.".to_string(),
                        Fields::Unit => {
                            let wire =
                                serde_rename(&variant.attrs).unwrap_or_else(|| variant.ident.to_string());
                            let number = numbers
                                .and_then(|n| n.iter().find(|(w, _)| *w == wire))
                                .map(|(_, n)| *n);
                            let description = described.and_then(|d| d.get(&wire)).and_then(Value::as_str);
                            let on_wire = match number {
                                Some(number) => format!("Wire value `{wire}` (proto number {number})."),
                                None => format!("Wire value `{wire}`."),
                            };
                            match (description, single) {
                                // The described value keeps its wire form as a second paragraph.
                                (Some(text), _) => format!("{text}\n\n{on_wire}"),
                                (None, true) => format!("`{wire}`, the one value the schema allows here."),
                                (None, false) => on_wire,
                            }
                        }
                        Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                            arm_doc(&fields.unnamed[0].ty, &summaries)
                        }
                        _ => format!("The `{}` alternative of `{def}`.", variant.ident),
                    };
                    push_doc(&mut variant.attrs, &text);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every `x-enum-descriptions` is an object of strings keyed by values of the
/// definition's `enum`.
fn check_enum_descriptions(definitions: &Map<String, Value>) -> Result<()> {
    for (name, definition) in definitions {
        let Some(described) = definition.get(ENUM_DESCRIPTIONS) else {
            continue;
        };
        let fail =
            |message: String| Error::schema("bundle", format!("`{name}`: {ENUM_DESCRIPTIONS} {message}"));
        let described = described
            .as_object()
            .ok_or_else(|| fail("must be an object from enum value to description".into()))?;
        let values = definition.get("enum").and_then(Value::as_array);
        for (value, text) in described {
            if !values.is_some_and(|v| v.iter().any(|e| e.as_str() == Some(value))) {
                return Err(fail(format!("names `{value}`, which is not a value of the enum")));
            }
            if !text.is_string() {
                return Err(fail(format!("of `{value}` must be a string")));
            }
        }
    }
    Ok(())
}

/// What a one-of arm holding `ty` is: the referenced type with its summary, or
/// the JSON kind of a primitive.
fn arm_doc(ty: &syn::Type, summaries: &BTreeMap<String, String>) -> String {
    let syn::Type::Path(path) = ty else {
        return "The value of this alternative.".into();
    };
    let Some(last) = path.path.segments.last() else {
        return "The value of this alternative.".into();
    };
    let name = last.ident.to_string();
    let kind = match name.as_str() {
        "String" => "a JSON string",
        "bool" => "a JSON boolean",
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" => "a JSON integer",
        "f32" | "f64" => "a JSON number",
        "Vec" => "a JSON array",
        "Map" => "a JSON object",
        "Value" => "any JSON value",
        _ => {
            return match summaries.get(&name) {
                Some(summary) => format!("[`{name}`]: {summary}"),
                None => format!("A [`{name}`] value."),
            }
        }
    };
    format!("The value as {kind}.")
}

/// The first sentence of every documented type's doc comment, by type name.
fn type_summaries(file: &syn::File) -> BTreeMap<String, String> {
    file.items
        .iter()
        .filter_map(|item| {
            let (ident, attrs) = match item {
                Item::Struct(s) => (&s.ident, &s.attrs),
                Item::Enum(e) => (&e.ident, &e.attrs),
                _ => return None,
            };
            let text = doc_text(attrs)?;
            Some((ident.to_string(), first_sentence(&text)))
        })
        .collect()
}

fn first_sentence(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    // A sentence ends at ". ", except after an abbreviation such as "e.g.".
    let end = line
        .match_indices(". ")
        .map(|(at, _)| at)
        .find(|&at| !line[..at].ends_with("e.g") && !line[..at].ends_with("i.e"));
    match end {
        Some(end) => line[..=end].to_string(),
        None if line.ends_with('.') => line.to_string(),
        None => format!("{line}."),
    }
}

fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

fn has_doc(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("doc"))
}

/// Puts the doc comment first, where typify puts its own: one `#[doc]` per line.
fn push_doc(attrs: &mut Vec<Attribute>, text: &str) {
    for (at, line) in text.lines().enumerate() {
        let line = LitStr::new(line, Span::call_site());
        attrs.insert(at, syn::parse_quote!(#[doc = #line]));
    }
}

fn serde_says(attr: &Attribute, word: &str) -> bool {
    if !attr.path().is_ident("serde") {
        return false;
    }
    let mut found = false;
    let _ = attr.parse_nested_meta(|meta| {
        found |= meta.path.is_ident(word);
        if meta.input.peek(syn::Token![=]) {
            let _: syn::Expr = meta.value()?.parse()?;
        }
        Ok(())
    });
    found
}
