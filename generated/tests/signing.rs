//! The Agent Card's canonical form and JWS signing input (spec §8.4), against
//! the spec's own examples (§8.4.1 and §8.4.2, copied here as the data they
//! are) and RFC 8785's ordering and number rules.

use a2a::signing::{canonical_card, decode_protected_header, protected_header, signing_input};
use base64::Engine as _;
use serde_json::{json, Value};

fn canonical_text(card: &Value) -> String {
    String::from_utf8(canonical_card(card)).expect("canonical JSON is UTF-8")
}

#[test]
fn the_spec_example_card_canonicalizes_to_the_spec_output() {
    // §8.4.1 "Original Agent Card fragment" and its canonical form.
    let original = json!({
        "name": "Example Agent",
        "description": "",
        "capabilities": {"streaming": false, "pushNotifications": false, "extensions": []},
        "skills": []
    });
    assert_eq!(
        canonical_text(&original),
        r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#
    );
}

#[test]
fn presence_rules_come_from_the_schema() {
    let card = json!({
        "name": "A",
        "description": "d",
        "version": "1",
        "supportedInterfaces": [{"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": ""}],
        "capabilities": {
            "extendedAgentCard": false,
            "extensions": [{"uri": "urn:x", "description": "", "required": false, "params": {}}]
        },
        "securitySchemes": {},
        "securityRequirements": [],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "", "tags": [], "examples": []}],
        "iconUrl": "",
        "documentationUrl": "https://docs.example",
        "signatures": [{"protected": "p", "signature": "s"}],
        "url": "http://a/",
        "preferredTransport": "JSONRPC"
    });
    assert_eq!(
        serde_json::from_slice::<Value>(&canonical_card(&card)).expect("JSON"),
        json!({
            "name": "A",
            "description": "d",
            "version": "1",
            // An interface's `tenant` has implicit presence: "" is unset.
            "supportedInterfaces": [{"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            // Explicit presence keeps a false flag; an extension's `required:
            // false` and `description: ""` are defaults; `params` is a message.
            "capabilities": {"extendedAgentCard": false, "extensions": [{"uri": "urn:x", "params": {}}]},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            // A skill's `description` and `tags` are required.
            "skills": [{"id": "s", "name": "S", "description": "", "tags": []}],
            // Explicit presence: an empty icon URL was set.
            "iconUrl": "",
            "documentationUrl": "https://docs.example",
            // Members the 1.0 schema does not name are signed as received.
            "url": "http://a/",
            "preferredTransport": "JSONRPC"
        })
    );
    assert!(!canonical_text(&card).contains("signatures"));
}

#[test]
fn security_schemes_are_pruned_through_their_one_of() {
    let card = json!({
        "name": "A", "description": "d", "version": "1", "skills": [], "capabilities": {},
        "supportedInterfaces": [], "defaultInputModes": [], "defaultOutputModes": [],
        "securitySchemes": {
            "key": {"apiKeySecurityScheme": {"description": "", "location": "header", "name": "X-Key"}},
            "oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://t", "refreshUrl": "", "scopes": {}}}}}
        }
    });
    let canonical: Value = serde_json::from_slice(&canonical_card(&card)).expect("JSON");
    assert_eq!(
        canonical["securitySchemes"],
        json!({
            "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}},
            // `refreshUrl` has implicit presence; `scopes` is required, empty or not.
            "oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}}}}}
        })
    );
}

#[test]
fn members_sort_by_utf16_code_units_and_numbers_take_ecmascript_form() {
    // RFC 8785 §3.2.3's sorting example: UTF-16 order puts U+1F600 (D83D DE00)
    // before U+FB33, where UTF-8 order would not.
    // Numbers as JSON text: RFC 8785's own examples include more digits than an f64 keeps.
    let numbers: Value =
        serde_json::from_str("[1e21, 1.5e-7, 2.0, 0.000001, -0.0, 333333333.33333329, 10, -7]")
            .expect("numbers");
    let card = json!({
        "x-sorting": {"\u{20ac}": 1, "\r": 2, "\u{fb33}": 3, "1": 4, "\u{1f600}": 5, "\u{80}": 6, "\u{f6}": 7},
        "x-numbers": numbers,
        "x-escapes": "\u{1}\t\"\\/\u{e9}"
    });
    assert_eq!(
        canonical_text(&card),
        "{\"x-escapes\":\"\\u0001\\t\\\"\\\\/\u{e9}\",\"x-numbers\":[1e+21,1.5e-7,2,0.000001,0,333333333.3333333,10,-7],\"x-sorting\":{\"\\r\":2,\"1\":4,\"\u{80}\":6,\"\u{f6}\":7,\"\u{20ac}\":1,\"\u{1f600}\":5,\"\u{fb33}\":3}}"
    );
}

#[test]
fn the_spec_example_signature_has_the_spec_header_and_an_es256_sized_value() {
    // §8.4.2's signature object and its decoded protected header.
    let protected = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSIsImprdSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vYWdlbnQvandrcy5qc29uIn0";
    let signature = "QFdkNLNszlGj3z3u0YQGt_T9LixY3qtdQpZmsTdDHDe3fXV9y9-B3m2-XgCpzuhiLt8E0tV6HXoZKHv4GtHgKQ";
    let header = decode_protected_header(protected).expect("base64url JSON");
    assert_eq!(
        Value::Object(header),
        json!({"alg": "ES256", "typ": "JOSE", "kid": "key-1", "jku": "https://example.com/agent/jwks.json"})
    );
    let value = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(signature)
        .expect("base64url");
    // ES256 signatures are R || S, 32 bytes each (RFC 7518 §3.4).
    assert_eq!(value.len(), 64);
    // Our header encodes the same members.
    let ours = protected_header("ES256", "key-1", Some("https://example.com/agent/jwks.json"));
    assert_eq!(decode_protected_header(&ours), decode_protected_header(protected));
}

#[test]
fn the_signing_input_is_the_header_a_dot_and_the_encoded_canonical_card() {
    let card = json!({"name": "Example Agent", "description": "", "capabilities": {}, "skills": []});
    let input = String::from_utf8(signing_input("HEADER", &card)).expect("ASCII");
    let (header, payload) = input.split_once('.').expect("a dot");
    assert_eq!(header, "HEADER");
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .expect("base64url");
    assert_eq!(payload, canonical_card(&card));
}
