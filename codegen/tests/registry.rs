//! The registry model on the project's own schemas: every kind is resolved
//! from its five methods, and a schema that breaks the pattern is refused with
//! the reason.

use serde_json::Value;
use std::path::Path;

fn schemas() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    codegen::load_schemas(&dir, codegen::SCHEMA_FILES).expect("schemas load")
}

fn error_of(schemas: &[(String, Value)]) -> String {
    codegen::generate(schemas)
        .expect_err("the generator refuses the schema")
        .to_string()
}

#[test]
fn every_kind_of_the_kind_enum_resolves_from_its_methods() {
    let output = codegen::generate(&schemas()).expect("schemas generate");
    let registry = &output.files["registry.rs"];
    assert!(registry.contains(r#"name: "resource-type","#), "{registry}");
    assert!(registry.contains(r#"label: "Resource type","#));
    assert!(registry.contains(r#"spec_field: "resourceType","#));
    assert!(registry.contains(r#""_cleveragents/registry/automation-profiles/remove","#));
    assert!(registry.contains("impl RegistryEntity for crate::types::Invariant"));
    let handlers = &output.files["handlers.rs"];
    assert!(handlers.contains("self.registry_update::<crate::types::ResourceType>(ctx, params)"));
}

#[test]
fn a_kind_without_its_methods_is_refused() {
    let mut schemas = schemas();
    let ext = &mut schemas[1].1;
    ext["x-methods"]
        .as_object_mut()
        .expect("methods")
        .remove("_cleveragents/registry/skills/update");
    assert_eq!(
        error_of(&schemas),
        "cleveragents-ext.json: x-registry: kind `REGISTRY_KIND_SKILL` lacks the method `_cleveragents/registry/skills/update`"
    );
}

#[test]
fn an_undeclared_kind_is_refused() {
    let mut schemas = schemas();
    let ext = &mut schemas[1].1;
    ext["x-registry"]["kinds"]
        .as_object_mut()
        .expect("kinds")
        .remove("REGISTRY_KIND_INVARIANT");
    assert_eq!(
        error_of(&schemas),
        "cleveragents-ext.json: x-registry: kind `REGISTRY_KIND_INVARIANT` of `RegistryKind` is not declared"
    );
}
