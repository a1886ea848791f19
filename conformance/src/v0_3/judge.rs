//! Judging a 0.3 answer: results against the 0.3 schema's definitions and
//! the generated 0.3 types; errors as for any case ([`check::read_error`]) in
//! the registry of A2A, whose codes the 0.3 registry shares, but declared by
//! the 0.3 method.

use super::declared_errors;
use crate::cases::Expect;
use crate::check::{self, kind_label, read_error, standard_errors, BEFORE_THE_METHOD};
use crate::schema::schemas_v0_3;
use crate::transport::{describe_error, Answer};
use crate::verdict::Verdict;
use a2a::rpc::DialectMethod;
use a2a::Contract;
use serde_json::Value;

/// Validates one result (or one event) against the 0.3 method's result
/// definition and decodes it with the generated 0.3 types.
pub fn check_result(m: &DialectMethod, value: &Value) -> Result<(), String> {
    schemas_v0_3().validate(m.result_type, value).map_err(|errors| {
        format!(
            "{} result does not validate against the 0.3 `{}`: {}",
            m.name,
            m.result_type,
            errors.join("; ")
        )
    })?;
    (m.roundtrip_result)(value.clone()).map(|_| ()).map_err(|e| {
        format!(
            "{} result does not decode as the 0.3 `{}`: {e}",
            m.name, m.result_type
        )
    })
}

/// Judges `answer` for a case on 0.3 method `m` (if any) expecting `expect`.
pub fn judge(m: Option<&DialectMethod>, expect: &Expect, answer: &Answer) -> Verdict {
    match (expect, m) {
        (Expect::Success | Expect::SuccessOrDeclared | Expect::ValidOrRejected, Some(m)) => {
            judge_success(m, expect, answer)
        }
        (Expect::Success | Expect::SuccessOrDeclared | Expect::ValidOrRejected, None) => {
            Verdict::fail("a success case needs a method")
        }
        // An expected error is the same error in both versions.
        (expected, _) => check::judge(None, expected, answer),
    }
}

fn judge_success(m: &DialectMethod, expect: &Expect, answer: &Answer) -> Verdict {
    match answer {
        Answer::Result(v) if !m.streaming => Verdict::of(check_result(m, v).map(|_| "valid result".into())),
        Answer::Stream { events, error: None } if m.streaming => {
            if events.is_empty() {
                return Verdict::fail(format!("{} streamed no event", m.name));
            }
            for (i, e) in events.iter().enumerate() {
                if let Err(why) = check_result(m, e) {
                    return Verdict::fail(format!("event {}: {why}", i + 1));
                }
            }
            Verdict::pass(format!("{} valid event(s)", events.len()))
        }
        Answer::Error(e) => error_for_success(m, expect, e),
        Answer::Stream {
            error: Some(e),
            events,
        } => Verdict::fail(format!(
            "the stream failed after {} event(s): {}",
            events.len(),
            describe_error(e)
        )),
        other if m.streaming => Verdict::fail(format!("expected a stream, got {}", other.summary())),
        other => Verdict::fail(format!("expected a result, got {}", other.summary())),
    }
}

/// An error where a result was expected: one the 0.3 method declares passes
/// (the example's ids may name nothing), except those raised before the
/// method runs; method not found means the method is not served.
fn error_for_success(m: &DialectMethod, expect: &Expect, e: &Value) -> Verdict {
    let read = match read_error(Some(Contract::A2a), e) {
        Ok(read) => read,
        Err(violation) => return Verdict::violated(violation),
    };
    let kind = read.kind;
    let declared = declared_errors(m);
    let verdict = if kind == Contract::A2a.method_not_found() {
        Verdict::fail(format!("{} is not served in 0.3: {}", m.name, describe_error(e)))
    } else if *expect == Expect::ValidOrRejected && kind == Contract::A2a.invalid_params() {
        Verdict::pass(format!("rejected: {}", describe_error(e)))
    } else if *expect != Expect::Success && declared.contains(&kind) && !BEFORE_THE_METHOD.contains(&kind) {
        Verdict::pass(format!("declared error {}", kind_label(kind)))
    } else if !declared.contains(&kind) && !standard_errors(Contract::A2a).contains(&kind) {
        Verdict::fail(format!(
            "{} answered {}, which the 0.3 method does not declare",
            m.name,
            describe_error(e)
        ))
    } else {
        Verdict::fail(format!("expected a result, got error {}", describe_error(e)))
    };
    verdict.with(read.issues)
}
