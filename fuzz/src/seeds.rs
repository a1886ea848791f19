//! Starting inputs for every target, derived from the schemas' examples (every
//! method's params, results and events) and the server's own Agent Card, so a
//! method added to a schema is seeded without editing this crate.

use a2a::rpc::rest::render_call;
use a2a::{MethodDescriptor, METHODS};
use serde_json::{json, Value};

/// Each example of each method: (index in the table, method, example).
fn examples() -> impl Iterator<Item = (usize, &'static MethodDescriptor, &'static Value)> {
    METHODS.iter().enumerate().flat_map(|(index, method)| {
        a2a::schema::method_entry(method.name)
            .and_then(|entry| entry.get("examples"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(move |example| (index, method, example))
    })
}

fn request(id: usize, method: &str, params: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn line(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

pub fn envelope() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = examples()
        .enumerate()
        .map(|(n, (_, method, example))| line(&request(n, method.name, &example["params"])))
        .collect();
    for raw in [
        r#"{"jsonrpc":"2.0","method":"x"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":"a","method":7,"params":[]}"#,
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    ] {
        seeds.push(raw.as_bytes().to_vec());
    }
    seeds
}

/// An example's params behind the byte `params_selector`, and each of its
/// results and stream events behind `result_selector`: inputs of the targets
/// whose first byte chooses what the rest is.
fn selected(example: &Value, params_selector: u8, result_selector: u8) -> Vec<Vec<u8>> {
    let results = example.get("result").into_iter().chain(
        example
            .get("events")
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
    );
    std::iter::once((params_selector, &example["params"]))
        .chain(results.map(|result| (result_selector, result)))
        .map(|(selector, value)| [&[selector][..], &serde_json::to_vec(value).unwrap_or_default()].concat())
        .collect()
}

pub fn protojson() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (index, _, example) in examples() {
        let selector = (index % 0x80) as u8;
        seeds.extend(selected(example, selector, selector | 0x80));
    }
    seeds
}

/// For each rpc (its index in the services), each example of its method as
/// protobuf: the params as a framed request, each result or event as a
/// streamed message with an event sequence.
pub fn grpc() -> Vec<Vec<u8>> {
    let Ok(service) = grpc::Service::contract() else {
        return Vec::new();
    };
    let mut seeds = Vec::new();
    for (index, rpc) in service.rpcs().enumerate() {
        let selector = (index % 0x80) as u8;
        let examples = a2a::schema::method_entry(rpc.method.name)
            .and_then(|entry| entry.get("examples"))
            .and_then(Value::as_array);
        for example in examples.into_iter().flatten() {
            for input in selected(example, selector, selector | 0x80) {
                let (selector, json) = (input[0], &input[1..]);
                let text = String::from_utf8_lossy(json);
                let (descriptor, response) = if selector & 0x80 == 0 {
                    (&rpc.input, false)
                } else {
                    (&rpc.output, true)
                };
                let Ok(mut message) =
                    grpc::transcode::from_json(descriptor, &text, a2a::ErrorKind::InternalError)
                else {
                    continue;
                };
                let body = if response {
                    grpc::sequence::append(&mut message, 7);
                    message
                } else {
                    grpc::frame::encode(&message).to_vec()
                };
                seeds.push([&[selector][..], &body].concat());
            }
        }
    }
    seeds
}

/// For each 0.3 method (its index in the dialect's table in the low six
/// bits), each example of its own (0.3) and of the 1.0 method serving it, on
/// the side they belong to: the top bits say params or result and which
/// version (see the target).
pub fn conversion() -> Vec<Vec<u8>> {
    let dialect_schema: Value = serde_json::from_str(a2a::schema::A2A_V0_3_JSON).unwrap_or_default();
    let mut seeds = Vec::new();
    for (index, method) in a2a::v0_3::METHODS.iter().enumerate() {
        let low = (index % 0x40) as u8;
        let sides = [
            (
                0x00,
                dialect_schema["x-methods"][method.name]["examples"].as_array(),
            ),
            (
                0x80,
                a2a::schema::method_entry(method.serves)
                    .and_then(|entry| entry.get("examples"))
                    .and_then(Value::as_array),
            ),
        ];
        for (version, examples) in sides {
            for example in examples.into_iter().flatten() {
                seeds.extend(selected(example, low | version, low | version | 0x40));
            }
        }
    }
    seeds
}

/// A session per example: the first example of the first binding method (the
/// stdio handshake), then the example's request.
pub fn stdio() -> Vec<Vec<u8>> {
    let Some((_, handshake, opening)) = examples().find(|(_, m, _)| m.binding.is_some()) else {
        return Vec::new();
    };
    let opening = line(&request(0, handshake.name, &opening["params"]));
    examples()
        .enumerate()
        .map(|(n, (_, method, example))| {
            [
                opening.clone(),
                line(&request(n + 1, method.name, &example["params"])),
            ]
            .concat()
        })
        .collect()
}

pub fn sse() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (n, (_, _, example)) in examples().enumerate() {
        let Some(events) = example.get("events").and_then(Value::as_array) else {
            continue;
        };
        let mut rpc = vec![32u8 << 1];
        let mut rest = vec![(7u8 << 1) | 1];
        for (seq, event) in events.iter().enumerate() {
            let wrapped = json!({"jsonrpc": "2.0", "id": n, "result": event});
            rpc.extend(format!("id: {}\ndata: {wrapped}\n\n", seq + 1).bytes());
            rest.extend(format!(": keep-alive\nid: {}\ndata: {event}\n\n", seq + 1).bytes());
        }
        seeds.push(rpc);
        seeds.push(rest);
    }
    seeds
}

pub fn card() -> Vec<Vec<u8>> {
    let config = server::ServerConfig::default();
    let mut seeds = vec![
        serde_json::to_vec(&server::agent_card(&config, server::Binding::Http)).unwrap_or_default(),
        serde_json::to_vec(&server::agent_card(&config, server::Binding::Stdio)).unwrap_or_default(),
    ];
    for (_, method, example) in examples() {
        if method.result_type == "AgentCard" {
            if let Some(result) = example.get("result") {
                seeds.push(serde_json::to_vec(result).unwrap_or_default());
            }
        }
    }
    seeds
}

pub fn push_url() -> Vec<Vec<u8>> {
    [
        "https://hooks.example.com/a2a?x=1",
        "http://127.0.0.1:8080/",
        "http://[::ffff:10.0.0.1]/",
        "http://2130706433/",
        "https://localhost./",
        "http://169.254.169.254/latest/meta-data",
        "ftp://example.com/",
        "http://[fd00::1]/",
        "http://user:pass@example.org:65535/p",
    ]
    .iter()
    .map(|u| u.as_bytes().to_vec())
    .collect()
}

pub fn rest_route() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (_, method, example) in examples() {
        let Some(params) = example["params"].as_object() else {
            continue;
        };
        let Some(rendered) = render_call(method, params) else {
            continue;
        };
        let query = if rendered.query.is_empty() {
            String::new()
        } else {
            format!("?{}", rendered.query)
        };
        let body = rendered.body.map(|b| b.to_string()).unwrap_or_default();
        seeds.push(format!("{} {}{query}\n{body}", rendered.verb, rendered.path).into_bytes());
    }
    seeds
}
