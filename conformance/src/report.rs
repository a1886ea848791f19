//! Results of a run: per-case outcomes with the requirement each case holds
//! the agent to, the profile and the expected-failures baseline applied to
//! them, and the text, JSON and JUnit XML renderings CI consumes.

use crate::baseline::Baseline;
use crate::card::{Applicability, CapabilityUse};
use crate::cases::Case;
use crate::level::{Level, Profile, Requirement};
use crate::transport::Answer;
use crate::verdict::Verdict;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// How one case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Pass,
    /// Fell short of a requirement whose level the profile gates on.
    Fail,
    /// Fell short of a requirement whose level the profile does not gate on.
    Warning,
    /// Fell short, and listed in the expected-failures file.
    ExpectedFail,
    /// Listed in the expected-failures file, but passed: the baseline is stale.
    Stale,
}

impl Outcome {
    /// True when the outcome fails the gate.
    pub fn is_failure(self) -> bool {
        matches!(self, Outcome::Fail | Outcome::Stale)
    }

    /// True when the case fell short of a requirement (gated or not).
    pub fn fell_short(self) -> bool {
        matches!(self, Outcome::Fail | Outcome::Warning)
    }
}

/// What a result is about: the case, what it holds the agent to, and the
/// capability it depends on.
#[derive(Clone, Debug)]
pub struct Subject<'a> {
    pub id: &'a str,
    pub group: &'a str,
    pub method: Option<&'a str>,
    pub requirement: &'a Requirement,
    pub capability: Option<&'a CapabilityUse>,
}

impl<'a> Subject<'a> {
    pub fn of(case: &'a Case) -> Subject<'a> {
        Subject {
            id: &case.id,
            group: &case.group,
            method: case.method.map(|d| d.name),
            requirement: &case.requirement,
            capability: case.capability.as_ref(),
        }
    }
}

/// One case's result.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub id: String,
    pub group: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The level of the requirement the case holds the agent to.
    pub level: Level,
    /// Where that requirement is written (`A2A §3.1.3`, or an extension URI).
    pub section: String,
    /// The capability (or extension) the case depends on, and whether the
    /// Agent Card declares it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capability: Option<CapabilityUse>,
    pub outcome: Outcome,
    /// For a case that fell short: the strongest requirement it fell short of
    /// (its own, or a weaker rule checked along the way, such as an error's
    /// ErrorInfo while the error's code is right).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violated: Option<Requirement>,
    /// Why it passed or failed.
    pub detail: String,
    /// What came back, with run-specific values (ids, timestamps, durations) masked, so
    /// runs over different transports compare equal when the agent behaves the same.
    pub observed: Value,
    pub millis: u64,
}

impl CaseResult {
    /// The result of `verdict` on `subject` (outcome `Fail` when it fell short;
    /// the profile makes some of those warnings, see [`Report::new`]).
    pub fn new(subject: Subject<'_>, verdict: &Verdict, observed: Value, millis: u64) -> CaseResult {
        let violations = verdict.resolved(subject.requirement);
        let (outcome, violated, detail) = match violations.split_first() {
            None => (Outcome::Pass, None, verdict.note.clone()),
            Some(((strongest, why), rest)) => {
                let mut detail = why.clone();
                for (requirement, why) in rest {
                    detail.push_str(&format!("; also ({requirement}): {why}"));
                }
                (Outcome::Fail, Some(strongest.clone()), detail)
            }
        };
        CaseResult {
            id: subject.id.to_string(),
            group: subject.group.to_string(),
            method: subject.method.map(str::to_string),
            level: subject.requirement.level,
            section: subject.requirement.section.clone(),
            capability: subject.capability.cloned(),
            outcome,
            violated,
            detail,
            observed,
            millis,
        }
    }

    pub fn from_case(case: &Case, verdict: &Verdict, answer: &Answer, elapsed: Duration) -> CaseResult {
        CaseResult::new(
            Subject::of(case),
            verdict,
            observe(answer),
            elapsed.as_millis() as u64,
        )
    }

    /// The requirement the outcome is about: the one fallen short of, else the case's own.
    pub fn requirement(&self) -> Requirement {
        self.violated
            .clone()
            .unwrap_or_else(|| Requirement::new(self.level, self.section.clone()))
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
        // The checksums of an exported task and of its event log cover their
        // generated ids and times.
        Value::String(_) if matches!(key, Some("taskSha256" | "eventsSha256")) => {
            Value::String("<checksum>".into())
        }
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub warnings: usize,
    pub expected_failures: usize,
    pub stale: usize,
    /// Failures and warnings by the level of the requirement fallen short of
    /// (every level, zero or not).
    pub by_level: BTreeMap<Level, usize>,
}

/// A whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub transport: String,
    /// Which levels fail the gate.
    pub profile: Profile,
    /// The contract gated and the capabilities the Agent Card declares.
    #[serde(flatten)]
    pub applicability: Applicability,
    pub summary: Summary,
    pub millis: u64,
    pub cases: Vec<CaseResult>,
    /// Expected-failure entries that name no case of this run (wrong id, or a
    /// group that was not selected): reported, not failing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_baseline: Vec<String>,
    /// What the run left out, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The derived cases the binding has no form for, not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_applicable: Vec<String>,
}

impl Report {
    /// A report of `cases` under `profile`: a case that fell short of a level the
    /// profile does not gate on is a warning.
    pub fn new(
        transport: &str,
        mut cases: Vec<CaseResult>,
        elapsed: Duration,
        profile: Profile,
        applicability: Applicability,
    ) -> Report {
        for case in &mut cases {
            let gated = case.violated.as_ref().is_none_or(|v| profile.gates(v.level));
            if case.outcome == Outcome::Fail && !gated {
                case.outcome = Outcome::Warning;
            }
        }
        let mut report = Report {
            transport: transport.to_string(),
            profile,
            applicability,
            summary: Summary::default(),
            millis: elapsed.as_millis() as u64,
            cases,
            unmatched_baseline: Vec::new(),
            notes: Vec::new(),
            not_applicable: Vec::new(),
        };
        report.recount();
        report
    }

    fn recount(&mut self) {
        let count = |o: Outcome| self.cases.iter().filter(|c| c.outcome == o).count();
        let mut by_level: BTreeMap<Level, usize> = Level::ALL.into_iter().map(|l| (l, 0)).collect();
        for case in self.cases.iter().filter(|c| c.outcome.fell_short()) {
            *by_level.entry(case.requirement().level).or_default() += 1;
        }
        self.summary = Summary {
            total: self.cases.len(),
            passed: count(Outcome::Pass),
            failed: count(Outcome::Fail),
            warnings: count(Outcome::Warning),
            expected_failures: count(Outcome::ExpectedFail),
            stale: count(Outcome::Stale),
            by_level,
        };
    }

    /// Applies a strict baseline: a listed case that fell short is expected, a
    /// listed pass is stale (a failure), an unlisted failure stays a failure.
    pub fn apply_baseline(&mut self, baseline: &Baseline) {
        for case in &mut self.cases {
            if !baseline.contains(&case.id) {
                continue;
            }
            case.outcome = match case.outcome {
                Outcome::Fail | Outcome::Warning => Outcome::ExpectedFail,
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

    /// The failing cases as an expected-failures file, each with its reason.
    pub fn failures_as_baseline(&self) -> String {
        let mut out = format!(
            "# Expected failures recorded by a2a-conformance ({}, profile {}); one case id per line.\n",
            self.transport,
            self.profile.name()
        );
        for c in self.cases.iter().filter(|c| c.outcome == Outcome::Fail) {
            let reason: String = c.detail.chars().take(160).collect();
            out.push_str(&format!("{}  # {}\n", c.id, reason.replace('\n', " ")));
        }
        out
    }

    /// A human-readable summary: every failure and warning with its level,
    /// section and reason, then what was gated, the counts by level, the totals.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in self
            .cases
            .iter()
            .filter(|c| c.outcome.is_failure() || c.outcome == Outcome::Warning)
        {
            let tag = match c.outcome {
                Outcome::Stale => "STALE",
                Outcome::Warning => "WARN ",
                _ => "FAIL ",
            };
            out.push_str(&format!(
                "{tag} [{}] {} ({}): {}\n",
                self.transport,
                c.id,
                c.requirement(),
                c.detail
            ));
        }
        for id in &self.unmatched_baseline {
            out.push_str(&format!(
                "note  [{}] expected-failures entry matches no case run: {id}\n",
                self.transport
            ));
        }
        for note in &self.notes {
            out.push_str(&format!("note  [{}] {note}\n", self.transport));
        }
        let app = &self.applicability;
        out.push_str(&format!(
            "{}: profile {} · contract {} ({}) · {}\n",
            self.transport,
            self.profile.name(),
            app.contract,
            app.contract_reason,
            app.describe_capabilities()
        ));
        out.push_str(&format!("{}: {}\n", self.transport, self.levels_line()));
        let s = &self.summary;
        out.push_str(&format!(
            "{}: {} cases: {} passed, {} failed, {} warnings, {} expected failures, {} stale baseline entries — {}\n",
            self.transport,
            s.total,
            s.passed,
            s.failed,
            s.warnings,
            s.expected_failures,
            s.stale,
            if self.passed() { "PASS" } else { "FAIL" }
        ));
        out
    }

    /// `MUST: 0 failed · SHOULD: 2 warnings · strict: 3 warnings` (MAY only when
    /// some case fell short of one).
    pub fn levels_line(&self) -> String {
        self.summary
            .by_level
            .iter()
            .filter(|(level, n)| **level != Level::May || **n > 0)
            .map(|(&level, &n)| {
                let what = match (self.profile.gates(level), n) {
                    (true, _) => "failed",
                    (false, 1) => "warning",
                    (false, _) => "warnings",
                };
                format!("{level}: {n} {what}")
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::verdict::Violation;

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

    /// A report of one pass, one MUST failure, one SHOULD and one strict shortfall.
    pub(crate) fn sample(profile: Profile) -> Report {
        let must = Requirement::new(Level::Must, "A2A §3.1.3");
        let should = Requirement::new(Level::Should, "A2A §9.5");
        let result = |id: &str, verdict: Verdict| {
            let subject = Subject {
                id,
                group: "g",
                method: None,
                requirement: &must,
                capability: None,
            };
            CaseResult::new(subject, &verdict, json!(null), 1)
        };
        let cases = vec![
            result("a/1", Verdict::pass("ok")),
            result("a/<2>", Verdict::fail("bad \"x\"")),
            result(
                "a/3",
                Verdict::pass("code right").with(vec![Violation::of(should, "no ErrorInfo")]),
            ),
            result(
                "a/4",
                Verdict::pass("code right").with(vec![Violation::of(
                    Requirement::new(Level::Strict, "A2A §9.5"),
                    "another reason",
                )]),
            ),
        ];
        Report::new(
            "http",
            cases,
            Duration::from_millis(2),
            profile,
            Applicability::everything(),
        )
    }

    #[test]
    fn under_spec_only_must_shortfalls_fail_and_under_strict_all_do() {
        let spec = sample(Profile::Spec);
        let outcomes: Vec<Outcome> = spec.cases.iter().map(|c| c.outcome).collect();
        assert_eq!(
            outcomes,
            [Outcome::Pass, Outcome::Fail, Outcome::Warning, Outcome::Warning]
        );
        assert_eq!(
            spec.levels_line(),
            "MUST: 1 failed · SHOULD: 1 warning · strict: 1 warning"
        );
        assert_eq!((spec.summary.failed, spec.summary.warnings), (1, 2));
        let strict = sample(Profile::Strict);
        assert_eq!(strict.summary.failed, 3);
        assert_eq!(
            strict.levels_line(),
            "MUST: 1 failed · SHOULD: 1 failed · strict: 1 failed"
        );
        assert_eq!(
            strict.cases[2].violated,
            Some(Requirement::new(Level::Should, "A2A §9.5"))
        );
        assert_eq!(strict.cases[2].level, Level::Must, "the case's own level stays");
    }

    #[test]
    fn a_listed_warning_is_an_expected_failure_and_a_listed_pass_is_stale() {
        let mut report = sample(Profile::Spec);
        report.apply_baseline(&Baseline::parse("a/1\na/3\n"));
        let outcomes: Vec<Outcome> = report.cases.iter().map(|c| c.outcome).collect();
        assert_eq!(
            outcomes,
            [
                Outcome::Stale,
                Outcome::Fail,
                Outcome::ExpectedFail,
                Outcome::Warning
            ]
        );
        assert!(!report.passed());
    }
}
