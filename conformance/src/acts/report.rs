//! Results of an ACTS run: per test and step (§12.6), the JSON report of
//! §13 and the console text with the conformance summary by level (§12.7).

use super::document::{Binding, TestLevel};
use serde_json::{json, Map, Value};

/// A test's or step's result (§13.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Skip,
    /// The runner could not execute it (e.g. the test breaks the grammar).
    Error,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Skip => "skip",
            Outcome::Error => "error",
        }
    }
}

/// What went wrong (§13.3 `failure-detail`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Failure {
    pub message: String,
    pub step_id: Option<String>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub assertion_path: Option<String>,
}

impl Failure {
    pub fn message(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            ..Failure::default()
        }
    }

    fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("message".into(), json!(self.message));
        for (key, value) in [
            ("step_id", &self.step_id),
            ("expected", &self.expected),
            ("actual", &self.actual),
            ("assertion_path", &self.assertion_path),
        ] {
            if let Some(v) = value {
                out.insert(key.into(), json!(v));
            }
        }
        Value::Object(out)
    }
}

/// One step's result.
#[derive(Clone, Debug)]
pub struct StepRecord {
    pub id: String,
    pub outcome: Outcome,
    pub duration_ms: u64,
    pub failure: Option<Failure>,
}

impl StepRecord {
    pub fn passed(id: &str, duration_ms: u64) -> StepRecord {
        StepRecord {
            id: id.to_string(),
            outcome: Outcome::Pass,
            duration_ms,
            failure: None,
        }
    }
    pub fn skipped(id: &str) -> StepRecord {
        StepRecord {
            id: id.to_string(),
            outcome: Outcome::Skip,
            duration_ms: 0,
            failure: None,
        }
    }
    pub fn not_passed(id: &str, duration_ms: u64, outcome: Outcome, failure: &Failure) -> StepRecord {
        StepRecord {
            id: id.to_string(),
            outcome,
            duration_ms,
            failure: Some(failure.clone()),
        }
    }
}

/// One test's result.
#[derive(Clone, Debug)]
pub struct TestRecord {
    pub id: String,
    pub name: String,
    pub level: TestLevel,
    pub outcome: Outcome,
    pub duration_ms: u64,
    pub skip_reason: Option<String>,
    pub failure: Option<Failure>,
    pub steps: Vec<StepRecord>,
    /// How the draft dialect was rewritten (`--acts-draft`; console only).
    pub notes: Vec<String>,
}

impl TestRecord {
    /// A record named as the test is written (even when it does not parse).
    pub fn written(written: &Value) -> TestRecord {
        let text = |key: &str| {
            written
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string()
        };
        TestRecord {
            id: text("id"),
            name: text("name"),
            level: TestLevel::written(written),
            outcome: Outcome::Error,
            duration_ms: 0,
            skip_reason: None,
            failure: None,
            steps: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn finish(&mut self, outcome: Outcome, failure: Option<Failure>, skip_reason: Option<String>) {
        self.outcome = outcome;
        self.failure = failure;
        self.skip_reason = skip_reason;
    }

    fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(self.id));
        out.insert("name".into(), json!(self.name));
        out.insert("level".into(), json!(self.level.name()));
        out.insert("result".into(), json!(self.outcome.name()));
        out.insert("duration_ms".into(), json!(self.duration_ms));
        if let Some(reason) = &self.skip_reason {
            out.insert("skip_reason".into(), json!(reason));
        }
        if let Some(f) = &self.failure {
            out.insert("failure".into(), f.to_json());
        }
        if !self.steps.is_empty() {
            let steps: Vec<Value> = self
                .steps
                .iter()
                .map(|s| {
                    let mut step = Map::new();
                    step.insert("id".into(), json!(s.id));
                    step.insert("result".into(), json!(s.outcome.name()));
                    step.insert("duration_ms".into(), json!(s.duration_ms));
                    if let Some(f) = &s.failure {
                        step.insert("failure".into(), f.to_json());
                    }
                    Value::Object(step)
                })
                .collect();
            out.insert("steps".into(), Value::Array(steps));
        }
        Value::Object(out)
    }
}

/// One suite's results.
#[derive(Clone, Debug)]
pub struct SuiteRecord {
    pub id: String,
    pub name: String,
    pub tests: Vec<TestRecord>,
}

/// Counts of one level, or of the whole run (§13.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub errors: usize,
}

impl Counts {
    fn add(&mut self, outcome: Outcome) {
        self.total += 1;
        match outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail => self.failed += 1,
            Outcome::Skip => self.skipped += 1,
            Outcome::Error => self.errors += 1,
        }
    }

    fn to_json(self) -> Value {
        json!({
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "errors": self.errors,
        })
    }
}

/// Who was tested (§13.1 `sdk-info`): read from the Agent Card.
#[derive(Clone, Debug)]
pub struct Subject {
    pub name: String,
    pub version: String,
}

/// A whole run.
#[derive(Clone, Debug)]
pub struct ActsReport {
    pub acts_version: String,
    pub spec_version: String,
    pub generated_at: String,
    pub subject: Subject,
    pub duration_ms: u64,
    pub suites: Vec<SuiteRecord>,
    /// Whether every level gates (not only MUST).
    pub strict: bool,
    /// The binding the operations travelled over.
    pub transport: Binding,
}

impl ActsReport {
    fn tests(&self) -> impl Iterator<Item = &TestRecord> {
        self.suites.iter().flat_map(|s| s.tests.iter())
    }

    /// Counts of the run.
    pub fn totals(&self) -> Counts {
        let mut c = Counts::default();
        self.tests().for_each(|t| c.add(t.outcome));
        c
    }

    /// Counts of one level.
    pub fn counts(&self, level: TestLevel) -> Counts {
        let mut c = Counts::default();
        self.tests()
            .filter(|t| t.level == level)
            .for_each(|t| c.add(t.outcome));
        c
    }

    /// Conformant (§12.7): every gated test passed or was skipped. MUST gates
    /// always; with `strict`, SHOULD and MAY too.
    pub fn passed(&self) -> bool {
        self.tests()
            .filter(|t| self.strict || t.level == TestLevel::Must)
            .all(|t| matches!(t.outcome, Outcome::Pass | Outcome::Skip))
    }

    /// The JSON report of §13.
    pub fn to_json(&self) -> String {
        let totals = self.totals();
        let mut summary = match totals.to_json() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        summary.insert("duration_ms".into(), json!(self.duration_ms));
        let by_level: Map<String, Value> = TestLevel::ALL
            .iter()
            .map(|l| (l.name().to_string(), self.counts(*l).to_json()))
            .collect();
        summary.insert("by_level".into(), Value::Object(by_level));
        let suites: Vec<Value> = self
            .suites
            .iter()
            .map(|s| {
                json!({
                    "id": s.id,
                    "name": s.name,
                    "tests": s.tests.iter().map(TestRecord::to_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        let report = json!({
            "acts_version": self.acts_version,
            "spec_version": self.spec_version,
            "generated_at": self.generated_at,
            "sdk": {
                "name": self.subject.name,
                "version": self.subject.version,
                "language": "unknown",
            },
            "transport": self.transport.name(),
            "environment": {
                "os": std::env::consts::OS,
                "runner": format!("a2a-conformance {}", env!("CARGO_PKG_VERSION")),
            },
            "summary": summary,
            "suites": suites,
        });
        serde_json::to_string_pretty(&report).unwrap_or_default()
    }

    /// The console text: a line per test that did not pass, the summary by
    /// level, the totals.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for t in self.tests() {
            let tag = match t.outcome {
                Outcome::Pass => continue,
                Outcome::Fail => "FAIL ",
                Outcome::Error => "ERROR",
                Outcome::Skip => "SKIP ",
            };
            let why = match (&t.failure, &t.skip_reason) {
                (Some(f), _) => {
                    let step = f
                        .step_id
                        .as_deref()
                        .map(|s| format!("step {s}: "))
                        .unwrap_or_default();
                    format!("{step}{}", f.message)
                }
                (None, Some(reason)) => reason.clone(),
                (None, None) => String::new(),
            };
            out.push_str(&format!(
                "{tag} {} ({}): {why}\n",
                t.id,
                t.level.name().to_uppercase()
            ));
            for note in &t.notes {
                out.push_str(&format!("      draft dialect: {note}\n"));
            }
        }
        let rewritten = self.tests().filter(|t| !t.notes.is_empty()).count();
        if rewritten > 0 {
            out.push_str(&format!(
                "draft dialect: {rewritten} test(s) rewritten into the grammar's form\n"
            ));
        }
        out.push_str(&format!("transport: {}\n", self.transport.name()));
        for level in TestLevel::ALL {
            let c = self.counts(level);
            let label = format!("{}:", level.name().to_uppercase());
            out.push_str(&format!(
                "{label:<7} {}/{} passed ({} failed, {} errors, {} skipped)\n",
                c.passed, c.total, c.failed, c.errors, c.skipped
            ));
        }
        let t = self.totals();
        out.push_str(&format!(
            "ACTS {} tests: {} passed, {} failed, {} errors, {} skipped — {}\n",
            t.total,
            t.passed,
            t.failed,
            t.errors,
            t.skipped,
            if self.passed() { "PASS" } else { "FAIL" }
        ));
        out
    }
}

/// Now as ISO 8601 UTC (`2026-01-31T12:00:00Z`).
pub fn now_iso8601() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    iso8601(secs)
}

/// Seconds since the epoch as ISO 8601 UTC (the civil-from-days algorithm).
fn iso8601(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601_formats_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_748_206_800), "2025-05-25T21:00:00Z");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
    }

    fn record(id: &str, level: TestLevel, outcome: Outcome) -> TestRecord {
        TestRecord {
            id: id.into(),
            name: id.into(),
            level,
            outcome,
            duration_ms: 1,
            skip_reason: (outcome == Outcome::Skip).then(|| "no".to_string()),
            failure: (outcome == Outcome::Fail).then(|| Failure {
                message: "status.state: value differs".into(),
                step_id: Some("get".into()),
                expected: Some("A".into()),
                actual: Some("B".into()),
                assertion_path: Some("status.state".into()),
            }),
            steps: vec![],
            notes: vec![],
        }
    }

    fn report(strict: bool, tests: Vec<TestRecord>) -> ActsReport {
        ActsReport {
            acts_version: "1.0".into(),
            spec_version: "1.0".into(),
            generated_at: "2025-05-25T21:00:00Z".into(),
            subject: Subject {
                name: "agent".into(),
                version: "1".into(),
            },
            duration_ms: 3,
            suites: vec![SuiteRecord {
                id: "s".into(),
                name: "S".into(),
                tests,
            }],
            strict,
            transport: Binding::Jsonrpc,
        }
    }

    #[test]
    fn the_json_report_follows_section_13() {
        let r = report(
            false,
            vec![
                record("A-1", TestLevel::Must, Outcome::Pass),
                record("A-2", TestLevel::Should, Outcome::Fail),
                record("A-3", TestLevel::May, Outcome::Skip),
            ],
        );
        let v: Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(v["transport"], "jsonrpc");
        assert_eq!(v["summary"]["total"], 3);
        assert_eq!(v["summary"]["by_level"]["should"]["failed"], 1);
        assert_eq!(v["summary"]["by_level"]["may"]["skipped"], 1);
        let failed = &v["suites"][0]["tests"][1];
        assert_eq!(failed["result"], "fail");
        assert_eq!(failed["failure"]["step_id"], "get");
        assert_eq!(failed["failure"]["assertion_path"], "status.state");
        assert_eq!(v["suites"][0]["tests"][2]["skip_reason"], "no");
        // A SHOULD failure does not break conformance; under strict it does.
        assert!(r.passed());
        assert!(!report(true, vec![record("A-2", TestLevel::Should, Outcome::Fail)]).passed());
        assert!(!report(false, vec![record("A-1", TestLevel::Must, Outcome::Error)]).passed());
    }

    #[test]
    fn the_console_summary_counts_by_level() {
        let r = report(
            false,
            vec![
                record("A-1", TestLevel::Must, Outcome::Pass),
                record("A-2", TestLevel::Must, Outcome::Fail),
            ],
        );
        let text = r.to_text();
        assert!(
            text.contains("FAIL  A-2 (MUST): step get: status.state: value differs\n"),
            "{text}"
        );
        assert!(
            text.contains("MUST:   1/2 passed (1 failed, 0 errors, 0 skipped)\n"),
            "{text}"
        );
        assert!(
            text.ends_with("ACTS 2 tests: 1 passed, 1 failed, 0 errors, 0 skipped — FAIL\n"),
            "{text}"
        );
    }
}
