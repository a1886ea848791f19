//! `--debug`: diagnostics on stderr (how the agent was reached, and every
//! message exchanged on the wire), with every credential redacted. The
//! redaction is by value, so a secret is hidden wherever it shows up (a
//! header, a URL's query, a body, an error message), and no flag turns it off.

use std::sync::{Arc, Mutex};

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// The stderr diagnostics of one command.
#[derive(Clone, Default)]
pub struct Debug {
    enabled: bool,
    secrets: Arc<Mutex<Vec<String>>>,
}

impl Debug {
    /// Diagnostics on when `enabled`.
    pub fn new(enabled: bool) -> Debug {
        Debug {
            enabled,
            secrets: Arc::default(),
        }
    }

    /// Whether diagnostics are shown.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Adds a secret to hide (empty and very short values are not secrets
    /// worth hiding everywhere they might appear by chance).
    pub fn secret(&self, value: &str) {
        if value.len() >= 3 {
            if let Ok(mut secrets) = self.secrets.lock() {
                secrets.push(value.to_string());
                // Longest first, so a secret containing another is hidden whole.
                secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
            }
        }
    }

    /// `text` with every secret hidden.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        if let Ok(secrets) = self.secrets.lock() {
            for secret in secrets.iter() {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    /// Writes one diagnostic line (or lines) to stderr, redacted.
    pub fn log(&self, text: &str) {
        if self.enabled {
            let text = self.redact(text);
            for line in text.lines() {
                eprintln!("debug: {}", super::text::clean(line));
            }
        }
    }

    /// The transports' hook for the wire.
    pub fn wire_log(&self) -> Option<crate::wire::WireLog> {
        if !self.enabled {
            return None;
        }
        let debug = self.clone();
        Some(crate::wire::WireLog::new(move |line: &str| debug.log(line)))
    }
}

/// A `--svc-param` as it may be shown: the key, and the value hidden.
pub fn redact_param(param: &str) -> String {
    match param.split_once(':') {
        Some((key, _)) => format!("{key}:{REDACTED}"),
        None => REDACTED.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_hidden_everywhere() {
        let debug = Debug::new(true);
        debug.secret("s3cr3t-token");
        debug.secret("s3cr3t");
        assert_eq!(
            debug.redact("Authorization: Bearer s3cr3t-token; url?key=s3cr3t"),
            "Authorization: Bearer [REDACTED]; url?key=[REDACTED]"
        );
        assert_eq!(redact_param("x-api-key:abc"), "x-api-key:[REDACTED]");
    }
}
