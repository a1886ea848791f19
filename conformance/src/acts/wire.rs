//! The JSON-RPC binding over HTTP as ACTS steps use it: unary calls, streams
//! read event by event (so a runner can hold several open, or drop one
//! mid-way), raw requests, and the Agent Card. Every reply keeps the HTTP
//! status and headers, for `expect.status` and header inspection.
//!
//! Requests carry `A2A-Version` set to the document's `spec_version` (§12.4);
//! raw steps send exactly the headers they list.

use super::document::{HttpMethod, RawRequest};
use a2a::rpc::declared;
use a2a::Contract;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::Instant;

const A2A_VERSION_HEADER: &str = declared(Contract::A2a.version_header());
/// Where an HTTP agent serves its public Agent Card (A2A §8.2), from its origin.
const WELL_KNOWN_CARD: &str = "/.well-known/agent-card.json";
const SSE: &str = "text/event-stream";

/// An HTTP reply: status, headers (names lower-case) and the body, JSON when
/// it parses as JSON.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Map<String, Value>,
    pub body: Value,
}

/// The HTTP side of one agent.
pub struct Wire {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    token: Option<String>,
    version: String,
    next_id: AtomicU64,
}

fn headers_of(response: &reqwest::Response) -> Map<String, Value> {
    response
        .headers()
        .iter()
        .map(|(name, value)| {
            let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_ascii_lowercase(), Value::String(text))
        })
        .collect()
}

fn body_value(text: String) -> Value {
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

impl Wire {
    /// A client of the JSON-RPC endpoint `url`, speaking A2A `version`.
    /// `timeout` bounds each unary exchange; streams are bounded by their reader.
    pub fn new(url: &str, token: Option<String>, version: &str, timeout: Duration) -> Result<Wire, String> {
        let endpoint = reqwest::Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        let client = reqwest::Client::builder()
            .connect_timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Wire {
            client,
            endpoint,
            token,
            version: version.to_string(),
            next_id: AtomicU64::new(1),
        })
    }

    /// The base URL the runner was given.
    pub fn base_url(&self) -> &str {
        self.endpoint.as_str()
    }

    fn request_text(&self, method: &str, params: &Value) -> (Value, String) {
        let id = json!(format!("acts-{}", self.next_id.fetch_add(1, Ordering::Relaxed)));
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, body.to_string())
    }

    fn post(&self, body: String, accept: &str) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.endpoint.clone())
            .header("Content-Type", "application/json")
            .header("Accept", accept)
            .header(A2A_VERSION_HEADER, &self.version)
            .body(body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        request
    }

    /// A unary JSON-RPC call; the reply's body is the response envelope.
    pub async fn call(&self, method: &str, params: &Value, timeout: Duration) -> Result<Reply, String> {
        let (_, body) = self.request_text(method, params);
        let response = self
            .post(body, "application/json")
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| format!("{method}: HTTP request failed: {e}"))?;
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let text = response
            .text()
            .await
            .map_err(|e| format!("{method}: the body could not be read: {e}"))?;
        Ok(Reply {
            status,
            headers,
            body: body_value(text),
        })
    }

    /// Opens a streaming JSON-RPC call. An answer that is not an event stream
    /// (an error before any event) comes back whole as the `Err` of the stream.
    pub async fn open_stream(
        &self,
        method: &str,
        params: &Value,
        deadline: Instant,
    ) -> Result<Stream, Reply> {
        let (_, body) = self.request_text(method, params);
        let broken = |why: String| Reply {
            status: 0,
            headers: Map::new(),
            body: Value::String(why),
        };
        let send = self.post(body, &format!("{SSE}, application/json")).send();
        let response = match tokio::time::timeout_at(deadline, send).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(broken(format!("{method}: HTTP request failed: {e}"))),
            Err(_) => {
                return Err(broken(format!(
                    "{method}: no answer before the stream's deadline"
                )))
            }
        };
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let is_sse = headers
            .get("content-type")
            .and_then(Value::as_str)
            .is_some_and(|c| c.starts_with(SSE));
        if !is_sse {
            let text = tokio::time::timeout_at(deadline, response.text())
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            return Err(Reply {
                status,
                headers,
                body: body_value(text),
            });
        }
        Ok(Stream {
            status,
            headers,
            response: Some(response),
            buffer: String::new(),
        })
    }

    /// A raw request (§4.4): `path` is resolved against the runner's URL.
    pub async fn raw(&self, raw: &RawRequest, timeout: Duration) -> Result<Reply, String> {
        let url = self
            .endpoint
            .join(&raw.path)
            .map_err(|e| format!("raw path `{}`: {e}", raw.path))?;
        let method = match raw.method {
            HttpMethod::Get => reqwest::Method::GET,
            HttpMethod::Post => reqwest::Method::POST,
            HttpMethod::Put => reqwest::Method::PUT,
            HttpMethod::Delete => reqwest::Method::DELETE,
        };
        let mut request = self.client.request(method, url).timeout(timeout);
        for (name, value) in &raw.headers {
            request = request.header(name, value);
        }
        if let Some(text) = &raw.body_raw {
            request = request.body(text.clone());
        } else if let Some(body) = &raw.body {
            request = request.body(body.to_string());
        }
        let response = request.send().await.map_err(|e| {
            format!(
                "raw {} {}: HTTP request failed: {e}",
                method_name(raw.method),
                raw.path
            )
        })?;
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let is_sse = headers
            .get("content-type")
            .and_then(Value::as_str)
            .is_some_and(|c| c.starts_with(SSE));
        let text = response
            .text()
            .await
            .map_err(|e| format!("raw {}: the body could not be read: {e}", raw.path))?;
        // An event stream's body is the list of its events' data.
        let body = if is_sse {
            Value::Array(sse_data(&text).into_iter().map(body_value).collect())
        } else {
            body_value(text)
        };
        Ok(Reply {
            status,
            headers,
            body,
        })
    }

    /// The public Agent Card (`GET /.well-known/agent-card.json` at the origin).
    pub async fn agent_card(&self, timeout: Duration) -> Result<Reply, String> {
        let url = self
            .endpoint
            .join(WELL_KNOWN_CARD)
            .map_err(|e| format!("no Agent Card URL: {e}"))?;
        let response = self
            .client
            .get(url.clone())
            .header("Accept", "application/json")
            .header(A2A_VERSION_HEADER, &self.version)
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| format!("GET {url} failed: {e}"))?;
        let status = response.status().as_u16();
        let headers = headers_of(&response);
        let text = response
            .text()
            .await
            .map_err(|e| format!("GET {url}: the body could not be read: {e}"))?;
        Ok(Reply {
            status,
            headers,
            body: body_value(text),
        })
    }
}

fn method_name(method: HttpMethod) -> &'static str {
    match method {
        HttpMethod::Get => "GET",
        HttpMethod::Post => "POST",
        HttpMethod::Put => "PUT",
        HttpMethod::Delete => "DELETE",
    }
}

/// The `data` of each complete SSE event in `text`.
fn sse_data(text: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in text.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if let Some(d) = data.take() {
                events.push(d);
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(rest);
                }
                None => data = Some(rest.to_string()),
            }
        }
    }
    events
}

/// An open event stream, read one event at a time.
pub struct Stream {
    pub status: u16,
    pub headers: Map<String, Value>,
    response: Option<reqwest::Response>,
    buffer: String,
}

/// What reading a stream gave.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// One event's data, parsed (the JSON-RPC response envelope).
    Event(Value),
    /// The server ended the stream.
    End,
    /// The deadline passed first.
    Timeout,
    /// The connection or an event broke.
    Broken(String),
}

impl Stream {
    /// The next event, waiting until `deadline` at most.
    pub async fn next(&mut self, deadline: Instant) -> Next {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(data) = sse_data(&block).into_iter().next() {
                    return match serde_json::from_str(&data) {
                        Ok(v) => Next::Event(v),
                        Err(e) => Next::Broken(format!("an SSE event is not JSON ({e}): {data}")),
                    };
                }
                // A comment (keep-alive) or an event without data.
                continue;
            }
            let Some(response) = self.response.as_mut() else {
                return Next::End;
            };
            match tokio::time::timeout_at(deadline, response.chunk()).await {
                Err(_) => return Next::Timeout,
                Ok(Err(e)) => return Next::Broken(format!("the stream broke: {e}")),
                Ok(Ok(None)) => {
                    self.response = None;
                    // A last event without its blank line still counts.
                    if !self.buffer.trim().is_empty() {
                        self.buffer.push_str("\n\n");
                        continue;
                    }
                    return Next::End;
                }
                Ok(Ok(Some(bytes))) => {
                    self.buffer
                        .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
                }
            }
        }
    }

    /// Closes the connection (a client disconnect).
    pub fn disconnect(&mut self) {
        self.response = None;
        self.buffer.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_data_joins_lines_and_skips_comments() {
        let text = ": keep-alive\n\nid: 1\ndata: {\"a\":\ndata: 1}\n\ndata: 2\n";
        assert_eq!(sse_data(text), vec!["{\"a\":\n1}".to_string(), "2".to_string()]);
    }
}
