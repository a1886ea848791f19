//! Members newer than the version a caller speaks: the `x-since` of a
//! definition's properties, and the `FitVersion` impls that drop them.
//!
//! A minor version of the protocol only adds members (spec §3.6), so an
//! older minor version is a projection of the current model: the same types
//! without the members added since. Every definition that has such a member,
//! or holds (at any depth) one that has, gets an impl of
//! `rpc::FitVersion` that clears what the given version does not know and
//! recurses into what may hold more. The router applies it to the params a
//! caller sends (an older client's unknown member is ignored, as it always
//! was) and to every result and stream event it answers, so an older client
//! never sees a member of a newer version.

use crate::{Error, Result};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use syn::{Fields, Item};

/// One `x-since` member: its wire name and the version (major, minor) that added it.
type Member = (String, (u32, u32));

/// What the definitions say about members added by later versions.
#[derive(Debug, Default)]
pub struct Since {
    /// Definition → its own members that carry `x-since`.
    members: BTreeMap<String, Vec<Member>>,
    /// Definitions that have such a member or hold one that has: the ones
    /// with a `FitVersion` impl.
    pub fitted: BTreeSet<String>,
}

impl Since {
    /// Reads the `x-since` of the properties of the base protocol's
    /// definitions (`base`: the names of the definitions of the schema with a
    /// `protocolVersion`; an extension's `x-since` counts in its own minor
    /// versions, which fitting does not follow) and works out which of the
    /// bundled `definitions` hold one, at any depth.
    pub fn of(definitions: &Map<String, Value>, base: &BTreeSet<String>) -> Result<Since> {
        let mut members = BTreeMap::new();
        let mut refs: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for (name, schema) in definitions {
            let mut own = Vec::new();
            let properties = schema
                .get("properties")
                .and_then(Value::as_object)
                .filter(|_| base.contains(name));
            if let Some(properties) = properties {
                for (wire, property) in properties {
                    if let Some(since) = property.get("x-since") {
                        let version = since.as_str().and_then(parse_version).ok_or_else(|| {
                            Error::schema(
                                "definitions",
                                format!("{name}.{wire}: `x-since` must be a version like \"1.1\""),
                            )
                        })?;
                        own.push((wire.clone(), version));
                    }
                }
            }
            if !own.is_empty() {
                members.insert(name.clone(), own);
            }
            let mut found = BTreeSet::new();
            collect_refs(schema, &mut found);
            refs.insert(name.as_str(), found);
        }
        let mut fitted: BTreeSet<String> = members.keys().cloned().collect();
        loop {
            let more: Vec<String> = refs
                .iter()
                .filter(|(name, held)| !fitted.contains(**name) && held.iter().any(|r| fitted.contains(r)))
                .map(|(name, _)| name.to_string())
                .collect();
            if more.is_empty() {
                break;
            }
            fitted.extend(more);
        }
        Ok(Since { members, fitted })
    }

    /// The `FitVersion` impls of the fitted definitions, for the generated
    /// types (`names`: definition → Rust type name).
    pub fn impls(&self, file: &syn::File, names: &BTreeMap<String, String>) -> Result<Vec<Item>> {
        let rust_to_def: BTreeMap<&str, &str> = names.iter().map(|(d, r)| (r.as_str(), d.as_str())).collect();
        let fitted_types: BTreeSet<&str> = self
            .fitted
            .iter()
            .filter_map(|d| names.get(d).map(String::as_str))
            .collect();
        let mut impls = Vec::new();
        for item in &file.items {
            let (ident, body) = match item {
                Item::Struct(s) => {
                    let Some(def) = rust_to_def.get(s.ident.to_string().as_str()) else {
                        continue;
                    };
                    if !self.fitted.contains(*def) {
                        continue;
                    }
                    (&s.ident, self.struct_body(def, s, &fitted_types)?)
                }
                Item::Enum(e) if fitted_types.contains(e.ident.to_string().as_str()) => {
                    (&e.ident, enum_body(e, &fitted_types))
                }
                _ => continue,
            };
            if let Some(def) = rust_to_def.get(ident.to_string().as_str()) {
                if let Some((major, minor)) = self
                    .members
                    .get(*def)
                    .and_then(|own| own.iter().map(|(_, v)| *v).max())
                {
                    impls.push(syn::parse_quote! {
                        impl #ident {
                            /// The protocol version that added the newest of the type's own
                            /// members: a caller of an older version sees none of those.
                            pub const NEWEST_MEMBER_SINCE: crate::rpc::Version =
                                crate::rpc::Version::new(#major, #minor);
                        }
                    });
                }
            }
            // A type that holds a fitted one only through a type of no name
            // of its own has nothing to fit itself.
            let body = match body.is_empty() {
                true => quote!(let _ = version;),
                false => body,
            };
            impls.push(syn::parse_quote! {
                impl crate::rpc::FitVersion for #ident {
                    fn fit_version(&mut self, version: crate::rpc::Version) {
                        #body
                    }
                }
            });
        }
        Ok(impls)
    }

    fn struct_body(&self, def: &str, item: &syn::ItemStruct, fitted: &BTreeSet<&str>) -> Result<TokenStream> {
        let Fields::Named(fields) = &item.fields else {
            return Ok(TokenStream::new());
        };
        let own = self.members.get(def).map(Vec::as_slice).unwrap_or_default();
        let mut body = TokenStream::new();
        let mut matched = 0;
        for field in &fields.named {
            let Some(ident) = &field.ident else { continue };
            let wire = crate::postpass::serde_rename(&field.attrs)
                .unwrap_or_else(|| ident.to_string().trim_end_matches('_').to_string());
            if let Some((_, (major, minor))) = own.iter().find(|(w, _)| *w == wire) {
                matched += 1;
                body.extend(quote! {
                    if version < crate::rpc::Version::new(#major, #minor) {
                        self.#ident = ::std::default::Default::default();
                    }
                });
            } else if names_fitted_type(&field.ty, fitted) {
                body.extend(quote!(crate::rpc::FitVersion::fit_version(&mut self.#ident, version);));
            }
        }
        if matched != own.len() {
            return Err(Error::schema(
                "definitions",
                format!("{def}: a member with `x-since` has no field in the generated type"),
            ));
        }
        Ok(body)
    }
}

fn enum_body(item: &syn::ItemEnum, fitted: &BTreeSet<&str>) -> TokenStream {
    let arms: Vec<TokenStream> = item
        .variants
        .iter()
        .filter_map(|variant| match &variant.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 && names_fitted_type(&f.unnamed[0].ty, fitted) => {
                let v = format_ident!("{}", variant.ident);
                Some(quote!(Self::#v(inner) => crate::rpc::FitVersion::fit_version(inner, version),))
            }
            _ => None,
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    quote! {
        #[allow(unreachable_patterns, clippy::single_match)]
        match self {
            #(#arms)*
            _ => {}
        }
    }
}

/// True when a field's type names a fitted type (itself or inside an
/// `Option`, `Vec`, `Box` or map): `FitVersion` reaches it through the
/// runtime's impls for those wrappers.
fn names_fitted_type(ty: &syn::Type, fitted: &BTreeSet<&str>) -> bool {
    let syn::Type::Path(path) = ty else { return false };
    path.path.segments.iter().any(|segment| {
        fitted.contains(segment.ident.to_string().as_str())
            || match &segment.arguments {
                syn::PathArguments::AngleBracketed(args) => args.args.iter().any(|arg| match arg {
                    syn::GenericArgument::Type(inner) => names_fitted_type(inner, fitted),
                    _ => false,
                }),
                _ => false,
            }
    })
}

/// Every definition a schema refers to (`#/definitions/Name`), at any depth.
fn collect_refs(schema: &Value, found: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if key == "$ref" {
                    if let Some(name) = value.as_str().and_then(|r| r.rsplit('/').next()) {
                        found.insert(name.to_string());
                    }
                } else {
                    collect_refs(value, found);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, found)),
        _ => {}
    }
}

fn parse_version(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}
