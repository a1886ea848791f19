//! What a caller calls: the contract's constants (`contract.ts`), the error
//! registry as typed error classes (`errors.ts`), the method table with each
//! method's params, result, streaming and errors (`methods.ts`) and the
//! client with one typed method per extension method (`client.ts`).

use super::types::Model;
use super::{client_method_name, doc, fail, key, literal};
use crate::model::{Contract, ErrorDef, MethodDef};
use crate::Result;
use std::collections::BTreeSet;

/// The JSON-RPC codes every method may answer with, whatever it declares.
const STANDARD_CODES: [i64; 5] = [-32700, -32600, -32601, -32602, -32603];

/// `contract.ts`: the `x-contract` facts a transport needs (names and values
/// of headers, the extension URI and versions, the stdio binding URI).
pub fn contract_module(extension: &Contract, base: Option<&Contract>) -> Result<String> {
    let info = &extension.info;
    let mut out = String::new();
    let mut constant = |name: &str, what: &str, value: Option<&String>| {
        if let Some(value) = value {
            out.push_str(&doc(what, "", &[]));
            out.push_str(&format!("export const {name} = {};\n\n", literal(value)));
        }
    };
    constant(
        "EXTENSION_URI",
        "URI of the extension (activated in the A2A extensions header).",
        info.extension_uri.as_ref(),
    );
    constant(
        "EXTENSION_VERSION_HEADER",
        "HTTP header naming the extension's minor version wanted (absent: the newest).",
        info.version_header.as_ref(),
    );
    constant(
        "METHOD_PREFIX",
        "Every extension method's wire name starts with it.",
        info.method_prefix.as_ref(),
    );
    constant(
        "NAMESPACE_FIELD",
        "The params member naming the namespace a call acts in.",
        info.namespace_field.as_ref(),
    );
    constant(
        "DEFAULT_NAMESPACE",
        "The namespace of a call that names none.",
        info.default_namespace.as_ref(),
    );
    constant(
        "ERROR_DOMAIN",
        "`ErrorInfo.domain` of every error of the extension's registry.",
        Some(&info.error_domain),
    );
    constant(
        "STDIO_BINDING_URI",
        "URI of the stdio binding (`protocolBinding` of its Agent Card interface).",
        info.stdio_binding_uri.as_ref(),
    );
    if let Some(base) = base {
        let info = &base.info;
        constant(
            "A2A_PROTOCOL_VERSION",
            "The A2A protocol version the contract speaks: the newest that is not a draft.",
            base.released_protocol_version().as_ref(),
        );
        constant(
            "A2A_VERSION_HEADER",
            "HTTP header carrying the A2A protocol version.",
            info.version_header.as_ref(),
        );
        constant(
            "A2A_EXTENSIONS_HEADER",
            "HTTP header listing the extensions a client activates.",
            info.extensions_header.as_ref(),
        );
    }
    let versions: Vec<String> = info.versions.iter().map(|v| literal(v)).collect();
    if versions.is_empty() {
        return Err(fail("the extension declares no versions"));
    }
    out.push_str(&doc(
        "The extension's minor versions the server serves, oldest first (the last is the newest).",
        "",
        &[],
    ));
    out.push_str(&format!(
        "export const EXTENSION_VERSIONS = [{}] as const;\n\n",
        versions.join(", ")
    ));
    out.push_str(&doc(
        "A minor version of the extension that the server serves.",
        "",
        &[],
    ));
    out.push_str("export type ExtensionVersion = (typeof EXTENSION_VERSIONS)[number];\n");
    Ok(out)
}

/// `errors.ts`: the registry, one error class per entry, the union of them
/// and the decoding of a wire error into its class.
pub fn errors_module(extension: &Contract) -> Result<String> {
    let domain = &extension.info.error_domain;
    let mut reasons = BTreeSet::new();
    for (name, error) in &extension.errors {
        if !reasons.insert(error.reason.as_str()) {
            return Err(fail(format!(
                "two errors have the reason `{}` ({name})",
                error.reason
            )));
        }
    }
    let mut out = String::from(
        "import { ERROR_DOMAIN } from \"./contract.js\";\nimport type { JsonValue } from \"./json.js\";\n\n",
    );
    out.push_str(&doc(
        "The extension's error registry (`x-errors`), by name.",
        "",
        &[],
    ));
    out.push_str("export const ERROR_REGISTRY = {\n");
    for (name, error) in &extension.errors {
        out.push_str(&doc(&error.description, "  ", &[]));
        out.push_str(&format!(
            "  {name}: {{ code: {}, reason: {}, domain: {}, message: {}, httpStatus: {}, grpcStatus: {} }},\n",
            error.code,
            literal(&error.reason),
            literal(domain),
            literal(&error.message),
            error.http_status,
            literal(&error.grpc_status)
        ));
    }
    out.push_str("} as const;\n\n");
    out.push_str("/** The name of an error of the registry. */\nexport type ErrorName = keyof typeof ERROR_REGISTRY;\n\n");
    out.push_str("/** The `ErrorInfo.reason` of an error of the registry. */\nexport type ErrorReason = (typeof ERROR_REGISTRY)[ErrorName][\"reason\"];\n\n");
    let standard: Vec<String> = extension
        .errors
        .iter()
        .filter(|(_, e)| STANDARD_CODES.contains(&e.code))
        .map(|(name, _)| literal(name))
        .collect();
    out.push_str("/** The JSON-RPC errors any method may answer with. */\n");
    out.push_str(&format!(
        "export type StandardErrorName = {};\n\n",
        standard.join(" | ")
    ));
    out.push_str(ERROR_BASE);
    for (name, error) in &extension.errors {
        out.push_str(&error_class(name, error));
    }
    let names: Vec<&str> = extension.errors.iter().map(|(n, _)| n.as_str()).collect();
    out.push_str("/** The error class of each registry name. */\nexport interface ErrorTypes {\n");
    for name in &names {
        out.push_str(&format!("  {name}: {name}Error;\n"));
    }
    out.push_str("}\n\n/** The error class of each reason. */\nexport interface ErrorTypesByReason {\n");
    for (name, error) in &extension.errors {
        out.push_str(&format!("  {}: {name}Error;\n", key(&error.reason)));
    }
    out.push_str("}\n\n/** Any error of the registry: narrow it on `reason` or `errorName`. */\n");
    let classes: Vec<String> = names.iter().map(|n| format!("{n}Error")).collect();
    out.push_str(&format!(
        "export type AnyExtensionError = {};\n\n",
        classes.join(" | ")
    ));
    out.push_str(
        "const CONSTRUCTORS: { readonly [N in ErrorName]: new (wire: WireError) => ErrorTypes[N] } = {\n",
    );
    for name in &names {
        out.push_str(&format!("  {name}: {name}Error,\n"));
    }
    out.push_str("};\n\n");
    out.push_str(ERROR_DECODING);
    Ok(out)
}

/// The hand-shaped part of `errors.ts` that names no registry entry.
const ERROR_BASE: &str = r#"/** What the wire says about an error: a JSON-RPC error or a `google.rpc.Status` body. */
export interface WireError {
  /** The JSON-RPC code (also given for an HTTP+JSON answer, from its registry entry). */
  readonly code: number;
  readonly message: string;
  /** `ErrorInfo.reason`, when the answer carries an ErrorInfo. */
  readonly reason?: string | undefined;
  /** `ErrorInfo.domain`, when the answer carries an ErrorInfo. */
  readonly domain?: string | undefined;
  /** `ErrorInfo.metadata`. */
  readonly metadata?: { readonly [key: string]: string } | undefined;
  /** Every detail the answer carries, the ErrorInfo included. */
  readonly details?: readonly JsonValue[] | undefined;
  /** The HTTP status, for an answer over HTTP. */
  readonly httpStatus?: number | undefined;
}

/** An error the agent answered with that is not of the extension's registry. */
export class RpcError extends Error {
  readonly code: number;
  readonly reason: string | undefined;
  readonly domain: string | undefined;
  readonly metadata: { readonly [key: string]: string };
  readonly details: readonly JsonValue[];
  readonly httpStatus: number | undefined;

  constructor(wire: WireError) {
    super(wire.message);
    this.name = "RpcError";
    this.code = wire.code;
    this.reason = wire.reason;
    this.domain = wire.domain;
    this.metadata = wire.metadata ?? {};
    this.details = wire.details ?? [];
    this.httpStatus = wire.httpStatus;
  }
}

/** An error of the extension's registry; its subclasses fix `reason` to one literal. */
export abstract class ExtensionError extends RpcError {
  /** The registry name of the error. */
  abstract readonly errorName: ErrorName;
  declare readonly reason: ErrorReason;
  declare readonly domain: string;
}

"#;

/// The decoding functions of `errors.ts`, generic over the registry.
const ERROR_DECODING: &str = r#"const BY_REASON = new Map<string, ErrorName>(
  (Object.keys(ERROR_REGISTRY) as ErrorName[]).map((name) => [ERROR_REGISTRY[name].reason, name]),
);

/**
 * The typed error of a wire error: the registry's class when the ErrorInfo
 * is of the extension's domain (or, without an ErrorInfo, when the code is
 * the registry's), else an RpcError.
 */
export function errorFromWire(wire: WireError): RpcError {
  let name: ErrorName | undefined;
  if (wire.reason !== undefined) {
    name = wire.domain === ERROR_DOMAIN ? BY_REASON.get(wire.reason) : undefined;
  } else {
    name = (Object.keys(ERROR_REGISTRY) as ErrorName[]).find((n) => ERROR_REGISTRY[n].code === wire.code);
  }
  return name === undefined ? new RpcError(wire) : new CONSTRUCTORS[name](wire);
}

/** The registry name whose `httpStatus` and `grpcStatus` an HTTP+JSON status body names. */
export function errorNameOfStatus(httpStatus: number, grpcStatus: string): ErrorName | undefined {
  return (Object.keys(ERROR_REGISTRY) as ErrorName[]).find(
    (n) => ERROR_REGISTRY[n].httpStatus === httpStatus && ERROR_REGISTRY[n].grpcStatus === grpcStatus,
  );
}

/** True when `error` is the registry's error of `reason`, narrowed to its class. */
export function isExtensionError<R extends ErrorReason>(error: unknown, reason: R): error is ErrorTypesByReason[R] {
  return error instanceof ExtensionError && error.reason === reason;
}
"#;

/// One registry entry's class.
fn error_class(name: &str, error: &ErrorDef) -> String {
    let mut out = doc(
        &format!(
            "{} (`{}`, code {}): {}",
            error.message, error.reason, error.code, error.description
        ),
        "",
        &[],
    );
    out.push_str(&format!(
        "export class {name}Error extends ExtensionError {{\n  \
         readonly errorName = {name:?} as const;\n  \
         declare readonly reason: {reason};\n\n  \
         constructor(wire: WireError) {{\n    \
         const entry = ERROR_REGISTRY.{name};\n    \
         super({{ ...wire, reason: entry.reason, domain: entry.domain }});\n    \
         this.name = \"{name}Error\";\n  }}\n}}\n\n",
        reason = literal(&error.reason)
    ));
    out
}

/// `methods.ts`: the method table, as types and as values.
pub fn methods_module(extension: &Contract, model: &Model) -> Result<String> {
    let (dispatched, binding): (Vec<&MethodDef>, Vec<&MethodDef>) =
        extension.methods.iter().partition(|m| m.binding.is_none());
    let mut out = String::from(METHOD_BASE);
    out.push_str(&doc("The extension's methods, by wire name: params, result (of one event, for a streaming method), streaming and declared errors.", "", &[]));
    out.push_str("export interface ExtensionMethods {\n");
    for method in &dispatched {
        out.push_str(&spec_member(model, method));
    }
    out.push_str("}\n\n");
    out.push_str(&doc("The methods of the stdio binding itself, by wire name (the stdio transport's handshake and stream control).", "", &[]));
    out.push_str("export interface BindingMethods {\n");
    for method in &binding {
        out.push_str(&spec_member(model, method));
    }
    out.push_str("}\n\n");
    out.push_str(METHOD_DERIVED);
    out.push_str(&doc("The extension's methods, by wire name, as values.", "", &[]));
    out.push_str("export const EXTENSION_METHODS = {\n");
    for method in &dispatched {
        out.push_str(&format!(
            "  {}: {},\n",
            literal(&method.name),
            info(extension, method)
        ));
    }
    out.push_str("} as const satisfies { readonly [M in ExtensionMethod]: MethodInfo };\n\n");
    out.push_str(&doc(
        "The stdio binding's methods, by their client name (`streamResume` for `stream/resume`).",
        "",
        &[],
    ));
    out.push_str("export const BINDING_METHODS = {\n");
    for method in &binding {
        out.push_str(&format!(
            "  {}: {},\n",
            key(&client_method_name(extension, &method.name)),
            info(extension, method)
        ));
    }
    out.push_str("} as const satisfies { readonly [name: string]: MethodInfo & { readonly name: keyof BindingMethods } };\n");
    let mut imports = String::from(
        "import type { ErrorName, ErrorTypes, StandardErrorName } from \"./errors.js\";\n\
         import type * as T from \"./types.js\";\n",
    );
    if out.contains("A2A.") {
        imports.push_str("import type * as A2A from \"./a2a.js\";\n");
    }
    Ok(format!("{imports}\n{out}"))
}

/// The type-level part of `methods.ts` that names no method.
const METHOD_BASE: &str = r#"/** One method's types: what its params and result are, whether it streams, what it may fail with. */
export interface MethodSpec<P, R, S extends boolean, E extends ErrorName> {
  params: P;
  result: R;
  streaming: S;
  errors: E;
}

/** The HTTP+JSON route of a method: `{field}` in the path is taken from the params. */
export interface HttpRoute {
  readonly verb: string;
  readonly path: string;
  /** True when the params not in the path are the JSON body; else they travel in the query. */
  readonly body: boolean;
}

/** One method's facts, as values. */
export interface MethodInfo {
  readonly name: string;
  /** The client's method name for it. */
  readonly clientMethod: string;
  readonly service: string;
  readonly streaming: boolean;
  /** A notification gets no response. */
  readonly notification: boolean;
  /** The role the caller needs in the namespace (absent for binding methods). */
  readonly access: "read" | "write" | "admin" | undefined;
  /** The extension minor version that introduced it. */
  readonly since: string | undefined;
  readonly errors: readonly ErrorName[];
  /** Its canonical HTTP+JSON route (absent for binding methods). */
  readonly http: HttpRoute | undefined;
}

"#;

/// The type-level derivations of `methods.ts`.
const METHOD_DERIVED: &str = r#"/** The wire name of an extension method. */
export type ExtensionMethod = keyof ExtensionMethods;

/** The methods that answer once. */
export type UnaryMethod = {
  [M in ExtensionMethod]: ExtensionMethods[M]["streaming"] extends true ? never : M;
}[ExtensionMethod];

/** The methods that answer with a stream of events. */
export type StreamingMethod = Exclude<ExtensionMethod, UnaryMethod>;

/** The params of method `M`. */
export type ParamsOf<M extends ExtensionMethod> = ExtensionMethods[M]["params"];

/** The result of method `M` (of one event, for a streaming method). */
export type ResultOf<M extends ExtensionMethod> = ExtensionMethods[M]["result"];

/** The errors method `M` may fail with: those it declares and the JSON-RPC ones. */
export type MethodError<M extends ExtensionMethod> = ErrorTypes[ExtensionMethods[M]["errors"] | StandardErrorName];

"#;

/// The `ExtensionMethods` member of one method.
fn spec_member(model: &Model, method: &MethodDef) -> String {
    let errors: Vec<String> = method.errors.iter().map(|e| literal(e)).collect();
    let errors = if errors.is_empty() {
        "never".to_string()
    } else {
        errors.join(" | ")
    };
    let mut tags = Vec::new();
    if let Some(since) = &method.since {
        tags.push(format!("@since extension version {since}"));
    }
    let mut out = doc(&method.description, "  ", &tags);
    out.push_str(&format!(
        "  {}: MethodSpec<{}, {}, {}, {errors}>;\n",
        literal(&method.name),
        qualified(model, &method.params),
        qualified(model, &method.result),
        method.streaming
    ));
    out
}

/// A definition's name as `methods.ts` and `client.ts` see it: the
/// extension's under `T.`, the other files' under `A2A.`.
fn qualified(model: &Model, name: &str) -> String {
    if model.is_reached(name) {
        format!("A2A.{name}")
    } else {
        format!("T.{name}")
    }
}

/// One method's facts as a TypeScript object literal.
fn info(extension: &Contract, method: &MethodDef) -> String {
    let errors: Vec<String> = method.errors.iter().map(|e| literal(e)).collect();
    let http = match method.routes.first() {
        Some(route) => format!(
            "{{ verb: {}, path: {}, body: {} }}",
            literal(&route.verb),
            literal(&route.path),
            route.body
        ),
        None => "undefined".into(),
    };
    let optional = |value: &Option<String>| value.as_deref().map_or("undefined".into(), literal);
    format!(
        "{{ name: {}, clientMethod: {}, service: {}, streaming: {}, notification: {}, access: {}, since: {}, errors: [{}], http: {http} }}",
        literal(&method.name),
        literal(&client_method_name(extension, &method.name)),
        literal(&method.service),
        method.streaming,
        method.notification,
        optional(&method.access),
        optional(&method.since),
        errors.join(", ")
    )
}

/// `client.ts`: one typed method per extension method over any transport.
pub fn client_module(extension: &Contract, model: &Model) -> Result<String> {
    let mut out = String::from(CLIENT_BASE);
    let mut seen = BTreeSet::new();
    for method in extension.methods.iter().filter(|m| m.binding.is_none()) {
        let name = client_method_name(extension, &method.name);
        if !seen.insert(name.clone()) || ["call", "stream", "close", "transport"].contains(&name.as_str()) {
            return Err(fail(format!(
                "the client method `{name}` of `{}` is taken",
                method.name
            )));
        }
        let params = qualified(model, &method.params);
        let result = qualified(model, &method.result);
        let mut tags = vec![String::new()];
        if let Some(since) = &method.since {
            tags.push(format!("@since extension version {since}"));
        }
        tags.push(format!(
            "@throws {{MethodError<{}>}} {}",
            literal(&method.name),
            if method.errors.is_empty() {
                "the JSON-RPC errors".to_string()
            } else {
                method.errors.join(", ")
            }
        ));
        out.push_str(&doc(&method.description, "  ", &tags));
        // Params whose members are all optional may be left out.
        let optional = model.requires_nothing(&method.params);
        let params_decl = if optional {
            format!("params: {params} = {{}}")
        } else {
            format!("params: {params}")
        };
        if method.streaming {
            out.push_str(&format!(
                "  {name}({params_decl}, options?: StreamOptions): AsyncIterable<StreamEvent<{result}>> {{\n    \
                 return this.stream({}, params, options);\n  }}\n\n",
                literal(&method.name)
            ));
        } else {
            out.push_str(&format!(
                "  {name}({params_decl}, options?: CallOptions): Promise<{result}> {{\n    \
                 return this.call({}, params, options);\n  }}\n\n",
                literal(&method.name)
            ));
        }
    }
    out.truncate(out.trim_end().len());
    out.push_str("\n}\n");
    let mut imports = String::from(
        "import type { CallOptions, StreamEvent, StreamOptions, Transport } from \"../transport.js\";\n\
         import type { ExtensionMethods, StreamingMethod, UnaryMethod } from \"./methods.js\";\n\
         import type * as T from \"./types.js\";\n",
    );
    if out.contains("A2A.") {
        imports.push_str("import type * as A2A from \"./a2a.js\";\n");
    }
    Ok(format!("{imports}\n{out}"))
}

/// The generic part of the client.
const CLIENT_BASE: &str = r#"/**
 * A client of the extension: one typed method per extension method, over any
 * transport (HTTP JSON-RPC, HTTP+JSON, stdio). Each method resolves to the
 * method's result or rejects with the typed error of the registry
 * (`MethodError<M>`), a transport error (`TransportError`) or an RpcError.
 */
export class ExtensionClient {
  constructor(readonly transport: Transport) {}

  /** Calls unary method `method` by its wire name. */
  call<M extends UnaryMethod>(
    method: M,
    params: ExtensionMethods[M]["params"],
    options?: CallOptions,
  ): Promise<ExtensionMethods[M]["result"]> {
    return this.transport.call(method, params, options) as Promise<ExtensionMethods[M]["result"]>;
  }

  /** Calls streaming method `method` by its wire name: its events, each with its resume position. */
  stream<M extends StreamingMethod>(
    method: M,
    params: ExtensionMethods[M]["params"],
    options?: StreamOptions,
  ): AsyncIterable<StreamEvent<ExtensionMethods[M]["result"]>> {
    return this.transport.stream(method, params, options) as AsyncIterable<StreamEvent<ExtensionMethods[M]["result"]>>;
  }

  /** Closes the transport (ends a stdio agent). */
  close(): Promise<void> {
    return this.transport.close();
  }

"#;
