//! Snapshot tests of the generator on small fixture schemas that hold every
//! shape it supports. Set `UPDATE_SNAPSHOTS=1` to rewrite the snapshots after an
//! intended change, then review the diff. Writing the output is checked too.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn load(files: &[&str]) -> Vec<(String, Value)> {
    codegen::load_schemas(&fixtures(), files).expect("fixtures load")
}

fn check_snapshots(name: &str, files: &[&str]) {
    let output = codegen::generate(&load(files)).expect("fixture generates");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        codegen::write_output(&dir, &output).expect("snapshots written");
    }
    let stale = codegen::stale_files(&dir, &output).expect("compare");
    assert!(
        stale.is_empty(),
        "snapshots {stale:?} of `{name}` differ; rerun with UPDATE_SNAPSHOTS=1 and review"
    );
}

#[test]
fn single_contract_snapshot() {
    check_snapshots("mini", &["mini.json"]);
}

#[test]
fn contract_with_extension_snapshot() {
    check_snapshots("mini-with-ext", &["mini.json", "mini-ext.json"]);
}

fn generation_error(mutate: impl FnOnce(&mut Vec<(String, Value)>)) -> String {
    let mut schemas = load(&["mini.json", "mini-ext.json"]);
    mutate(&mut schemas);
    codegen::generate(&schemas)
        .expect_err("generation must fail")
        .to_string()
}

#[test]
fn method_naming_an_unknown_definition_is_rejected() {
    let error = generation_error(|s| s[0].1["x-methods"]["GetNote"]["params"] = "Nope".into());
    assert_eq!(error, "mini.json: x-methods.GetNote: no definition `Nope`");
}

#[test]
fn method_naming_an_unknown_error_is_rejected() {
    let error = generation_error(|s| s[0].1["x-methods"]["GetNote"]["errors"] = serde_json::json!(["Gone"]));
    assert_eq!(error, "mini.json: x-methods.GetNote: unknown error `Gone`");
}

#[test]
fn definition_in_both_files_is_rejected() {
    let error = generation_error(|s| {
        let note = s[0].1["definitions"]["Note"].clone();
        s[1].1["definitions"]["Note"] = note;
    });
    assert_eq!(
        error,
        "mini-ext.json: definition `Note` is defined twice across the schemas"
    );
}

#[test]
fn dangling_reference_is_rejected() {
    let error = generation_error(|s| {
        s[1].1["definitions"]["ArchivePutParams"]["properties"]["note"]["$ref"] =
            "mini.json#/definitions/Gone".into()
    });
    assert_eq!(
        error,
        "bundle: `ArchivePutParams` refers to unknown `#/definitions/Gone`"
    );
    // Inside a list (a oneOf's choices) too.
    let error = generation_error(|s| {
        s[1].1["definitions"]["ArchivePutParams"]["properties"]["note"] =
            serde_json::json!({"oneOf": [{"$ref": "mini.json#/definitions/Gone"}]})
    });
    assert_eq!(
        error,
        "bundle: `ArchivePutParams` refers to unknown `#/definitions/Gone`"
    );
}

#[test]
fn method_without_example_is_rejected() {
    let error = generation_error(|s| s[0].1["x-methods"]["GetNote"]["examples"] = serde_json::json!([]));
    assert_eq!(error, "mini.json: x-methods.GetNote: needs at least one example");
}

#[test]
fn since_must_not_be_newer_than_the_newest_version() {
    let error = generation_error(|s| s[1].1["x-methods"]["_mini/archive/put"]["since"] = "2.0".into());
    assert_eq!(
        error,
        "mini-ext.json: x-methods._mini/archive/put: `since` 2.0 is not a version up to the newest declared"
    );
}

#[test]
fn since_must_be_a_version() {
    let error = generation_error(|s| s[1].1["x-methods"]["_mini/archive/put"]["since"] = "soon".into());
    assert_eq!(
        error,
        "mini-ext.json: x-methods._mini/archive/put: `since` soon is not a version up to the newest declared"
    );
}

#[test]
fn a_capability_must_be_declared() {
    let error = generation_error(|s| s[0].1["x-methods"]["GetNote"]["capability"] = "telepathy".into());
    assert_eq!(
        error,
        "mini.json: x-methods.GetNote: capability `telepathy` is not declared in any x-capabilities"
    );
}

#[test]
fn a_capability_names_a_registered_unsupported_error() {
    let error =
        generation_error(|s| s[0].1["x-capabilities"]["streaming"]["unsupportedError"] = "Nope".into());
    assert_eq!(error, "mini.json: x-capabilities.streaming: unknown error `Nope`");
}

#[test]
fn a_spec_section_is_a_section_number() {
    let error = generation_error(|s| s[0].1["x-methods"]["GetNote"]["specSection"] = "§3".into());
    assert_eq!(
        error,
        "mini.json: x-methods.GetNote: specSection: `§3` is not a section number like 3.1.3"
    );
}

#[test]
fn enum_description_of_a_value_the_enum_lacks_is_rejected() {
    let error = generation_error(|s| {
        s[0].1["definitions"]["NoteState"]["x-enum-descriptions"] =
            serde_json::json!({"NOTE_STATE_GONE": "Removed."})
    });
    assert_eq!(
        error,
        "bundle: `NoteState`: x-enum-descriptions names `NOTE_STATE_GONE`, which is not a value of the enum"
    );
}

#[test]
fn a_base_protocol_error_needs_its_name() {
    let error = generation_error(|s| {
        s[0].1["x-errors"]["NoteNotFound"]
            .as_object_mut()
            .expect("an error entry")
            .remove("name");
    });
    assert_eq!(
        error,
        "mini.json: x-errors.NoteNotFound: the base protocol's errors carry the `name` the specification gives them"
    );
}

#[test]
fn an_error_name_is_given_once() {
    let error = generation_error(|s| s[1].1["x-errors"]["ExtNotFound"]["name"] = "NoteNotFoundError".into());
    assert_eq!(
        error,
        "mini-ext.json: x-errors.ExtNotFound: the name `NoteNotFoundError` is also error `NoteNotFound`'s"
    );
}

#[test]
fn a_derived_error_name_never_looks_like_the_protocols() {
    let error = generation_error(|s| s[1].1["x-contract"]["name"] = "a2a_cli".into());
    assert_eq!(
        error,
        "mini-ext.json: x-errors.ExtParseError: the derived name `A2A_CLI_PARSE_ERROR` could be taken for one of the protocol's; give a `name`"
    );
}

/// An extension's errors without a `name` are named after the contract and
/// their reason; one with a `name` keeps it.
#[test]
fn extension_error_names_are_derived_from_the_reason() {
    let output = codegen::generate(&load(&["mini.json", "mini-ext.json"])).expect("fixture generates");
    let errors = &output.files["errors.rs"];
    assert!(errors.contains(r#"Self::ExtParseError => "MINIEXT_PARSE_ERROR""#));
    assert!(errors.contains(r#"Self::ExtNotFound => "MiniExtNotFound""#));
    assert!(errors.contains(r#"Self::ParseError => "JSONParseError""#));
}

#[test]
fn a_binding_name_is_given_once_in_any_case() {
    let error = generation_error(|s| s[0].1["x-bindings"]["HttpJson"]["name"] = "jsonrpc".into());
    assert_eq!(
        error,
        "mini.json: x-bindings.HttpJson: the name `jsonrpc` is given twice"
    );
}

#[test]
fn a_binding_key_is_a_rust_variant_name() {
    let error = generation_error(|s| {
        let binding = s[0].1["x-bindings"]["HttpJson"].clone();
        s[0].1["x-bindings"]["http+json"] = binding;
    });
    assert_eq!(
        error,
        "mini.json: x-bindings.http+json: the key is the Rust variant name, in PascalCase"
    );
}

#[test]
fn a_binding_name_makes_a_constant() {
    let error = generation_error(|s| {
        s[0].1["x-bindings"]["HttpJsonToo"] = serde_json::json!({"name": "HTTP_JSON", "description": "Twin."})
    });
    assert_eq!(
        error,
        "mini.json: x-bindings.HttpJsonToo: the name `HTTP_JSON` makes no Rust constant of its own (`HTTP_JSON`)"
    );
    let error = generation_error(|s| s[0].1["x-bindings"]["HttpJson"]["name"] = "+".into());
    assert_eq!(
        error,
        "mini.json: x-bindings.HttpJson: the name `+` makes no Rust constant of its own (``)"
    );
}

/// Writing the output puts every file in place and removes a generated file
/// no longer produced, so nothing is stale afterwards.
#[test]
fn written_output_is_current_and_drops_what_is_no_longer_produced() {
    let output = codegen::generate(&load(&["mini.json"])).expect("fixture generates");
    let dir = std::env::temp_dir().join(format!("codegen-output-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory");
    std::fs::write(dir.join("gone.rs"), "// no longer produced\n").expect("a stale file");
    let stale = codegen::stale_files(&dir, &output).expect("compare");
    assert!(stale.contains(&"gone.rs".to_string()), "{stale:?}");
    assert_eq!(stale.len(), output.files.len() + 1);
    codegen::write_output(&dir, &output).expect("written");
    let stale = codegen::stale_files(&dir, &output).expect("compare");
    assert_eq!(stale, Vec::<String>::new());
    assert!(!dir.join("gone.rs").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
