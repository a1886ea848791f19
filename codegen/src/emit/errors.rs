//! The error registry enum.

use super::{contract_variant, doc, error_variant};
use crate::model::Contract;
use crate::Result;
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
    let mut contract_of = Vec::new();
    let mut by_reason = Vec::new();
    let mut all = Vec::new();
    for contract in contracts {
        let contract_ident = contract_variant(contract);
        let dom = &contract.info.error_domain;
        for (name, error) in &contract.errors {
            let v = error_variant(name);
            let docs = doc(&format!(
                "`{}` {} — {}\n\n{}",
                error.code, error.reason, error.message, error.description
            ));
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
