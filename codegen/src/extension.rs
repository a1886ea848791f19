//! Build-time generation for downstream crates: a crate that adds its own A2A
//! extension to the contract turns its extension schema into Rust in its
//! `build.rs` and `include!`s the result, as typify's build-script example does.
//!
//! ```no_run
//! // build.rs of the downstream crate
//! fn main() -> std::process::ExitCode {
//!     codegen::extension::Builder::new("schema/notes-ext.json").build_script()
//! }
//! ```
//!
//! ```text
//! // src/lib.rs (or main.rs): at the crate root, since the code names its modules from there
//! include!(concat!(env!("OUT_DIR"), "/a2a_extension.rs"));
//! ```
//!
//! The extension schema follows the conventions of `schema/cleveragents-ext.json`:
//! an `x-contract` with its own `extensionUri`, `errorDomain` and
//! `methodPrefix`, its own `x-services`, `x-errors` (the five JSON-RPC
//! errors in its domain and its own) and `x-methods`; its definitions may
//! `$ref` those of the contract (`a2a.json#/definitions/Role`,
//! `cleveragents-ext.json#/definitions/…`).
//!
//! The contract's schemas are embedded in this crate, so a downstream crate
//! needs to know nothing of this repository's layout. They are the ones the
//! contract crate `cleveragents-a2a` was generated from (both read the same
//! files, and its drift gate holds them equal), and the generated code reuses
//! that crate's types: the contract's definitions are not generated again
//! (`types` re-exports `a2a::types`), so one `Task` or `Role` travels through
//! the downstream's methods, our server and our client alike. The crate is
//! embedded here rather than read from `cleveragents-a2a` at build time
//! because the generator has to run when that crate does not compile (it is
//! how it is regenerated after a schema change).
//!
//! What the included file holds, module by module: `types` (the extension's
//! payload types beside the contract's), `errors` (its error registry),
//! `methods` (its method table and markers), `handlers` (its handler traits
//! and router), `client` (an extension trait giving our typed client one stub
//! per method), `rpc` (the contract runtime with the extension's lookups) and
//! `extension` (its URI, prefix and schema, the Agent Card entry that declares
//! it, and the router that serves it beside the standard methods).
//!
//! The downstream crate depends on `cleveragents-a2a` (as `a2a`), `serde` and
//! `serde_json`; at build time on `cleveragents-codegen`.

use crate::emit::{self, doc, fn_name, marker, Names};
use crate::model::Contract;
use crate::{preprocess, types, Error, Result};
use quote::{format_ident, quote};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use syn::visit_mut::VisitMut;

/// The contract's schema files, embedded: (file name, text), in bundling order.
pub const CONTRACT_SCHEMAS: &[(&str, &str)] = &[
    ("a2a.json", include_str!("../../schema/a2a.json")),
    (
        "cleveragents-ext.json",
        include_str!("../../schema/cleveragents-ext.json"),
    ),
];

/// The file [`Builder::build_script`] writes into `OUT_DIR` unless told otherwise.
pub const DEFAULT_FILE_NAME: &str = "a2a_extension.rs";

/// Names the generated client's own methods take, which a stub must not shadow.
const CLIENT_METHODS: &[&str] = &["new", "transport", "call", "subscribe"];

/// Where the extension schema comes from.
#[derive(Clone, Debug)]
enum Source {
    File(PathBuf),
    Value { name: String, schema: Value },
}

/// Generates the Rust code of one downstream extension schema.
#[derive(Clone, Debug)]
pub struct Builder {
    source: Source,
    file_name: String,
}

impl Builder {
    /// A builder for the extension schema at `path` (relative paths are read
    /// from the current directory, which in a build script is the crate's).
    pub fn new(path: impl Into<PathBuf>) -> Builder {
        Builder {
            source: Source::File(path.into()),
            file_name: DEFAULT_FILE_NAME.to_string(),
        }
    }

    /// A builder for an already-parsed extension schema; `name` stands for its
    /// file in messages and in references (`name#/definitions/X`).
    pub fn from_value(name: &str, schema: Value) -> Builder {
        Builder {
            source: Source::Value {
                name: name.to_string(),
                schema,
            },
            file_name: DEFAULT_FILE_NAME.to_string(),
        }
    }

    /// The name of the file written into the output folder.
    pub fn file_name(mut self, name: &str) -> Builder {
        self.file_name = name.to_string();
        self
    }

    /// The generated source: one file of modules, for `include!` at a crate root.
    pub fn generate(&self) -> Result<String> {
        let (name, schema, text) = match &self.source {
            Source::File(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
                let schema = serde_json::from_str(&text).map_err(|source| Error::Json {
                    path: path.clone(),
                    source,
                })?;
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_else(|| path.display().to_string());
                (name, schema, text)
            }
            Source::Value { name, schema } => {
                let text = serde_json::to_string_pretty(schema).unwrap_or_default();
                (name.clone(), schema.clone(), text)
            }
        };
        generate(&name, &schema, &text)
    }

    /// Generates into `dir`; the path of the file written.
    pub fn write_to(&self, dir: &Path) -> Result<PathBuf> {
        let source = self.generate()?;
        let path = dir.join(&self.file_name);
        std::fs::write(&path, source).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// The whole of a build script: generates into `OUT_DIR`, asks Cargo to
    /// rerun when the schema changes, and reports an error on stderr (Cargo
    /// shows it) with a failing exit status.
    pub fn build_script(&self) -> ExitCode {
        if let Source::File(path) = &self.source {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        let Some(out_dir) = std::env::var_os("OUT_DIR") else {
            eprintln!("cleveragents-codegen: OUT_DIR is not set (run from a build script)");
            return ExitCode::FAILURE;
        };
        match self.write_to(Path::new(&out_dir)) {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("cleveragents-codegen: {error}");
                ExitCode::FAILURE
            }
        }
    }
}

/// The contract's schemas, parsed.
pub fn contract_schemas() -> Result<Vec<(String, Value)>> {
    CONTRACT_SCHEMAS
        .iter()
        .map(|(file, text)| {
            serde_json::from_str(text)
                .map(|schema| (file.to_string(), schema))
                .map_err(|e| Error::schema(file, format!("the embedded schema is not JSON: {e}")))
        })
        .collect()
}

/// Generates the code of extension schema `schema` (file `name`, text `text`).
fn generate(name: &str, schema: &Value, text: &str) -> Result<String> {
    let ours = contract_schemas()?;
    let theirs = checked_contract(name, schema, &ours)?;
    let mut schemas = ours;
    schemas.push((name.to_string(), schema.clone()));
    let (type_items, type_names) = own_types(&schemas, schema, &theirs)?;
    // A downstream extension's router leaves its results as they are: no
    // member of its own schema is newer than the version its callers speak.
    let fitted = BTreeSet::new();
    let names = Names {
        types: &type_names,
        fitted: &fitted,
        base: None,
    };
    let emitted = emit::emit_all(std::slice::from_ref(&theirs), None, &type_names, &fitted)?;
    let emitted = |module: &str| -> Result<Vec<syn::Item>> {
        emitted
            .iter()
            .find(|(n, _)| n == module)
            .map(|(_, file)| file.items.clone())
            .ok_or_else(|| Error::Syntax {
                what: module.to_string(),
                message: "not emitted".into(),
            })
    };
    let mut types: Vec<syn::Item> = vec![syn::parse_quote!(
        pub use ::a2a::types::*;
    )];
    types.extend(type_items);
    let rpc = syn::parse2::<syn::File>(quote! {
        pub use ::a2a::rpc::*;
        pub use crate::methods::{contract_of_name, method_not_found, resolve, MethodDescriptor};
    })
    .map_err(syntax("rpc"))?;
    let domain = &theirs.info.error_domain;
    let modules = [
        ("types", format!("Payload types of `{name}`, beside the contract's (re-exported from `a2a::types`, not generated again)."), types),
        ("errors", format!("The error registry of `{name}` (domain `{domain}`)."), emitted("errors")?),
        ("methods", format!("The method table of `{name}`: one marker type per method and a descriptor of each."), emitted("methods")?),
        ("handlers", format!("Async handler traits of `{name}`, one per service, and the router that dispatches to them."), emitted("handlers")?),
        ("client", format!("Typed client stubs of `{name}`, one per method, on the contract's client."), client_items(&theirs, &names)?),
        ("rpc", "The contract runtime (`a2a::rpc`) with the lookups of this extension's method table.".to_string(), rpc.items),
        ("extension", format!("The extension `{name}` as a whole: its identity, its schema, its Agent Card entry and the router that serves it beside the contract's methods."), extension_items(&theirs, text)?),
    ];
    render(name, modules)
}

/// The extension's contract, checked against the contract's own (`ours`).
fn checked_contract(name: &str, schema: &Value, ours: &[(String, Value)]) -> Result<Contract> {
    let mut all = ours
        .iter()
        .map(|(file, schema)| Contract::from_schema(file, schema))
        .collect::<Result<Vec<_>>>()?;
    let theirs = Contract::from_schema(name, schema)?;
    check_extension(&theirs, schema, &all)?;
    all.push(theirs);
    crate::check_unique_methods(&all)?;
    crate::check_capabilities(&all)?;
    all.pop().ok_or_else(|| Error::schema(name, "no contract"))
}

/// The extension's payload types, generated over the bundle of every schema
/// so its references resolve, and kept only where they are its own: its
/// definitions, the content enums split from them, its methods' request
/// envelopes and the inline types of those. Everything else is the
/// contract's, already in `a2a::types`. Also the Rust name of every
/// definition, for the emitters.
fn own_types(
    schemas: &[(String, Value)],
    schema: &Value,
    theirs: &Contract,
) -> Result<(Vec<syn::Item>, std::collections::BTreeMap<String, String>)> {
    let mut definitions = preprocess::bundle(schemas)?;
    for method in &theirs.methods {
        for type_name in [&method.params, &method.result] {
            if !definitions.contains_key(type_name.as_str()) {
                return Err(Error::schema(
                    &theirs.file,
                    format!("x-methods.{}: no definition `{type_name}`", method.name),
                ));
            }
        }
    }
    let declared: BTreeSet<String> = schema
        .get("definitions")
        .and_then(Value::as_object)
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default();
    let notes = preprocess::prepare(&mut definitions, std::slice::from_ref(theirs))?;
    let generated = types::generate(&definitions, &notes, &Default::default())?;
    let mut own = declared.clone();
    own.extend(
        notes
            .content_hosts
            .iter()
            .filter(|(host, _)| declared.contains(host.as_str()))
            .map(|(_, info)| info.content_type.clone()),
    );
    own.extend(theirs.methods.iter().map(|m| preprocess::envelope_name(&m.name)));
    let (own_types, contract_types): (Vec<_>, Vec<_>) = generated
        .names
        .iter()
        .partition(|(definition, _)| own.contains(definition.as_str()));
    let roots = own_types.into_iter().map(|(_, rust)| rust.clone());
    let stops = contract_types.into_iter().map(|(_, rust)| rust.clone()).collect();
    let keep = reachable(&generated.file.items, roots, &stops);
    let mut items = generated.file.items;
    items.retain(|item| subject(item).is_none_or(|s| keep.contains(&s)));
    Ok((items, generated.names))
}

/// The one generated file: each module with its doc, the runtime named
/// through the contract crate, and the header.
fn render(name: &str, modules: [(&str, String, Vec<syn::Item>); 7]) -> Result<String> {
    let mut file: syn::File = syn::parse_quote!();
    for (module, docs, items) in modules {
        let ident = format_ident!("{module}");
        let docs = doc(&docs);
        let mut item: syn::ItemMod = syn::parse2(quote!(#docs pub mod #ident {})).map_err(syntax(module))?;
        if let Some((_, content)) = &mut item.content {
            *content = items;
        }
        file.items.push(syn::Item::Mod(item));
    }
    RuntimePath.visit_file_mut(&mut file);
    let sources: Vec<&str> = CONTRACT_SCHEMAS.iter().map(|(f, _)| *f).collect();
    Ok(format!(
        "// @generated by cleveragents-codegen from {name} and the contract's schemas ({}).\n// Do not edit: it is written by the crate's build script.\n{}",
        sources.join(", "),
        prettyplease::unparse(&file)
    ))
}

fn syntax(what: &str) -> impl Fn(syn::Error) -> Error + '_ {
    move |e| Error::Syntax {
        what: what.to_string(),
        message: e.to_string(),
    }
}

/// What an extension schema must declare to stand beside the contract: an
/// extension URI, error domain and method prefix of its own, every method
/// under that prefix, and nothing the generator only supports for the
/// contract itself (a registry, binding or streaming methods, a base
/// protocol version).
fn check_extension(theirs: &Contract, schema: &Value, ours: &[Contract]) -> Result<()> {
    let file = theirs.file.as_str();
    let info = &theirs.info;
    let fail = |message: String| Err(Error::schema(file, message));
    if info.protocol_version.is_some() {
        return fail("x-contract.protocolVersion: an extension describes no A2A protocol version".into());
    }
    let Some(uri) = info.extension_uri.as_deref().filter(|u| !u.trim().is_empty()) else {
        return fail("x-contract.extensionUri: an extension needs a URI of its own".into());
    };
    let Some(prefix) = info.method_prefix.as_deref() else {
        return fail(
            "x-contract.methodPrefix: an extension needs a method prefix of its own (like `_cleveragents/`)"
                .into(),
        );
    };
    let segment = prefix.strip_prefix('_').and_then(|p| p.strip_suffix('/'));
    if !segment.is_some_and(|s| !s.is_empty() && !s.contains('/')) {
        return fail(format!(
            "x-contract.methodPrefix: `{prefix}` is not of the form `_name/` (one segment, a leading underscore, a trailing slash)"
        ));
    }
    for contract in ours {
        let same = |field: &str, value: &str| {
            Err(Error::schema(
                file,
                format!(
                    "x-contract.{field}: `{value}` is the same as the contract's `{}`",
                    contract.name
                ),
            ))
        };
        if contract.name == theirs.name {
            return same("name", &theirs.name);
        }
        if contract.info.extension_uri.as_deref() == Some(uri) {
            return same("extensionUri", uri);
        }
        if contract.info.error_domain == info.error_domain {
            return same("errorDomain", &info.error_domain);
        }
        if let Some(taken) = contract.info.method_prefix.as_deref() {
            if taken.starts_with(prefix) || prefix.starts_with(taken) {
                return fail(format!(
                    "x-contract.methodPrefix: `{prefix}` overlaps the prefix `{taken}` of the contract's `{}`",
                    contract.name
                ));
            }
        }
    }
    if schema.get("x-registry").is_some() {
        return fail(
            "x-registry: registry kinds are the contract's own; an extension declares its methods one by one"
                .into(),
        );
    }
    let our_methods: BTreeSet<&str> = ours
        .iter()
        .flat_map(|c| c.methods.iter().map(|m| m.name.as_str()))
        .collect();
    for method in &theirs.methods {
        if our_methods.contains(method.name.as_str()) {
            return fail(format!(
                "x-methods.{}: the contract already has a method of that name",
                method.name
            ));
        }
        if !method.name.starts_with(prefix) {
            return fail(format!(
                "x-methods.{}: does not start with the extension's method prefix `{prefix}`",
                method.name
            ));
        }
        // The transports learn which methods stream from the contract's table.
        if method.streaming {
            return fail(format!(
                "x-methods.{}: the transports stream only the contract's methods; an extension's methods answer once",
                method.name
            ));
        }
        if method.binding.is_some() {
            return fail(format!(
                "x-methods.{}: binding methods belong to the contract's transports",
                method.name
            ));
        }
        let stub = fn_name(method).to_string();
        if CLIENT_METHODS.contains(&stub.as_str()) {
            return fail(format!(
                "x-methods.{}: its client stub `{stub}` would hide the client's own method of that name",
                method.name
            ));
        }
    }
    Ok(())
}

/// The client stubs: a trait with one method per callable method of the
/// extension, implemented for the contract's typed client over any transport.
fn client_items(theirs: &Contract, names: &Names) -> Result<Vec<syn::Item>> {
    let trait_ident = format_ident!(
        "{}Client",
        heck::ToUpperCamelCase::to_upper_camel_case(theirs.name.as_str())
    );
    let mut decls = Vec::new();
    let mut impls = Vec::new();
    for method in theirs.methods.iter().filter(|m| !m.notification) {
        let f = fn_name(method);
        let m = marker(method);
        let params = names.ty(&method.params)?;
        let result = names.ty(&method.result)?;
        let docs = doc(&format!("`{}`: {}", method.name, method.description));
        let (output, call) = if method.streaming {
            (
                quote!(crate::rpc::ClientStream<#result>),
                quote!(self.subscribe::<crate::methods::markers::#m>(params)),
            )
        } else {
            (
                result.clone(),
                quote!(self.call::<crate::methods::markers::#m>(params)),
            )
        };
        decls.push(quote! {
            #docs
            fn #f(&self, params: #params) -> impl ::std::future::Future<Output = ::std::result::Result<#output, crate::rpc::CallError>> + Send;
        });
        impls.push(quote! {
            fn #f(&self, params: #params) -> impl ::std::future::Future<Output = ::std::result::Result<#output, crate::rpc::CallError>> + Send {
                #call
            }
        });
    }
    let docs = doc(&format!(
        "The methods of the `{}` extension on the contract's typed client (`a2a::rpc::Client`): bring the trait into scope and call them beside the standard ones.",
        theirs.name
    ));
    let tokens = quote! {
        #docs
        pub trait #trait_ident {
            #(#decls)*
        }

        impl<T: crate::rpc::Transport> #trait_ident for crate::rpc::Client<T> {
            #(#impls)*
        }
    };
    Ok(syn::parse2::<syn::File>(tokens).map_err(syntax("client"))?.items)
}

/// The `extension` module: constants of the contract, the schema as written,
/// the Agent Card entry and the composing router.
fn extension_items(theirs: &Contract, text: &str) -> Result<Vec<syn::Item>> {
    let info = &theirs.info;
    let uri = info.extension_uri.clone().unwrap_or_default();
    let prefix = info.method_prefix.clone().unwrap_or_default();
    let domain = &info.error_domain;
    let versions = &info.versions;
    let methods: Vec<&str> = theirs
        .methods
        .iter()
        .filter(|m| m.binding.is_none())
        .map(|m| m.name.as_str())
        .collect();
    let description = theirs
        .services
        .iter()
        .map(|(_, s)| s.description.trim())
        .collect::<Vec<_>>()
        .join(" ");
    let version_header = match &info.version_header {
        Some(header) => quote!(params.insert("versionHeader".into(), ::serde_json::Value::from(#header));),
        None => quote!(),
    };
    let tokens = quote! {
        /// The extension's URI (`x-contract.extensionUri`), which its Agent Card entry declares.
        pub const URI: &str = #uri;
        /// The prefix of every method of the extension (`x-contract.methodPrefix`).
        pub const METHOD_PREFIX: &str = #prefix;
        /// The ErrorInfo domain of the extension's errors (`x-contract.errorDomain`).
        pub const ERROR_DOMAIN: &str = #domain;
        /// The extension's minor versions, oldest first (`x-contract.versions`).
        pub const VERSIONS: &[&str] = &[#(#versions),*];
        /// The wire names of the extension's methods, in schema order.
        pub const METHOD_NAMES: &[&str] = &[#(#methods),*];
        /// The extension schema as the build read it, for conformance runners
        /// and anyone validating the extension's messages.
        pub const SCHEMA_JSON: &str = #text;

        /// The entry of the Agent Card's `capabilities.extensions` that declares
        /// the extension: its URI, versions and methods.
        pub fn agent_extension() -> ::a2a::types::AgentExtension {
            let mut params = ::serde_json::Map::new();
            params.insert("versions".into(), ::serde_json::Value::from(VERSIONS.to_vec()));
            #version_header
            params.insert("methods".into(), ::serde_json::Value::from(METHOD_NAMES.to_vec()));
            ::a2a::types::AgentExtension {
                uri: Some(URI.into()),
                description: Some(#description.into()),
                required: Some(false),
                params: Some(params),
            }
        }

        /// One dispatcher for the contract and the extension: the methods under
        /// [`METHOD_PREFIX`] go to the extension's router over `handler` (which
        /// answers an unknown one with the extension's method-not-found), every
        /// other to `base` (normally the contract's `a2a::Router`).
        pub fn router<H: crate::handlers::Handler, B: crate::rpc::Dispatch>(
            handler: ::std::sync::Arc<H>,
            base: B,
        ) -> crate::rpc::Prefixed<crate::handlers::Router<H>, B> {
            crate::rpc::Prefixed::new(METHOD_PREFIX, crate::handlers::Router::new(handler), base)
        }
    };
    Ok(syn::parse2::<syn::File>(tokens)
        .map_err(syntax("extension"))?
        .items)
}

/// The types the extension's own types need: `roots` and every type they
/// name, transitively (the inline types typify makes of their properties),
/// never past a type of the contract (`stops`), which `a2a::types` has.
fn reachable(
    items: &[syn::Item],
    roots: impl Iterator<Item = String>,
    stops: &BTreeSet<String>,
) -> BTreeSet<String> {
    // The crate's syn has the mutating visitor only; the items are cloned for it.
    struct Idents(BTreeSet<String>);
    impl VisitMut for Idents {
        fn visit_path_segment_mut(&mut self, segment: &mut syn::PathSegment) {
            self.0.insert(segment.ident.to_string());
            syn::visit_mut::visit_path_segment_mut(self, segment);
        }
    }
    let mut named: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for item in items {
        if let (Some(subject), syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Type(_)) =
            (subject(item), item)
        {
            let mut idents = Idents(BTreeSet::new());
            idents.visit_item_mut(&mut item.clone());
            named.entry(subject).or_default().extend(idents.0);
        }
    }
    let mut keep = BTreeSet::new();
    let mut queue: Vec<String> = roots.collect();
    while let Some(name) = queue.pop() {
        if stops.contains(&name) || !named.contains_key(&name) || !keep.insert(name.clone()) {
            continue;
        }
        queue.extend(named[&name].iter().cloned());
    }
    keep
}

/// The type an item defines or implements: a struct's or enum's name, an
/// impl's self type (or, for a foreign self type, its trait's type argument).
/// Typify's output is only types and their impls.
fn subject(item: &syn::Item) -> Option<String> {
    match item {
        syn::Item::Struct(s) => Some(s.ident.to_string()),
        syn::Item::Enum(e) => Some(e.ident.to_string()),
        syn::Item::Type(t) => Some(t.ident.to_string()),
        syn::Item::Impl(i) => match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            // `impl From<NoResult> for ()`: the type is the trait's argument.
            _ => {
                let (path, _) = i.trait_.as_ref()?;
                let syn::PathArguments::AngleBracketed(args) = &path.segments.last()?.arguments else {
                    return None;
                };
                args.args.iter().find_map(|arg| match arg {
                    syn::GenericArgument::Type(syn::Type::Path(p)) => {
                        p.path.segments.last().map(|s| s.ident.to_string())
                    }
                    _ => None,
                })
            }
        },
        _ => None,
    }
}

/// The generated code names the runtime crate as `::a2a_runtime`; a
/// downstream crate reaches it through the contract crate.
struct RuntimePath;

impl VisitMut for RuntimePath {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_some() && path.segments.first().is_some_and(|s| s.ident == "a2a_runtime") {
            let rest: Vec<syn::PathSegment> = path.segments.iter().skip(1).cloned().collect();
            let mut new: syn::Path = syn::parse_quote!(::a2a::runtime);
            new.segments.extend(rest);
            *path = new;
            return;
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
}
