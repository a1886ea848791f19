//! The JUnit XML rendering of a [`Report`], for CI test reporting: one test
//! suite per group, one test case per case. Each test case carries the
//! requirement's level and section and the capability it depends on as
//! `<properties>`; a failure's `type` is the level it fell short of. Under the
//! `spec` profile a warning is a passing test case whose `<system-out>` says
//! what fell short; expected failures are skipped; stale baseline entries fail.

use crate::report::{CaseResult, Outcome, Report};

/// The report as JUnit XML.
pub fn render(report: &Report) -> String {
    let mut groups: Vec<&str> = Vec::new();
    for c in &report.cases {
        if !groups.contains(&c.group.as_str()) {
            groups.push(&c.group);
        }
    }
    let s = &report.summary;
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<testsuites name=\"a2a-conformance ({})\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
        esc(&report.transport),
        s.total,
        s.failed + s.stale,
        s.expected_failures,
        report.millis as f64 / 1000.0
    ));
    for g in groups {
        let cases: Vec<&CaseResult> = report.cases.iter().filter(|c| c.group == g).collect();
        let failures = cases.iter().filter(|c| c.outcome.is_failure()).count();
        let skipped = cases
            .iter()
            .filter(|c| c.outcome == Outcome::ExpectedFail)
            .count();
        xml.push_str(&format!(
            "  <testsuite name=\"{}.{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
            esc(&report.transport),
            esc(g),
            cases.len()
        ));
        xml.push_str(&suite_properties(report));
        for c in cases {
            xml.push_str(&test_case(&report.transport, c));
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// The run's profile and contract, on every suite.
fn suite_properties(report: &Report) -> String {
    let app = &report.applicability;
    let mut out = String::from("    <properties>\n");
    for (name, value) in [
        ("profile", report.profile.name()),
        ("contract", app.contract),
        ("contract.reason", app.contract_reason.as_str()),
    ] {
        out.push_str(&property(6, name, value));
    }
    out.push_str("    </properties>\n");
    out
}

fn property(indent: usize, name: &str, value: &str) -> String {
    format!(
        "{:indent$}<property name=\"{}\" value=\"{}\"/>\n",
        "",
        esc(name),
        esc(value)
    )
}

fn test_case(transport: &str, c: &CaseResult) -> String {
    let mut xml = format!(
        "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3}\">\n      <properties>\n",
        esc(transport),
        esc(&c.group),
        esc(&c.id),
        c.millis as f64 / 1000.0
    );
    xml.push_str(&property(8, "level", c.level.label()));
    xml.push_str(&property(8, "section", &c.section));
    if let Some(capability) = &c.capability {
        xml.push_str(&property(8, "capability", &capability.name));
        let declared = if capability.declared { "true" } else { "false" };
        xml.push_str(&property(8, "capability.declared", declared));
    }
    if let Some(violated) = &c.violated {
        xml.push_str(&property(8, "violated.level", violated.level.label()));
        xml.push_str(&property(8, "violated.section", &violated.section));
    }
    xml.push_str("      </properties>\n");
    let requirement = c.requirement();
    match c.outcome {
        Outcome::Pass => {}
        Outcome::Warning => xml.push_str(&format!(
            "      <system-out>warning ({}): {}</system-out>\n",
            esc(&requirement.to_string()),
            esc(&c.detail)
        )),
        Outcome::ExpectedFail => xml.push_str(&format!(
            "      <skipped message=\"expected failure ({}): {}\"/>\n",
            esc(&requirement.to_string()),
            esc(&c.detail)
        )),
        Outcome::Fail | Outcome::Stale => xml.push_str(&format!(
            "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
            esc(&c.detail),
            if c.outcome == Outcome::Stale {
                "stale-baseline"
            } else {
                requirement.level.label()
            },
            esc(&serde_json::to_string(&c.observed).unwrap_or_default())
        )),
    }
    xml.push_str("    </testcase>\n");
    xml
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
    use crate::level::Profile;
    use crate::report::tests::sample;

    #[test]
    fn junit_escapes_counts_and_carries_levels() {
        let xml = render(&sample(Profile::Spec));
        assert!(xml.contains("tests=\"4\" failures=\"1\""), "{xml}");
        assert!(xml.contains("name=\"a/&lt;2&gt;\""), "{xml}");
        assert!(
            xml.contains("<failure message=\"bad &quot;x&quot;\" type=\"MUST\">"),
            "{xml}"
        );
        assert!(
            xml.contains("<property name=\"level\" value=\"MUST\"/>")
                && xml.contains("<property name=\"section\" value=\"A2A §3.1.3\"/>"),
            "{xml}"
        );
        assert!(
            xml.contains("<system-out>warning (SHOULD A2A §9.5): no ErrorInfo</system-out>"),
            "{xml}"
        );
        assert!(
            xml.contains("<property name=\"profile\" value=\"spec\"/>"),
            "{xml}"
        );
        let strict = render(&sample(Profile::Strict));
        assert!(
            strict.contains("<failure message=\"another reason\" type=\"strict\">"),
            "{strict}"
        );
    }
}
