//! The validation engine: runs a validation entity on a file tree (the
//! project at the plan's base revision with the workspace over it; for
//! invariants at apply, the tree the apply would produce).
//!
//! `pathGlob` is a path glob ([`crate::glob`]: `*` and `?` stay within a path
//! segment and `**`, as a whole segment, spans segments: `docs/**/*.md`). FILE_EXISTS needs a matching file,
//! FILE_ABSENT none; CONTENT_MATCHES / CONTENT_EXCLUDES need `pattern` (a
//! regex) to match / not match every matching file (binary files never
//! match); JSON_SCHEMA parses each matching file and checks it against
//! `schema`; MAX_FILE_BYTES bounds each file's size. Checks over no matching
//! files pass. A failure is FAILED for ERROR severity, WARNED for WARNING.

use super::field;
use super::schema::Schema;
use super::PlanService;
use crate::registry::file_bytes;
use a2a::types::RegistryKind;
use a2a::types::{ValidationKind, ValidationOutcome, ValidationResult, ValidationSeverity};
use globset::GlobMatcher;
use serde_json::{json, Value};

/// The matcher of a path glob.
pub fn path_glob(glob: &str) -> Result<GlobMatcher, String> {
    crate::glob::path_glob(glob).map_err(|e| format!("pathGlob `{glob}` is invalid: {e}"))
}

/// Checks one validation entity on a tree: `Err` describes the failure.
pub(crate) fn check_validation(v: &Value, tree: &[Value]) -> Result<(), String> {
    let glob = v["pathGlob"].as_str().unwrap_or_default();
    let matcher = path_glob(glob)?;
    let matched: Vec<&Value> = tree
        .iter()
        .filter(|f| matcher.is_match(f["path"].as_str().unwrap_or_default()))
        .collect();
    let path = |f: &Value| f["path"].as_str().unwrap_or_default().to_string();
    let text = |f: &Value| String::from_utf8(file_bytes(f)).ok();
    let list = |files: Vec<&Value>| files.into_iter().map(path).collect::<Vec<_>>().join(", ");
    let pattern = || {
        let p = v["pattern"].as_str().ok_or("the validation has no pattern")?;
        regex::Regex::new(p).map_err(|e| format!("pattern `{p}` is invalid: {e}"))
    };
    let Some(kind) = field::<ValidationKind>(v, "kind") else {
        let other = v["kind"].as_str().unwrap_or_default();
        return Err(format!("unknown validation kind `{other}`"));
    };
    match kind {
        ValidationKind::FileExists if matched.is_empty() => Err(format!("no file matches `{glob}`")),
        ValidationKind::FileExists => Ok(()),
        ValidationKind::FileAbsent if matched.is_empty() => Ok(()),
        ValidationKind::FileAbsent => Err(format!("present: {}", list(matched))),
        ValidationKind::ContentMatches => {
            let re = pattern()?;
            let bad: Vec<&Value> = matched
                .into_iter()
                .filter(|f| !text(f).is_some_and(|t| re.is_match(&t)))
                .collect();
            if bad.is_empty() {
                Ok(())
            } else {
                Err(format!("not matching `{}`: {}", re.as_str(), list(bad)))
            }
        }
        ValidationKind::ContentExcludes => {
            let re = pattern()?;
            let bad: Vec<&Value> = matched
                .into_iter()
                .filter(|f| text(f).is_some_and(|t| re.is_match(&t)))
                .collect();
            if bad.is_empty() {
                Ok(())
            } else {
                Err(format!("matching `{}`: {}", re.as_str(), list(bad)))
            }
        }
        ValidationKind::JsonSchema => {
            let schema = Schema::compile(&v.get("schema").cloned().unwrap_or(json!({})))?;
            for f in matched {
                let value: Value = serde_json::from_slice(&file_bytes(f))
                    .map_err(|e| format!("{} is not JSON: {e}", path(f)))?;
                schema.check(&value, &path(f))?;
            }
            Ok(())
        }
        ValidationKind::MaxFileBytes => {
            let max = v["maxBytes"].as_u64().ok_or("the validation has no maxBytes")?;
            let big: Vec<&Value> = matched
                .into_iter()
                .filter(|f| file_bytes(f).len() as u64 > max)
                .collect();
            if big.is_empty() {
                Ok(())
            } else {
                Err(format!("larger than {max} bytes: {}", list(big)))
            }
        }
    }
}

/// Runs the validation `name` of namespace `ns` on a tree: its result, or why
/// it cannot run (it does not exist).
pub(crate) async fn run_validation(
    plans: &PlanService,
    ns: &str,
    name: &str,
    tree: &[Value],
    invariant: Option<&str>,
) -> Result<ValidationResult, String> {
    let v = plans
        .registry
        .get(ns, RegistryKind::Validation, name)
        .await
        .map_err(|e| e.message)?
        .ok_or_else(|| format!("validation `{name}` does not exist"))?;
    let (outcome, message) = match check_validation(&v, tree) {
        Ok(()) => (ValidationOutcome::Passed, None),
        Err(why) if field(&v, "severity") == Some(ValidationSeverity::Warning) => {
            (ValidationOutcome::Warned, Some(why))
        }
        Err(why) => (ValidationOutcome::Failed, Some(why)),
    };
    Ok(ValidationResult {
        validation: name.to_string(),
        invariant: invariant.map(str::to_string),
        outcome,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_stay_within_segments_unless_double_star() {
        let matches = |glob: &str, path: &str| path_glob(glob).map(|m| m.is_match(path));
        assert_eq!(matches("docs/**/*.md", "docs/a.md"), Ok(true));
        assert_eq!(matches("docs/**/*.md", "docs/x/y/a.md"), Ok(true));
        assert_eq!(matches("docs/**/*.md", "docs/a.txt"), Ok(false));
        assert_eq!(matches("*.md", "a/b.md"), Ok(false));
        assert_eq!(matches("*.md", "CHANGELOG.md"), Ok(true));
        assert_eq!(matches("a?c", "abc"), Ok(true));
    }

    #[test]
    fn validations_check_the_tree() {
        let tree = vec![
            json!({ "path": "CHANGELOG.md", "mediaType": "text/markdown", "text": "## 2.4.0\n" }),
            json!({ "path": "data.json", "mediaType": "application/json", "text": "{\"a\": 1}" }),
        ];
        let v = |kind: &str, extra: Value| {
            let mut v = json!({ "kind": kind, "pathGlob": "*.md", "severity": "VALIDATION_SEVERITY_ERROR" });
            if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
                o.extend(e.clone());
            }
            v
        };
        assert_eq!(
            check_validation(&v("VALIDATION_KIND_FILE_EXISTS", json!({})), &tree),
            Ok(())
        );
        assert_eq!(
            check_validation(&v("VALIDATION_KIND_FILE_ABSENT", json!({})), &tree),
            Err("present: CHANGELOG.md".into())
        );
        assert_eq!(
            check_validation(
                &v("VALIDATION_KIND_CONTENT_MATCHES", json!({ "pattern": "2\\.4" })),
                &tree
            ),
            Ok(())
        );
        assert_eq!(
            check_validation(
                &v("VALIDATION_KIND_CONTENT_EXCLUDES", json!({ "pattern": "2\\.4" })),
                &tree
            ),
            Err("matching `2\\.4`: CHANGELOG.md".into())
        );
        assert_eq!(
            check_validation(
                &v("VALIDATION_KIND_MAX_FILE_BYTES", json!({ "maxBytes": 3 })),
                &tree
            ),
            Err("larger than 3 bytes: CHANGELOG.md".into())
        );
        let schema = json!({ "kind": "VALIDATION_KIND_JSON_SCHEMA", "pathGlob": "*.json",
                             "schema": { "type": "object", "required": ["b"] } });
        assert_eq!(
            check_validation(&schema, &tree),
            Err("data.json.b is required".into())
        );
    }
}
