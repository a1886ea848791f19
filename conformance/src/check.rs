//! Judging an [`Answer`] against a case's [`Expect`]ation. Every error is held
//! to the registry: its code, ErrorInfo reason and domain must be one entry of
//! `x-errors`, and for a method it must be one the method declares or a
//! standard one of its contract.

use crate::cases::Expect;
use crate::schema::schemas;
use crate::transport::{describe_error, Answer};
use a2a::{Contract, ErrorKind, MethodDescriptor};
use serde_json::Value;

/// A verdict: `Ok(note)` passes (the note says how), `Err(why)` fails.
pub type Verdict = Result<String, String>;

/// The JSON-RPC standard errors of a contract, plus the authentication errors
/// that any method may return (the design's rule: auth failures use the
/// extension taxonomy on every method).
pub fn standard_errors(contract: Contract) -> Vec<ErrorKind> {
    let mut kinds = vec![
        contract.parse_error(),
        contract.invalid_request(),
        contract.method_not_found(),
        contract.invalid_params(),
        contract.internal_error(),
    ];
    for reason in ["AUTH_REQUIRED", "AUTH_FORBIDDEN"] {
        if let Some(k) = ErrorKind::from_reason(Contract::Cleveragents.error_domain(), reason) {
            kinds.push(k);
        }
    }
    kinds
}

/// Parses a wire error and finds its registry entry.
pub fn registry_error(error: &Value) -> Result<(a2a::rpc::Error, ErrorKind), String> {
    let parsed: a2a::rpc::Error = serde_json::from_value(error.clone())
        .map_err(|e| format!("the error object is malformed ({e}): {error}"))?;
    let Some((domain, reason)) = parsed.domain_reason() else {
        return Err(format!(
            "error {} carries no google.rpc.ErrorInfo (reason, domain) in `data`",
            describe_error(error)
        ));
    };
    match ErrorKind::from_reason(domain, reason) {
        Some(kind) if kind.code() == parsed.code => Ok((parsed, kind)),
        Some(kind) => Err(format!(
            "error {}: the registry gives {reason}@{domain} code {}, not {}",
            describe_error(error),
            kind.code(),
            parsed.code
        )),
        None => Err(format!(
            "error {}: ({domain}, {reason}) is not in the error registry",
            describe_error(error)
        )),
    }
}

/// Checks a method's error: registered, and declared by the method or standard.
fn method_error(d: &MethodDescriptor, error: &Value) -> Result<ErrorKind, String> {
    let (_, kind) = registry_error(error)?;
    if d.errors.contains(&kind) || standard_errors(d.contract).contains(&kind) {
        Ok(kind)
    } else {
        Err(format!(
            "{} answered {}, which the method does not declare (declared: {})",
            d.name,
            describe_error(error),
            d.errors.iter().map(|k| k.reason()).collect::<Vec<_>>().join(", ")
        ))
    }
}

/// Validates one result (or one event) against the method's result definition
/// and decodes it with the generated types.
pub fn check_result(d: &MethodDescriptor, value: &Value) -> Result<(), String> {
    schemas().validate(d.result_type, value).map_err(|errors| {
        format!(
            "{} result does not validate against `{}`: {}",
            d.name,
            d.result_type,
            errors.join("; ")
        )
    })?;
    (d.roundtrip_result)(value.clone())
        .map(|_| ())
        .map_err(|e| format!("{} result does not decode as `{}`: {e}", d.name, d.result_type))
}

fn kind_label(kind: ErrorKind) -> String {
    format!("{} {}@{}", kind.code(), kind.reason(), kind.domain())
}

/// Judges `answer` for a case on method `d` (if any) expecting `expect`.
pub fn judge(d: Option<&MethodDescriptor>, expect: &Expect, answer: &Answer) -> Verdict {
    match expect {
        Expect::Success | Expect::SuccessOrDeclared | Expect::ValidOrRejected => {
            let Some(d) = d else {
                return Err("a success case needs a method".into());
            };
            judge_success(d, expect, answer)
        }
        Expect::Error(want) => judge_error(d, *want, answer),
        Expect::AnyError(kinds) => judge_any_error(kinds, answer),
        Expect::EnvelopeError(code) => judge_envelope_error(*code, answer),
    }
}

/// A positive case: a valid result or stream, or (unless `Expect::Success`) an
/// error the method declares.
fn judge_success(d: &MethodDescriptor, expect: &Expect, answer: &Answer) -> Verdict {
    match answer {
        Answer::Result(v) if !d.streaming => check_result(d, v).map(|_| "valid result".into()),
        Answer::Stream { events, error: None } if d.streaming => {
            if events.is_empty() {
                return Err(format!("{} streamed no event", d.name));
            }
            for (i, e) in events.iter().enumerate() {
                check_result(d, e).map_err(|why| format!("event {}: {why}", i + 1))?;
            }
            Ok(format!("{} valid event(s)", events.len()))
        }
        Answer::Error(e) => judge_error_for_success(d, expect, e),
        Answer::Stream {
            error: Some(e),
            events,
        } => {
            method_error(d, e)?;
            Err(format!(
                "the stream failed after {} event(s): {}",
                events.len(),
                describe_error(e)
            ))
        }
        other if d.streaming => Err(format!("expected a stream, got {}", other.summary())),
        other => Err(format!("expected a result, got {}", other.summary())),
    }
}

/// An error where a result was expected. Version and auth errors never pass,
/// even when declared: they are raised before the method runs, so they say
/// nothing of how it answers.
fn judge_error_for_success(d: &MethodDescriptor, expect: &Expect, e: &Value) -> Verdict {
    let kind = method_error(d, e)?;
    if kind == d.contract.method_not_found() {
        return Err(format!(
            "{} is not implemented by the agent: {}",
            d.name,
            describe_error(e)
        ));
    }
    if *expect == Expect::ValidOrRejected && kind == d.contract.invalid_params() {
        return Ok(format!("rejected: {}", describe_error(e)));
    }
    let acceptable = *expect != Expect::Success
        && d.errors.contains(&kind)
        && !matches!(
            kind.reason(),
            "VERSION_NOT_SUPPORTED" | "VERSION_MISMATCH" | "AUTH_REQUIRED" | "AUTH_FORBIDDEN"
        );
    if acceptable {
        Ok(format!("declared error {}", kind_label(kind)))
    } else {
        Err(format!("expected a result, got error {}", describe_error(e)))
    }
}

fn judge_error(d: Option<&MethodDescriptor>, want: ErrorKind, answer: &Answer) -> Verdict {
    match answer {
        Answer::Error(e) => {
            let (_, kind) = registry_error(e)?;
            if kind != want {
                return Err(format!(
                    "expected error {}, got {}",
                    kind_label(want),
                    describe_error(e)
                ));
            }
            if let Some(d) = d {
                method_error(d, e)?;
            }
            Ok(format!("error {}", kind_label(kind)))
        }
        other => Err(format!(
            "expected error {}, got {}",
            kind_label(want),
            other.summary()
        )),
    }
}

fn judge_any_error(kinds: &[ErrorKind], answer: &Answer) -> Verdict {
    match answer {
        Answer::Error(e) => {
            let (_, kind) = registry_error(e)?;
            if kinds.contains(&kind) {
                Ok(format!("error {}", kind_label(kind)))
            } else {
                Err(format!(
                    "expected one of {}, got {}",
                    kinds
                        .iter()
                        .map(|k| kind_label(*k))
                        .collect::<Vec<_>>()
                        .join(" / "),
                    describe_error(e)
                ))
            }
        }
        other => Err(format!("expected an error, got {}", other.summary())),
    }
}

/// A bad envelope is judged by code alone: the request never reached a method.
fn judge_envelope_error(code: i64, answer: &Answer) -> Verdict {
    match answer {
        Answer::Error(e) => {
            let (parsed, kind) = registry_error(e)?;
            if parsed.code != code {
                return Err(format!("expected error code {code}, got {}", describe_error(e)));
            }
            Ok(format!("error {}", kind_label(kind)))
        }
        other => Err(format!("expected error code {code}, got {}", other.summary())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn get_task() -> &'static MethodDescriptor {
        a2a::find_method("GetTask").expect("GetTask is in the table")
    }

    #[test]
    fn a_declared_not_found_passes_a_positive_example_but_a_standard_error_does_not() {
        let not_found = serde_json::to_value(a2a::Error::from_kind(
            ErrorKind::from_reason("a2a-protocol.org", "TASK_NOT_FOUND").expect("registry"),
        ))
        .expect("encodes");
        let verdict = judge(
            Some(get_task()),
            &Expect::SuccessOrDeclared,
            &Answer::Error(not_found.clone()),
        );
        assert_eq!(
            verdict,
            Ok("declared error -32001 TASK_NOT_FOUND@a2a-protocol.org".to_string())
        );
        assert!(judge(Some(get_task()), &Expect::Success, &Answer::Error(not_found)).is_err());
        let unimplemented = serde_json::to_value(a2a::Error::unimplemented(get_task())).expect("encodes");
        let verdict = judge(
            Some(get_task()),
            &Expect::SuccessOrDeclared,
            &Answer::Error(unimplemented),
        );
        assert!(verdict.is_err_and(|e| e.contains("not implemented")));
    }

    #[test]
    fn a_code_that_disagrees_with_the_registry_fails() {
        let wrong = json!({"code": -32000, "message": "x", "data": [{
            "@type": a2a::rpc::ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]});
        let verdict = judge(
            Some(get_task()),
            &Expect::SuccessOrDeclared,
            &Answer::Error(wrong),
        );
        assert_eq!(
            verdict,
            Err("error -32000 TASK_NOT_FOUND@a2a-protocol.org \"x\": the registry gives TASK_NOT_FOUND@a2a-protocol.org code -32001, not -32000".to_string())
        );
    }

    #[test]
    fn a_result_of_the_wrong_shape_fails_validation() {
        let verdict = judge(
            Some(get_task()),
            &Expect::Success,
            &Answer::Result(json!({"id": "t"})),
        );
        assert!(verdict.is_err_and(|e| e.contains("does not validate against `Task`")));
    }
}
