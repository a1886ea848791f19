//! Where a command's output goes (a2a-cli §11.1, §11.3): the payload on
//! stdout, in `text` or as the protocol's own JSON (one document, or one
//! object per line under `--stream`), and everything else (warnings,
//! progress, diagnostics, a failure in `text`) on stderr. A closed stdout
//! (`agents … | head -1`) ends the output quietly, never in a panic.

use super::failure::Failure;
use super::text::Text;
use serde_json::Value;
use std::io::{IsTerminal, Write};

/// The chosen format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `Label: value` lines.
    Text,
    /// The protocol's JSON.
    Json,
}

impl Format {
    /// `text` or `json`.
    pub fn parse(name: &str) -> Result<Format, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            other => Err(format!("-o/--output `{other}`: use text or json")),
        }
    }
}

/// The output of one command.
pub struct Output {
    /// Text or JSON.
    pub format: Format,
    /// `--stream`: JSON Lines rather than one document.
    pub stream: bool,
    /// `--verbose`.
    pub verbose: bool,
}

/// Writes `text` to stdout; a closed pipe is not an error worth a word.
pub fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// A warning on stderr.
pub fn warn(message: &str) {
    eprintln!("warning: {}", super::text::clean(message));
}

/// Whether a person is watching stderr (for live progress).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

impl Output {
    /// The result of a command: one JSON document, or its text.
    pub fn document(&self, value: &Value, render: impl FnOnce(&mut Text, &Value, bool)) {
        match self.format {
            Format::Json => stdout(&format!("{value}\n")),
            Format::Text => {
                let mut text = Text::new();
                render(&mut text, value, self.verbose);
                stdout(&text.finish());
            }
        }
    }

    /// One item of a JSON Lines stream (or a text record).
    pub fn line(&self, value: &Value, render: impl FnOnce(&mut Text, &Value, bool)) {
        match self.format {
            Format::Json => stdout(&format!("{value}\n")),
            Format::Text => {
                let mut text = Text::new();
                render(&mut text, value, self.verbose);
                text.gap();
                stdout(&text.finish());
            }
        }
    }

    /// A failure: the envelope on stdout in JSON (the one payload, or the
    /// stream's last line), else its fields on stderr.
    pub fn failure(&self, failure: &Failure) {
        match self.format {
            Format::Json => stdout(&format!("{}\n", failure.envelope())),
            Format::Text => eprint!("{}", failure.text()),
        }
    }
}
