//! The HTTP+JSON (REST) routes of the methods: each method's own `http` routes,
//! or the contract's one `x-http.methodRoute` rule, each also under the
//! contract's `x-http.tenantPrefix`, resolved against the params definition
//! (every path field is a params property; without a body the other scalar
//! properties travel in the query, each with the JSON type it is decoded as).

use crate::{Error, Result};
use serde::Deserialize;
use serde_json::{Map, Value};

/// `x-http`: how the contract's methods map onto HTTP routes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HttpSection {
    #[serde(default)]
    pub description: Option<String>,
    /// A path prefix every route is also served under; its one `{field}` names
    /// a params property (the tenant).
    #[serde(default)]
    pub tenant_prefix: Option<String>,
    /// The route of every dispatched method that declares none; `{method}` in
    /// its path stands for the wire name.
    #[serde(default)]
    pub method_route: Option<RouteDef>,
}

/// One route as the schema writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteDef {
    pub verb: String,
    pub path: String,
    /// `"*"`: the params not taken from the path are the JSON body.
    #[serde(default)]
    pub body: Option<String>,
}

/// How a query parameter's text becomes a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    String,
    Integer,
    Boolean,
}

/// One resolved route of a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub verb: String,
    pub path: String,
    pub body: bool,
    pub query: Vec<(String, QueryKind)>,
}

const VERBS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];
const METHOD_PLACEHOLDER: &str = "{method}";

/// The routes of method `name`, whose params are `params` in `definitions`;
/// empty for binding methods.
pub fn resolve(
    file: &str,
    section: &HttpSection,
    name: &str,
    declared: &[RouteDef],
    params: &str,
    definitions: &Map<String, Value>,
    dispatched: bool,
) -> Result<Vec<Route>> {
    let at = |what: String| Error::schema(file, format!("x-methods.{name}.http: {what}"));
    if !dispatched {
        if declared.is_empty() {
            return Ok(Vec::new());
        }
        return Err(at("binding methods have no HTTP route".into()));
    }
    let ruled;
    let defs: &[RouteDef] = if declared.is_empty() {
        match &section.method_route {
            Some(rule) => {
                ruled = [RouteDef {
                    path: rule.path.replace(METHOD_PLACEHOLDER, name),
                    ..rule.clone()
                }];
                &ruled
            }
            // Not on HTTP+JSON: the contract set's tests decide whether that is allowed.
            None => return Ok(Vec::new()),
        }
    } else {
        declared
    };
    let Some(params_def) = definitions.get(params) else {
        // An unknown params definition is reported by the type check.
        return Ok(Vec::new());
    };
    let properties = params_def
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut routes = Vec::new();
    for def in defs {
        if !VERBS.contains(&def.verb.as_str()) {
            return Err(at(format!("unknown verb `{}`", def.verb)));
        }
        let body = match def.body.as_deref() {
            None => false,
            Some("*") => true,
            Some(other) => return Err(at(format!("body must be \"*\", got `{other}`"))),
        };
        let mut paths = vec![def.path.clone()];
        if let Some(prefix) = &section.tenant_prefix {
            let fields = path_fields(prefix).map_err(&at)?;
            if fields.iter().all(|f| properties.contains_key(f)) {
                paths.push(format!("{prefix}{}", def.path));
            }
        }
        for path in paths {
            if !path.starts_with('/') {
                return Err(at(format!("path `{path}` must start with `/`")));
            }
            let fields = path_fields(&path).map_err(&at)?;
            if let Some(unknown) = fields.iter().find(|f| !properties.contains_key(*f)) {
                return Err(at(format!(
                    "path field `{unknown}` is not a property of `{params}`"
                )));
            }
            let mut query = Vec::new();
            if !body {
                for (field, schema) in &properties {
                    if fields.contains(field) {
                        continue;
                    }
                    let kind = query_kind(schema, definitions).ok_or_else(|| {
                        at(format!(
                            "`{field}` cannot travel in a query: give the route a body"
                        ))
                    })?;
                    query.push((field.clone(), kind));
                }
            }
            routes.push(Route {
                verb: def.verb.clone(),
                path,
                body,
                query,
            });
        }
    }
    Ok(routes)
}

/// The `{field}` names of a path template, in order.
fn path_fields(path: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{path}`"))?;
        let field = &rest[open + 1..open + close];
        if field.is_empty() || !field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("bad path field `{field}` in `{path}`"));
        }
        fields.push(field.to_string());
        rest = &rest[open + close + 1..];
    }
    Ok(fields)
}

/// The query kind of a scalar property (strings, string enums, integers,
/// booleans); `None` for objects and arrays, which need a body (spec §11.5).
fn query_kind(schema: &Value, definitions: &Map<String, Value>) -> Option<QueryKind> {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next()?;
        return query_kind(definitions.get(name)?, definitions);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => Some(QueryKind::String),
        Some("integer") => Some(QueryKind::Integer),
        Some("boolean") => Some(QueryKind::Boolean),
        None if schema.get("enum").is_some() => Some(QueryKind::String),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn definitions() -> Map<String, Value> {
        json!({
            "GetThing": {"type": "object", "properties": {
                "tenant": {"type": "string"}, "id": {"type": "string"},
                "depth": {"type": "integer"}, "state": {"$ref": "#/definitions/State"},
                "all": {"type": "boolean"}
            }},
            "State": {"type": "string", "enum": ["A", "B"]},
            "PutThing": {"type": "object", "properties": {"tenant": {"type": "string"}, "thing": {"type": "object"}}}
        })
        .as_object()
        .cloned()
        .unwrap_or_default()
    }

    fn route(verb: &str, path: &str, body: bool) -> RouteDef {
        RouteDef {
            verb: verb.into(),
            path: path.into(),
            body: body.then(|| "*".into()),
        }
    }

    fn tenant_section() -> HttpSection {
        HttpSection {
            tenant_prefix: Some("/{tenant}".into()),
            ..HttpSection::default()
        }
    }

    #[test]
    fn a_get_route_takes_the_other_scalar_fields_from_the_query_and_is_also_served_under_the_tenant() {
        let routes = resolve(
            "t.json",
            &tenant_section(),
            "GetThing",
            &[route("GET", "/things/{id}", false)],
            "GetThing",
            &definitions(),
            true,
        )
        .expect("resolves");
        assert_eq!(routes.len(), 2);
        assert_eq!(routes[0].path, "/things/{id}");
        assert_eq!(
            routes[0].query,
            vec![
                ("tenant".to_string(), QueryKind::String),
                ("depth".to_string(), QueryKind::Integer),
                ("state".to_string(), QueryKind::String),
                ("all".to_string(), QueryKind::Boolean),
            ]
        );
        assert_eq!(routes[1].path, "/{tenant}/things/{id}");
        assert!(!routes[1].query.iter().any(|(f, _)| f == "tenant"));
    }

    #[test]
    fn an_object_field_cannot_travel_in_a_query() {
        let error = resolve(
            "t.json",
            &HttpSection::default(),
            "PutThing",
            &[route("GET", "/things", false)],
            "PutThing",
            &definitions(),
            true,
        )
        .expect_err("an object in a query is refused");
        assert!(
            error.to_string().contains("`thing` cannot travel in a query"),
            "{error}"
        );
    }

    #[test]
    fn a_path_field_must_be_a_params_property() {
        let error = resolve(
            "t.json",
            &HttpSection::default(),
            "GetThing",
            &[route("GET", "/things/{nope}", false)],
            "GetThing",
            &definitions(),
            true,
        )
        .expect_err("unknown path field");
        assert!(error.to_string().contains("path field `nope`"), "{error}");
    }

    #[test]
    fn the_method_rule_routes_a_method_without_routes_at_its_wire_name() {
        let section = HttpSection {
            method_route: Some(route("POST", "/{method}", true)),
            ..HttpSection::default()
        };
        let routes = resolve(
            "t.json",
            &section,
            "_x/thing/put",
            &[],
            "PutThing",
            &definitions(),
            true,
        )
        .expect("resolves");
        assert_eq!(
            routes,
            vec![Route {
                verb: "POST".into(),
                path: "/_x/thing/put".into(),
                body: true,
                query: Vec::new(),
            }]
        );
    }

    #[test]
    fn binding_methods_have_no_routes() {
        let section = HttpSection {
            method_route: Some(route("POST", "/{method}", true)),
            ..HttpSection::default()
        };
        assert_eq!(
            resolve("t.json", &section, "x", &[], "PutThing", &definitions(), false).expect("resolves"),
            Vec::new()
        );
    }
}
