//! Documentation for the payload items typify leaves undocumented.
//!
//! typify turns a schema `description` into the doc comment of the type,
//! field or one-of arm it describes, but a JSON Schema `enum` has no place for
//! a description per value, an arm that is a bare `$ref` carries none, and a
//! definition or property may lack one. The contract crate denies missing
//! docs, so every such item gets a generated sentence: what the value is on the
//! wire (with its proto number where it has one), or what the arm holds (the
//! first sentence of the referenced type's own description).

use crate::postpass::serde_rename;
use crate::preprocess::Notes;
use proc_macro2::Span;
use std::collections::BTreeMap;
use syn::{Attribute, Fields, Item, LitStr};

/// Adds a doc comment to every type, field and variant of `file` that has none.
pub fn fill(file: &mut syn::File, notes: &Notes, names: &BTreeMap<String, String>) {
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
                        push_doc(&mut field.attrs, &format!("The `{wire}` member of `{def}`."));
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
                for variant in item.variants.iter_mut().filter(|v| !has_doc(&v.attrs)) {
                    let text = match &variant.fields {
                        Fields::Unit if untagged => "JSON `null`.".to_string(),
                        Fields::Unit => {
                            let wire =
                                serde_rename(&variant.attrs).unwrap_or_else(|| variant.ident.to_string());
                            let number = numbers
                                .and_then(|n| n.iter().find(|(w, _)| *w == wire))
                                .map(|(_, n)| *n);
                            match (single, number) {
                                (true, _) => format!("`{wire}`, the one value the schema allows here."),
                                (false, Some(number)) => {
                                    format!("Wire value `{wire}` (proto number {number}).")
                                }
                                (false, None) => format!("Wire value `{wire}`."),
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

/// Puts the doc comment first, where typify puts its own.
fn push_doc(attrs: &mut Vec<Attribute>, text: &str) {
    let text = LitStr::new(text, Span::call_site());
    attrs.insert(0, syn::parse_quote!(#[doc = #text]));
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
