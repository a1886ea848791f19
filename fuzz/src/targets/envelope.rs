//! The JSON-RPC request decoder: a message is either a request (with a method
//! name and, when it has one, an id the response can echo) or a refusal that
//! is one of JSON-RPC's own envelope errors and encodes as a valid response.

use server::jsonrpc;

/// The nesting limit the transports use by default.
const MAX_DEPTH: usize = 64;

pub fn run(data: &[u8]) {
    match jsonrpc::parse(data, MAX_DEPTH) {
        Ok(request) => {
            assert_eq!(request.id.is_none(), request.request_id.is_none(), "{request:?}");
            if let Some(id) = &request.id {
                let encoded = jsonrpc::success(id, serde_json::json!({}));
                let echoed: serde_json::Value = serde_json::from_slice(&encoded).expect("a response is JSON");
                assert_eq!(&echoed["id"], id);
            }
        }
        Err(rejected) => {
            let code = rejected.error.code;
            assert!(
                matches!(code, -32700 | -32600 | -32601 | -32602),
                "an envelope refusal is a JSON-RPC error, got {code}"
            );
            let encoded = jsonrpc::failure(&rejected.id, &rejected.error);
            let response: serde_json::Value = serde_json::from_slice(&encoded).expect("a refusal is JSON");
            assert_eq!(response["jsonrpc"], "2.0");
            assert_eq!(response["error"]["code"], code);
            assert_eq!(response["id"], rejected.id);
        }
    }
}
