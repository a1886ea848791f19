//! The error registry enum.
//!
//! Besides its wire facts each error has a name: the one the specification's
//! error tables give it (`TaskNotFoundError`), which the schema carries since
//! no wire fact spells it, or for an extension's error a vendor name derived
//! from its contract and reason. Bindings and command lines that report
//! errors by name take it from here.

use super::{contract_variant, doc, error_variant};
use crate::model::Contract;
use crate::{Error, Result};
use proc_macro2::TokenStream;
use quote::quote;

pub fn emit(contracts: &[Contract]) -> Result<TokenStream> {
    let mut variants = Vec::new();
    let mut code = Vec::new();
    let mut reason = Vec::new();
    let mut domain = Vec::new();
    let mut status = Vec::new();
    let mut grpc = Vec::new();
    let mut message = Vec::new();
    let mut description = Vec::new();
    let mut spec_name = Vec::new();
    let names = error_names(contracts)?;
    let mut contract_of = Vec::new();
    let mut by_reason = Vec::new();
    let mut all = Vec::new();
    for contract in contracts {
        let contract_ident = contract_variant(contract);
        let dom = &contract.info.error_domain;
        for (name, error) in &contract.errors {
            let v = error_variant(name);
            let named = &names[&(contract.file.as_str(), name.as_str())];
            let docs = doc(&format!(
                "`{}` {} ({named}) — {}\n\n{}",
                error.code, error.reason, error.message, error.description
            ));
            spec_name.push(quote!(Self::#v => #named));
            variants.push(quote!(#docs #v));
            all.push(quote!(Self::#v));
            let (c, r, s, m, d) = (
                error.code,
                &error.reason,
                error.http_status,
                &error.message,
                &error.description,
            );
            code.push(quote!(Self::#v => #c));
            reason.push(quote!(Self::#v => #r));
            domain.push(quote!(Self::#v => #dom));
            status.push(quote!(Self::#v => #s));
            let g = &error.grpc_status;
            grpc.push(quote!(Self::#v => #g));
            message.push(quote!(Self::#v => #m));
            description.push(quote!(Self::#v => #d));
            contract_of.push(quote!(Self::#v => crate::methods::Contract::#contract_ident));
            by_reason.push(quote!((#dom, #r) => Some(Self::#v)));
        }
    }
    Ok(quote! {
        /// Every error of every contract. Clients switch on `(domain, reason)`,
        /// which [`ErrorKind::from_reason`] maps back to a variant; codes collide
        /// between contracts.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorKind { #(#variants,)* }

        impl ErrorKind {
            /// All errors, in registry order.
            pub const ALL: &'static [ErrorKind] = &[#(#all),*];
            /// The JSON-RPC error code.
            pub const fn code(self) -> i64 { match self { #(#code,)* } }
            /// The `google.rpc.ErrorInfo` reason.
            pub const fn reason(self) -> &'static str { match self { #(#reason,)* } }
            /// The `google.rpc.ErrorInfo` domain.
            pub const fn domain(self) -> &'static str { match self { #(#domain,)* } }
            /// The HTTP status a binding that maps errors to HTTP uses.
            pub const fn http_status(self) -> u16 { match self { #(#status,)* } }
            /// The gRPC status name (spec §5.4), the `status` of an HTTP+JSON error body.
            pub const fn grpc_status(self) -> &'static str { match self { #(#grpc,)* } }
            /// The error's name: the one the specification gives it
            /// (`TaskNotFoundError`, `JSONParseError`), or for an extension's
            /// error, which no specification names, its contract's name and
            /// its ErrorInfo reason (`CLEVERAGENTS_NOT_FOUND`). Distinct for
            /// every error.
            pub const fn spec_name(self) -> &'static str { match self { #(#spec_name,)* } }
            /// The default human-readable message.
            pub const fn default_message(self) -> &'static str { match self { #(#message,)* } }
            /// When the error occurs.
            pub const fn description(self) -> &'static str { match self { #(#description,)* } }
            /// The contract whose registry defines the error.
            pub const fn contract(self) -> crate::methods::Contract { match self { #(#contract_of,)* } }
            /// The error with this ErrorInfo domain and reason.
            pub fn from_reason(domain: &str, reason: &str) -> Option<Self> {
                match (domain, reason) { #(#by_reason,)* _ => None }
            }
        }

        impl crate::rpc::ErrorRegistry for ErrorKind {
            fn code(self) -> i64 { ErrorKind::code(self) }
            fn reason(self) -> &'static str { ErrorKind::reason(self) }
            fn domain(self) -> &'static str { ErrorKind::domain(self) }
            fn http_status(self) -> u16 { ErrorKind::http_status(self) }
            fn grpc_status(self) -> &'static str { ErrorKind::grpc_status(self) }
            fn default_message(self) -> &'static str { ErrorKind::default_message(self) }
            fn from_reason(domain: &str, reason: &str) -> Option<Self> { ErrorKind::from_reason(domain, reason) }
        }
    })
}

/// The name of every error, keyed by (file, registry key): the schema's, or the
/// one derived for an extension's error. Each is given, none twice, and a
/// derived one never starts as the protocol's own names do (`A2A`).
fn error_names(contracts: &[Contract]) -> Result<std::collections::BTreeMap<(&str, &str), String>> {
    let mut names = std::collections::BTreeMap::new();
    let mut seen = std::collections::BTreeMap::new();
    for contract in contracts {
        for (key, error) in &contract.errors {
            let at = |what: String| Error::schema(&contract.file, format!("x-errors.{key}: {what}"));
            let name = contract.error_name(error).ok_or_else(|| {
                at("the base protocol's errors carry the `name` the specification gives them".into())
            })?;
            if name.trim().is_empty() {
                return Err(at("`name` is empty".into()));
            }
            if error.name.is_none() && name.to_ascii_uppercase().starts_with("A2A") {
                return Err(at(format!(
                    "the derived name `{name}` could be taken for one of the protocol's; give a `name`"
                )));
            }
            if let Some(other) = seen.insert(name.clone(), key.as_str()) {
                return Err(at(format!("the name `{name}` is also error `{other}`'s")));
            }
            names.insert((contract.file.as_str(), key.as_str()), name);
        }
    }
    Ok(names)
}
