//! The `.env` files settings may live in (a2a-cli §8.3): one `KEY=value`
//! per line, where they are found, and what each says about the settings.
//!
//! Only `A2ACLI_` keys are the tool's: a local `.env` found by walking up
//! from the working directory is often a project's own file, so its other
//! lines are not read at all, and a malformed one of them is no error.

use std::path::{Path, PathBuf};

/// The prefix of every setting's name, in the environment and in files.
pub const PREFIX: &str = "A2ACLI_";

/// One `A2ACLI_` assignment read from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The variable's name (`A2ACLI_TIMEOUT`).
    pub key: String,
    /// Its value, unquoted.
    pub value: String,
    /// The line it is on (1-based), for messages.
    pub line: usize,
}

/// A file's settings.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its `A2ACLI_` assignments, in file order (a later one of the same key wins).
    pub entries: Vec<Entry>,
}

impl File {
    /// The value the file gives `key`: its last assignment.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.key == key)
            .map(|e| e.value.as_str())
    }

    /// Reads `path`; `Ok(None)` when there is no such file.
    pub fn read(path: &Path) -> Result<Option<File>, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(format!(
                    "cannot read the configuration file {}: {e}",
                    path.display()
                ))
            }
        };
        let entries = parse(&text).map_err(|(line, why)| format!("{}:{line}: {why}", path.display()))?;
        Ok(Some(File {
            path: path.to_path_buf(),
            entries,
        }))
    }
}

/// The `A2ACLI_` assignments of a file's text; an `A2ACLI_` line that cannot
/// be read is an error (its line and why), any other line is ignored.
pub fn parse(text: &str) -> Result<Vec<Entry>, (usize, String)> {
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        if !line.starts_with(PREFIX) {
            continue;
        }
        let number = index + 1;
        let Some((key, value)) = line.split_once('=') else {
            return Err((number, format!("`{line}` is not KEY=value")));
        };
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err((number, format!("`{key}` is not a variable name")));
        }
        let value = unquote(value.trim()).map_err(|why| (number, why))?;
        entries.push(Entry {
            key: key.to_string(),
            value,
            line: number,
        });
    }
    Ok(entries)
}

/// A value as written: bare (a ` #` starts a comment), in single quotes
/// (literal), or in double quotes (`\n`, `\"`, `\\` escapes).
fn unquote(value: &str) -> Result<String, String> {
    if let Some(rest) = value.strip_prefix('\'') {
        let end = rest.find('\'').ok_or("unterminated single quote")?;
        return Ok(rest[..end].to_string());
    }
    if let Some(rest) = value.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return Ok(out),
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => out.push(other),
                    None => break,
                },
                other => out.push(other),
            }
        }
        return Err("unterminated double quote".into());
    }
    let bare = value.find(" #").map_or(value, |i| &value[..i]);
    Ok(bare.trim_end().to_string())
}

/// The user's configuration directory for the tool: `$XDG_CONFIG_HOME/a2a-cli`,
/// else `~/.config/a2a-cli`.
pub fn config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".config"))
        })?;
    Some(base.join("a2a-cli"))
}

/// The global file: `.env` in [`config_dir`].
pub fn global_path() -> Option<PathBuf> {
    config_dir().map(|dir| dir.join(".env"))
}

/// The nearest `.env` at or above `start`, as `git` finds its directory.
pub fn local_path(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(".env"))
        .find(|candidate| candidate.is_file())
}

/// True when a file holding secrets can be read by others than its owner.
#[cfg(unix)]
pub fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0)
}

/// True when a file holding secrets can be read by others than its owner.
#[cfg(not(unix))]
pub fn readable_by_others(_path: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let text = "# comment\nOTHER=ignored\nbroken line of another tool\nA2ACLI_TIMEOUT=30s # why\nexport A2ACLI_BEARER='a b#c'\nA2ACLI_METADATA=\"{\\\"k\\\": \\\"v\\\"}\"\nA2ACLI_TIMEOUT=5s\n";
        let entries = parse(text).expect("parses");
        let pairs: Vec<(&str, &str, usize)> = entries
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str(), e.line))
            .collect();
        assert_eq!(
            pairs,
            [
                ("A2ACLI_TIMEOUT", "30s", 4),
                ("A2ACLI_BEARER", "a b#c", 5),
                ("A2ACLI_METADATA", "{\"k\": \"v\"}", 6),
                ("A2ACLI_TIMEOUT", "5s", 7),
            ]
        );
        let file = File {
            path: PathBuf::from("x"),
            entries,
        };
        assert_eq!(file.get("A2ACLI_TIMEOUT"), Some("5s"));
        assert_eq!(parse("A2ACLI_X"), Err((1, "`A2ACLI_X` is not KEY=value".into())));
        assert_eq!(
            parse("A2ACLI_X=\"open"),
            Err((1, "unterminated double quote".into()))
        );
        assert_eq!(
            parse("A2ACLI_X-Y=1"),
            Err((1, "`A2ACLI_X-Y` is not a variable name".into()))
        );
    }
}
