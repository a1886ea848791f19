//! The parts of a message `send` builds (a2a-cli §10.2), in the order the
//! command line gives them: `--text STRING`, `--file PATH|URL`, `--data
//! PATH|-` (JSON; `-` is stdin) and the positional words (one text part),
//! each `--media-type` binding to the part flag just before it.
//!
//! clap keeps each flag's values apart; their indices on the command line
//! put them back in order.

use base64::Engine as _;
use clap::{Arg, ArgAction, ArgMatches};
use serde_json::{json, Value};
use std::io::Read;

/// `--text`.
pub const TEXT: &str = "text";
/// `--file`.
pub const FILE: &str = "file";
/// `--data`.
pub const DATA: &str = "data";
/// `--media-type`.
pub const MEDIA_TYPE: &str = "media-type";
/// The positional words.
pub const WORDS: &str = "words";

/// The arguments `send` takes for its parts.
pub fn args() -> Vec<Arg> {
    vec![
        Arg::new(WORDS)
            .value_name("TEXT")
            .num_args(1..)
            .help("The message text (one text part); as many words as you like"),
        Arg::new(TEXT)
            .long(TEXT)
            .value_name("STRING")
            .action(ArgAction::Append)
            .help("A text part (repeatable; parts keep their order)"),
        Arg::new(FILE)
            .long(FILE)
            .value_name("PATH|URL")
            .action(ArgAction::Append)
            .help("A file part: a local file inline (base64), or a URL the agent fetches (repeatable)"),
        Arg::new(DATA)
            .long(DATA)
            .value_name("PATH|-")
            .action(ArgAction::Append)
            .help("A data part from a JSON file, or `-` for stdin (repeatable)"),
        Arg::new(MEDIA_TYPE)
            .long(MEDIA_TYPE)
            .value_name("TYPE")
            .action(ArgAction::Append)
            .help("Media type of the part flag just before it (else inferred from a file's extension)"),
    ]
}

/// One part flag as given, with its place on the command line.
struct Given {
    index: usize,
    kind: &'static str,
    value: String,
}

fn given(matches: &ArgMatches, kind: &'static str) -> Vec<Given> {
    let values: Vec<String> = matches
        .get_many::<String>(kind)
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let indices: Vec<usize> = matches
        .indices_of(kind)
        .map(Iterator::collect)
        .unwrap_or_default();
    if kind == WORDS {
        // The words are one part, at the place of the first.
        return match indices.first() {
            Some(&index) => vec![Given {
                index,
                kind,
                value: values.join(" "),
            }],
            None => Vec::new(),
        };
    }
    indices
        .into_iter()
        .zip(values)
        .map(|(index, value)| Given { index, kind, value })
        .collect()
}

/// The parts, in command-line order; an error is a usage error.
pub fn build(matches: &ArgMatches) -> Result<Vec<Value>, String> {
    let mut flags: Vec<Given> = [WORDS, TEXT, FILE, DATA]
        .into_iter()
        .flat_map(|kind| given(matches, kind))
        .collect();
    flags.sort_by_key(|g| g.index);
    let media: Vec<Given> = given(matches, MEDIA_TYPE);
    let mut media_of: Vec<Option<String>> = vec![None; flags.len()];
    for m in media {
        // The part flag just before it: the last one whose place is earlier.
        let Some(at) = flags.iter().rposition(|g| g.index < m.index && g.kind != WORDS) else {
            return Err(format!(
                "--media-type {} follows no --text, --file or --data: put it right after the part it describes",
                m.value
            ));
        };
        let between_other_media = media_of[at].is_some();
        if between_other_media {
            return Err(format!(
                "two --media-type for one part ({} given twice)",
                flags[at].value
            ));
        }
        if m.value.trim().is_empty() || !m.value.contains('/') {
            return Err(format!(
                "--media-type `{}` is not a media type such as application/pdf",
                m.value
            ));
        }
        media_of[at] = Some(m.value);
    }
    flags
        .iter()
        .zip(media_of)
        .map(|(g, media)| part(g, media))
        .collect()
}

fn part(given: &Given, media: Option<String>) -> Result<Value, String> {
    let mut part = match given.kind {
        WORDS | TEXT => json!({ "text": given.value }),
        DATA => {
            let text = if given.value == "-" {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| format!("--data -: cannot read stdin: {e}"))?;
                text
            } else {
                std::fs::read_to_string(&given.value)
                    .map_err(|e| format!("--data {}: cannot read it: {e}", given.value))?
            };
            let data: Value = serde_json::from_str(&text)
                .map_err(|e| format!("--data {}: not valid JSON: {e}", given.value))?;
            json!({ "data": data })
        }
        _ => file_part(&given.value, media.is_none())?,
    };
    if let Some(media) = media {
        part["mediaType"] = Value::String(media);
    }
    Ok(part)
}

fn is_url(value: &str) -> bool {
    ["http://", "https://"]
        .iter()
        .any(|scheme| value.len() > scheme.len() && value[..scheme.len()].eq_ignore_ascii_case(scheme))
}

fn file_part(value: &str, infer: bool) -> Result<Value, String> {
    let name = value
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(value)
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_string();
    let mut part = if is_url(value) {
        json!({ "url": value })
    } else {
        let path = value.strip_prefix("file://").unwrap_or(value);
        let bytes = std::fs::read(path).map_err(|e| format!("--file {value}: cannot read it: {e}"))?;
        json!({ "raw": base64::engine::general_purpose::STANDARD.encode(bytes) })
    };
    if !name.is_empty() {
        part["filename"] = Value::String(name.clone());
    }
    if infer {
        if let Some(media) = media_type_of(&name) {
            part["mediaType"] = Value::String(media.to_string());
        }
    }
    Ok(part)
}

/// The media type a file name's extension suggests, for the common types.
pub fn media_type_of(name: &str) -> Option<&'static str> {
    let (_, extension) = name.rsplit_once('.')?;
    Some(match extension.to_ascii_lowercase().as_str() {
        "txt" | "text" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "json" => "application/json",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "tar" => "application/x-tar",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        _ => return None,
    })
}

/// The size of base64 content once decoded, or `None` when it is not base64.
pub fn decoded_len(raw: &str) -> Option<usize> {
    base64::engine::general_purpose::STANDARD
        .decode(raw)
        .ok()
        .map(|bytes| bytes.len())
}

/// The bytes of base64 content.
pub fn decode(raw: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(raw).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Command;

    fn parts_of(args: &[&str]) -> Result<Vec<Value>, String> {
        let matches = Command::new("send")
            .args(super::args())
            .try_get_matches_from(std::iter::once("send").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        build(&matches)
    }

    #[test]
    fn order_and_media_types() {
        let dir = std::env::temp_dir().join(format!("agents-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let data = dir.join("d.json");
        std::fs::write(&data, "{\"k\": [1, 2]}").expect("write");
        let file = dir.join("report.bin");
        std::fs::write(&file, b"tck").expect("write");
        let data_arg = data.to_string_lossy().to_string();
        let file_arg = file.to_string_lossy().to_string();
        let parts = parts_of(&[
            "--data",
            &data_arg,
            "--text",
            "first",
            "--file",
            &file_arg,
            "--media-type",
            "application/pdf",
            "--file",
            "https://example.com/a.png",
            "--text",
            "last",
        ])
        .expect("parts");
        assert_eq!(
            parts,
            vec![
                json!({"data": {"k": [1, 2]}}),
                json!({"text": "first"}),
                json!({"raw": "dGNr", "filename": "report.bin", "mediaType": "application/pdf"}),
                json!({"url": "https://example.com/a.png", "filename": "a.png", "mediaType": "image/png"}),
                json!({"text": "last"}),
            ]
        );
        assert_eq!(
            parts_of(&["hello", "world"]),
            Ok(vec![json!({"text": "hello world"})])
        );
        assert!(parts_of(&["--media-type", "text/plain", "--text", "x"])
            .is_err_and(|e| e.contains("follows no --text")));
        assert!(parts_of(&["--text", "x", "--media-type", "plain"])
            .is_err_and(|e| e.contains("not a media type")));
        assert!(parts_of(&["--file", "/nonexistent/file"]).is_err_and(|e| e.contains("cannot read")));
        let _ = std::fs::remove_dir_all(dir);
    }
}
