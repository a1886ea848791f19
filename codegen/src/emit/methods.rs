//! The method table: `Contract`, one marker type per method implementing
//! `rpc::Method`, the `METHODS` descriptor table and the lookup by wire name.

use super::{contract_variant, doc, error_variant, marker, Names};
use crate::model::Contract;
use crate::{Error, Result};
use proc_macro2::TokenStream;
use quote::quote;

fn opt(value: &Option<String>) -> TokenStream {
    match value {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    }
}

pub fn emit(contracts: &[Contract], names: &Names) -> Result<TokenStream> {
    let mut contract_variants = Vec::new();
    let mut contract_arms = ContractArms::default();
    let authorization = Authorization::of(contracts)?;
    for contract in contracts {
        let v = contract_variant(contract);
        let info = &contract.info;
        authorization.push_arms(contract, &mut contract_arms)?;
        let docs = doc(&format!(
            "The `{}` contract (`schema/{}`).",
            contract.name, contract.file
        ));
        contract_variants.push(quote!(#docs #v));
        let (name, domain) = (&contract.name, &info.error_domain);
        let (protocol, uri, prefix) = (
            opt(&info.protocol_version),
            opt(&info.extension_uri),
            opt(&info.method_prefix),
        );
        let versions = &info.versions;
        contract_arms.name.push(quote!(Self::#v => #name));
        contract_arms.domain.push(quote!(Self::#v => #domain));
        contract_arms.protocol.push(quote!(Self::#v => #protocol));
        contract_arms.uri.push(quote!(Self::#v => #uri));
        contract_arms.prefix.push(quote!(Self::#v => #prefix));
        let (version_header, extensions_header) = (opt(&info.version_header), opt(&info.extensions_header));
        contract_arms
            .version_header
            .push(quote!(Self::#v => #version_header));
        contract_arms
            .extensions_header
            .push(quote!(Self::#v => #extensions_header));
        contract_arms.versions.push(quote!(Self::#v => &[#(#versions),*]));
        let (namespace_field, default_namespace, stdio_binding_uri) = (
            opt(&info.namespace_field),
            opt(&info.default_namespace),
            opt(&info.stdio_binding_uri),
        );
        contract_arms
            .namespace_field
            .push(quote!(Self::#v => #namespace_field));
        contract_arms
            .default_namespace
            .push(quote!(Self::#v => #default_namespace));
        contract_arms
            .stdio_binding_uri
            .push(quote!(Self::#v => #stdio_binding_uri));
        for (field, code) in [
            (&mut contract_arms.parse_error, -32700),
            (&mut contract_arms.invalid_request, -32600),
            (&mut contract_arms.method_not_found, -32601),
            (&mut contract_arms.invalid_params, -32602),
            (&mut contract_arms.internal_error, -32603),
        ] {
            let error = contract
                .error_with_code(code)
                .ok_or_else(|| Error::schema(&contract.file, format!("no error {code}")))?;
            let e = error_variant(error);
            field.push(quote!(Self::#v => crate::errors::ErrorKind::#e));
        }
    }
    let all_contracts = contracts.iter().map(contract_variant);
    let of_method = of_method_body(contracts);
    let facts = crate_facts(contracts);
    let ContractArms {
        version_header,
        extensions_header,
        name,
        domain,
        protocol,
        uri,
        prefix,
        versions,
        namespace_field,
        default_namespace,
        stdio_binding_uri,
        parse_error,
        invalid_request,
        method_not_found,
        invalid_params,
        internal_error,
        facts_default_namespace,
        facts_not_found,
        facts_forbidden,
    } = contract_arms;

    let mut descriptors = Vec::new();
    let mut markers = Vec::new();
    let mut lookup = Vec::new();
    let mut index = 0usize;
    for contract in contracts {
        let contract_ident = contract_variant(contract);
        for method in &contract.methods {
            let m = marker(method);
            let wire = &method.name;
            let (service, params_def, result_def, description) = (
                &method.service,
                &method.params,
                &method.result,
                &method.description,
            );
            let params = names.ty(&method.params)?;
            let result = names.ty(&method.result)?;
            let envelope = names.ty(&crate::preprocess::envelope_name(&method.name))?;
            let (streaming, notification) = (method.streaming, method.notification);
            let errors = method.errors.iter().map(|e| {
                let e = error_variant(e);
                quote!(crate::errors::ErrorKind::#e)
            });
            let (capability, since, binding) =
                (opt(&method.capability), opt(&method.since), opt(&method.binding));
            let namespaced = method.namespaced;
            let access = match method.access.as_deref() {
                Some("read") => quote!(Some(crate::rpc::Access::Reader)),
                Some("write") => quote!(Some(crate::rpc::Access::Writer)),
                Some("admin") => quote!(Some(crate::rpc::Access::Admin)),
                _ => quote!(None),
            };
            descriptors.push(quote! {
                MethodDescriptor {
                    name: #wire,
                    contract: Contract::#contract_ident,
                    service: #service,
                    params_type: #params_def,
                    result_type: #result_def,
                    streaming: #streaming,
                    notification: #notification,
                    binding: #binding,
                    capability: #capability,
                    access: #access,
                    namespaced: #namespaced,
                    since: #since,
                    errors: &[#(#errors),*],
                    description: #description,
                    roundtrip_params: crate::rpc::roundtrip::<#params>,
                    roundtrip_result: crate::rpc::roundtrip::<#result>,
                    roundtrip_request: crate::rpc::roundtrip::<#envelope>,
                }
            });
            let docs = doc(&format!("`{wire}`: {description}"));
            markers.push(quote! {
                #docs
                #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
                pub struct #m;
                impl crate::rpc::Method for #m {
                    const NAME: &'static str = #wire;
                    type Params = #params;
                    type Result = #result;
                    type Contract = super::Contract;
                    fn descriptor() -> &'static super::MethodDescriptor { &super::METHODS[#index] }
                }
            });
            lookup.push(quote!(#wire => Some(&METHODS[#index])));
            index += 1;
        }
    }

    Ok(quote! {
        /// The contracts the crate was generated from.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Contract { #(#contract_variants,)* }

        impl Contract {
            /// All contracts, in bundling order.
            pub const ALL: &'static [Contract] = &[#(Self::#all_contracts),*];
            /// Short name (`x-contract.name`).
            pub const fn name(self) -> &'static str { match self { #(#name,)* } }
            /// ErrorInfo domain of the contract's errors.
            pub const fn error_domain(self) -> &'static str { match self { #(#domain,)* } }
            /// The A2A protocol version the contract describes, if it is the base protocol.
            pub const fn protocol_version(self) -> Option<&'static str> { match self { #(#protocol,)* } }
            /// The extension URI, if the contract is an extension.
            pub const fn extension_uri(self) -> Option<&'static str> { match self { #(#uri,)* } }
            /// The prefix every method of the contract starts with, if any.
            pub const fn method_prefix(self) -> Option<&'static str> { match self { #(#prefix,)* } }
            /// The header (HTTP) that carries the contract's version in effect, if any.
            pub const fn version_header(self) -> Option<&'static str> { match self { #(#version_header,)* } }
            /// The header (HTTP) that lists the activated extensions, if the contract defines one.
            pub const fn extensions_header(self) -> Option<&'static str> { match self { #(#extensions_header,)* } }
            /// Minor versions of the contract, oldest first.
            pub const fn versions(self) -> &'static [&'static str] { match self { #(#versions,)* } }
            /// The params field naming the namespace a call of the contract targets, if any.
            pub const fn namespace_field(self) -> Option<&'static str> { match self { #(#namespace_field,)* } }
            /// The namespace of a call that names none, if the contract declares one.
            pub const fn default_namespace(self) -> Option<&'static str> { match self { #(#default_namespace,)* } }
            /// The URI of the stdio binding the contract's binding methods belong to, if any.
            pub const fn stdio_binding_uri(self) -> Option<&'static str> { match self { #(#stdio_binding_uri,)* } }
            /// JSON-RPC -32700 in this contract's registry.
            pub const fn parse_error(self) -> crate::errors::ErrorKind { match self { #(#parse_error,)* } }
            /// JSON-RPC -32600 in this contract's registry.
            pub const fn invalid_request(self) -> crate::errors::ErrorKind { match self { #(#invalid_request,)* } }
            /// JSON-RPC -32601 in this contract's registry.
            pub const fn method_not_found(self) -> crate::errors::ErrorKind { match self { #(#method_not_found,)* } }
            /// JSON-RPC -32602 in this contract's registry.
            pub const fn invalid_params(self) -> crate::errors::ErrorKind { match self { #(#invalid_params,)* } }
            /// JSON-RPC -32603 in this contract's registry.
            pub const fn internal_error(self) -> crate::errors::ErrorKind { match self { #(#internal_error,)* } }
            /// The contract a wire method name belongs to: the one whose declared
            /// prefix it carries, else the base protocol.
            pub fn of_method(name: &str) -> Contract { #of_method }
        }

        impl crate::rpc::ContractFacts for Contract {
            type ErrorKind = crate::errors::ErrorKind;
            fn name(self) -> &'static str { Contract::name(self) }
            fn versions(self) -> &'static [&'static str] { Contract::versions(self) }
            fn method_not_found(self) -> crate::errors::ErrorKind { Contract::method_not_found(self) }
            fn invalid_params(self) -> crate::errors::ErrorKind { Contract::invalid_params(self) }
            fn namespace_field(self) -> Option<&'static str> { Contract::namespace_field(self) }
            fn default_namespace(self) -> Option<&'static str> { match self { #(#facts_default_namespace,)* } }
            fn namespace_not_found(self) -> Option<crate::errors::ErrorKind> { match self { #(#facts_not_found,)* } }
            fn forbidden(self) -> Option<crate::errors::ErrorKind> { match self { #(#facts_forbidden,)* } }
        }

        #facts

        /// The descriptor of one method of these contracts.
        pub type MethodDescriptor = ::a2a_runtime::MethodDescriptor<Contract>;

        /// Every method of every contract, in schema order.
        pub static METHODS: &[MethodDescriptor] = &[#(#descriptors),*];

        /// The descriptor of the method with this wire name.
        pub fn find_method(name: &str) -> Option<&'static MethodDescriptor> {
            match name { #(#lookup,)* _ => None }
        }

        /// The contract a wire method name belongs to ([`Contract::of_method`]).
        pub fn contract_of_name(name: &str) -> Contract { Contract::of_method(name) }

        /// Method-not-found in the registry of the contract the name belongs to.
        pub fn method_not_found(name: &str) -> crate::rpc::Error {
            crate::rpc::Error::method_not_found_in(Contract::of_method(name), name)
        }

        /// Finds the dispatchable method `name` as the caller sees it: unknown
        /// methods, binding methods and methods newer than the caller's version
        /// of their contract are method-not-found.
        pub fn resolve(
            name: &str,
            ctx: &crate::rpc::CallContext,
        ) -> Result<&'static MethodDescriptor, crate::rpc::Error> {
            match find_method(name) {
                Some(d) if d.is_dispatched() && ctx.can_see(d) => Ok(d),
                _ => Err(method_not_found(name)),
            }
        }

        /// Marker types, one per method, carrying its wire name, params and result.
        pub mod markers {
            #(#markers)*
        }
    })
}

/// Facts that hold for the whole crate: the default namespace and the stdio
/// binding URI (from the first contract declaring each), and one constant per
/// agent capability the methods name.
fn crate_facts(contracts: &[Contract]) -> TokenStream {
    let first = |get: fn(&Contract) -> Option<&String>| contracts.iter().find_map(get);
    let mut out = Vec::new();
    if let Some(ns) = first(|c| c.info.default_namespace.as_ref()) {
        out.push(quote! {
            /// The namespace of a call that names none (`x-contract.defaultNamespace`).
            pub const DEFAULT_NAMESPACE: &str = #ns;
        });
    }
    if let Some(uri) = first(|c| c.info.stdio_binding_uri.as_ref()) {
        out.push(quote! {
            /// The URI of the stdio binding (`x-contract.stdioBindingUri`).
            pub const STDIO_BINDING_URI: &str = #uri;
        });
    }
    let capabilities: std::collections::BTreeSet<&String> = contracts
        .iter()
        .flat_map(|c| c.methods.iter().filter_map(|m| m.capability.as_ref()))
        .collect();
    let capability_consts = capabilities.iter().map(|name| {
        let ident = quote::format_ident!("{}", heck::ToShoutySnakeCase::to_shouty_snake_case(name.as_str()));
        let docs = doc(&format!("Agent capability `{name}`, needed by some methods."));
        quote!(#docs pub const #ident: &str = #name;)
    });
    quote! {
        #(#out)*
        /// The agent capabilities (`AgentCapabilities` fields) methods need.
        pub mod capabilities {
            #(#capability_consts)*
        }
    }
}

/// The authorization facts of the contract set: a contract that declares no
/// default namespace or forbidden error takes the first one another contract
/// declares (the extension defines them for the base protocol too).
struct Authorization<'a> {
    default_namespace: Option<&'a String>,
    forbidden: Option<&'a String>,
    /// Every error name of the set, to check the names the facts give.
    errors: std::collections::BTreeSet<&'a str>,
}

impl<'a> Authorization<'a> {
    fn of(contracts: &'a [Contract]) -> Result<Self> {
        let first = |get: fn(&'a Contract) -> Option<&'a String>| contracts.iter().find_map(get);
        Ok(Authorization {
            default_namespace: first(|c| c.info.default_namespace.as_ref()),
            forbidden: first(|c| c.info.forbidden_error.as_ref()),
            errors: contracts
                .iter()
                .flat_map(|c| c.errors.iter().map(|(name, _)| name.as_str()))
                .collect(),
        })
    }

    fn error(&self, contract: &Contract, name: Option<&String>) -> Result<TokenStream> {
        match name {
            None => Ok(quote!(None)),
            Some(name) if self.errors.contains(name.as_str()) => {
                let e = error_variant(name);
                Ok(quote!(Some(crate::errors::ErrorKind::#e)))
            }
            Some(name) => Err(Error::schema(
                &contract.file,
                format!("x-contract names error `{name}`, which no x-errors declares"),
            )),
        }
    }

    fn push_arms(&self, contract: &Contract, arms: &mut ContractArms) -> Result<()> {
        let v = contract_variant(contract);
        let info = &contract.info;
        let ns = opt(&info
            .default_namespace
            .as_ref()
            .or(self.default_namespace)
            .cloned());
        let not_found = self.error(contract, info.namespace_not_found_error.as_ref())?;
        let forbidden = self.error(contract, info.forbidden_error.as_ref().or(self.forbidden))?;
        arms.facts_default_namespace.push(quote!(Self::#v => #ns));
        arms.facts_not_found.push(quote!(Self::#v => #not_found));
        arms.facts_forbidden.push(quote!(Self::#v => #forbidden));
        Ok(())
    }
}

/// `Contract::of_method`: the prefixed contracts in order, then the first
/// contract without a prefix (the base protocol), else the first contract.
fn of_method_body(contracts: &[Contract]) -> TokenStream {
    let prefixed = contracts.iter().filter_map(|c| {
        let prefix = c.info.method_prefix.as_ref()?;
        let v = contract_variant(c);
        Some(quote!(if name.starts_with(#prefix) { return Self::#v; }))
    });
    let fallback = contracts
        .iter()
        .find(|c| c.info.method_prefix.is_none())
        .or(contracts.first())
        .map(contract_variant);
    quote!(#(#prefixed)* Self::#fallback)
}

#[derive(Default)]
struct ContractArms {
    name: Vec<TokenStream>,
    domain: Vec<TokenStream>,
    protocol: Vec<TokenStream>,
    uri: Vec<TokenStream>,
    prefix: Vec<TokenStream>,
    version_header: Vec<TokenStream>,
    extensions_header: Vec<TokenStream>,
    versions: Vec<TokenStream>,
    namespace_field: Vec<TokenStream>,
    default_namespace: Vec<TokenStream>,
    stdio_binding_uri: Vec<TokenStream>,
    parse_error: Vec<TokenStream>,
    invalid_request: Vec<TokenStream>,
    method_not_found: Vec<TokenStream>,
    invalid_params: Vec<TokenStream>,
    internal_error: Vec<TokenStream>,
    /// The trait's facts, where a contract that declares none takes the set's.
    facts_default_namespace: Vec<TokenStream>,
    facts_not_found: Vec<TokenStream>,
    facts_forbidden: Vec<TokenStream>,
}
