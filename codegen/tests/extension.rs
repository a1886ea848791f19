//! The build-script route: an extension schema generated beside the embedded
//! contract, and the builder's errors for schemas that cannot stand beside it.

use codegen::extension::Builder;
use serde_json::{json, Value};

/// A minimal valid extension: one method, its registry, a type naming an A2A one.
fn extension() -> Value {
    let error = |code: i64, reason: &str| {
        json!({"code": code, "reason": reason, "httpStatus": 400, "grpcStatus": "INVALID_ARGUMENT",
               "message": reason, "description": reason})
    };
    json!({
        "x-contract": {"name": "demo", "errorDomain": "urn:example:demo:v1",
                       "extensionUri": "urn:example:demo:v1", "versions": ["1.0"], "methodPrefix": "_demo/"},
        "x-services": {"demo": {"description": "A demo."}},
        "x-errors": {
            "DemoParseError": error(-32700, "PARSE_ERROR"),
            "DemoInvalidRequest": error(-32600, "INVALID_REQUEST"),
            "DemoMethodNotFound": error(-32601, "METHOD_NOT_FOUND"),
            "DemoInvalidParams": error(-32602, "INVALID_PARAMS"),
            "DemoInternalError": error(-32603, "INTERNAL_ERROR")
        },
        "x-methods": {
            "_demo/ping": {"description": "Answers a ping.", "service": "demo", "params": "PingParams",
                           "result": "PingResult", "streaming": false, "access": "read", "namespaced": false,
                           "examples": [{"summary": "A ping", "params": {}, "result": {"state": "TASK_STATE_WORKING"}}]}
        },
        "definitions": {
            "PingParams": {"type": "object", "properties": {}, "additionalProperties": false},
            "PingResult": {"type": "object", "required": ["state"], "additionalProperties": false,
                           "properties": {"state": {"$ref": "a2a.json#/definitions/TaskState"}}}
        }
    })
}

fn error_of(schema: Value) -> String {
    match Builder::from_value("demo-ext.json", schema).generate() {
        Ok(_) => panic!("the schema was accepted"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn an_extension_gets_its_modules_and_reuses_the_contracts_types() {
    let source = Builder::from_value("demo-ext.json", extension())
        .generate()
        .expect("the extension generates");
    for module in [
        "types",
        "errors",
        "methods",
        "handlers",
        "client",
        "rpc",
        "extension",
    ] {
        assert!(
            source.contains(&format!("pub mod {module} {{")),
            "module {module}"
        );
    }
    assert!(source.contains("pub use ::a2a::types::*;"));
    assert!(source.contains("pub struct PingParams"));
    assert!(source.contains("pub trait DemoHandler"));
    assert!(source.contains("pub trait DemoClient"));
    assert!(source.contains("pub const METHOD_PREFIX: &str = \"_demo/\";"));
    // The A2A type is the contract crate's, not generated again; nothing of
    // the contract's own definitions is either.
    assert!(source.contains("pub state: TaskState"), "{source}");
    for contract_type in [
        "pub enum TaskState",
        "pub struct Task ",
        "pub enum BadRequestType",
    ] {
        assert!(
            !source.contains(contract_type),
            "{contract_type} is the contract's"
        );
    }
    // The runtime is reached through the contract crate.
    assert!(!source.contains("a2a_runtime"));
    assert!(source.contains("::a2a::runtime::MethodDescriptor<Contract>"));
}

#[test]
fn a_method_of_the_contract_is_refused() {
    let mut schema = extension();
    schema["x-methods"]["GetTask"] = schema["x-methods"]["_demo/ping"].clone();
    assert_eq!(
        error_of(schema),
        "demo-ext.json: x-methods.GetTask: the contract already has a method of that name"
    );
}

#[test]
fn a_method_outside_the_prefix_is_refused() {
    let mut schema = extension();
    schema["x-methods"]["_other/ping"] = schema["x-methods"]["_demo/ping"].clone();
    assert_eq!(
        error_of(schema),
        "demo-ext.json: x-methods._other/ping: does not start with the extension's method prefix `_demo/`"
    );
}

#[test]
fn a_method_whose_rust_name_is_the_contracts_is_refused() {
    let mut schema = extension();
    schema["x-methods"]["_demo/health/check"] = schema["x-methods"]["_demo/ping"].clone();
    assert_eq!(
        error_of(schema),
        "demo-ext.json: methods `_cleveragents/health/check` and `_demo/health/check` map to the same Rust name `HealthCheck`"
    );
}

#[test]
fn a_streaming_method_is_refused() {
    let mut schema = extension();
    schema["x-methods"]["_demo/ping"]["streaming"] = json!(true);
    schema["x-methods"]["_demo/ping"]["examples"][0] = json!({"summary": "s", "params": {}, "events": []});
    assert_eq!(
        error_of(schema),
        "demo-ext.json: x-methods._demo/ping: the transports stream only the contract's methods; an extension's methods answer once"
    );
}

#[test]
fn the_prefix_must_be_an_extensions_own() {
    for (prefix, message) in [
        (
            json!("_cleveragents/"),
            "demo-ext.json: x-contract.methodPrefix: `_cleveragents/` overlaps the prefix `_cleveragents/` of the contract's `cleveragents`",
        ),
        (
            json!("demo/"),
            "demo-ext.json: x-contract.methodPrefix: `demo/` is not of the form `_name/` (one segment, a leading underscore, a trailing slash)",
        ),
        (
            Value::Null,
            "demo-ext.json: x-contract.methodPrefix: an extension needs a method prefix of its own (like `_cleveragents/`)",
        ),
    ] {
        let mut schema = extension();
        schema["x-contract"]["methodPrefix"] = prefix;
        assert_eq!(error_of(schema), message);
    }
}

#[test]
fn the_uri_and_domain_must_be_the_extensions_own() {
    let mut schema = extension();
    schema["x-contract"]["extensionUri"] = json!("urn:cleveragents:extensions:v1");
    assert_eq!(
        error_of(schema),
        "demo-ext.json: x-contract.extensionUri: `urn:cleveragents:extensions:v1` is the same as the contract's `cleveragents`"
    );
    let mut schema = extension();
    schema["x-contract"]["errorDomain"] = json!("a2a-protocol.org");
    assert_eq!(
        error_of(schema),
        "demo-ext.json: x-contract.errorDomain: `a2a-protocol.org` is the same as the contract's `a2a`"
    );
}

#[test]
fn a_definition_of_the_contracts_name_is_refused() {
    let mut schema = extension();
    schema["definitions"]["Task"] = json!({"type": "object"});
    assert_eq!(
        error_of(schema),
        "demo-ext.json: definition `Task` is defined twice across the schemas"
    );
}

#[test]
fn bad_schemas_are_reported_not_panicked_on() {
    assert_eq!(
        error_of(json!([1, 2])),
        "demo-ext.json: the schema is not a JSON object"
    );
    let mut schema = extension();
    schema["x-methods"]["_demo/ping"]["params"] = json!("Nowhere");
    assert_eq!(
        error_of(schema),
        "demo-ext.json: x-methods._demo/ping: no definition `Nowhere`"
    );
    let mut schema = extension();
    schema["definitions"]["PingResult"]["properties"]["state"] =
        json!({"$ref": "a2a.json#/definitions/Nothing"});
    assert_eq!(
        error_of(schema),
        "bundle: `PingResult` refers to unknown `#/definitions/Nothing`"
    );
    let missing = Builder::new("no/such/file.json").generate().expect_err("no file");
    assert!(
        missing.to_string().starts_with("reading no/such/file.json: "),
        "{missing}"
    );
}
