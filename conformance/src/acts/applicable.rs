//! Which ACTS tests apply and whether they are well formed: every assertion
//! a test holds is validated before it runs (§12.1), and a test whose
//! preconditions the Agent Card does not meet is skipped (§3.3).

use super::assertion::{check, show, validate, validate_fields, Until};
use super::document::{ExpectBlock, ExpectError, ExpectStream, NamedAssertion, Preconditions, Step, Test};
use super::operations::{route, Route};
use serde_json::Value;

/// Validates every assertion a test holds before it runs (§12.1).
pub(super) fn validate_test(test: &Test, steps: &[Step], draft: bool) -> Result<(), String> {
    let block = |e: &Option<ExpectBlock>, at: &str| -> Result<(), String> {
        if let Some(e) = e {
            if let Some(status) = &e.status {
                validate(status, &format!("{at}.expect.status"))?;
            }
            if let Some(body) = &e.body {
                validate_fields(body, &format!("{at}.expect.body"))?;
            }
        }
        Ok(())
    };
    let error = |e: &Option<ExpectError>, at: &str| -> Result<(), String> {
        if let Some(e) = e {
            if !draft && (e.error_type.is_none() || !e.error_types.is_empty()) {
                return Err(format!("{at}: expect_error needs one error_type (§6.2)"));
            }
            if let Some(m) = &e.message {
                validate(m, &format!("{at}.expect_error.message"))?;
            }
            if let Some(d) = &e.details {
                validate_fields(d, &format!("{at}.expect_error.details"))?;
            }
        }
        Ok(())
    };
    for step in steps {
        let at = format!("step `{}`", step.id());
        match step {
            Step::Server(s) => {
                block(&s.expect, &at)?;
                error(&s.expect_error, &at)?;
                if let Some(stream) = &s.expect_stream {
                    validate_stream(stream, &at)?;
                    if !matches!(route(s.operation), Route::Method(d) if d.streaming) {
                        return Err(format!(
                            "{at}: expect_stream on {:?}, which does not stream (§7)",
                            s.operation
                        ));
                    }
                }
                if let Some(r) = &s.repeat {
                    Until::parse(&r.until).map_err(|e| format!("{at}.repeat.until: {e}"))?;
                }
                s.assertions.iter().try_for_each(|a| validate_named(a, &at))?;
            }
            Step::Raw(s) => {
                block(&s.expect, &at)?;
                error(&s.expect_error, &at)?;
                match (&s.expect_stream, draft) {
                    (Some(_), false) => {
                        return Err(format!(
                            "{at}: expect_stream is not a member of a raw-step (§4.4)"
                        ))
                    }
                    (Some(stream), true) => validate_stream(stream, &at)?,
                    (None, _) => {}
                }
                s.assertions.iter().try_for_each(|a| validate_named(a, &at))?;
            }
            Step::Client(s) => {
                validate_fields(&s.expect_parsed, &format!("{at}.expect_parsed"))?;
                s.assertions.iter().try_for_each(|a| validate_named(a, &at))?;
            }
            Step::Assertion(s) => validate_named(&NamedAssertion::from(&s.assertion), &at)?,
        }
    }
    test.assertions.iter().try_for_each(|a| validate_named(a, "test"))
}

pub(super) fn validate_stream(stream: &ExpectStream, at: &str) -> Result<(), String> {
    for (i, e) in stream.events.iter().enumerate() {
        validate_fields(&e.assertions, &format!("{at}.expect_stream.events[{i}]"))?;
    }
    for (name, map) in [
        ("final_event", &stream.final_event),
        ("each_event", &stream.each_event),
    ] {
        if let Some(map) = map {
            validate_fields(map, &format!("{at}.expect_stream.{name}"))?;
        }
    }
    Ok(())
}

pub(super) fn validate_named(a: &NamedAssertion, at: &str) -> Result<(), String> {
    if a.matches.is_none() && a.any.is_none() && a.all.is_none() && a.none.is_none() {
        return Err(format!(
            "{at}: the assertion on `{}` has none of match, any, all, none (§5.5)",
            a.source
        ));
    }
    if let Some(m) = &a.matches {
        validate(m, &format!("{at}.match"))?;
    }
    for c in [&a.any, &a.all, &a.none].into_iter().flatten() {
        validate_fields(&c.matches, &format!("{at}.{}", c.path))?;
    }
    Ok(())
}

/// Whether the card meets `pre`; the first unmet condition if not. A
/// capability required `false` is met by one the card leaves out (not
/// declaring a capability is not supporting it).
pub(super) fn unmet_precondition(card: &Value, pre: &Preconditions) -> Option<String> {
    let capabilities = card.get("capabilities");
    for (name, wanted) in &pre.capabilities {
        let declared = capabilities.and_then(|c| c.get(name));
        let met = match (wanted, declared) {
            (Value::Bool(false), None) => true,
            (_, Some(d)) => check(wanted, Some(d), name).is_ok(),
            (_, None) => false,
        };
        if !met {
            return Some(format!(
                "precondition not met: the Agent Card declares capabilities.{name} = {}, the test needs {wanted}",
                show(declared)
            ));
        }
    }
    for skill in &pre.skills {
        let found = card
            .get("skills")
            .and_then(Value::as_array)
            .is_some_and(|skills| {
                skills
                    .iter()
                    .any(|s| s.get("id").and_then(Value::as_str) == Some(&skill.id))
            });
        if !found {
            return Some(format!(
                "precondition not met: the Agent Card has no skill `{}`",
                skill.id
            ));
        }
    }
    for uri in &pre.extensions {
        let found = capabilities
            .and_then(|c| c.get("extensions"))
            .and_then(Value::as_array)
            .is_some_and(|list| {
                list.iter()
                    .any(|e| e.get("uri").and_then(Value::as_str) == Some(uri))
            });
        if !found {
            return Some(format!(
                "precondition not met: the Agent Card declares no extension {uri}"
            ));
        }
    }
    None
}
