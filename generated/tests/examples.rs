//! Every example in the schemas' method tables validates against its schema
//! definition and survives a round trip through the generated types unchanged.

mod common;

use a2a::find_method;
use serde_json::Value;

fn check(
    validator: &jsonschema::Validator,
    roundtrip: fn(Value) -> Result<Value, String>,
    value: &Value,
    what: &str,
) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not validate: {errors:?}\n{value:#}"
    );
    let back = roundtrip(value.clone()).unwrap_or_else(|e| panic!("{what} does not decode: {e}\n{value:#}"));
    assert_eq!(&back, value, "{what} changed in a round trip");
}

#[test]
fn every_example_validates_and_round_trips() {
    let definitions = common::bundled_definitions();
    let mut checked = 0;
    for (name, entry) in common::method_entries() {
        let descriptor = find_method(&name).unwrap_or_else(|| panic!("{name} missing from METHODS"));
        let params = common::validator(&definitions, descriptor.params_type);
        let result = common::validator(&definitions, descriptor.result_type);
        let examples = entry["examples"].as_array().expect("examples");
        assert!(!examples.is_empty(), "{name} has no example");
        for (i, example) in examples.iter().enumerate() {
            let what = format!("{name} example {i} params");
            check(&params, descriptor.roundtrip_params, &example["params"], &what);
            let outputs: Vec<&Value> = match example.get("events") {
                Some(events) => events.as_array().expect("events array").iter().collect(),
                None => vec![&example["result"]],
            };
            assert!(!outputs.is_empty(), "{name} example {i} has no output");
            for (j, output) in outputs.into_iter().enumerate() {
                check(
                    &result,
                    descriptor.roundtrip_result,
                    output,
                    &format!("{name} example {i} output {j}"),
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= a2a::METHODS.len(), "only {checked} outputs checked");
}

#[test]
fn request_envelopes_of_every_example_round_trip() {
    for (name, entry) in common::method_entries() {
        let descriptor = find_method(&name).expect("method");
        let mut envelope =
            serde_json::json!({ "jsonrpc": "2.0", "method": name, "params": entry["examples"][0]["params"] });
        if !descriptor.notification {
            envelope["id"] = serde_json::json!(7);
        }
        let back = (descriptor.roundtrip_request)(envelope.clone())
            .unwrap_or_else(|e| panic!("{name} request envelope does not decode: {e}"));
        assert_eq!(back, envelope, "{name} request envelope changed in a round trip");
    }
}
