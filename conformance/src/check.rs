//! Judging an [`Answer`] against a case's [`Expect`]ation, into a [`Verdict`].
//!
//! An error is identified by its JSON-RPC code in the registry of the method's
//! contract — the code is what the specification requires (§9.5). Its
//! `google.rpc.ErrorInfo` (reason, domain) is then held to the registry entry of
//! that code at the level the rules give ([`rules::error_details`],
//! [`rules::error_reason`]): a missing or disagreeing ErrorInfo is a violation
//! of that rule, not of the case's own requirement. For a method, the error must
//! also be one it declares or a standard one of its contract.

use crate::cases::Expect;
use crate::rules;
use crate::schema::schemas;
use crate::transport::{describe_error, Answer};
use crate::verdict::{Verdict, Violation};
use a2a::{Contract, ErrorKind, MethodDescriptor};
use serde_json::Value;

/// The JSON-RPC standard errors of a contract, plus the authentication errors
/// that any method may return (the design's rule: auth failures use the
/// extension taxonomy on every method).
pub fn standard_errors(contract: Contract) -> Vec<ErrorKind> {
    let mut kinds = rules::jsonrpc_errors(contract).to_vec();
    kinds.extend(any_method_errors());
    kinds
}

/// The errors any method of any contract may return: authentication and
/// authorization, in the extension taxonomy.
fn any_method_errors() -> [ErrorKind; 2] {
    [ErrorKind::ExtAuthRequired, ErrorKind::ExtAuthForbidden]
}

/// Errors raised before a method runs (negotiation, authentication): a
/// positive case never passes with one, declared or not — they say the runner
/// is misconfigured, not how the method answers.
pub(crate) const BEFORE_THE_METHOD: [ErrorKind; 4] = [
    ErrorKind::VersionNotSupported,
    ErrorKind::ExtVersionMismatch,
    ErrorKind::ExtAuthRequired,
    ErrorKind::ExtAuthForbidden,
];

/// A wire error as the suite reads it: its registry entry, and what of its
/// ErrorInfo falls short of which rule.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadError {
    pub kind: ErrorKind,
    pub issues: Vec<Violation>,
}

/// The entry of `contract`'s registry with JSON-RPC `code`.
fn kind_with_code(contract: Contract, code: i64) -> Option<ErrorKind> {
    ErrorKind::ALL
        .iter()
        .copied()
        .find(|k| k.contract() == contract && k.code() == code)
}

/// Reads a wire error in the registry of `contract` (`None`: before a method is
/// known, as for a bad envelope, where an ErrorInfo of either contract is fair
/// and the code is read as the base protocol's). An ErrorInfo naming a registry
/// entry with the error's code identifies it when that entry is the contract's
/// (or one any method may return); otherwise the code does, and the ErrorInfo
/// is a violation of its rule. `Err` when the code is no code of the contract:
/// a violation of the code's rule when the ErrorInfo names an error of the
/// registry (whose code it is not), else of the case's own requirement.
pub fn read_error(contract: Option<Contract>, error: &Value) -> Result<ReadError, Violation> {
    let parsed: a2a::rpc::Error = serde_json::from_value(error.clone())
        .map_err(|e| Violation::own(format!("the error object is malformed ({e}): {error}")))?;
    let code = parsed.code;
    let named = parsed
        .domain_reason()
        .map(|(domain, reason)| (domain, reason, ErrorKind::from_reason(domain, reason)));
    if let Some((_, _, Some(kind))) = named {
        let fits = contract.is_none_or(|c| kind.contract() == c || any_method_errors().contains(&kind));
        if kind.code() == code && fits {
            return Ok(ReadError {
                kind,
                issues: Vec::new(),
            });
        }
    }
    let home = contract.unwrap_or(Contract::A2a);
    let Some(kind) = kind_with_code(home, code) else {
        return Err(match named {
            Some((domain, reason, Some(k))) => Violation::of(
                rules::error_code(k),
                format!(
                    "error {}: the registry gives {reason}@{domain} code {}, not {code}",
                    describe_error(error),
                    k.code()
                ),
            ),
            _ => Violation::own(format!(
                "error {}: {code} is no error code of the {} contract",
                describe_error(error),
                home.name()
            )),
        });
    };
    let issue = match named {
        None => Violation::of(
            rules::error_details(home),
            format!(
                "error {} carries no google.rpc.ErrorInfo (reason, domain) in `data`",
                describe_error(error)
            ),
        ),
        Some((domain, reason, _)) => Violation::of(
            rules::error_reason(kind),
            format!(
                "error {}: code {code} is {}@{} in the registry, not {reason}@{domain}",
                describe_error(error),
                kind.reason(),
                kind.domain()
            ),
        ),
    };
    Ok(ReadError {
        kind,
        issues: vec![issue],
    })
}

/// Checks that a method may answer `kind`: declared by the method, or standard.
fn declared(d: &MethodDescriptor, kind: ErrorKind, error: &Value) -> Result<(), String> {
    if d.errors.contains(&kind) || standard_errors(d.contract).contains(&kind) {
        Ok(())
    } else {
        Err(format!(
            "{} answered {}, which the method does not declare (declared: {})",
            d.name,
            describe_error(error),
            d.errors.iter().map(|k| k.reason()).collect::<Vec<_>>().join(", ")
        ))
    }
}

/// Reads a method's error and checks the method may answer it.
fn method_error(d: &MethodDescriptor, error: &Value) -> Result<ReadError, Verdict> {
    let read = read_error(Some(d.contract), error).map_err(Verdict::violated)?;
    match declared(d, read.kind, error) {
        Ok(()) => Ok(read),
        Err(why) => Err(Verdict::fail(why).with(read.issues)),
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

/// Reads one (non-streaming) result: `Err` when it is not one of the method's,
/// else the weaker rules it falls short of. A result whose definition has no
/// member (`google.protobuf.Empty`) only confirms: the specification leaves a
/// confirmation's form to the implementation (§3.1.10), so any value is one,
/// while the proto's JSON form `{}` is what [`rules::confirmation`] asks for.
pub fn read_result(d: &MethodDescriptor, value: &Value) -> Result<Vec<Violation>, String> {
    match check_result(d, value) {
        Ok(()) => Ok(Vec::new()),
        Err(why) if confirms_only(d) => Ok(vec![Violation::of(rules::confirmation(d), why)]),
        Err(why) => Err(why),
    }
}

/// True when the method's result definition is an object with no member.
fn confirms_only(d: &MethodDescriptor) -> bool {
    schemas().definition(d.result_type).is_some_and(|definition| {
        definition
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(serde_json::Map::is_empty)
            && definition.get("additionalProperties") == Some(&Value::Bool(false))
    })
}

pub fn kind_label(kind: ErrorKind) -> String {
    format!("{} {}@{}", kind.code(), kind.reason(), kind.domain())
}

/// Judges `answer` for a case on method `d` (if any) expecting `expect`.
pub fn judge(d: Option<&MethodDescriptor>, expect: &Expect, answer: &Answer) -> Verdict {
    judge_on(d, expect, answer, false)
}

/// [`judge`] over a binding that tells the JSON-RPC standard errors apart only
/// by their status (`by_status`): there a standard error of the expected one's
/// status is its form at the case's level, and naming the other one falls
/// short of the ErrorInfo rule only.
pub fn judge_on(d: Option<&MethodDescriptor>, expect: &Expect, answer: &Answer, by_status: bool) -> Verdict {
    match (expect, by_status) {
        (Expect::Error(want), true) => judge_error_by_status(d, *want, answer),
        _ => judge_by_code(d, expect, answer),
    }
}

fn judge_by_code(d: Option<&MethodDescriptor>, expect: &Expect, answer: &Answer) -> Verdict {
    match expect {
        Expect::Success | Expect::SuccessOrDeclared | Expect::ValidOrRejected => match d {
            Some(d) => judge_success(d, expect, answer),
            None => Verdict::fail("a success case needs a method"),
        },
        Expect::Error(want) => judge_error(d, *want, answer),
        Expect::AnyError(kinds) => judge_any_error(d, kinds, answer),
        Expect::EnvelopeError(code) => judge_envelope_error(*code, answer),
    }
}

/// A positive case: a valid result or stream, or (unless `Expect::Success`) an
/// error the method declares.
fn judge_success(d: &MethodDescriptor, expect: &Expect, answer: &Answer) -> Verdict {
    match answer {
        Answer::Result(v) if !d.streaming => match read_result(d, v) {
            Ok(issues) => Verdict::pass("valid result").with(issues),
            Err(why) => Verdict::fail(why),
        },
        Answer::Stream { events, error: None } if d.streaming => {
            if events.is_empty() {
                return Verdict::fail(format!("{} streamed no event", d.name));
            }
            for (i, e) in events.iter().enumerate() {
                if let Err(why) = check_result(d, e) {
                    return Verdict::fail(format!("event {}: {why}", i + 1));
                }
            }
            Verdict::pass(format!("{} valid event(s)", events.len()))
        }
        Answer::Error(e) => judge_error_for_success(d, expect, e),
        Answer::Stream {
            error: Some(e),
            events,
        } => match method_error(d, e) {
            Ok(read) => Verdict::fail(format!(
                "the stream failed after {} event(s): {}",
                events.len(),
                describe_error(e)
            ))
            .with(read.issues),
            Err(verdict) => verdict,
        },
        other if d.streaming => Verdict::fail(format!("expected a stream, got {}", other.summary())),
        other => Verdict::fail(format!("expected a result, got {}", other.summary())),
    }
}

/// An error where a result was expected: a declared one passes, except those
/// raised [before the method runs](BEFORE_THE_METHOD).
fn judge_error_for_success(d: &MethodDescriptor, expect: &Expect, e: &Value) -> Verdict {
    let read = match method_error(d, e) {
        Ok(read) => read,
        Err(verdict) => return verdict,
    };
    let kind = read.kind;
    let verdict = if kind == d.contract.method_not_found() {
        Verdict::fail(format!(
            "{} is not implemented by the agent: {}",
            d.name,
            describe_error(e)
        ))
    } else if *expect == Expect::ValidOrRejected && kind == d.contract.invalid_params() {
        Verdict::pass(format!("rejected: {}", describe_error(e)))
    } else if *expect != Expect::Success && d.errors.contains(&kind) && !BEFORE_THE_METHOD.contains(&kind) {
        Verdict::pass(format!("declared error {}", kind_label(kind)))
    } else {
        Verdict::fail(format!("expected a result, got error {}", describe_error(e)))
    };
    verdict.with(read.issues)
}

/// Judges an answer that should be an error, read in the registry of
/// `contract` (see [`read_error`]): anything else falls short of `expected`;
/// an error is judged by `judge`, its ErrorInfo issues carried along.
fn judge_as_error(
    contract: Option<Contract>,
    answer: &Answer,
    expected: &str,
    judge: impl FnOnce(&ReadError, &Value) -> Verdict,
) -> Verdict {
    let Answer::Error(e) = answer else {
        return Verdict::fail(format!("{expected}, got {}", answer.summary()));
    };
    match read_error(contract, e) {
        Ok(read) => judge(&read, e).with(read.issues),
        Err(violation) => Verdict::violated(violation),
    }
}

fn judge_error(d: Option<&MethodDescriptor>, want: ErrorKind, answer: &Answer) -> Verdict {
    let expected = format!("expected error {}", kind_label(want));
    let contract = d.map_or(want.contract(), |d| d.contract);
    judge_as_error(Some(contract), answer, &expected, |read, e| {
        if read.kind != want {
            Verdict::fail(format!("{expected}, got {}", describe_error(e)))
        } else if let Some(Err(why)) = d.map(|d| declared(d, read.kind, e)) {
            Verdict::fail(why)
        } else {
            Verdict::pass(format!("error {}", kind_label(read.kind)))
        }
    })
}

/// [`judge_error`], where a standard error sharing the expected standard
/// error's status stands for it.
fn judge_error_by_status(d: Option<&MethodDescriptor>, want: ErrorKind, answer: &Answer) -> Verdict {
    let verdict = judge_error(d, want, answer);
    let Answer::Error(e) = answer else {
        return verdict;
    };
    let contract = d.map_or(want.contract(), |d| d.contract);
    let standard = rules::jsonrpc_errors(contract);
    let got = match read_error(Some(contract), e) {
        Ok(read) if read.kind != want => read,
        _ => return verdict,
    };
    if !(standard.contains(&want)
        && standard.contains(&got.kind)
        && got.kind.http_status() == want.http_status())
    {
        return verdict;
    }
    let why = format!(
        "expected error {}, got {}: the binding's status {} is both, its ErrorInfo names the other",
        kind_label(want),
        describe_error(e),
        want.http_status()
    );
    Verdict::pass(format!("error {} by its status", kind_label(want)))
        .with(vec![Violation::of(rules::error_reason(want), why)])
}

fn judge_any_error(d: Option<&MethodDescriptor>, kinds: &[ErrorKind], answer: &Answer) -> Verdict {
    let contract = d
        .map(|d| d.contract)
        .or_else(|| kinds.first().map(|k| k.contract()));
    judge_as_error(contract, answer, "expected an error", |read, e| {
        if kinds.contains(&read.kind) {
            Verdict::pass(format!("error {}", kind_label(read.kind)))
        } else {
            Verdict::fail(format!(
                "expected one of {}, got {}",
                kinds
                    .iter()
                    .map(|k| kind_label(*k))
                    .collect::<Vec<_>>()
                    .join(" / "),
                describe_error(e)
            ))
        }
    })
}

/// A bad envelope is judged by code: the request never reached a method.
fn judge_envelope_error(code: i64, answer: &Answer) -> Verdict {
    let expected = format!("expected error code {code}");
    judge_as_error(None, answer, &expected, |read, e| {
        if read.kind.code() != code {
            Verdict::fail(format!("{expected}, got {}", describe_error(e)))
        } else {
            Verdict::pass(format!("error {}", kind_label(read.kind)))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::{Level, Requirement};
    use serde_json::json;

    fn get_task() -> &'static MethodDescriptor {
        a2a::find_method("GetTask").expect("GetTask is in the table")
    }

    fn why(verdict: &Verdict) -> Vec<(Option<Requirement>, String)> {
        verdict
            .violations
            .iter()
            .map(|v| (v.requirement.clone(), v.why.clone()))
            .collect()
    }

    #[test]
    fn a_declared_not_found_passes_a_positive_example_but_a_standard_error_does_not() {
        let not_found =
            serde_json::to_value(a2a::Error::from_kind(ErrorKind::TaskNotFound)).expect("encodes");
        let verdict = judge(
            Some(get_task()),
            &Expect::SuccessOrDeclared,
            &Answer::Error(not_found.clone()),
        );
        assert_eq!(
            verdict,
            Verdict::pass("declared error -32001 TASK_NOT_FOUND@a2a-protocol.org")
        );
        assert!(!judge(Some(get_task()), &Expect::Success, &Answer::Error(not_found)).passed());
        let unimplemented = serde_json::to_value(a2a::Error::unimplemented(get_task())).expect("encodes");
        let verdict = judge(
            Some(get_task()),
            &Expect::SuccessOrDeclared,
            &Answer::Error(unimplemented),
        );
        assert!(
            verdict.violations[0].why.contains("not implemented"),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_code_that_is_no_code_of_the_registry_fails() {
        let wrong = json!({"code": -32000, "message": "x", "data": [{
            "@type": a2a::rpc::ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]});
        let verdict = judge(
            Some(get_task()),
            &Expect::SuccessOrDeclared,
            &Answer::Error(wrong),
        );
        assert_eq!(
            why(&verdict),
            [(
                Some(Requirement::new(Level::Must, "A2A §5.4")),
                "error -32000 TASK_NOT_FOUND@a2a-protocol.org \"x\": the registry gives TASK_NOT_FOUND@a2a-protocol.org code -32001, not -32000".to_string()
            )]
        );
    }

    #[test]
    fn an_error_without_error_info_is_judged_by_its_code_and_falls_short_of_a_should() {
        let bare = json!({"code": -32601, "message": "Method not found"});
        let verdict = judge(
            None,
            &Expect::Error(Contract::A2a.method_not_found()),
            &Answer::Error(bare),
        );
        assert_eq!(
            why(&verdict),
            [(
                Some(Requirement::new(Level::Should, "A2A §9.5")),
                "error -32601 (no ErrorInfo) \"Method not found\" carries no google.rpc.ErrorInfo (reason, domain) in `data`".to_string()
            )]
        );
        assert_eq!(verdict.note, "error -32601 METHOD_NOT_FOUND@a2a-protocol.org");
    }

    #[test]
    fn a_standard_code_with_another_reason_falls_short_of_a_strict_rule_only() {
        let other = json!({"code": -32602, "message": "bad", "data": [{
            "@type": a2a::rpc::ERROR_INFO_TYPE, "reason": "INVALID_PARAMS", "domain": "urn:cleveragents:extensions:v1"}]});
        let verdict = judge(
            Some(get_task()),
            &Expect::Error(Contract::A2a.invalid_params()),
            &Answer::Error(other),
        );
        assert_eq!(
            why(&verdict),
            [(
                Some(Requirement::new(Level::Strict, "A2A §9.5")),
                "error -32602 INVALID_PARAMS@urn:cleveragents:extensions:v1 \"bad\": code -32602 is INVALID_PARAMS@a2a-protocol.org in the registry, not INVALID_PARAMS@urn:cleveragents:extensions:v1".to_string()
            )]
        );
    }

    #[test]
    fn an_extension_error_without_error_info_falls_short_of_the_extension() {
        let bare = json!({"code": -32601, "message": "Method not found"});
        let verdict = judge(
            None,
            &Expect::Error(Contract::Cleveragents.method_not_found()),
            &Answer::Error(bare),
        );
        assert_eq!(
            verdict.violations[0].requirement,
            Some(Requirement::new(Level::Must, "urn:cleveragents:extensions:v1"))
        );
    }

    #[test]
    fn a_confirmation_of_any_form_passes_and_only_the_empty_object_is_strict() {
        let delete = a2a::find_method("DeleteTaskPushNotificationConfig").expect("in the table");
        assert_eq!(
            judge(Some(delete), &Expect::Success, &Answer::Result(json!({}))),
            Verdict::pass("valid result")
        );
        let verdict = judge(Some(delete), &Expect::Success, &Answer::Result(Value::Null));
        assert_eq!(
            verdict
                .violations
                .iter()
                .map(|v| v.requirement.clone())
                .collect::<Vec<_>>(),
            [Some(Requirement::new(Level::Strict, "A2A §3.1.10"))]
        );
        assert!(verdict.violations[0]
            .why
            .contains("null is not of type \"object\""));
        // A method whose result has members is not confirmed by just anything.
        let verdict = judge(Some(get_task()), &Expect::Success, &Answer::Result(Value::Null));
        assert_eq!(verdict.violations[0].requirement, None);
    }

    #[test]
    fn where_the_status_tells_errors_apart_a_standard_error_of_the_same_status_stands_for_another() {
        let invalid_request =
            serde_json::to_value(a2a::Error::from_kind(ErrorKind::InvalidRequest)).expect("encodes");
        let want = Expect::Error(ErrorKind::InvalidParams);
        let answer = Answer::Error(invalid_request);
        // Over JSON-RPC the code tells them apart: the case's own requirement fails.
        assert_eq!(
            judge(Some(get_task()), &want, &answer).violations[0].requirement,
            None
        );
        let verdict = judge_on(Some(get_task()), &want, &answer, true);
        assert_eq!(
            verdict
                .violations
                .iter()
                .map(|v| v.requirement.clone())
                .collect::<Vec<_>>(),
            [Some(Requirement::new(Level::Strict, "A2A §9.5"))]
        );
        // An A2A error carries its ErrorInfo on every binding (§11.6): no stand-in.
        let not_found =
            serde_json::to_value(a2a::Error::from_kind(ErrorKind::TaskNotFound)).expect("encodes");
        let verdict = judge_on(Some(get_task()), &want, &Answer::Error(not_found), true);
        assert_eq!(verdict.violations[0].requirement, None);
        // Nor does a standard error of another status.
        let internal =
            serde_json::to_value(a2a::Error::from_kind(ErrorKind::InternalError)).expect("encodes");
        let verdict = judge_on(Some(get_task()), &want, &Answer::Error(internal), true);
        assert_eq!(verdict.violations[0].requirement, None);
    }

    #[test]
    fn a_result_of_the_wrong_shape_fails_validation() {
        let verdict = judge(
            Some(get_task()),
            &Expect::Success,
            &Answer::Result(json!({"id": "t"})),
        );
        assert!(verdict.violations[0]
            .why
            .contains("does not validate against `Task`"));
        assert_eq!(verdict.violations[0].requirement, None);
    }
}
