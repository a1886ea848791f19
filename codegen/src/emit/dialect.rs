//! The method table of a dialect: one [`DialectMethod`] per method, whose
//! upgrade and downgrade name the dialect's and the current contract's payload
//! types; the conversion between them is the contract crate's
//! (`crate::<dialect>::convert`).
//!
//! [`DialectMethod`]: a2a_runtime::DialectMethod

use super::doc;
use crate::dialect::{served, Current};
use crate::model::Contract;
use crate::preprocess::method_type_name;
use crate::{Error, Result};
use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;

pub fn emit(
    module: &str,
    contract: &Contract,
    names: &BTreeMap<String, String>,
    current: &Current,
) -> Result<TokenStream> {
    let module_path = format_ident!("{module}");
    let rust = |map: &BTreeMap<String, String>, definition: &str| -> Result<syn::Ident> {
        map.get(definition)
            .map(|name| format_ident!("{name}"))
            .ok_or_else(|| Error::Syntax {
                what: "dialect methods".into(),
                message: format!("no Rust type for `{definition}`"),
            })
    };
    let mut entries = Vec::new();
    let mut functions = Vec::new();
    for method in &contract.methods {
        let Some(target) = served(method, current) else {
            return Err(Error::schema(
                &contract.file,
                format!("x-methods.{}: serves nothing", method.name),
            ));
        };
        let stem = method_type_name(&method.name).to_snake_case();
        let upgrade = format_ident!("upgrade_{stem}");
        let downgrade = format_ident!("downgrade_{stem}");
        let downgrade_params = format_ident!("downgrade_{stem}_params");
        let upgrade_result = format_ident!("upgrade_{stem}_result");
        let params = rust(names, &method.params)?;
        let result = rust(names, &method.result)?;
        let current_params = rust(current.type_names, &target.params)?;
        let current_result = rust(current.type_names, &target.result)?;
        let name = &method.name;
        let serves = &target.name;
        let aliases = &method.aliases;
        let streaming = method.streaming;
        let params_type = &method.params;
        let result_type = &method.result;
        let description = &method.description;
        let upgrade_doc = doc(&format!("`{name}` params → `{serves}` params."));
        let downgrade_doc = doc(&format!("A `{serves}` result (or event) → a `{name}` one."));
        let downgrade_params_doc = doc(&format!("`{serves}` params → `{name}` params."));
        let upgrade_result_doc = doc(&format!("A `{name}` result (or event) → a `{serves}` one."));
        functions.push(quote! {
            #upgrade_doc
            fn #upgrade(params: crate::rpc::Params) -> Result<serde_json::Value, crate::rpc::Error> {
                crate::#module_path::convert::upgrade_params::<super::types::#params, crate::types::#current_params>(#name, params)
            }
            #downgrade_doc
            fn #downgrade(result: serde_json::Value) -> Result<serde_json::Value, crate::rpc::Error> {
                crate::#module_path::convert::downgrade_result::<crate::types::#current_result, super::types::#result>(result)
            }
            #downgrade_params_doc
            fn #downgrade_params(params: serde_json::Value) -> Result<serde_json::Value, crate::rpc::Error> {
                crate::#module_path::convert::downgrade_result::<crate::types::#current_params, super::types::#params>(params)
            }
            #upgrade_result_doc
            fn #upgrade_result(result: serde_json::Value) -> Result<serde_json::Value, crate::rpc::Error> {
                crate::#module_path::convert::upgrade_result::<super::types::#result, crate::types::#current_result>(result)
            }
        });
        entries.push(quote! {
            crate::rpc::DialectMethod {
                name: #name,
                aliases: &[#(#aliases),*],
                serves: #serves,
                streaming: #streaming,
                params_type: #params_type,
                result_type: #result_type,
                description: #description,
                upgrade_params: #upgrade,
                downgrade_result: #downgrade,
                downgrade_params: #downgrade_params,
                upgrade_result: #upgrade_result,
                roundtrip_params: crate::rpc::roundtrip::<super::types::#params>,
                roundtrip_result: crate::rpc::roundtrip::<super::types::#result>,
            }
        });
    }
    let version = contract.info.protocol_version.clone().unwrap_or_default();
    let version_doc = doc(&format!(
        "The protocol version of the dialect (`{}`).",
        contract.file
    ));
    Ok(quote! {
        #version_doc
        pub const PROTOCOL_VERSION: &str = #version;
        /// The methods of the dialect, in schema order.
        pub static METHODS: &[crate::rpc::DialectMethod] = &[#(#entries),*];
        /// The method answering to `wire_name` (its name or an alias).
        pub fn find_method(wire_name: &str) -> Option<&'static crate::rpc::DialectMethod> {
            crate::rpc::find_dialect_method(METHODS, wire_name)
        }
        #(#functions)*
    })
}
