//! The drift gate: the committed `src/gen/` is exactly what the schemas produce
//! now. Editing a schema without regenerating fails here.

mod common;

#[test]
fn committed_code_matches_the_schemas() {
    let root = common::workspace_root();
    let output = codegen::generate_workspace(&root).expect("generation succeeds");
    let stale = codegen::stale_files(&root.join(codegen::OUTPUT_DIR), &output).expect("compare");
    assert!(
        stale.is_empty(),
        "generated/src/gen is stale ({stale:?}); run `cargo run -p cleveragents-codegen`"
    );
}

#[test]
fn committed_bindings_match_the_schemas() {
    let root = common::workspace_root();
    let files = codegen::bindings::generate_workspace(&root).expect("generation succeeds");
    let dir = root.join(codegen::bindings::BINDINGS_DIR);
    let stale = codegen::stale_among(&dir, &files, &codegen::bindings::existing_files(&dir));
    assert!(
        stale.is_empty(),
        "bindings/ is stale ({stale:?}); run `cargo run -p cleveragents-codegen`"
    );
}

#[test]
fn generation_is_deterministic() {
    let schemas = common::schemas();
    let first = codegen::generate(&schemas).expect("first run");
    let second = codegen::generate(&schemas).expect("second run");
    assert_eq!(first, second);
}

#[test]
fn a_schema_edit_makes_the_committed_code_stale() {
    let mut schemas = common::schemas();
    let task = &mut schemas[0].1["definitions"]["Task"]["description"];
    *task = serde_json::json!("An edited description.");
    let root = common::workspace_root();
    let dialects = codegen::load_dialects(&root.join("schema")).expect("dialect schemas");
    let output = codegen::generate_with_dialects(&schemas, &dialects).expect("generation succeeds");
    let stale = codegen::stale_files(&root.join(codegen::OUTPUT_DIR), &output).expect("compare");
    // The description reaches the Rust docs, the OpenRPC document and the
    // gRPC binding's proto (as a comment).
    assert_eq!(stale, ["a2a.proto", "openrpc.json", "types.rs"]);
}

/// A downstream build script generates against the schemas the codegen crate
/// embeds, and its code reuses this crate's types: both must be the files
/// this crate was generated from.
#[test]
fn the_schemas_embedded_for_downstream_builds_are_this_crates() {
    let embedded: Vec<(&str, &str)> = codegen::extension::CONTRACT_SCHEMAS.to_vec();
    assert_eq!(
        embedded,
        [
            ("a2a.json", a2a::schema::A2A_JSON),
            ("cleveragents-ext.json", a2a::schema::EXTENSION_JSON)
        ]
    );
    assert_eq!(
        embedded.iter().map(|(f, _)| *f).collect::<Vec<_>>(),
        codegen::SCHEMA_FILES
    );
}

#[test]
fn a_proto_annotation_edit_makes_only_the_proto_stale() {
    let mut schemas = common::schemas();
    let number = &mut schemas[0].1["definitions"]["Task"]["properties"]["contextId"]["x-proto"]["number"];
    assert_eq!(*number, serde_json::json!(2), "the field the edit is about");
    *number = serde_json::json!(12);
    let root = common::workspace_root();
    let dialects = codegen::load_dialects(&root.join("schema")).expect("dialect schemas");
    let output = codegen::generate_with_dialects(&schemas, &dialects).expect("generation succeeds");
    let stale = codegen::stale_files(&root.join(codegen::OUTPUT_DIR), &output).expect("compare");
    assert_eq!(stale, ["a2a.proto"]);
    assert!(output.files["a2a.proto"].contains("  string context_id = 12;\n"));
}
