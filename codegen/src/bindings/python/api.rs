//! `_gen/errors.py`, `_gen/methods.py` and `_gen/client.py`: the error
//! registries as exception classes, the method table with the contract's
//! wire facts (header names, versions, URIs), and the two clients with one
//! typed method per extension method.
//!
//! Every name and value the hand-written transports need (method names of
//! the stdio binding, header names, the protocol version) is emitted here,
//! so a schema edit reaches them through the generated constants and a
//! stale use fails the type check.

use super::models::Scope;
use super::{docstring, extensions, literal, method_const, method_name, BANNER};
use crate::bindings::Input;
use crate::model::{Contract, MethodDef};
use crate::{Error, Result};
use heck::ToUpperCamelCase;

/// The base class of a contract's errors (`CleveragentsError`, `A2aError`).
fn error_base(contract: &Contract) -> String {
    format!("{}Error", contract.info.name.to_upper_camel_case())
}

/// The text of `errors.py`: every contract's registry, the base protocol's
/// too, so an A2A error an extension call surfaces is typed as well.
pub fn render_errors(input: &Input) -> String {
    let mut out = String::from(BANNER);
    out.push_str(
        "\"\"\"The error registries: one exception class per error, under one base\n\
         class per contract (its ErrorInfo domain).\n\"\"\"\n\n\
         from __future__ import annotations\n\n\
         from cleveragents_contract._errors import ContractError\n\n",
    );
    let mut all = Vec::new();
    for contract in input.contracts {
        let base = error_base(contract);
        let domain = &contract.info.error_domain;
        out.push_str(&format!("\nclass {base}(ContractError):\n"));
        out.push_str(&docstring(
            &format!(
                "An error of the `{}` contract (domain ``{domain}``).",
                contract.info.name
            ),
            "    ",
        ));
        out.push_str(&format!("\n    domain = {}\n\n", literal(domain)));
        all.push(base.clone());
        for (name, error) in &contract.errors {
            out.push_str(&format!("\nclass {name}({base}):\n"));
            out.push_str(&docstring(&error.description, "    "));
            out.push_str(&format!(
                "\n    code = {}\n    reason = {}\n    default_message = {}\n    http_status = {}\n    grpc_status = {}\n\n",
                error.code,
                literal(&error.reason),
                literal(&error.message),
                error.http_status,
                literal(&error.grpc_status),
            ));
            all.push(name.clone());
        }
    }
    out.push_str("\n# Every error class, for decoding an answer's error by its domain and reason.\n");
    out.push_str("ERRORS: tuple[type[ContractError], ...] = (\n");
    for contract in input.contracts {
        for (name, _) in &contract.errors {
            out.push_str(&format!("    {name},\n"));
        }
    }
    out.push_str(")\n\n__all__ = [\n    \"ERRORS\",\n    \"ContractError\",\n");
    all.sort();
    for name in all {
        out.push_str(&format!("    {},\n", literal(&name)));
    }
    out.push_str("]\n");
    out
}

/// The text of `methods.py`.
pub fn render_methods(input: &Input, scope: &Scope) -> Result<String> {
    let base = input
        .contracts
        .iter()
        .find(|c| c.info.extension_uri.is_none())
        .ok_or_else(|| Error::schema("bindings", "no base protocol contract"))?;
    let first = extensions(input)
        .next()
        .ok_or_else(|| Error::schema("bindings", "no extension contract"))?;
    let fact = |what: &str, value: &Option<String>| {
        value
            .clone()
            .ok_or_else(|| Error::schema(&first.file, format!("x-contract has no `{what}`")))
    };
    let mut out = String::from(BANNER);
    out.push_str(
        "\"\"\"The method table of the extensions and the wire facts of the contract.\"\"\"\n\n\
         from __future__ import annotations\n\n\
         from collections.abc import Mapping\n\
         from typing import Any, Final\n\n\
         from pydantic import TypeAdapter\n\n\
         from cleveragents_contract._spec import MethodSpec\n\
         from . import errors, models\n\n",
    );
    let constants = [
        (
            "PROTOCOL_VERSION",
            "The A2A protocol version spoken: the newest that is not a draft.",
            fact("protocolVersion", &base.released_protocol_version())?,
        ),
        (
            "A2A_VERSION_HEADER",
            "HTTP header carrying the A2A protocol version.",
            fact("versionHeader", &base.info.version_header)?,
        ),
        (
            "A2A_EXTENSIONS_HEADER",
            "HTTP header listing the extensions activated.",
            fact("extensionsHeader", &base.info.extensions_header)?,
        ),
        (
            "EXTENSION_VERSION_HEADER",
            "HTTP header carrying the extension's minor version wanted.",
            fact("versionHeader", &first.info.version_header)?,
        ),
        (
            "STDIO_BINDING_URI",
            "URI of the stdio binding.",
            fact("stdioBindingUri", &first.info.stdio_binding_uri)?,
        ),
        (
            "DEFAULT_NAMESPACE",
            "The namespace of a call that names none.",
            fact("defaultNamespace", &first.info.default_namespace)?,
        ),
    ];
    let mut exported: Vec<String> = ["EXTENSION_URIS", "EXTENSION_VERSIONS", "METHODS", "MethodSpec"]
        .map(String::from)
        .to_vec();
    for (name, about, value) in constants {
        exported.push(name.to_string());
        out.push_str(&format!("{name}: Final = {}\n", literal(&value)));
        out.push_str(&docstring(about, ""));
    }
    let uris: Vec<String> = extensions(input)
        .filter_map(|c| c.info.extension_uri.as_deref().map(literal))
        .collect();
    out.push_str(&format!("EXTENSION_URIS: Final = ({},)\n", uris.join(", ")));
    out.push_str(&docstring(
        "The URIs of the extensions this package speaks, activated on every call.",
        "",
    ));
    let versions: Vec<String> = first.info.versions.iter().map(|v| literal(v)).collect();
    out.push_str(&format!(
        "EXTENSION_VERSIONS: Final = ({},)\n",
        versions.join(", ")
    ));
    out.push_str(&docstring(
        "The extension's minor versions the server serves, oldest first.",
        "",
    ));
    let mut names = Vec::new();
    for contract in extensions(input) {
        for method in &contract.methods {
            let constant = method_const(contract, method);
            out.push('\n');
            out.push_str(&method_spec(contract, method, &constant, scope)?);
            names.push(constant);
        }
    }
    out.push_str("\n\nMETHODS: Final[Mapping[str, MethodSpec[Any, Any]]] = {\n");
    out.push_str("    spec.name: spec\n    for spec in (\n");
    for name in &names {
        out.push_str(&format!("        {name},\n"));
    }
    out.push_str("    )\n}\n");
    out.push_str(&docstring(
        "Every method of the extensions (the stdio binding's too), by wire name.",
        "",
    ));
    exported.extend(names);
    exported.sort();
    out.push_str("\n__all__ = [\n");
    for name in exported {
        out.push_str(&format!("    {},\n", literal(&name)));
    }
    out.push_str("]\n");
    Ok(out)
}

/// One method's table entry.
fn method_spec(contract: &Contract, method: &MethodDef, constant: &str, scope: &Scope) -> Result<String> {
    if !scope.is_local(&method.params) {
        return Err(Error::schema(
            &contract.file,
            format!(
                "x-methods.{}: params `{}` is not an extension definition",
                method.name, method.params
            ),
        ));
    }
    let params = scope.named(&method.params)?;
    let result = scope.named(&method.result)?;
    let errors: Vec<String> = method.errors.iter().map(|e| format!("errors.{e}")).collect();
    let optional = |value: &Option<String>| value.as_deref().map_or("None".to_string(), literal);
    Ok(format!(
        "{constant}: Final[MethodSpec[models.{params}, models.{result}]] = MethodSpec(\n    \
         name={name},\n    params=models.{params},\n    result=TypeAdapter(models.{result}),\n    \
         streaming={streaming},\n    errors=({errors}),\n    domain={domain},\n    since={since},\n    \
         binding={binding},\n    notification={notification},\n)\n{doc}",
        name = literal(&method.name),
        streaming = if method.streaming { "True" } else { "False" },
        errors = if errors.is_empty() {
            String::new()
        } else {
            format!("{},", errors.join(", "))
        },
        domain = literal(&contract.info.error_domain),
        since = optional(&method.since),
        binding = optional(&method.binding),
        notification = if method.notification { "True" } else { "False" },
        doc = docstring(&method.description, ""),
    ))
}

/// The text of `client.py`: `Client` and `AsyncClient`, one method per
/// dispatched extension method (the binding's own methods are the transport's).
pub fn render_client(input: &Input, scope: &Scope) -> Result<String> {
    let mut out = String::from(BANNER);
    out.push_str(
        "\"\"\"The typed clients: one method per extension method.\"\"\"\n\n\
         from __future__ import annotations\n\n\
         from collections.abc import AsyncGenerator, Generator\n\
         from typing import ClassVar\n\n\
         from cleveragents_contract._client import AsyncClientBase, SyncClientBase\n\
         from . import methods, models\n\n\
         __all__ = [\"AsyncClient\", \"Client\"]\n\n",
    );
    for (class, base, asynchronous) in [
        ("Client", "SyncClientBase", false),
        ("AsyncClient", "AsyncClientBase", true),
    ] {
        out.push_str(&format!("\nclass {class}({base}):\n"));
        let about = if asynchronous {
            "Calls every extension method, awaiting each answer; streams are async iterators."
        } else {
            "Calls every extension method, blocking until each answer; streams are iterators."
        };
        out.push_str(&docstring(about, "    "));
        out.push_str("\n    extension_uris: ClassVar[tuple[str, ...]] = methods.EXTENSION_URIS\n");
        out.push_str(&docstring(
            "The extensions the client activates: every one it has methods of.",
            "    ",
        ));
        for contract in extensions(input) {
            for method in contract.methods.iter().filter(|m| m.binding.is_none()) {
                out.push('\n');
                out.push_str(&client_method(contract, method, scope, asynchronous)?);
            }
        }
    }
    Ok(out)
}

fn client_method(
    contract: &Contract,
    method: &MethodDef,
    scope: &Scope,
    asynchronous: bool,
) -> Result<String> {
    let name = method_name(contract, &method.name);
    let constant = method_const(contract, method);
    let params = scope.named(&method.params)?;
    let result = scope.named(&method.result)?;
    let (signature, argument) = if scope.all_optional(&method.params) {
        (
            format!("params: models.{params} | None = None, /"),
            format!("models.{params}() if params is None else params"),
        )
    } else {
        (format!("params: models.{params}, /"), "params".to_string())
    };
    let mut doc = method.description.clone();
    if !method.errors.is_empty() {
        doc.push_str(&format!("\n\nRaises: {}.", method.errors.join(", ")));
    }
    if let Some(since) = &method.since {
        doc.push_str(&format!(" Since extension version {since}."));
    }
    let mut out = String::new();
    if method.streaming {
        let iterator = if asynchronous {
            "AsyncGenerator"
        } else {
            "Generator"
        };
        let rest = if asynchronous { "None" } else { "None, None" };
        out.push_str(&format!(
            "    def {name}(\n        self, {signature}, *, last_event_id: int | None = None\n    ) -> {iterator}[models.{result}, {rest}]:\n"
        ));
        doc.push_str("\n\nWith ``last_event_id`` the stream resumes after that event (SSE Last-Event-ID, stdio stream/resume).");
        out.push_str(&docstring(&doc, "        "));
        out.push_str(&format!(
            "        return self._stream(methods.{constant}, {argument}, last_event_id)\n"
        ));
    } else {
        let (def, wait) = if asynchronous {
            ("async def", "await ")
        } else {
            ("def", "")
        };
        out.push_str(&format!(
            "    {def} {name}(self, {signature}) -> models.{result}:\n"
        ));
        out.push_str(&docstring(&doc, "        "));
        out.push_str(&format!(
            "        return {wait}self._call(methods.{constant}, {argument})\n"
        ));
    }
    Ok(out)
}
