//! The contract model: the `x-contract`, `x-services`, `x-capabilities`,
//! `x-bindings`, `x-errors` and `x-methods` sections of each schema, read into
//! typed values the emitters work from.

use crate::routes::{self, HttpSection, Route, RouteDef};
use crate::{Error, Result};
use serde::Deserialize;
use serde_json::{Map, Value};

/// One schema file's contract description.
#[derive(Debug, Clone)]
pub struct Contract {
    /// Short name (`a2a`, `cleveragents`), used for the Rust `Contract` variant.
    pub name: String,
    /// The file the contract came from, for messages and generated headers.
    pub file: String,
    pub info: ContractInfo,
    /// `x-http` (optional): how the methods map onto HTTP+JSON routes.
    pub http: HttpSection,
    /// Services in declaration order.
    pub services: Vec<(String, Service)>,
    /// Agent capabilities (`x-capabilities`, optional) in declaration order.
    pub capabilities: Vec<(String, CapabilityDef)>,
    /// Protocol bindings (`x-bindings`, optional) in declaration order, keyed
    /// by their Rust variant name.
    pub bindings: Vec<(String, BindingDef)>,
    /// Errors in declaration order.
    pub errors: Vec<(String, ErrorDef)>,
    /// Methods in declaration order.
    pub methods: Vec<MethodDef>,
}

/// `x-contract`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContractInfo {
    pub name: String,
    pub error_domain: String,
    #[serde(default)]
    pub protocol_version: Option<String>,
    #[serde(default)]
    pub extension_uri: Option<String>,
    #[serde(default)]
    pub versions: Vec<String>,
    /// Versions among `versions` that are drafts: served only where a
    /// deployment turns them on.
    #[serde(default)]
    pub draft_versions: Vec<String>,
    #[serde(default)]
    pub method_prefix: Option<String>,
    /// HTTP header (and stdio initialize field) carrying the version in effect.
    #[serde(default)]
    pub version_header: Option<String>,
    /// HTTP header listing activated extensions (base protocol only).
    #[serde(default)]
    pub extensions_header: Option<String>,
    /// Params field naming the namespace a call of this contract targets.
    #[serde(default)]
    pub namespace_field: Option<String>,
    /// The namespace of a call that names none.
    #[serde(default)]
    pub default_namespace: Option<String>,
    /// The error (of the contract set's registry) a caller with no role in the
    /// namespace gets: for it the namespace, and all in it, does not exist.
    #[serde(default)]
    pub namespace_not_found_error: Option<String>,
    /// The error a caller whose role in the namespace is too small gets.
    #[serde(default)]
    pub forbidden_error: Option<String>,
    /// URI of the stdio binding (spec §12 custom binding) the contract's
    /// `binding: "stdio"` methods belong to.
    #[serde(default)]
    pub stdio_binding_uri: Option<String>,
}

/// One entry of `x-services`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Service {
    pub description: String,
}

/// One entry of `x-capabilities`: an `AgentCapabilities` flag of the Agent
/// Card that methods may need.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapabilityDef {
    pub description: String,
    /// Key of `x-errors`: what a method needing the capability answers when the
    /// card does not declare it.
    pub unsupported_error: String,
    /// Section of the specification that says so.
    #[serde(default)]
    pub spec_section: Option<String>,
}

/// One entry of `x-bindings`: a protocol binding an Agent Card names in an
/// interface's `protocolBinding`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BindingDef {
    /// The exact `protocolBinding` value (`JSONRPC`, `HTTP+JSON`).
    pub name: String,
    pub description: String,
    /// Section of the specification that defines the binding.
    #[serde(default)]
    pub spec_section: Option<String>,
}

impl BindingDef {
    /// The name of the Rust constant holding the binding's name: the name in
    /// SCREAMING_SNAKE_CASE (`HTTP+JSON` → `HTTP_JSON`).
    pub fn const_name(&self) -> String {
        heck::ToShoutySnakeCase::to_shouty_snake_case(self.name.as_str())
    }
}

/// One entry of `x-errors`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorDef {
    /// The name the specification gives the error (`TaskNotFoundError`).
    /// Required of the base protocol's errors; an extension's, which no
    /// specification names, get one derived from the contract and the reason.
    #[serde(default)]
    pub name: Option<String>,
    pub code: i64,
    pub reason: String,
    pub http_status: u16,
    /// The gRPC status name (spec §5.4), also the `status` of a
    /// `google.rpc.Status` body of the HTTP+JSON binding.
    pub grpc_status: String,
    pub message: String,
    pub description: String,
    /// The protocol version that introduced the error (`x-since`); older
    /// versions never answer with it.
    #[serde(default)]
    pub since: Option<String>,
}

/// One entry of `x-methods`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MethodDef {
    #[serde(skip)]
    pub name: String,
    pub description: String,
    pub service: String,
    pub params: String,
    pub result: String,
    pub streaming: bool,
    /// The handler may answer with the result already encoded (as stored):
    /// its method returns a `Reply` of the result, which the router sends
    /// as it is. Unary methods only.
    #[serde(default)]
    pub encoded_result: bool,
    #[serde(default)]
    pub errors: Vec<String>,
    #[serde(default)]
    pub capability: Option<String>,
    /// Section of the specification that defines the method (`3.1.3`).
    #[serde(default)]
    pub spec_section: Option<String>,
    /// Role the caller needs in the target namespace: `read`, `write` or `admin`.
    #[serde(default)]
    pub access: Option<String>,
    /// False for methods that act on no namespace's resources (authentication suffices).
    #[serde(default = "yes")]
    pub namespaced: bool,
    #[serde(default)]
    pub since: Option<String>,
    #[serde(default)]
    pub binding: Option<String>,
    #[serde(default)]
    pub notification: bool,
    /// The HTTP+JSON routes as declared (`http`); empty when the contract's
    /// `x-http.methodRoute` rule applies.
    #[serde(default)]
    pub http: Vec<RouteDef>,
    /// The resolved routes (declared or by rule, with tenant variants).
    #[serde(skip)]
    pub routes: Vec<Route>,
    /// Dialect schemas only: the method of the current protocol that serves this one.
    #[serde(default)]
    pub serves: Option<String>,
    /// Dialect schemas only: further wire names the method answers to.
    #[serde(default)]
    pub aliases: Vec<String>,
    pub examples: Vec<Example>,
}

/// One example of a method call.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub summary: String,
    pub params: Value,
    /// Present, even as `null` (the result of a method answering nothing).
    #[serde(default, deserialize_with = "present")]
    pub result: Option<Value>,
    #[serde(default)]
    pub events: Option<Vec<Value>>,
}

impl Contract {
    /// The newest protocol version that is not a draft (the base protocol
    /// only): the declared `protocolVersion` when no `versions` are listed.
    pub fn released_protocol_version(&self) -> Option<String> {
        let info = &self.info;
        info.protocol_version.as_ref()?;
        let released = info
            .versions
            .iter()
            .rev()
            .find(|v| !info.draft_versions.contains(v));
        released.or(info.protocol_version.as_ref()).cloned()
    }

    /// Reads the contract sections of one schema document and checks them for
    /// internal consistency (every reference resolves, names are unique).
    pub fn from_schema(file: &str, schema: &Value) -> Result<Self> {
        let root = schema
            .as_object()
            .ok_or_else(|| Error::schema(file, "the schema is not a JSON object"))?;
        let info: ContractInfo = section(file, root, "x-contract")?;
        let services: Vec<(String, Service)> = ordered_section(file, root, "x-services")?;
        let capabilities: Vec<(String, CapabilityDef)> = match root.get("x-capabilities") {
            Some(_) => ordered_section(file, root, "x-capabilities")?,
            None => Vec::new(),
        };
        let bindings: Vec<(String, BindingDef)> = match root.get("x-bindings") {
            Some(_) => ordered_section(file, root, "x-bindings")?,
            None => Vec::new(),
        };
        let errors: Vec<(String, ErrorDef)> = ordered_section(file, root, "x-errors")?;
        let methods: Vec<(String, MethodDef)> = ordered_section(file, root, "x-methods")?;
        let http: HttpSection = match root.get("x-http") {
            Some(_) => section(file, root, "x-http")?,
            None => HttpSection::default(),
        };
        let definitions = root
            .get("definitions")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::schema(file, "missing `definitions`"))?;

        let methods = methods
            .into_iter()
            .map(|(name, mut method)| {
                method.routes = routes::resolve(
                    file,
                    &http,
                    &name,
                    &method.http,
                    &method.params,
                    definitions,
                    method.binding.is_none(),
                )?;
                method.name = name;
                Ok(method)
            })
            .collect::<Result<Vec<_>>>()?;

        for method in &methods {
            check_method(file, &info, &services, &errors, method)?;
        }
        check_capabilities(file, &capabilities, &errors)?;
        check_bindings(file, &bindings)?;
        for required in [
            "ParseError",
            "InvalidRequest",
            "MethodNotFound",
            "InvalidParams",
            "InternalError",
        ] {
            let code = standard_code(required);
            if !errors.iter().any(|(_, e)| e.code == code) {
                return Err(Error::schema(
                    file,
                    format!("x-errors lacks the JSON-RPC error {code}"),
                ));
            }
        }

        Ok(Contract {
            name: info.name.clone(),
            file: file.to_string(),
            info,
            http,
            services,
            capabilities,
            bindings,
            errors,
            methods,
        })
    }

    /// The name of error `key` of this contract's registry as clients see it:
    /// the one the schema gives, else, for an extension (whose errors no
    /// specification names), the contract's name and the ErrorInfo reason
    /// (`CLEVERAGENTS_NOT_FOUND`), which no specification's name looks like.
    /// `None` for an error of the base protocol without its name.
    pub fn error_name(&self, error: &ErrorDef) -> Option<String> {
        match (&error.name, &self.info.protocol_version) {
            (Some(name), _) => Some(name.clone()),
            (None, Some(_)) => None,
            (None, None) => Some(format!(
                "{}_{}",
                heck::ToShoutySnakeCase::to_shouty_snake_case(self.info.name.as_str()),
                error.reason
            )),
        }
    }

    /// The registry entry of this contract with the given JSON-RPC code.
    pub fn error_with_code(&self, code: i64) -> Option<&str> {
        self.errors
            .iter()
            .find(|(_, e)| e.code == code)
            .map(|(name, _)| name.as_str())
    }
}

/// Checks one method against the contract's other sections.
fn check_method(
    file: &str,
    info: &ContractInfo,
    services: &[(String, Service)],
    errors: &[(String, ErrorDef)],
    method: &MethodDef,
) -> Result<()> {
    let at = |what: &str| format!("x-methods.{}: {what}", method.name);
    if !services.iter().any(|(key, _)| key == &method.service) {
        return Err(Error::schema(
            file,
            at(&format!("unknown service `{}`", method.service)),
        ));
    }
    for error in &method.errors {
        if !errors.iter().any(|(key, _)| key == error) {
            return Err(Error::schema(file, at(&format!("unknown error `{error}`"))));
        }
    }
    if let Some(since) = &method.since {
        // `versions` lists the minor versions served (current and one prior);
        // a method may be older than all of them, never newer than the newest.
        let newest = info.versions.iter().filter_map(|v| minor_of(v)).max();
        match (minor_of(since), newest) {
            (Some(since), Some(newest)) if since <= newest => {}
            _ => {
                return Err(Error::schema(
                    file,
                    at(&format!(
                        "`since` {since} is not a version up to the newest declared"
                    )),
                ))
            }
        }
    }
    match (method.binding.is_some(), method.access.as_deref()) {
        (false, Some("read" | "write" | "admin")) | (true, None) => {}
        (false, _) => return Err(Error::schema(file, at("`access` must be read, write or admin"))),
        (true, Some(_)) => return Err(Error::schema(file, at("binding methods carry no `access`"))),
    }
    if let Some(section) = &method.spec_section {
        check_section(file, &at("specSection"), section)?;
    }
    if method.encoded_result && (method.streaming || method.notification) {
        return Err(Error::schema(file, at("`encodedResult` is for unary methods")));
    }
    if method.examples.is_empty() {
        return Err(Error::schema(file, at("needs at least one example")));
    }
    for example in &method.examples {
        let ok = if method.notification {
            example.events.is_none()
        } else if method.streaming {
            example.events.is_some() && example.result.is_none()
        } else {
            example.result.is_some() && example.events.is_none()
        };
        if !ok {
            return Err(Error::schema(
                file,
                at("examples of streaming methods carry `events`, others `result`"),
            ));
        }
    }
    Ok(())
}

/// Checks that each capability names an error of the contract and a section number.
fn check_capabilities(
    file: &str,
    capabilities: &[(String, CapabilityDef)],
    errors: &[(String, ErrorDef)],
) -> Result<()> {
    for (name, capability) in capabilities {
        let at = format!("x-capabilities.{name}");
        if !errors.iter().any(|(key, _)| key == &capability.unsupported_error) {
            return Err(Error::schema(
                file,
                format!("{at}: unknown error `{}`", capability.unsupported_error),
            ));
        }
        if let Some(section) = &capability.spec_section {
            check_section(file, &at, section)?;
        }
    }
    Ok(())
}

/// Each binding has a name and a Rust variant name, neither given twice, and
/// its section is a section number.
fn check_bindings(file: &str, bindings: &[(String, BindingDef)]) -> Result<()> {
    let mut names = std::collections::BTreeSet::new();
    let mut consts = std::collections::BTreeSet::new();
    for (key, binding) in bindings {
        let at = format!("x-bindings.{key}");
        if syn::parse_str::<syn::Ident>(key).is_err() || !key.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Err(Error::schema(
                file,
                format!("{at}: the key is the Rust variant name, in PascalCase"),
            ));
        }
        if binding.name.trim().is_empty() {
            return Err(Error::schema(file, format!("{at}: `name` is empty")));
        }
        // Names compare as a reader of a card does: without regard to case.
        if !names.insert(binding.name.to_ascii_lowercase()) {
            return Err(Error::schema(
                file,
                format!("{at}: the name `{}` is given twice", binding.name),
            ));
        }
        let constant = binding.const_name();
        if syn::parse_str::<syn::Ident>(&constant).is_err() || !consts.insert(constant.clone()) {
            return Err(Error::schema(
                file,
                format!(
                    "{at}: the name `{}` makes no Rust constant of its own (`{constant}`)",
                    binding.name
                ),
            ));
        }
        if let Some(section) = &binding.spec_section {
            check_section(file, &at, section)?;
        }
    }
    Ok(())
}

/// A section number of the specification: dot-separated numbers (`3.1.3`).
fn check_section(file: &str, at: &str, section: &str) -> Result<()> {
    let numbers_ok = !section.is_empty()
        && section
            .split('.')
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    if numbers_ok {
        Ok(())
    } else {
        Err(Error::schema(
            file,
            format!("{at}: `{section}` is not a section number like 3.1.3"),
        ))
    }
}

/// Reads a present value as `Some`, `null` included; absence is `None` by `default`.
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

fn yes() -> bool {
    true
}

fn standard_code(name: &str) -> i64 {
    match name {
        "ParseError" => -32700,
        "InvalidRequest" => -32600,
        "MethodNotFound" => -32601,
        "InvalidParams" => -32602,
        _ => -32603,
    }
}

fn section<T: for<'de> Deserialize<'de>>(file: &str, root: &Map<String, Value>, key: &str) -> Result<T> {
    let value = root
        .get(key)
        .ok_or_else(|| Error::schema(file, format!("missing `{key}`")))?;
    serde_json::from_value(value.clone()).map_err(|e| Error::schema(file, format!("{key}: {e}")))
}

fn ordered_section<T: for<'de> Deserialize<'de>>(
    file: &str,
    root: &Map<String, Value>,
    key: &str,
) -> Result<Vec<(String, T)>> {
    let object = root
        .get(key)
        .and_then(Value::as_object)
        .ok_or_else(|| Error::schema(file, format!("missing object `{key}`")))?;
    object
        .iter()
        .map(|(name, value)| {
            serde_json::from_value(value.clone())
                .map(|parsed| (name.clone(), parsed))
                .map_err(|e| Error::schema(file, format!("{key}.{name}: {e}")))
        })
        .collect()
}

/// `"1.2"` as `(1, 2)`; anything else is `None`.
fn minor_of(version: &str) -> Option<(u32, u32)> {
    let (major, minor) = version.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}
