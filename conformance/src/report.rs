//! Results of a run: per-case outcomes, the expected-failures baseline applied
//! to them, and the JSON and JUnit XML renderings CI consumes.

use crate::baseline::Baseline;
use crate::cases::Case;
use crate::check::Verdict;
use crate::transport::Answer;
use a2a::MethodDescriptor;
use serde::Serialize;
use serde_json::{json, Value};
use std::time::Duration;

/// How one case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Pass,
    Fail,
    /// Failed, and listed in the expected-failures file.
    ExpectedFail,
    /// Listed in the expected-failures file, but passed: the baseline is stale.
    Stale,
}

impl Outcome {
    /// True when the outcome fails the gate.
    pub fn is_failure(self) -> bool {
        matches!(self, Outcome::Fail | Outcome::Stale)
    }
}

/// One case's result.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub id: String,
    pub group: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub outcome: Outcome,
    /// Why it passed or failed.
    pub detail: String,
    /// What came back, with run-specific values (ids, timestamps, durations) masked, so
    /// runs over different transports compare equal when the agent behaves the same.
    pub observed: Value,
    pub millis: u64,
}

impl CaseResult {
    pub fn new(
        id: &str,
        group: &str,
        method: Option<&MethodDescriptor>,
        outcome: Outcome,
        detail: String,
        observed: Value,
        millis: u64,
    ) -> CaseResult {
        CaseResult {
            id: id.to_string(),
            group: group.to_string(),
            method: method.map(|d| d.name.to_string()),
            outcome,
            detail,
            observed,
            millis,
        }
    }

    pub fn from_verdict(case: &Case, verdict: Verdict, answer: &Answer, elapsed: Duration) -> CaseResult {
        let (outcome, detail) = match verdict {
            Ok(note) => (Outcome::Pass, note),
            Err(why) => (Outcome::Fail, why),
        };
        CaseResult::new(
            &case.id,
            &case.group,
            case.method,
            outcome,
            detail,
            observe(answer),
            elapsed.as_millis() as u64,
        )
    }
}

/// An answer as a comparable value, run-specific strings masked.
pub fn observe(answer: &Answer) -> Value {
    let v = match answer {
        Answer::Result(r) => json!({"result": r}),
        Answer::Error(e) => json!({"error": e}),
        Answer::Stream { events, error } => json!({"events": events, "error": error}),
        Answer::Broken(why) => json!({"broken": why}),
    };
    mask(v, None)
}

fn mask(value: Value, key: Option<&str>) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let masked = mask(v, Some(&k));
                    (k, masked)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| mask(v, key)).collect()),
        // A measured duration (health's `latencyMs`) differs from run to run and
        // between transports; only its presence and type are comparable.
        Value::Number(n) if key.is_some_and(is_duration_key) => Value::String(
            if n.is_i64() || n.is_u64() {
                "<duration>"
            } else {
                "<non-integer duration>"
            }
            .into(),
        ),
        Value::String(s) => {
            let opaque = key.is_some_and(|k| k.ends_with("Token") || k.ends_with("Cursor") || k == "cursor");
            if opaque && !s.is_empty() {
                Value::String("<opaque>".into())
            } else if is_timestamp(&s) {
                Value::String("<time>".into())
            } else {
                Value::String(mask_tokens(&s))
            }
        }
        other => other,
    }
}

/// A field that holds a measured time span in milliseconds.
fn is_duration_key(key: &str) -> bool {
    key.ends_with("Ms")
}

fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 19
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
}

/// Replaces UUIDs and the runner's own unique strings inside a string.
fn mask_tokens(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        if is_uuid(token) {
            out.push_str("<uuid>");
        } else if token.starts_with("conformance-") {
            out.push_str("<unique>");
        } else {
            out.push_str(token);
        }
        token.clear();
    };
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// Counts of a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub expected_failures: usize,
    pub stale: usize,
}

/// A whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub transport: String,
    pub summary: Summary,
    pub millis: u64,
    pub cases: Vec<CaseResult>,
    /// Expected-failure entries that name no case of this run (wrong id, or a
    /// group that was not selected): reported, not failing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_baseline: Vec<String>,
}

impl Report {
    pub fn new(transport: &str, cases: Vec<CaseResult>, elapsed: Duration) -> Report {
        let mut report = Report {
            transport: transport.to_string(),
            summary: Summary::default(),
            millis: elapsed.as_millis() as u64,
            cases,
            unmatched_baseline: Vec::new(),
        };
        report.recount();
        report
    }

    fn recount(&mut self) {
        let count = |o: Outcome| self.cases.iter().filter(|c| c.outcome == o).count();
        self.summary = Summary {
            total: self.cases.len(),
            passed: count(Outcome::Pass),
            failed: count(Outcome::Fail),
            expected_failures: count(Outcome::ExpectedFail),
            stale: count(Outcome::Stale),
        };
    }

    /// Applies a strict baseline: a listed failure is expected, a listed pass
    /// is stale (a failure), an unlisted failure stays a failure.
    pub fn apply_baseline(&mut self, baseline: &Baseline) {
        for case in &mut self.cases {
            if !baseline.contains(&case.id) {
                continue;
            }
            case.outcome = match case.outcome {
                Outcome::Fail => Outcome::ExpectedFail,
                Outcome::Pass => {
                    case.detail = format!(
                        "listed in the expected-failures file but passed ({}): remove it from the file",
                        case.detail
                    );
                    Outcome::Stale
                }
                other => other,
            };
        }
        self.unmatched_baseline = baseline
            .ids()
            .filter(|id| !self.cases.iter().any(|c| &c.id == *id))
            .cloned()
            .collect();
        self.recount();
    }

    /// True when the gate passes.
    pub fn passed(&self) -> bool {
        !self.cases.iter().any(|c| c.outcome.is_failure())
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The report as JUnit XML: one test suite per group, one test case per case;
    /// stale baseline entries are failures, expected failures are skipped.
    pub fn to_junit(&self) -> String {
        let mut groups: Vec<&str> = Vec::new();
        for c in &self.cases {
            if !groups.contains(&c.group.as_str()) {
                groups.push(&c.group);
            }
        }
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        xml.push_str(&format!(
            "<testsuites name=\"a2a-conformance ({})\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
            esc(&self.transport),
            self.summary.total,
            self.summary.failed + self.summary.stale,
            self.summary.expected_failures,
            self.millis as f64 / 1000.0
        ));
        for g in groups {
            let cases: Vec<&CaseResult> = self.cases.iter().filter(|c| c.group == g).collect();
            let failures = cases.iter().filter(|c| c.outcome.is_failure()).count();
            let skipped = cases
                .iter()
                .filter(|c| c.outcome == Outcome::ExpectedFail)
                .count();
            xml.push_str(&format!(
                "  <testsuite name=\"{}.{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
                esc(&self.transport),
                esc(g),
                cases.len()
            ));
            for c in cases {
                xml.push_str(&format!(
                    "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3}\"",
                    esc(&self.transport),
                    esc(g),
                    esc(&c.id),
                    c.millis as f64 / 1000.0
                ));
                match c.outcome {
                    Outcome::Pass => xml.push_str("/>\n"),
                    Outcome::ExpectedFail => xml.push_str(&format!(
                        ">\n      <skipped message=\"expected failure: {}\"/>\n    </testcase>\n",
                        esc(&c.detail)
                    )),
                    Outcome::Fail | Outcome::Stale => xml.push_str(&format!(
                        ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                        esc(&c.detail),
                        if c.outcome == Outcome::Stale {
                            "stale-baseline"
                        } else {
                            "conformance"
                        },
                        esc(&serde_json::to_string(&c.observed).unwrap_or_default())
                    )),
                }
            }
            xml.push_str("  </testsuite>\n");
        }
        xml.push_str("</testsuites>\n");
        xml
    }

    /// The failing cases as an expected-failures file, each with its reason.
    pub fn failures_as_baseline(&self) -> String {
        let mut out = format!(
            "# Expected failures recorded by a2a-conformance ({}); one case id per line.\n",
            self.transport
        );
        for c in self.cases.iter().filter(|c| c.outcome == Outcome::Fail) {
            let reason: String = c.detail.chars().take(160).collect();
            out.push_str(&format!("{}  # {}\n", c.id, reason.replace('\n', " ")));
        }
        out
    }

    /// A human-readable summary: every failure with its reason, then the counts.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in self.cases.iter().filter(|c| c.outcome.is_failure()) {
            let tag = if c.outcome == Outcome::Stale {
                "STALE"
            } else {
                "FAIL "
            };
            out.push_str(&format!("{tag} [{}] {}: {}\n", self.transport, c.id, c.detail));
        }
        for id in &self.unmatched_baseline {
            out.push_str(&format!(
                "note  [{}] expected-failures entry matches no case run: {id}\n",
                self.transport
            ));
        }
        let s = self.summary;
        out.push_str(&format!(
            "{}: {} cases: {} passed, {} failed, {} expected failures, {} stale baseline entries — {}\n",
            self.transport,
            s.total,
            s.passed,
            s.failed,
            s.expected_failures,
            s.stale,
            if self.passed() { "PASS" } else { "FAIL" }
        ));
        out
    }
}

fn esc(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&apos;".to_string(),
            '\n' => "&#10;".to_string(),
            other => other.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_specific_values_are_masked() {
        let v = observe(&Answer::Result(json!({
            "id": "8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b",
            "status": {"timestamp": "2025-11-03T09:14:27.512Z"},
            "note": "task 8e2b1f5a-3c4d-4e6f-a7b8-9c0d1e2f3a4b of conformance-msg-1a-2-3",
            "nextPageToken": "abc",
            "components": [{"latencyMs": 3}, {"latencyMs": 0.5}, {"latencyMs": null}],
            "count": 3
        })));
        assert_eq!(
            v,
            json!({"result": {"id": "<uuid>", "status": {"timestamp": "<time>"},
                   "note": "task <uuid> of <unique>", "nextPageToken": "<opaque>",
                   "components": [{"latencyMs": "<duration>"}, {"latencyMs": "<non-integer duration>"},
                                  {"latencyMs": null}],
                   "count": 3}})
        );
    }

    #[test]
    fn junit_escapes_and_counts() {
        let r = Report::new(
            "http",
            vec![
                CaseResult::new("a/1", "g", None, Outcome::Pass, "ok".into(), json!(null), 1),
                CaseResult::new(
                    "a/<2>",
                    "g",
                    None,
                    Outcome::Fail,
                    "bad \"x\"".into(),
                    json!(null),
                    1,
                ),
            ],
            Duration::from_millis(2),
        );
        let xml = r.to_junit();
        assert!(xml.contains("tests=\"2\" failures=\"1\""), "{xml}");
        assert!(xml.contains("name=\"a/&lt;2&gt;\""), "{xml}");
        assert!(xml.contains("message=\"bad &quot;x&quot;\""), "{xml}");
    }
}
