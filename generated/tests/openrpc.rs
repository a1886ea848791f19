//! The OpenRPC document: it describes exactly the method table (every
//! method, its streaming flag, result, errors with their codes, params that
//! are the properties of its params type), and it validates against the
//! official OpenRPC meta-schema (`generated/openrpc/validate.sh`, which
//! installs the meta-schema from npm), while a broken copy does not.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn document() -> Value {
    serde_json::from_str(a2a::openrpc::DOCUMENT).expect("the document is JSON")
}

/// Follows a `#/components/...` reference inside the document.
fn resolve<'a>(document: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference.strip_prefix('#').expect("a local reference");
    document
        .pointer(pointer)
        .unwrap_or_else(|| panic!("{reference} resolves"))
}

#[test]
fn the_document_lists_exactly_the_method_table() {
    let document = document();
    let methods = document["methods"].as_array().expect("methods");
    let listed: Vec<&str> = methods.iter().filter_map(|m| m["name"].as_str()).collect();
    let table: Vec<&str> = a2a::METHODS.iter().map(|d| d.name).collect();
    assert_eq!(listed, table);
    for (method, descriptor) in methods.iter().zip(a2a::METHODS.iter()) {
        let name = descriptor.name;
        assert_eq!(method["x-streaming"], descriptor.streaming, "{name}");
        assert_eq!(method["paramStructure"], "by-name", "{name}");
        if descriptor.notification {
            assert!(
                method.get("result").is_none(),
                "{name}: a notification has no result"
            );
        } else {
            let result = format!("#/components/schemas/{}", descriptor.result_type);
            assert_eq!(method["result"]["schema"]["$ref"], result.as_str(), "{name}");
        }
        let codes: Vec<i64> = method["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| {
                resolve(&document, e["$ref"].as_str().expect("a reference"))["code"]
                    .as_i64()
                    .expect("a code")
            })
            .collect();
        let expected: Vec<i64> = descriptor.errors.iter().map(|kind| kind.code()).collect();
        assert_eq!(codes, expected, "{name}: errors");
        let params_type = resolve(
            &document,
            &format!("#/components/schemas/{}", descriptor.params_type),
        );
        let properties: BTreeSet<&str> = params_type["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let params: BTreeSet<&str> = method["params"]
            .as_array()
            .expect("params")
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        assert_eq!(
            params, properties,
            "{name}: params are the params type's properties"
        );
        assert_eq!(method["x-since"].as_str(), descriptor.since, "{name}");
    }
}

#[test]
fn every_reference_resolves_inside_the_document() {
    fn walk<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    match (key.as_str(), child) {
                        ("$ref", Value::String(target)) => found.push(target),
                        _ => walk(child, found),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, found)),
            _ => {}
        }
    }
    let document = document();
    let mut references = Vec::new();
    walk(&document, &mut references);
    assert!(references.len() > 100, "the document uses references");
    for reference in references {
        assert!(reference.starts_with("#/components/"), "{reference}");
        resolve(&document, reference);
    }
}

/// Whether the validator accepts the document at `path`, and what it printed
/// (its verdict on stdout; on stderr, what it installed first, if anything).
fn validate(path: &Path) -> (bool, String, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/openrpc/validate.sh");
    let output = Command::new("bash")
        .arg(script)
        .arg(path)
        .output()
        .expect("validate.sh runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).to_string();
    (
        output.status.success(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

#[test]
fn the_document_validates_against_the_openrpc_meta_schema_and_a_broken_one_does_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = dir.path().join("openrpc.json");
    std::fs::write(&good, a2a::openrpc::DOCUMENT).expect("write");
    let (ok, verdict, log) = validate(&good);
    assert!(ok, "the generated document is valid OpenRPC:\n{verdict}{log}");
    assert_eq!(verdict, "valid\n");
    let mut broken = document();
    broken["methods"][0]["paramStructure"] = "by-guess".into();
    let bad = dir.path().join("broken.json");
    std::fs::write(&bad, broken.to_string()).expect("write");
    let (ok, verdict, log) = validate(&bad);
    assert!(
        !ok,
        "a document with an unknown paramStructure is refused:\n{verdict}{log}"
    );
    assert!(verdict.contains("/methods/0/paramStructure"), "{verdict}");
}
