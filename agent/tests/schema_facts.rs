//! Schema facts are spelled once, in the schemas: hand-written code reaches them
//! through the generated types and constants. This test derives every enum wire
//! value and every method name from `schema/*.json` and fails when hand-written,
//! non-test source spells one: a renamed value then breaks the build, not a
//! request at run time.
//!
//! Scanned: the `src/` trees of every workspace crate except the generated
//! code; skipped: tests, benches, examples, comments, files that are test-only
//! (`#![cfg(test)]`) and everything after a file's first `#[cfg(test)]`.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn schemas() -> Vec<Value> {
    let dir = workspace().join("schema");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("schema dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).expect("schema");
            out.push(serde_json::from_str(&text).expect("schema JSON"));
        }
    }
    assert!(out.len() >= 2, "schemas not found in {}", dir.display());
    out
}

/// Every string of every `enum` in the schema's definitions.
fn enum_values(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(values)) = map.get("enum") {
                out.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
            }
            map.values().for_each(|v| enum_values(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| enum_values(v, out)),
        _ => {}
    }
}

struct Facts {
    /// Enum wire values (`TASK_STATE_COMPLETED`): searched as whole words.
    values: BTreeSet<String>,
    /// Method names (`GetTask`, `_cleveragents/plan/use`): searched as string literals.
    methods: BTreeSet<String>,
}

fn facts() -> Facts {
    let mut values = BTreeSet::new();
    let mut methods = BTreeSet::new();
    for schema in schemas() {
        if let Some(defs) = schema.get("definitions") {
            enum_values(defs, &mut values);
        }
        if let Some(Value::Object(table)) = schema.get("x-methods") {
            methods.extend(table.keys().cloned());
        }
    }
    // Only values that cannot be ordinary words: the prefixed SCREAMING_SNAKE
    // wire names of ProtoJSON enums.
    values.retain(|v| {
        v.contains('_')
            && v.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    });
    assert!(values.len() > 50, "too few enum values derived: {}", values.len());
    assert!(methods.len() > 50, "too few methods derived: {}", methods.len());
    Facts { values, methods }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The hand-written, non-test source files of the workspace.
fn hand_written() -> Vec<PathBuf> {
    let root = workspace();
    let generated = root.join("generated").join("src").join("gen");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).expect("workspace").flatten() {
        let src = entry.path().join("src");
        if entry.path().join("Cargo.toml").is_file() && src.is_dir() {
            sources(&src, &mut files);
        }
    }
    files.retain(|f| !f.starts_with(&generated));
    files.sort();
    assert!(files.len() > 50, "too few sources found: {}", files.len());
    files
}

/// The lines of `text` that are code outside tests.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let test_only = text
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
        .is_some_and(|l| l.trim() == "#![cfg(test)]");
    text.lines()
        .enumerate()
        .take_while(move |(_, l)| !test_only && l.trim() != "#[cfg(test)]")
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
}

fn has_word(line: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[test]
fn hand_written_code_spells_no_enum_value_and_no_method_name() {
    let facts = facts();
    let root = workspace();
    let mut offences = Vec::new();
    for file in hand_written() {
        let text = std::fs::read_to_string(&file).expect("source");
        for (number, line) in code_lines(&text) {
            let mut found: Vec<&str> = facts
                .values
                .iter()
                .filter(|v| has_word(line, v))
                .map(String::as_str)
                .collect();
            found.extend(
                facts
                    .methods
                    .iter()
                    .filter(|m| line.contains(&format!("\"{m}\"")))
                    .map(String::as_str),
            );
            for fact in found {
                let path = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
                offences.push(format!("{path}:{number}: {fact}"));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "{} schema facts spelled by hand (use the generated enum or constant):\n{}",
        offences.len(),
        offences.join("\n")
    );
}

#[test]
fn the_scan_sees_what_it_must() {
    // The derivation and the matcher themselves, on known inputs.
    let facts = facts();
    assert!(facts.values.contains("TASK_STATE_COMPLETED"));
    assert!(facts.methods.contains("GetTask"));
    assert!(facts.methods.contains("_cleveragents/plan/use"));
    assert!(has_word("x = \"TASK_STATE_COMPLETED\";", "TASK_STATE_COMPLETED"));
    assert!(!has_word("TASK_STATE_COMPLETED_LATER", "TASK_STATE_COMPLETED"));
    let text = "fn a() {}\n// \"GetTask\"\nlet b = 1;\n#[cfg(test)]\nmod tests {}\n";
    assert_eq!(code_lines(text).map(|(n, _)| n).collect::<Vec<_>>(), [1, 3]);
    assert_eq!(code_lines("//! doc\n#![cfg(test)]\nfn a() {}\n").count(), 0);
}
