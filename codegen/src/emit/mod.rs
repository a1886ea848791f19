//! Emitters for everything beyond the payload types: the error registry, the
//! method table, the handler traits with their dispatcher, and the client stubs.
//! Each reads only the contract model; none contains a method name of its own.

mod client;
pub mod dialect;
mod errors;
mod handlers;
mod methods;
mod registry;

use crate::model::{Contract, MethodDef};
use crate::preprocess::method_type_name;
use crate::registry::Registry;
use crate::{Error, Result};
use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// Rust names of the definitions, shared by all emitters.
pub struct Names<'a> {
    pub types: &'a BTreeMap<String, String>,
    /// Definitions whose type implements `rpc::FitVersion`.
    pub fitted: &'a std::collections::BTreeSet<String>,
    /// The `Contract` variant of the base protocol, whose version in a call's
    /// context the fitted types are fitted to.
    pub base: Option<syn::Ident>,
}

impl Names<'_> {
    /// The Rust payload type of a definition, as a path from the crate root.
    pub fn ty(&self, definition: &str) -> Result<TokenStream> {
        let name = self.types.get(definition).ok_or_else(|| Error::Syntax {
            what: "names".into(),
            message: format!("no Rust type for `{definition}`"),
        })?;
        let ident = format_ident!("{name}");
        Ok(quote!(crate::types::#ident))
    }
}

/// Identifiers derived from a method's wire name.
pub fn marker(method: &MethodDef) -> syn::Ident {
    format_ident!("{}", method_type_name(&method.name))
}

pub fn fn_name(method: &MethodDef) -> syn::Ident {
    let snake = method_type_name(&method.name).to_snake_case();
    syn::parse_str::<syn::Ident>(&snake).unwrap_or_else(|_| format_ident!("{snake}_"))
}

pub fn contract_variant(contract: &Contract) -> syn::Ident {
    format_ident!("{}", contract.name.to_upper_camel_case())
}

pub fn service_trait(service: &str) -> syn::Ident {
    format_ident!("{}Handler", service.to_upper_camel_case())
}

pub fn error_variant(name: &str) -> syn::Ident {
    format_ident!("{name}")
}

/// A method is dispatched unless it belongs to a binding (handled by the transport).
pub fn dispatched(method: &MethodDef) -> bool {
    method.binding.is_none()
}

/// Turns a description into `#[doc]` attributes, one per line.
pub fn doc(text: &str) -> TokenStream {
    let lines = text.trim().lines().map(|line| {
        let line = format!(" {}", line.trim_end());
        syn::LitStr::new(&line, Span::call_site())
    });
    quote!(#(#[doc = #lines])*)
}

pub fn emit_all(
    contracts: &[Contract],
    registry: Option<&Registry>,
    types: &BTreeMap<String, String>,
    fitted: &std::collections::BTreeSet<String>,
) -> Result<Vec<(String, syn::File)>> {
    let base = contracts
        .iter()
        .find(|c| c.info.protocol_version.is_some())
        .map(contract_variant);
    let names = Names { types, fitted, base };
    let parts = [
        ("errors", errors::emit(contracts)?),
        ("methods", methods::emit(contracts, &names)?),
        ("handlers", handlers::emit(contracts, registry, &names)?),
        ("registry", registry::emit(contracts, registry, &names)?),
        ("client", client::emit(contracts, &names)?),
    ];
    parts
        .into_iter()
        .map(|(name, tokens)| {
            let file = syn::parse2::<syn::File>(tokens).map_err(|e| Error::Syntax {
                what: name.to_string(),
                message: e.to_string(),
            })?;
            Ok((name.to_string(), file))
        })
        .collect()
}

const MODULE_DOCS: &[(&str, &str)] = &[
    (
        "types",
        "Payload types of every schema definition, with ProtoJSON leniency on input.",
    ),
    (
        "errors",
        "The error registry: every error of every contract with its code, reason, domain and HTTP status.",
    ),
    (
        "methods",
        "The method table: one marker type per method and a descriptor of each.",
    ),
    (
        "handlers",
        "Async handler traits, one per service, and the router that dispatches to them.",
    ),
    (
        "client",
        "Typed client stubs, one per method, over any `Transport`.",
    ),
    (
        "dialect-methods",
        "The method table of the dialect: each method, the current method serving it, and the conversions of its calls.",
    ),
    (
        "rpcs",
        "The gRPC binding's protos and the contract method each of their rpcs calls.",
    ),
    (
        "registry",
        "Registry kinds: a descriptor per kind and the `RegistryEntity` trait on every entity type.",
    ),
];

/// Formats a generated file with its header.
pub fn render(name: &str, sources: &[&str], file: syn::File) -> Result<String> {
    let doc = MODULE_DOCS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, d)| *d)
        .unwrap_or("Generated code.");
    Ok(format!(
        "{}//! {doc}\n//!\n{}\n{}",
        header(sources),
        "//! Do not edit: regenerate with `cargo run -p cleveragents-codegen`.",
        prettyplease::unparse(&file)
    ))
}

fn header(sources: &[&str]) -> String {
    let list = sources
        .iter()
        .map(|s| format!("schema/{s}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("// @generated by cleveragents-codegen from {list}.\n")
}

/// The `mod.rs` that declares every generated module.
pub fn module_index<'a>(sources: &[&str], files: impl Iterator<Item = &'a String>) -> Result<String> {
    let mut out = header(sources);
    out.push_str("//! The generated half of the contract crate.\n\n");
    for file in files {
        let module = file.trim_end_matches(".rs");
        out.push_str(&format!("pub mod {module};\n"));
    }
    Ok(out)
}

/// The `mod.rs` of the current contracts with the dialect modules (each a
/// folder of its own) declared too.
pub fn module_index_with<'a>(
    sources: &[&str],
    files: impl Iterator<Item = &'a String>,
    dialects: &[&str],
) -> Result<String> {
    let mut out = module_index(sources, files)?;
    for module in dialects {
        out.push_str(&format!("pub mod {module};\n"));
    }
    Ok(out)
}
