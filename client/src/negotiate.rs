//! Which A2A protocol version to speak: the released version, unless the
//! agent's card offers a newer one this client knows for the binding in use
//! (a draft is offered beside the released version, after it); and which
//! members of a call's params need a newer version than the one spoken (the
//! schema's `x-since` of each member). Every version is a contract fact, none
//! is spelled here.

use crate::schema;
use crate::wire;
use a2a::rpc::Version;
use a2a::Contract;
use serde_json::Value;

/// The `protocolVersion`s of the interfaces of `binding` (a `protocolBinding`
/// name) an Agent Card lists, in its order.
pub fn offered<'a>(card: &'a Value, binding: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    card["supportedInterfaces"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |i| i["protocolBinding"] == binding)
        .filter_map(|i| i["protocolVersion"].as_str())
}

/// The version to speak over `binding` to the agent whose card is `card`:
/// the newest version this client knows that the card offers an interface
/// of `binding` for, else the released version ([`wire::PROTOCOL_VERSION`]).
pub fn choose(card: &Value, binding: &str) -> &'static str {
    let offered: Vec<Version> = offered(card, binding).filter_map(Version::parse).collect();
    Contract::A2a
        .versions()
        .iter()
        .copied()
        .filter_map(|known| Some((Version::parse(known)?, known)))
        .filter(|(version, _)| offered.contains(version))
        .max()
        .map_or(wire::PROTOCOL_VERSION, |(_, known)| known)
}

/// The URL of the interface of `binding` for `version` an Agent Card lists.
pub fn interface_url<'a>(card: &'a Value, binding: &str, version: &str) -> Option<&'a str> {
    let wanted = Version::parse(version)?;
    card["supportedInterfaces"]
        .as_array()?
        .iter()
        .filter(|i| i["protocolBinding"] == binding)
        .find(|i| i["protocolVersion"].as_str().and_then(Version::parse) == Some(wanted))
        .and_then(|i| i["url"].as_str())
}

/// True when `version` has what the contract added in `since`.
pub fn reaches(version: &str, since: &str) -> bool {
    match (Version::parse(version), Version::parse(since)) {
        (Some(version), Some(since)) => version >= since,
        _ => false,
    }
}

/// The version of the contract a member of definition `type_name` first
/// appeared in (its `x-since`), when it is newer than the first version.
pub fn since(type_name: &str, member: &str) -> Option<&'static str> {
    schema::definition(type_name)?
        .pointer(&format!("/properties/{member}/x-since"))?
        .as_str()
}

/// A member of a call's params that the version spoken does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewerMember {
    /// Where it is in the params (`configuration.ifGenerationMatch`).
    pub path: String,
    /// The version that added it.
    pub since: &'static str,
}

/// The members of `params` (an instance of definition `type_name`) that
/// `version` does not have, outermost first.
pub fn newer_members(type_name: &str, params: &Value, version: &str) -> Vec<NewerMember> {
    let mut out = Vec::new();
    if let Some(definition) = schema::definition(type_name) {
        walk(definition, params, "", version, &mut out);
    }
    out
}

fn walk(schema: &'static Value, value: &Value, path: &str, version: &str, out: &mut Vec<NewerMember>) {
    let schema = schema::resolve(schema);
    match value {
        Value::Object(members) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (name, member) in members {
                let Some(property) = properties.get(name) else {
                    continue;
                };
                let here = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                match property.get("x-since").and_then(Value::as_str) {
                    Some(since) if !reaches(version, since) => out.push(NewerMember { path: here, since }),
                    _ => walk(property, member, &here, version, out),
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    walk(item_schema, item, path, version, out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(versions: &[(&str, &str)]) -> Value {
        let interfaces: Vec<Value> = versions
            .iter()
            .map(|(binding, version)| {
                json!({"url": format!("http://a/{version}"), "protocolBinding": binding, "protocolVersion": version})
            })
            .collect();
        json!({ "supportedInterfaces": interfaces })
    }

    #[test]
    fn the_newest_version_offered_for_the_binding() {
        let newest = wire::NEWEST_PROTOCOL_VERSION;
        let released = wire::PROTOCOL_VERSION;
        let both = card(&[("JSONRPC", released), ("JSONRPC", "0.3"), ("JSONRPC", newest)]);
        assert_eq!(choose(&both, "JSONRPC"), newest);
        // Offered over another binding only: the released version here.
        assert_eq!(choose(&both, "GRPC"), released);
        assert_eq!(choose(&card(&[("JSONRPC", released)]), "JSONRPC"), released);
        // A version this client does not know is never picked.
        assert_eq!(choose(&card(&[("JSONRPC", "9.9")]), "JSONRPC"), released);
        assert_eq!(choose(&json!({}), "JSONRPC"), released);
        assert_eq!(
            interface_url(&both, "JSONRPC", newest),
            Some(format!("http://a/{newest}").as_str())
        );
        assert_eq!(interface_url(&both, "GRPC", newest), None);
    }

    #[test]
    fn members_newer_than_the_version_spoken() {
        let released = wire::PROTOCOL_VERSION;
        let newest = wire::NEWEST_PROTOCOL_VERSION;
        let since = since("GetTaskRequest", "currentGeneration").expect("x-since");
        assert_eq!(since, newest);
        assert!(reaches(newest, since) && !reaches(released, since));
        let params = json!({
            "message": {"messageId": "m", "role": "ROLE_USER", "parts": []},
            "configuration": {"historyLength": 1, "ifGenerationMatch": 2},
        });
        assert_eq!(
            newer_members("SendMessageRequest", &params, released),
            [NewerMember {
                path: "configuration.ifGenerationMatch".into(),
                since
            }]
        );
        assert_eq!(newer_members("SendMessageRequest", &params, newest), []);
        assert_eq!(
            newer_members(
                "GetTaskRequest",
                &json!({"id": "t", "historyLength": 1}),
                released
            ),
            []
        );
    }
}
