//! The HTTP+JSON (REST) binding's rules that hold for every contract (spec §11):
//! finding the method and route of a request among the method table's routes
//! ([`crate::route`]), choosing the route of a call, and the
//! `google.rpc.Status` error body (§11.6) with its ErrorInfo.

use crate::error::{Error, ErrorRegistry, ERROR_INFO_TYPE};
use crate::method::{ContractFacts, MethodDescriptor};
pub use crate::route::{HttpRoute, QueryField, QueryKind, RenderedRequest};
use serde_json::{json, Map, Value};

/// A request path matched to a method's route, with the fields the path carried.
#[derive(Debug)]
pub struct RouteMatch<C: ContractFacts + 'static> {
    /// The method the route belongs to.
    pub method: &'static MethodDescriptor<C>,
    /// The route that matched.
    pub route: &'static HttpRoute,
    /// The params fields the path carried (field name, decoded text), in path order.
    pub path_fields: Vec<(&'static str, String)>,
}

/// What a verb and path find among the routes.
#[derive(Debug)]
pub enum RouteLookup<C: ContractFacts + 'static> {
    /// A route of this verb matched.
    Found(RouteMatch<C>),
    /// The path is a route, but not for this verb: the verbs it has.
    WrongVerb(Vec<&'static str>),
    /// No route has this path.
    NotFound,
}

/// The route and path fields of `verb` on `path` among `methods`' routes: the
/// most specific match wins, the earlier on a tie.
pub fn find_route<C: ContractFacts + 'static>(
    methods: &'static [MethodDescriptor<C>],
    verb: &str,
    path: &str,
) -> RouteLookup<C> {
    let mut best: Option<RouteMatch<C>> = None;
    let mut other_verbs = Vec::new();
    for method in methods {
        for route in method.http {
            let Some(path_fields) = route.match_path(path) else {
                continue;
            };
            if !route.verb.eq_ignore_ascii_case(verb) {
                if !other_verbs.contains(&route.verb) {
                    other_verbs.push(route.verb);
                }
                continue;
            }
            if best
                .as_ref()
                .is_none_or(|b| route.specificity() > b.route.specificity())
            {
                best = Some(RouteMatch {
                    method,
                    route,
                    path_fields,
                });
            }
        }
    }
    match best {
        Some(found) => RouteLookup::Found(found),
        None if other_verbs.is_empty() => RouteLookup::NotFound,
        None => RouteLookup::WrongVerb(other_verbs),
    }
}

/// The request of a call of `method` with `params`: on the route that carries
/// the most of the params in its path (a tenant given goes in the path).
pub fn render_call<C: ContractFacts>(
    method: &MethodDescriptor<C>,
    params: &Map<String, Value>,
) -> Option<RenderedRequest> {
    method
        .http
        .iter()
        .filter_map(|route| route.render(params).map(|r| (route, r)))
        .min_by_key(|(route, _)| std::cmp::Reverse(route.path_field_count()))
        .map(|(_, rendered)| rendered)
}

/// The `google.rpc.Status` body of an error (spec §11.6) and its HTTP status,
/// both from the error's registry entry (500 `INTERNAL` for an error that is
/// none); `details` are the error's own (ErrorInfo first).
pub fn status_body<K: ErrorRegistry>(error: &Error) -> (u16, Value) {
    let kind = error.kind::<K>();
    let status = kind.map_or(500, K::http_status);
    let details = match &error.data {
        Some(Value::Array(details)) => details.clone(),
        _ => Vec::new(),
    };
    let body = json!({
        "error": {
            "code": status,
            "status": kind.map_or("INTERNAL", K::grpc_status),
            "message": error.message,
            "details": details,
        }
    });
    (status, body)
}

/// The wire error a `google.rpc.Status` body stands for: its JSON-RPC code is
/// the one of the registry entry its ErrorInfo names (`fallback`'s when it
/// names none), its message and details are the body's.
pub fn error_from_status_body<K: ErrorRegistry>(body: &Value, fallback: K) -> Error {
    let status = body.get("error").unwrap_or(body);
    let details = status
        .get("details")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let kind = details
        .iter()
        .find(|d| d.get("@type").and_then(Value::as_str) == Some(ERROR_INFO_TYPE))
        .and_then(|info| K::from_reason(info.get("domain")?.as_str()?, info.get("reason")?.as_str()?));
    let message = status.get("message").and_then(Value::as_str);
    match kind {
        Some(kind) => Error {
            code: kind.code(),
            message: message.unwrap_or(kind.default_message()).to_string(),
            data: Some(Value::Array(details)),
        },
        None => Error::new(fallback, message.unwrap_or(fallback.default_message())),
    }
}
