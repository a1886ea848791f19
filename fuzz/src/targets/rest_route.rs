//! HTTP+JSON routing. Input: a first line `VERB PATH[?QUERY]`, then an optional
//! JSON body. When the request finds a route and its params decode, rendering
//! those params again must give a request that finds the same method with the
//! same path fields: what the server reads, the client writes back the same way.

use a2a::rpc::rest::{find_route, render_call, RouteLookup};
use a2a::METHODS;
use serde_json::{Map, Value};

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (head, body) = text.split_once('\n').unwrap_or((&text, ""));
    let Some((verb, target)) = head.split_once(' ') else {
        return;
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let _ = a2a::rpc::route::malformed_segment(path);
    let RouteLookup::Found(found) = find_route(METHODS, verb, path) else {
        return;
    };
    let mut params = match (found.route.body, serde_json::from_str::<Value>(body)) {
        (true, Ok(Value::Object(object))) => object,
        _ => Map::new(),
    };
    for (field, value) in &found.path_fields {
        params.insert((*field).to_string(), Value::String(value.clone()));
    }
    if !found.route.body {
        found.route.read_query(query, &mut params);
    }
    let Ok(Value::Object(canonical)) = (found.method.roundtrip_params)(Value::Object(params)) else {
        return;
    };
    let rendered = render_call(found.method, &canonical)
        .unwrap_or_else(|| panic!("params read from `{head}` cannot be rendered again: {canonical:?}"));
    let RouteLookup::Found(again) = find_route(METHODS, rendered.verb, &rendered.path) else {
        panic!(
            "`{} {}` rendered from `{head}` finds no route",
            rendered.verb, rendered.path
        );
    };
    assert_eq!(
        again.method.name, found.method.name,
        "`{head}` → `{}`",
        rendered.path
    );
    for (field, value) in &again.path_fields {
        assert_eq!(
            canonical.get(*field),
            Some(&Value::String(value.clone())),
            "`{head}` → `{}`",
            rendered.path
        );
    }
}
