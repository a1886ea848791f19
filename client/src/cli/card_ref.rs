//! Resolving an Agent Card reference (a2a-cli §10.1, §7.2 `--agent-card`):
//! a bare host or origin (the well-known path appended), a full card URL
//! (used as it is), a local file (`file://…` or a path), or an entry of an
//! AI Catalog (`…/ai-catalog.json`, `#NAME` choosing among several A2A
//! entries; `HOST#NAME` is an entry of the host's well-known catalog). The card is read without any credential: nothing is presented
//! to an endpoint before a card has declared a scheme that takes it.

use super::failure::{Failure, Local};
use serde_json::Value;

/// Where an Agent Card lives.
pub const WELL_KNOWN_CARD: &str = "/.well-known/agent-card.json";
/// The well-known AI Catalog.
pub const WELL_KNOWN_CATALOG: &str = "/.well-known/ai-catalog.json";
/// The catalog entry type of an A2A Agent Card.
const A2A_CARD_TYPE: &str = "application/a2a-agent-card+json";
/// The catalog entry type of a nested catalog.
const CATALOG_TYPE: &str = "application/ai-catalog+json";
/// Largest card or catalog read.
const MAX_DOCUMENT: usize = 4 << 20;
/// How deep nested catalogs are followed.
const MAX_NESTING: usize = 4;

/// A card and where it came from.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The card.
    pub card: Value,
    /// Its URL (`file://…` for a file).
    pub location: String,
    /// The catalog entry it was chosen from, if any.
    pub catalog_entry: Option<String>,
}

/// What a reference names, before anything is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// A card file on this machine.
    File(std::path::PathBuf),
    /// A card at this URL.
    Card(String),
    /// A catalog at this URL, and the entry wanted (`#NAME`), if named.
    Catalog(String, Option<String>),
}

fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// What `reference` names. A bare host is reached over https, or http on a
/// loopback address (where a development agent runs without TLS).
pub fn parse(reference: &str) -> Result<Reference, Failure> {
    let reference = reference.trim();
    if reference.is_empty() {
        return Err(Failure::usage("--agent-card is empty"));
    }
    if let Some(path) = reference.strip_prefix("file://") {
        return Ok(Reference::File(path.into()));
    }
    let lower = reference.to_ascii_lowercase();
    let with_scheme = if lower.starts_with("http://") || lower.starts_with("https://") {
        reference.to_string()
    } else if std::path::Path::new(reference).exists()
        || reference.starts_with('.')
        || reference.starts_with('/')
        || lower.ends_with(".json")
    {
        return Ok(Reference::File(reference.into()));
    } else {
        let host = reference.split(['/', '#']).next().unwrap_or(reference);
        let host_only = host
            .rsplit_once(':')
            .filter(|(_, port)| port.parse::<u16>().is_ok())
            .map_or(host, |(h, _)| h);
        let scheme = if is_loopback_host(host_only) {
            "http"
        } else {
            "https"
        };
        format!("{scheme}://{reference}")
    };
    let (url, fragment) = match with_scheme.split_once('#') {
        Some((url, fragment)) => (
            url.to_string(),
            Some(fragment.to_string()).filter(|f| !f.is_empty()),
        ),
        None => (with_scheme, None),
    };
    let parsed = reqwest::Url::parse(&url).map_err(|e| {
        Failure::local(
            Local::CardNotFound,
            format!("`{reference}` is not a host, URL or file: {e}"),
        )
    })?;
    if parsed.path().ends_with("ai-catalog.json") {
        return Ok(Reference::Catalog(url, fragment));
    }
    if parsed.path().is_empty() || parsed.path() == "/" {
        // `host#NAME`: an agent of the host's well-known catalog.
        if fragment.is_some() {
            let mut catalog = parsed.clone();
            catalog.set_path(WELL_KNOWN_CATALOG);
            return Ok(Reference::Catalog(catalog.to_string(), fragment));
        }
        let mut card = parsed.clone();
        card.set_path(WELL_KNOWN_CARD);
        return Ok(Reference::Card(card.to_string()));
    }
    Ok(Reference::Card(url))
}

/// Reads documents for resolution: over HTTP without credentials, or files.
pub struct Reader<'a> {
    /// The HTTP client (its TLS settings are the command's).
    pub http: &'a reqwest::Client,
    /// Diagnostics (`--debug`) go here.
    pub debug: &'a dyn Fn(&str),
}

impl Reader<'_> {
    async fn get(&self, url: &str, what: &str) -> Result<Value, Failure> {
        (self.debug)(&format!("GET {url} ({what}, no credentials)"));
        let response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(crate::wire::A2A_VERSION_HEADER, crate::wire::PROTOCOL_VERSION)
            .send()
            .await
            .map_err(|e| {
                Failure::local(Local::Unreachable, format!("cannot read the {what} at {url}: {}", crate::http::describe(&e)))
                    .hint("check the address, that the agent is running, and TLS (--ca-file; --insecure for development only)")
            })?;
        let status = response.status();
        (self.debug)(&format!("{url}: HTTP {status}"));
        if !status.is_success() {
            return Err(Failure {
                a2a_code: Some(i64::from(status.as_u16())),
                ..Failure::local(Local::CardNotFound, format!("no {what} at {url}: HTTP {status}"))
            }
            .hint("give the agent's origin (its card is at /.well-known/agent-card.json), the card's full URL, or a card file"));
        }
        let mut body = Vec::new();
        let mut response = response;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| Failure::local(Local::Unreachable, format!("reading the {what} at {url}: {e}")))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(Failure::local(
                    Local::CardInvalid,
                    format!("the {what} at {url} exceeds {MAX_DOCUMENT} bytes"),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| {
            Failure::local(
                Local::CardInvalid,
                format!("the {what} at {url} is not JSON: {e}"),
            )
        })
    }

    fn file(&self, path: &std::path::Path) -> Result<Value, Failure> {
        (self.debug)(&format!("reading the card file {}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::local(
                Local::CardNotFound,
                format!("cannot read the card file {}: {e}", path.display()),
            )
        })?;
        serde_json::from_str(&text).map_err(|e| {
            Failure::local(
                Local::CardInvalid,
                format!("the card file {} is not JSON: {e}", path.display()),
            )
        })
    }

    /// The card `reference` names.
    pub async fn resolve(&self, reference: &str) -> Result<Resolved, Failure> {
        let resolved = match parse(reference)? {
            Reference::File(path) => Resolved {
                card: self.file(&path)?,
                location: format!("file://{}", path.display()),
                catalog_entry: None,
            },
            Reference::Card(url) => Resolved {
                card: self.get(&url, "Agent Card").await?,
                location: url,
                catalog_entry: None,
            },
            Reference::Catalog(url, wanted) => self.through_catalog(&url, wanted.as_deref()).await?,
        };
        if !resolved.card.is_object() {
            return Err(Failure::local(
                Local::CardInvalid,
                format!("the Agent Card at {} is not a JSON object", resolved.location),
            ));
        }
        Ok(resolved)
    }

    async fn through_catalog(&self, url: &str, wanted: Option<&str>) -> Result<Resolved, Failure> {
        let mut catalog_url = url.to_string();
        for _ in 0..MAX_NESTING {
            let catalog = self.get(&catalog_url, "AI Catalog").await?;
            let entries: Vec<&Value> = catalog
                .get("entries")
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    Failure::local(
                        Local::CardInvalid,
                        format!("the AI Catalog at {catalog_url} has no entries list"),
                    )
                })?
                .iter()
                .collect();
            let cards: Vec<&Value> = entries
                .iter()
                .copied()
                .filter(|e| e["type"] == A2A_CARD_TYPE)
                .collect();
            let chosen = match wanted {
                Some(name) => cards
                    .iter()
                    .copied()
                    .find(|e| entry_names(e).iter().any(|n| n == name)),
                None if cards.len() == 1 => cards.first().copied(),
                None => None,
            };
            if let Some(entry) = chosen {
                let identifier = entry["identifier"].as_str().unwrap_or("").to_string();
                let (card, location) = match (entry.get("data"), entry.get("url").and_then(Value::as_str)) {
                    (Some(data), _) => (data.clone(), format!("{catalog_url}#{identifier}")),
                    (None, Some(card_url)) => {
                        let card_url = reqwest::Url::parse(&catalog_url)
                            .and_then(|base| base.join(card_url))
                            .map_err(|e| {
                                Failure::local(
                                    Local::CardInvalid,
                                    format!("catalog entry {identifier}: bad url: {e}"),
                                )
                            })?
                            .to_string();
                        (self.get(&card_url, "Agent Card").await?, card_url)
                    }
                    (None, None) => {
                        return Err(Failure::local(
                            Local::CardInvalid,
                            format!("catalog entry {identifier} has neither url nor data"),
                        ))
                    }
                };
                return Ok(Resolved {
                    card,
                    location,
                    catalog_entry: Some(identifier),
                });
            }
            // Not here: a nested catalog may hold it.
            let nested: Vec<&str> = entries
                .iter()
                .filter(|e| e["type"] == CATALOG_TYPE)
                .filter_map(|e| e["url"].as_str())
                .collect();
            match (nested.as_slice(), cards.is_empty()) {
                ([only], true) => {
                    catalog_url = reqwest::Url::parse(&catalog_url)
                        .and_then(|base| base.join(only))
                        .map_err(|e| Failure::local(Local::CardInvalid, format!("nested catalog: {e}")))?
                        .to_string();
                }
                _ => {
                    // Each by its shortest name: the identifier's last segment, where it has one.
                    let names: Vec<String> = cards
                        .iter()
                        .filter_map(|e| entry_names(e).into_iter().take(2).next_back())
                        .collect();
                    let why = match wanted {
                        Some(name) => format!("the AI Catalog at {url} has no A2A agent `{name}`"),
                        None if names.is_empty() => format!("the AI Catalog at {url} lists no A2A agent"),
                        None => format!("the AI Catalog at {url} lists several A2A agents"),
                    };
                    let mut failure = Failure::local(Local::CardNotFound, why);
                    if !names.is_empty() {
                        failure = failure.hint(format!(
                            "name one after `#`: {}",
                            names
                                .iter()
                                .map(|n| format!("{url}#{n}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                    return Err(failure);
                }
            }
        }
        Err(Failure::local(
            Local::CardInvalid,
            format!("the AI Catalog at {url} nests deeper than {MAX_NESTING}"),
        ))
    }
}

/// The names an entry answers to: its identifier, its display name, and the
/// identifier's last segment.
fn entry_names(entry: &Value) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(identifier) = entry["identifier"].as_str() {
        names.push(identifier.to_string());
        if let Some(last) = identifier.rsplit([':', '/']).next().filter(|l| *l != identifier) {
            names.push(last.to_string());
        }
    }
    if let Some(display) = entry["displayName"].as_str() {
        names.push(display.to_string());
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        let card = |s: &str| Reference::Card(s.to_string());
        assert_eq!(
            parse("agents.example.com").ok(),
            Some(card("https://agents.example.com/.well-known/agent-card.json"))
        );
        assert_eq!(
            parse("127.0.0.1:7420").ok(),
            Some(card("http://127.0.0.1:7420/.well-known/agent-card.json"))
        );
        assert_eq!(
            parse("localhost:8").ok(),
            Some(card("http://localhost:8/.well-known/agent-card.json"))
        );
        assert_eq!(
            parse("https://a.example/").ok(),
            Some(card("https://a.example/.well-known/agent-card.json"))
        );
        assert_eq!(
            parse("https://a.example/cards/x.json").ok(),
            Some(card("https://a.example/cards/x.json"))
        );
        assert_eq!(
            parse("file:///tmp/card.json").ok(),
            Some(Reference::File("/tmp/card.json".into()))
        );
        assert_eq!(
            parse("./card.json").ok(),
            Some(Reference::File("./card.json".into()))
        );
        assert_eq!(
            parse("https://a.example/.well-known/ai-catalog.json#research").ok(),
            Some(Reference::Catalog(
                "https://a.example/.well-known/ai-catalog.json".into(),
                Some("research".into())
            ))
        );
        assert_eq!(
            parse("a.example#research").ok(),
            Some(Reference::Catalog(
                "https://a.example/.well-known/ai-catalog.json".into(),
                Some("research".into())
            ))
        );
        assert!(parse("").is_err());
        assert_eq!(
            entry_names(
                &serde_json::json!({"identifier": "urn:air:example.com:a2a:research", "displayName": "Research"})
            ),
            ["urn:air:example.com:a2a:research", "research", "Research"]
        );
    }
}
