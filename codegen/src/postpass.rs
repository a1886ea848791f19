//! Post-pass over typify's syntax tree: restores what typify cannot express.
//!
//! - snake_case aliases on every renamed field and tagged variant (ProtoJSON
//!   accepts the proto field name on input; output stays camelCase);
//! - optional free-form maps become `Option<Map>`, so an explicit `{}` round-trips;
//! - proto enums also accept their integer values (`#[serde(try_from)]`);
//! - content one-ofs are flattened into their host with an exactly-one check;
//! - decoders ignore members the schema does not name, except where an
//!   untagged one-of needs closed arms to tell them apart;
//! - typify's local `error` module is replaced by the crate's conversion error.

use crate::preprocess::{Notes, CONTENT_FIELD};
use crate::{Error, Result};
use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use syn::{Attribute, Fields, Item, LitStr};

pub fn apply(
    file: &mut syn::File,
    _definitions: &Map<String, Value>,
    notes: &Notes,
    names: &BTreeMap<String, String>,
) -> Result<()> {
    let rust_to_def: BTreeMap<&str, &str> = names.iter().map(|(d, r)| (r.as_str(), d.as_str())).collect();
    let content_types: BTreeMap<&str, (&str, &[String])> = notes
        .content_hosts
        .iter()
        .filter_map(|(host, info)| {
            Some((
                names.get(&info.content_type)?.as_str(),
                (host.as_str(), info.alternatives.as_slice()),
            ))
        })
        .collect();
    let mut extra: Vec<Item> = Vec::new();
    let untagged_arms = untagged_arms(file);

    for item in &mut file.items {
        match item {
            Item::Struct(item) => {
                let def = rust_to_def.get(item.ident.to_string().as_str()).copied();
                let is_content_host = def.is_some_and(|d| notes.content_hosts.contains_key(d));
                if !untagged_arms.contains(&item.ident.to_string()) {
                    // Members the schema does not name are ignored on input
                    // (forward compatibility, spec §5.7); `additionalProperties:
                    // false` still describes what is sent. Only an arm of an
                    // untagged one-of keeps the check, which tells the arms apart.
                    item.attrs.retain(|a| !attr_contains(a, "deny_unknown_fields"));
                }
                if let Fields::Named(fields) = &mut item.fields {
                    for field in &mut fields.named {
                        let ident = field.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
                        let wire = serde_rename(&field.attrs)
                            .unwrap_or_else(|| ident.trim_end_matches('_').to_string());
                        if is_content_host && ident == CONTENT_FIELD {
                            field.attrs.push(syn::parse_quote!(
                                #[serde(flatten, deserialize_with = "crate::rpc::exactly_one_content")]
                            ));
                            continue;
                        }
                        let alias = def
                            .and_then(|d| notes.proto_names.get(&(d.to_string(), wire.clone())).cloned())
                            .unwrap_or_else(|| wire.to_snake_case());
                        if alias != wire {
                            let alias = LitStr::new(&alias, proc_macro2::Span::call_site());
                            field.attrs.push(syn::parse_quote!(#[serde(alias = #alias)]));
                        }
                        optional_map_to_option(field);
                        accept_string_integers(field);
                    }
                }
            }
            Item::Enum(item) => {
                let name = item.ident.to_string();
                let def = rust_to_def.get(name.as_str()).copied();
                for variant in &mut item.variants {
                    if matches!(variant.fields, Fields::Unit) {
                        continue;
                    }
                    if let Some(wire) = serde_rename(&variant.attrs) {
                        let alias = wire.to_snake_case();
                        if alias != wire {
                            let alias = LitStr::new(&alias, proc_macro2::Span::call_site());
                            variant.attrs.push(syn::parse_quote!(#[serde(alias = #alias)]));
                        }
                    }
                }
                if let Some(numbers) = def.and_then(|d| notes.proto_enums.get(d)) {
                    item.attrs
                        .push(syn::parse_quote!(#[serde(try_from = "crate::rpc::ProtoEnumRepr")]));
                    extra.push(proto_enum_impl(&item.ident, item, numbers)?);
                }
                if let Some((host, alternatives)) = content_types.get(name.as_str()) {
                    let ident = &item.ident;
                    let alternatives = alternatives
                        .iter()
                        .map(|a| LitStr::new(a, proc_macro2::Span::call_site()));
                    extra.push(syn::parse_quote! {
                        impl crate::rpc::OneOfContent for #ident {
                            const HOST: &'static str = #host;
                            const ALTERNATIVES: &'static [&'static str] = &[#(#alternatives),*];
                        }
                    });
                }
            }
            _ => {}
        }
    }
    file.items
        .retain(|item| !matches!(item, Item::Mod(m) if m.ident == "error"));
    file.items.push(syn::parse_quote! {
        /// Error from a generated `TryFrom` or `FromStr` implementation.
        pub use crate::rpc::ConversionError;
    });
    file.items.extend(extra);
    rewrite_error_paths(file);
    Ok(())
}

/// The structs that are arms of an untagged enum (e.g. a JSON-RPC response's
/// success and error shapes), which only their closedness tells apart.
fn untagged_arms(file: &syn::File) -> std::collections::BTreeSet<String> {
    file.items
        .iter()
        .filter_map(|item| match item {
            Item::Enum(e) if e.attrs.iter().any(|a| attr_contains(a, "untagged")) => Some(e),
            _ => None,
        })
        .flat_map(|e| e.variants.iter())
        .filter_map(|variant| match &variant.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => match &fields.unnamed[0].ty {
                syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn attr_contains(attr: &Attribute, needle: &str) -> bool {
    attr.path().is_ident("serde") && attr.meta.to_token_stream_string().contains(needle)
}

trait MetaString {
    fn to_token_stream_string(&self) -> String;
}
impl MetaString for syn::Meta {
    fn to_token_stream_string(&self) -> String {
        quote!(#self).to_string()
    }
}

/// The `rename = "…"` value of a `#[serde(...)]` attribute, if any.
pub(crate) fn serde_rename(attrs: &[Attribute]) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let value: LitStr = meta.value()?.parse()?;
                found = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}

/// `#[serde(default, skip_serializing_if = "Map::is_empty")] x: Map<..>` →
/// `#[serde(default, skip_serializing_if = "Option::is_none")] x: Option<Map<..>>`.
fn optional_map_to_option(field: &mut syn::Field) {
    let is_map_skip = field
        .attrs
        .iter()
        .any(|a| attr_contains(a, "Map :: is_empty") || attr_contains(a, "Map::is_empty"));
    if !is_map_skip {
        return;
    }
    let rename = serde_rename(&field.attrs);
    field.attrs.retain(|a| !a.path().is_ident("serde"));
    let attr: Attribute = match rename {
        Some(rename) => syn::parse_quote!(
            #[serde(rename = #rename, default, skip_serializing_if = "::std::option::Option::is_none")]
        ),
        None => syn::parse_quote!(#[serde(default, skip_serializing_if = "::std::option::Option::is_none")]),
    };
    // Keep the doc comments first, then the serde attribute, as typify does.
    field.attrs.push(attr);
    let ty = &field.ty;
    field.ty = syn::parse_quote!(::std::option::Option<#ty>);
}

/// The integer type of a field, and whether it is optional.
fn integer_field(ty: &syn::Type) -> Option<bool> {
    const INTEGERS: &[&str] = &["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"];
    let syn::Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let name = last.ident.to_string();
    if INTEGERS.contains(&name.as_str()) {
        return Some(false);
    }
    if name == "Option" {
        if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
            if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                return integer_field(inner).filter(|optional| !optional).map(|_| true);
            }
        }
    }
    None
}

/// ProtoJSON accepts integers as decimal strings too (`"10"`); output stays a number.
fn accept_string_integers(field: &mut syn::Field) {
    match integer_field(&field.ty) {
        Some(false) => field
            .attrs
            .push(syn::parse_quote!(#[serde(deserialize_with = "crate::rpc::proto_int")])),
        Some(true) => field
            .attrs
            .push(syn::parse_quote!(#[serde(default, deserialize_with = "crate::rpc::proto_int_opt")])),
        None => {}
    }
}

fn proto_enum_impl(ident: &syn::Ident, item: &syn::ItemEnum, numbers: &[(String, i64)]) -> Result<Item> {
    let mut by_name = Vec::new();
    let mut by_number = Vec::new();
    for variant in &item.variants {
        let wire = serde_rename(&variant.attrs).ok_or_else(|| Error::Syntax {
            what: ident.to_string(),
            message: "enum variant without a wire name".into(),
        })?;
        let number = numbers
            .iter()
            .find(|(name, _)| name == &wire)
            .map(|(_, n)| *n)
            .ok_or_else(|| Error::Syntax {
                what: ident.to_string(),
                message: format!("no proto number for `{wire}`"),
            })?;
        let v = &variant.ident;
        by_name.push(quote!(#wire => Ok(Self::#v)));
        by_number.push(quote!(#number => Ok(Self::#v)));
    }
    let type_name = ident.to_string();
    let tokens: TokenStream = quote! {
        impl ::std::convert::TryFrom<crate::rpc::ProtoEnumRepr> for #ident {
            type Error = crate::rpc::ConversionError;
            fn try_from(value: crate::rpc::ProtoEnumRepr) -> ::std::result::Result<Self, Self::Error> {
                match value {
                    crate::rpc::ProtoEnumRepr::Name(name) => match name.as_str() {
                        #(#by_name,)*
                        _ => Err(crate::rpc::ConversionError::unknown_enum_name(#type_name, &name)),
                    },
                    crate::rpc::ProtoEnumRepr::Number(number) => match number {
                        #(#by_number,)*
                        _ => Err(crate::rpc::ConversionError::unknown_enum_number(#type_name, number)),
                    },
                }
            }
        }
    };
    let _ = format_ident!("unused");
    syn::parse2(tokens).map_err(|e| Error::Syntax {
        what: type_name,
        message: e.to_string(),
    })
}

/// typify's impls name `self::error::ConversionError`; point them at the crate's.
fn rewrite_error_paths(file: &mut syn::File) {
    use syn::visit_mut::VisitMut;
    struct Rewrite;
    impl VisitMut for Rewrite {
        fn visit_path_mut(&mut self, path: &mut syn::Path) {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            if segments == ["self", "error", "ConversionError"] {
                *path = syn::parse_quote!(crate::rpc::ConversionError);
                return;
            }
            syn::visit_mut::visit_path_mut(self, path);
        }
    }
    Rewrite.visit_file_mut(file);
}
