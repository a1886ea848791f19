//! The invalid mutations of an example's params (a required field removed, a
//! field of the wrong type, an enum value the enum lacks), and the `x-since`
//! bookkeeping that says which contract version each one belongs to. Shared
//! by every dialect's derivation (this contract's and A2A 0.3's).

use crate::schema::Schemas;
use a2a::rpc::Version;
use serde_json::{json, Value};

/// One invalid mutation of an example's params: its id suffix
/// (`missing/<field>`, `wrong-type/<field>`, `bad-enum/<path>`), the params,
/// whether it removes a required field (a weaker rule than a wrong value), and
/// the newest `x-since` of the members it touches (a member a version added
/// is that version's to check: an older agent rightly ignores it).
pub(crate) struct Mutation {
    pub id: String,
    pub params: Value,
    pub missing: bool,
    pub since: Option<String>,
}

/// The invalid mutations of `base` (an example's params) that the params
/// definition `def` implies: each required field removed, each plainly typed
/// top-level field given another JSON type, each enum value (any depth)
/// replaced by a name the enum lacks. Shared by every dialect's derivation.
pub(crate) fn mutations(s: &Schemas, def: &Value, base: &Value) -> Vec<Mutation> {
    let mut out = Vec::new();
    let required: Vec<&str> = def
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for field in &required {
        let mut params = base.clone();
        if let Some(obj) = params.as_object_mut() {
            obj.remove(*field);
        }
        let prop = def.get("properties").and_then(|p| p.get(*field));
        out.push(Mutation {
            id: format!("missing/{field}"),
            params,
            missing: true,
            since: prop.and_then(|p| since_of(s, p)),
        });
    }
    if let Some(props) = def.get("properties").and_then(Value::as_object) {
        for (field, prop) in props {
            let Some(wrong) = wrong_type_value(s.resolve(prop)) else {
                continue;
            };
            let mut params = base.clone();
            if let Some(obj) = params.as_object_mut() {
                obj.insert(field.clone(), wrong);
            }
            out.push(Mutation {
                id: format!("wrong-type/{field}"),
                params,
                missing: false,
                since: since_of(s, prop),
            });
        }
    }
    let mut enum_paths = Vec::new();
    find_enum_paths(s, def, base, &mut Vec::new(), &mut enum_paths, 0);
    for EnumPath { path, since } in enum_paths {
        let mut params = base.clone();
        if let Some(slot) = pointer_mut(&mut params, &path) {
            *slot = json!("NOT_A_DECLARED_VALUE");
            out.push(Mutation {
                id: format!("bad-enum/{}", path.join(".")),
                params,
                missing: false,
                since,
            });
        }
    }
    out
}

/// A value of a JSON type the property does not allow, when its type is plain.
fn wrong_type_value(prop: &Value) -> Option<Value> {
    // Untyped (`google.protobuf.Value`) and one-of properties accept too much to
    // have a definitely-wrong type.
    if prop.get("oneOf").is_some() || prop.get("anyOf").is_some() {
        return None;
    }
    match prop.get("type").and_then(Value::as_str)? {
        // ProtoJSON accepts proto enum numbers, so an enum's wrong type is not a number.
        "boolean" => Some(json!("not-a-boolean")),
        "string" | "integer" | "number" | "object" | "array" => Some(json!(true)),
        _ => None,
    }
}

/// The version that added a member: its `x-since`, on the property or on
/// the definition it refers to.
fn since_of(s: &Schemas, prop: &Value) -> Option<String> {
    let own = prop.get("x-since").and_then(Value::as_str);
    let referred = s.resolve(prop).get("x-since").and_then(Value::as_str);
    newest(own.map(str::to_string), referred.map(str::to_string))
}

/// The newer of two versions (either may be absent).
pub(super) fn newest(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if Version::parse(&b) > Version::parse(&a) {
            b
        } else {
            a
        }),
        (a, b) => a.or(b),
    }
}

/// An enum-typed value's place in an example, and the newest `x-since` of
/// the members on the way to it.
struct EnumPath {
    path: Vec<String>,
    since: Option<String>,
}

/// Paths (object keys / array indexes) in `value` whose schema is an enum.
fn find_enum_paths(
    s: &Schemas,
    schema: &Value,
    value: &Value,
    path: &mut Vec<(String, Option<String>)>,
    out: &mut Vec<EnumPath>,
    depth: usize,
) {
    if depth > 6 {
        return;
    }
    let schema = s.resolve(schema);
    if schema.get("enum").is_some() && value.is_string() {
        out.push(EnumPath {
            path: path.iter().map(|(key, _)| key.clone()).collect(),
            since: path
                .iter()
                .fold(None, |acc, (_, since)| newest(acc, since.clone())),
        });
        return;
    }
    match value {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (k, v) in map {
                if let Some(p) = props.get(k) {
                    path.push((k.clone(), since_of(s, p)));
                    find_enum_paths(s, p, v, path, out, depth + 1);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            if let (Some(first), Some(item_schema)) = (items.first(), schema.get("items")) {
                path.push(("0".into(), None));
                find_enum_paths(s, item_schema, first, path, out, depth + 1);
                path.pop();
            }
        }
        _ => {}
    }
}

fn pointer_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let pointer: String = path.iter().map(|p| format!("/{p}")).collect();
    value.pointer_mut(&pointer)
}
