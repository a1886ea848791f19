//! The method table: the `Contract` enum with its facts, one marker type per
//! method implementing `rpc::Method`, the `METHODS` descriptor table and the
//! lookup by wire name.
//!
//! Each marker type names its descriptor by its index in `METHODS`, so the
//! table, the markers and the lookup are built in one walk over the methods.

use super::{contract_variant, doc, error_variant, marker, Names};
use crate::model::{Contract, MethodDef};
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
    let arms = ContractArms::of(contracts)?;
    let table = MethodTable::of(contracts, names)?;
    let contract = contract_enum(contracts, &arms);
    let contract_facts = contract_facts_impl(&arms);
    let facts = crate_facts(contracts);
    let table = table.emit();
    Ok(quote! {
        #contract
        #contract_facts
        #facts
        #table
    })
}

/// `Contract` and its inherent facts: one `const fn` per `x-contract` field,
/// each a match with one arm per contract.
fn contract_enum(contracts: &[Contract], arms: &ContractArms) -> TokenStream {
    let variants = contracts.iter().map(|contract| {
        let v = contract_variant(contract);
        let docs = doc(&format!(
            "The `{}` contract (`schema/{}`).",
            contract.name, contract.file
        ));
        quote!(#docs #v)
    });
    let all_contracts = contracts.iter().map(contract_variant);
    let of_method = of_method_body(contracts);
    let ContractArms {
        name,
        domain,
        protocol,
        uri,
        prefix,
        version_header,
        extensions_header,
        versions,
        draft_versions,
        released,
        namespace_field,
        default_namespace,
        stdio_binding_uri,
        parse_error,
        invalid_request,
        method_not_found,
        invalid_params,
        internal_error,
        ..
    } = arms;
    quote! {
        /// The contracts the crate was generated from.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Contract { #(#variants,)* }

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
            /// The versions among [`Contract::versions`] that are drafts: served
            /// only where a deployment turns them on.
            pub const fn draft_versions(self) -> &'static [&'static str] { match self { #(#draft_versions,)* } }
            /// The A2A protocol version a client speaks and a server serves when
            /// no draft is turned on: the newest that is not a draft (the base
            /// protocol only).
            pub const fn released_protocol_version(self) -> Option<&'static str> { match self { #(#released,)* } }
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
    }
}

/// `rpc::ContractFacts`, the facts the runtime reads: the authorization facts
/// take the contract set's where a contract declares none, unlike the inherent
/// ones, which say what each contract itself declares.
fn contract_facts_impl(arms: &ContractArms) -> TokenStream {
    let ContractArms {
        facts_default_namespace,
        facts_not_found,
        facts_forbidden,
        ..
    } = arms;
    quote! {
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
    }
}

/// Per method, in schema order: its descriptor, its marker type (which knows its
/// index in `METHODS`) and its arm of the lookup by wire name.
struct MethodTable {
    descriptors: Vec<TokenStream>,
    markers: Vec<TokenStream>,
    lookup: Vec<TokenStream>,
}

impl MethodTable {
    fn of(contracts: &[Contract], names: &Names) -> Result<Self> {
        let mut table = MethodTable {
            descriptors: Vec::new(),
            markers: Vec::new(),
            lookup: Vec::new(),
        };
        let methods = contracts
            .iter()
            .flat_map(|contract| contract.methods.iter().map(move |method| (contract, method)));
        for (index, (contract, method)) in methods.enumerate() {
            let wire = &method.name;
            table.descriptors.push(descriptor(contract, method, names)?);
            table.markers.push(marker_type(method, index, names)?);
            table.lookup.push(quote!(#wire => Some(#index)));
        }
        Ok(table)
    }

    /// The table, the lookups over it and the marker module.
    fn emit(self) -> TokenStream {
        let MethodTable {
            descriptors,
            markers,
            lookup,
        } = self;
        quote! {
            /// The descriptor of one method of these contracts.
            pub type MethodDescriptor = ::a2a_runtime::MethodDescriptor<Contract>;

            /// Every method of every contract, in schema order.
            pub static METHODS: &[MethodDescriptor] = &[#(#descriptors),*];

            /// The position in [`METHODS`] of the method with this wire name: what
            /// per-method tables (metrics counters, say) are indexed by.
            pub fn method_index(name: &str) -> Option<usize> {
                match name { #(#lookup,)* _ => None }
            }

            /// The descriptor of the method with this wire name.
            pub fn find_method(name: &str) -> Option<&'static MethodDescriptor> {
                method_index(name).map(|index| &METHODS[index])
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
        }
    }
}

/// The `MethodDescriptor` of one method: everything `x-methods` says of it, and
/// the round-trip checks of its params, result and request envelope.
fn descriptor(contract: &Contract, method: &MethodDef, names: &Names) -> Result<TokenStream> {
    let contract_ident = contract_variant(contract);
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
    let (capability, since, binding) = (opt(&method.capability), opt(&method.since), opt(&method.binding));
    let spec_section = opt(&method.spec_section);
    let namespaced = method.namespaced;
    let routes = method.routes.iter().map(http_route);
    let access = match method.access.as_deref() {
        Some("read") => quote!(Some(crate::rpc::Access::Reader)),
        Some("write") => quote!(Some(crate::rpc::Access::Writer)),
        Some("admin") => quote!(Some(crate::rpc::Access::Admin)),
        _ => quote!(None),
    };
    Ok(quote! {
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
            spec_section: #spec_section,
            access: #access,
            namespaced: #namespaced,
            http: &[#(#routes),*],
            since: #since,
            errors: &[#(#errors),*],
            description: #description,
            roundtrip_params: crate::rpc::roundtrip::<#params>,
            roundtrip_result: crate::rpc::roundtrip::<#result>,
            roundtrip_request: crate::rpc::roundtrip::<#envelope>,
        }
    })
}

/// One HTTP+JSON route of a method, as the runtime's `HttpRoute`.
fn http_route(route: &crate::routes::Route) -> TokenStream {
    let (verb, path, body) = (&route.verb, &route.path, route.body);
    let query = route.query.iter().map(|(name, kind)| {
        let kind = match kind {
            crate::routes::QueryKind::String => quote!(String),
            crate::routes::QueryKind::Integer => quote!(Integer),
            crate::routes::QueryKind::Boolean => quote!(Boolean),
        };
        quote!(crate::rpc::QueryField { name: #name, kind: crate::rpc::QueryKind::#kind })
    });
    quote!(crate::rpc::HttpRoute { verb: #verb, path: #path, body: #body, query: &[#(#query),*] })
}

/// The marker type of one method. Its descriptor is `METHODS[index]`, so typed
/// code reaches the table without a lookup by name.
fn marker_type(method: &MethodDef, index: usize, names: &Names) -> Result<TokenStream> {
    let m = marker(method);
    let wire = &method.name;
    let params = names.ty(&method.params)?;
    let result = names.ty(&method.result)?;
    let docs = doc(&format!("`{wire}`: {}", method.description));
    Ok(quote! {
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
    })
}

/// Facts that hold for the whole crate: the default namespace and the stdio
/// binding URI (from the first contract declaring each), the agent
/// capabilities of `x-capabilities` and the protocol bindings of `x-bindings`.
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
    let capabilities = capabilities_module(contracts);
    let bindings = bindings_module(contracts);
    quote! {
        #(#out)*
        #capabilities
        #bindings
    }
}

/// The `bindings` module: one constant per protocol binding name and the
/// `Binding` enum over them; nothing when no contract declares `x-bindings`
/// (a downstream extension's).
fn bindings_module(contracts: &[Contract]) -> TokenStream {
    let declared: Vec<_> = contracts.iter().flat_map(|c| c.bindings.iter()).collect();
    if declared.is_empty() {
        return TokenStream::new();
    }
    let mut consts = Vec::new();
    let mut variants = Vec::new();
    let mut all = Vec::new();
    let mut as_str = Vec::new();
    let mut description = Vec::new();
    let mut section = Vec::new();
    for (key, binding) in declared {
        let variant = quote::format_ident!("{key}");
        let constant = quote::format_ident!("{}", binding.const_name());
        let (name, text) = (&binding.name, &binding.description);
        let docs = doc(&format!("`{name}`: {text}"));
        consts.push(quote!(#docs pub const #constant: &str = #name;));
        variants.push(quote!(#docs #variant));
        all.push(quote!(Binding::#variant));
        as_str.push(quote!(Binding::#variant => #constant));
        description.push(quote!(Binding::#variant => #text));
        let s = opt(&binding.spec_section);
        section.push(quote!(Binding::#variant => #s));
    }
    quote! {
        /// The protocol bindings the specification defines (`x-bindings`): the
        /// values of an Agent Card interface's `protocolBinding` a client and a
        /// server agree on. A custom binding (spec §12) is named by a URI
        /// instead and has no variant here.
        pub mod bindings {
            #(#consts)*

            /// A protocol binding the specification defines.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum Binding { #(#variants,)* }

            impl Binding {
                /// Every binding, in schema order.
                pub const ALL: &'static [Binding] = &[#(#all),*];

                /// The `protocolBinding` value, exactly as it travels.
                pub const fn as_str(self) -> &'static str { match self { #(#as_str,)* } }

                /// What the binding is (`x-bindings.*.description`).
                pub const fn description(self) -> &'static str { match self { #(#description,)* } }

                /// Section of the specification that defines the binding.
                pub const fn spec_section(self) -> Option<&'static str> { match self { #(#section,)* } }

                /// The binding called `name`, in any case (`jsonrpc`, `Http+Json`):
                /// what people type is read leniently, what goes on the wire is
                /// [`Binding::as_str`]. `None` for any other name, a custom
                /// binding's URI among them.
                pub fn from_name(name: &str) -> Option<Binding> {
                    Binding::ALL.iter().copied().find(|b| b.as_str().eq_ignore_ascii_case(name))
                }
            }

            impl ::std::fmt::Display for Binding {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(self.as_str())
                }
            }
        }
    }
}

/// The `capabilities` module: one constant per capability and the table of
/// what each means for the methods that need it.
fn capabilities_module(contracts: &[Contract]) -> TokenStream {
    let declared = contracts.iter().flat_map(|c| c.capabilities.iter());
    let mut consts = Vec::new();
    let mut descriptors = Vec::new();
    for (name, capability) in declared {
        let ident = quote::format_ident!("{}", heck::ToShoutySnakeCase::to_shouty_snake_case(name.as_str()));
        let docs = doc(&format!("Agent capability `{name}`: {}", capability.description));
        consts.push(quote!(#docs pub const #ident: &str = #name;));
        let error = error_variant(&capability.unsupported_error);
        let (description, section) = (&capability.description, opt(&capability.spec_section));
        descriptors.push(quote! {
            CapabilityDescriptor {
                name: #ident,
                description: #description,
                unsupported_error: crate::errors::ErrorKind::#error,
                spec_section: #section,
            }
        });
    }
    quote! {
        /// The agent capabilities (`AgentCapabilities` fields) methods need
        /// (`x-capabilities`).
        pub mod capabilities {
            #(#consts)*

            /// What the schemas say about one agent capability.
            #[derive(Debug)]
            pub struct CapabilityDescriptor {
                /// The `AgentCapabilities` field of the Agent Card.
                pub name: &'static str,
                /// What the capability means for the methods that need it (`x-capabilities.*.description`).
                pub description: &'static str,
                /// What a method needing the capability answers when the Agent
                /// Card does not declare it.
                pub unsupported_error: crate::errors::ErrorKind,
                /// Section of the specification that says so.
                pub spec_section: Option<&'static str>,
            }

            /// Every declared capability, in schema order.
            pub static ALL: &[CapabilityDescriptor] = &[#(#descriptors),*];

            /// The capability called `name`.
            pub fn find(name: &str) -> Option<&'static CapabilityDescriptor> {
                ALL.iter().find(|c| c.name == name)
            }
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

/// The match arms of `Contract`'s facts: one field per fact, one arm per
/// contract in each, in bundling order.
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
    draft_versions: Vec<TokenStream>,
    released: Vec<TokenStream>,
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

impl ContractArms {
    fn of(contracts: &[Contract]) -> Result<Self> {
        let authorization = Authorization::of(contracts)?;
        let mut arms = ContractArms::default();
        for contract in contracts {
            authorization.push_arms(contract, &mut arms)?;
            arms.push_declared(contract);
            arms.push_error_kinds(contract)?;
        }
        Ok(arms)
    }

    /// The facts `x-contract` declares, as the contract writes them.
    fn push_declared(&mut self, contract: &Contract) {
        let v = contract_variant(contract);
        let arm = |value: TokenStream| quote!(Self::#v => #value);
        let info = &contract.info;
        let (name, domain, versions) = (&contract.name, &info.error_domain, &info.versions);
        self.name.push(arm(quote!(#name)));
        self.domain.push(arm(quote!(#domain)));
        self.protocol.push(arm(opt(&info.protocol_version)));
        self.uri.push(arm(opt(&info.extension_uri)));
        self.prefix.push(arm(opt(&info.method_prefix)));
        self.version_header.push(arm(opt(&info.version_header)));
        self.extensions_header.push(arm(opt(&info.extensions_header)));
        self.versions.push(arm(quote!(&[#(#versions),*])));
        let drafts = &info.draft_versions;
        self.draft_versions.push(arm(quote!(&[#(#drafts),*])));
        self.released
            .push(arm(opt(&contract.released_protocol_version())));
        self.namespace_field.push(arm(opt(&info.namespace_field)));
        self.default_namespace.push(arm(opt(&info.default_namespace)));
        self.stdio_binding_uri.push(arm(opt(&info.stdio_binding_uri)));
    }

    /// The contract's own error for each JSON-RPC standard code: every contract
    /// has its own registry, so a method-not-found of an extension method is the
    /// extension's error, not the base protocol's.
    fn push_error_kinds(&mut self, contract: &Contract) -> Result<()> {
        let v = contract_variant(contract);
        for (field, code) in [
            (&mut self.parse_error, -32700),
            (&mut self.invalid_request, -32600),
            (&mut self.method_not_found, -32601),
            (&mut self.invalid_params, -32602),
            (&mut self.internal_error, -32603),
        ] {
            let error = contract
                .error_with_code(code)
                .ok_or_else(|| Error::schema(&contract.file, format!("no error {code}")))?;
            let e = error_variant(error);
            field.push(quote!(Self::#v => crate::errors::ErrorKind::#e));
        }
        Ok(())
    }
}
