//! One HTTP+JSON (REST) route of a method (spec §11) as the generator emits
//! it into the method table: matching a request path against its template,
//! reading its query into params, and rendering params back into a request.

use serde_json::{Map, Value};

/// How a query parameter's text becomes a JSON value (spec §11.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryKind {
    /// Taken as it is.
    String,
    /// Parsed as a decimal integer.
    Integer,
    /// `true` or `false`.
    Boolean,
}

/// A params field that travels in the query of a route without a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryField {
    /// The field's JSON (camelCase) name, also the parameter's name.
    pub name: &'static str,
    /// How the parameter's text becomes the field's value.
    pub kind: QueryKind,
}

/// One HTTP+JSON route of a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpRoute {
    /// `GET`, `POST`, `DELETE`…
    pub verb: &'static str,
    /// The path template: literal text with `{field}` placeholders, each one
    /// params field, at most one per segment (`/tasks/{id}:cancel`).
    pub path: &'static str,
    /// The params not in the path are the JSON body.
    pub body: bool,
    /// Without a body: the params fields read from the query.
    pub query: &'static [QueryField],
}

/// A call rendered as an HTTP+JSON request.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedRequest {
    /// The HTTP method (`GET`, `POST`, `DELETE`).
    pub verb: &'static str,
    /// The path with every field filled in, percent-encoded.
    pub path: String,
    /// The query string (without `?`), empty when none.
    pub query: String,
    /// The JSON body, for routes that carry one.
    pub body: Option<Value>,
}

impl HttpRoute {
    /// The path fields, when `path` (already without the binding's prefix)
    /// matches this route's template.
    pub fn match_path(&self, path: &str) -> Option<Vec<(&'static str, String)>> {
        let template = segments(self.path);
        let actual = segments(path);
        if template.len() != actual.len() {
            return None;
        }
        let mut fields = Vec::new();
        for (pattern, segment) in template.iter().zip(actual) {
            let segment = percent_decode(segment)?;
            match split_placeholder(pattern) {
                None if *pattern == segment => {}
                None => return None,
                Some((prefix, field, suffix)) => {
                    let value = segment.strip_prefix(prefix)?.strip_suffix(suffix)?;
                    if value.is_empty() {
                        return None;
                    }
                    fields.push((field, value.to_string()));
                }
            }
        }
        Some(fields)
    }

    /// Literal characters of the template: the more, the more specific
    /// (`/tasks/{id}:subscribe` over `/tasks/{id}`).
    pub fn specificity(&self) -> usize {
        segments(self.path)
            .iter()
            .map(|s| split_placeholder(s).map_or(s.len(), |(prefix, _, suffix)| prefix.len() + suffix.len()))
            .sum()
    }

    /// How many fields the path carries.
    pub fn path_field_count(&self) -> usize {
        segments(self.path)
            .iter()
            .filter(|s| split_placeholder(s).is_some())
            .count()
    }

    /// True when a request on this route carries every field of `params`: in
    /// its path, its query or its body. A route without a body drops the rest.
    pub fn carries(&self, params: &Map<String, Value>) -> bool {
        self.body
            || params.keys().all(|name| {
                self.query.iter().any(|field| field.name == name)
                    || segments(self.path)
                        .iter()
                        .any(|s| split_placeholder(s).is_some_and(|(_, field, _)| field == name))
            })
    }

    /// Reads this route's query fields from `query` into `params`. Integers and
    /// booleans that do not parse stay text, so decoding the params reports them
    /// as the field's wrong type; unknown parameters are ignored.
    pub fn read_query(&self, query: &str, params: &mut Map<String, Value>) {
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (Some(name), Some(value)) = (form_decode(name), form_decode(value)) else {
                continue;
            };
            let Some(field) = self.query.iter().find(|f| f.name == name) else {
                continue;
            };
            if params.contains_key(field.name) {
                continue;
            }
            let typed = match field.kind {
                QueryKind::String => None,
                QueryKind::Integer => value.parse::<i64>().ok().map(Value::from),
                QueryKind::Boolean => value.parse::<bool>().ok().map(Value::Bool),
            };
            params.insert(field.name.to_string(), typed.unwrap_or(Value::String(value)));
        }
    }

    /// The request of a call with `params` on this route; `None` when a path
    /// field is missing or not a string, or a query field's value is not of
    /// its type.
    pub fn render(&self, params: &Map<String, Value>) -> Option<RenderedRequest> {
        let mut rest = params.clone();
        let mut path = String::new();
        for pattern in segments(self.path) {
            path.push('/');
            match split_placeholder(pattern) {
                None => path.push_str(pattern),
                Some((prefix, field, suffix)) => {
                    let value = match rest.remove(field)? {
                        Value::String(s) if !s.is_empty() => s,
                        _ => return None,
                    };
                    path.push_str(prefix);
                    path.push_str(&percent_encode(&value));
                    path.push_str(suffix);
                }
            }
        }
        let mut query = Vec::new();
        if !self.body {
            for field in self.query {
                // A value the query cannot carry as the field's type (text
                // loses the JSON type) has no request on this route.
                let text = match (field.kind, rest.get(field.name)) {
                    (_, None | Some(Value::Null)) => continue,
                    (QueryKind::String | QueryKind::Integer, Some(Value::String(s))) => s.clone(),
                    (QueryKind::Integer, Some(n @ Value::Number(_))) => n.to_string(),
                    (QueryKind::Boolean, Some(Value::Bool(b))) => b.to_string(),
                    _ => return None,
                };
                query.push(format!("{}={}", field.name, percent_encode(&text)));
            }
        }
        Some(RenderedRequest {
            verb: self.verb,
            path: if path.is_empty() { "/".into() } else { path },
            query: query.join("&"),
            body: self.body.then_some(Value::Object(rest)),
        })
    }
}

/// The segments of a path, without the leading `/` and a trailing one.
fn segments(path: &str) -> Vec<&str> {
    let trimmed = path.trim_start_matches('/').trim_end_matches('/');
    if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    }
}

/// `(prefix, field, suffix)` of a template segment holding a `{field}`.
fn split_placeholder(segment: &str) -> Option<(&str, &str, &str)> {
    let open = segment.find('{')?;
    let close = segment[open..].find('}')? + open;
    Some((&segment[..open], &segment[open + 1..close], &segment[close + 1..]))
}

/// The first segment of `path` that is not valid percent-encoded UTF-8, if
/// any: such a path names no route and deserves its own error.
pub fn malformed_segment(path: &str) -> Option<&str> {
    segments(path)
        .into_iter()
        .find(|segment| percent_decode(segment).is_none())
}

/// Percent-decodes one path segment; `None` when it is not UTF-8 or malformed.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // Two hex digits, nothing else (`from_str_radix` alone takes a sign).
            let hex = bytes
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Decodes one `application/x-www-form-urlencoded` name or value.
fn form_decode(text: &str) -> Option<String> {
    percent_decode(&text.replace('+', " "))
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const QUERY: &[QueryField] = &[
        QueryField {
            name: "historyLength",
            kind: QueryKind::Integer,
        },
        QueryField {
            name: "includeArtifacts",
            kind: QueryKind::Boolean,
        },
        QueryField {
            name: "contextId",
            kind: QueryKind::String,
        },
    ];
    const GET: HttpRoute = HttpRoute {
        verb: "GET",
        path: "/tasks/{id}",
        body: false,
        query: QUERY,
    };
    const CANCEL: HttpRoute = HttpRoute {
        verb: "POST",
        path: "/tasks/{id}:cancel",
        body: true,
        query: &[],
    };
    const TENANT_CONFIG: HttpRoute = HttpRoute {
        verb: "GET",
        path: "/{tenant}/tasks/{taskId}/pushNotificationConfigs/{id}",
        body: false,
        query: &[],
    };

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_path_matches_its_template_and_yields_the_decoded_fields() {
        assert_eq!(
            GET.match_path("/tasks/a%20b"),
            Some(vec![("id", "a b".to_string())])
        );
        assert_eq!(
            GET.match_path("/tasks/abc/"),
            Some(vec![("id", "abc".to_string())])
        );
        assert_eq!(GET.match_path("/tasks"), None);
        assert_eq!(GET.match_path("/tasks/a/b"), None);
        assert_eq!(
            CANCEL.match_path("/tasks/t-1:cancel"),
            Some(vec![("id", "t-1".to_string())])
        );
        assert_eq!(
            CANCEL.match_path("/tasks/t-1%3Acancel"),
            Some(vec![("id", "t-1".to_string())])
        );
        assert_eq!(CANCEL.match_path("/tasks/:cancel"), None);
        assert_eq!(
            TENANT_CONFIG.match_path("/acme/tasks/t/pushNotificationConfigs/c"),
            Some(vec![
                ("tenant", "acme".into()),
                ("taskId", "t".into()),
                ("id", "c".into())
            ])
        );
    }

    #[test]
    fn a_malformed_percent_escape_matches_nothing() {
        assert_eq!(GET.match_path("/tasks/%zz"), None);
        assert_eq!(GET.match_path("/tasks/%ff"), None);
        assert_eq!(GET.match_path("/tasks/%"), None);
    }

    #[test]
    fn the_query_gives_typed_values_and_leaves_bad_numbers_as_text() {
        let mut params = Map::new();
        GET.read_query(
            "historyLength=3&includeArtifacts=true&contextId=c+1%2F2&other=x",
            &mut params,
        );
        assert_eq!(
            Value::Object(params),
            json!({"historyLength": 3, "includeArtifacts": true, "contextId": "c 1/2"})
        );
        let mut params = Map::new();
        GET.read_query("historyLength=three", &mut params);
        assert_eq!(Value::Object(params), json!({"historyLength": "three"}));
    }

    #[test]
    fn the_path_wins_over_the_same_field_in_the_query() {
        let mut params = object(json!({"contextId": "from-path"}));
        GET.read_query("contextId=from-query", &mut params);
        assert_eq!(params["contextId"], json!("from-path"));
    }

    #[test]
    fn a_call_renders_into_path_query_and_body() {
        let get = GET
            .render(&object(json!({"id": "a/b", "historyLength": 2})))
            .expect("renders");
        assert_eq!(
            (get.path.as_str(), get.query.as_str(), get.body),
            ("/tasks/a%2Fb", "historyLength=2", None)
        );
        let cancel = CANCEL
            .render(&object(json!({"id": "t", "metadata": {"k": 1}})))
            .expect("renders");
        assert_eq!(cancel.path, "/tasks/t:cancel");
        assert_eq!(cancel.body, Some(json!({"metadata": {"k": 1}})));
        assert_eq!(GET.render(&object(json!({"historyLength": 2}))), None);
        assert_eq!(GET.render(&object(json!({"id": 7}))), None);
        assert_eq!(GET.render(&object(json!({"id": "t", "contextId": 7}))), None);
        assert_eq!(
            GET.render(&object(json!({"id": "t", "includeArtifacts": "yes"}))),
            None
        );
    }
}
