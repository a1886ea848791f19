//! Extensions beyond the contract: the cases of an extension schema the run is
//! given (`--extension-schema FILE`, e.g. one a downstream crate generated its
//! code from with `cleveragents-codegen`'s build-script route), derived from
//! its `x-methods`, `x-errors` and definitions the way the contract's cases
//! are derived from the contract's, and judged against its own registry.
//!
//! Per method of the extension (group: the method's service):
//! - `<method>/example-N`: each schema example's params; the result must
//!   validate against the method's result definition (the contract's
//!   definitions and the extension's, bundled), or the error be one the method
//!   declares;
//! - `<method>/missing/<field>`, `wrong-type/<field>`, `bad-enum/<path>`: the
//!   invalid mutations of the first example → the extension's -32602;
//! - `<method>/params-not-object` → its -32602 or -32600;
//!
//! plus `versioning/unknown-method/<name>`: a method under the extension's
//! prefix that it lacks → its -32601. Every error must carry the ErrorInfo of
//! the extension's registry entry for its code (reason, and the extension's
//! domain). Every case is MUST of the extension's URI: a server that declares
//! an extension implements it. The cases run when the Agent Card declares the
//! extension's URI in `capabilities.extensions` (whatever groups the run
//! selects); otherwise a note says so.

use crate::card::CapabilityUse;
use crate::cases::{self, Message};
use crate::level::{Level, Requirement};
use crate::report::{observe, CaseResult, Subject};
use crate::schema::{self, Schemas};
use crate::session::Session;
use crate::transport::Answer;
use crate::verdict::Verdict;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// JSON-RPC's codes, which every registry holds.
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// One extension schema, read and bundled with the contract's.
pub struct Extension {
    /// `x-contract.name`.
    pub name: String,
    /// `x-contract.extensionUri`: what the Agent Card declares.
    pub uri: String,
    /// `x-contract.methodPrefix`.
    pub prefix: String,
    /// `x-contract.errorDomain`: the ErrorInfo domain of its errors.
    pub domain: String,
    schemas: &'static Schemas,
    /// Error code → ErrorInfo reason, from `x-errors`.
    reasons: Vec<(i64, String)>,
    /// Method wire names, in schema order.
    methods: Vec<String>,
}

impl std::fmt::Debug for Extension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extension")
            .field("name", &self.name)
            .field("uri", &self.uri)
            .field("methods", &self.methods)
            .finish_non_exhaustive()
    }
}

impl Extension {
    /// Reads an extension schema (the text of its JSON file): its contract
    /// facts, registry and methods, bundled with the contract's definitions.
    pub fn parse(text: &str) -> Result<Extension, String> {
        let document: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let contract = document
            .get("x-contract")
            .and_then(Value::as_object)
            .ok_or("no `x-contract` object")?;
        let field = |name: &str| {
            contract
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("`x-contract.{name}` is missing"))
        };
        let (name, uri, prefix, domain) = (
            field("name")?,
            field("extensionUri")?,
            field("methodPrefix")?,
            field("errorDomain")?,
        );
        let reasons: Vec<(i64, String)> = document
            .get("x-errors")
            .and_then(Value::as_object)
            .ok_or("no `x-errors` object")?
            .values()
            .filter_map(|e| Some((e.get("code")?.as_i64()?, e.get("reason")?.as_str()?.to_string())))
            .collect();
        for code in [INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS] {
            if !reasons.iter().any(|(c, _)| *c == code) {
                return Err(format!("`x-errors` lacks the JSON-RPC error {code}"));
            }
        }
        let methods: Vec<String> = document
            .get("x-methods")
            .and_then(Value::as_object)
            .ok_or("no `x-methods` object")?
            .iter()
            .filter(|(_, m)| m.get("binding").is_none_or(Value::is_null))
            .map(|(name, _)| name.clone())
            .collect();
        if let Some(outside) = methods.iter().find(|m| !m.starts_with(&prefix)) {
            return Err(format!(
                "method `{outside}` does not start with the prefix `{prefix}`"
            ));
        }
        let schemas = schema::with_extension(document)?;
        Ok(Extension {
            name,
            uri,
            prefix,
            domain,
            schemas,
            reasons,
            methods,
        })
    }

    /// The requirement of every case: MUST, sourced to the extension's URI.
    fn requirement(&self) -> Requirement {
        Requirement::new(Level::Must, self.uri.clone())
    }

    /// The reason of the registry entry with `code`.
    fn reason(&self, code: i64) -> Option<&str> {
        self.reasons
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, r)| r.as_str())
    }

    /// The codes of the errors method `name` declares.
    fn declared_codes(&self, name: &str) -> Vec<i64> {
        let document = self.schemas.method(name);
        let names: Vec<&str> = document
            .and_then(|m| m.get("errors"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        names
            .iter()
            .filter_map(|n| self.schemas.dialect_error_code(n))
            .collect()
    }

    /// True when `card` declares the extension in `capabilities.extensions`.
    pub fn declared_by(&self, card: &Value) -> bool {
        card.pointer("/capabilities/extensions")
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(|e| e["uri"] == self.uri.as_str()))
    }

    /// Every case of the extension: each method's examples (creators first,
    /// destroyers last), then its negatives, then the unknown method.
    pub fn derive(&self) -> Vec<Case> {
        let s = self.schemas;
        let mut positives = Vec::new();
        let mut negatives = Vec::new();
        for name in &self.methods {
            let Some(entry) = s.method(name) else { continue };
            let text = |key: &str| {
                entry
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let (group, params_type, result_type) = (text("service"), text("params"), text("result"));
            let examples = s.examples(name);
            for (i, example) in examples.iter().enumerate() {
                let case = Case {
                    id: format!("{name}/example-{}", i + 1),
                    group: group.clone(),
                    method: Some(name.clone()),
                    message: Message::Request {
                        method: name.clone(),
                        params: example.get("params").cloned(),
                    },
                    expect: Expect::Valid {
                        result_type: result_type.clone(),
                        declared: self.declared_codes(name),
                    },
                };
                positives.push((cases::phase(name), case));
            }
            let base = examples
                .first()
                .and_then(|e| e.get("params"))
                .cloned()
                .unwrap_or_else(|| json!({}));
            let Some(def) = s.definition(&params_type).map(|d| s.resolve(d)) else {
                continue;
            };
            let negative = |id: String, params: Value, codes: Vec<i64>| Case {
                id: format!("{name}/{id}"),
                group: group.clone(),
                method: Some(name.clone()),
                message: Message::Request {
                    method: name.clone(),
                    params: Some(params),
                },
                expect: Expect::Error(codes),
            };
            for mutation in cases::mutations(s, def, &base) {
                negatives.push(negative(mutation.id, mutation.params, vec![INVALID_PARAMS]));
            }
            negatives.push(negative(
                "params-not-object".into(),
                json!(["not", "an", "object"]),
                vec![INVALID_PARAMS, INVALID_REQUEST],
            ));
        }
        positives.sort_by_key(|(phase, _)| *phase);
        let mut out: Vec<Case> = positives.into_iter().map(|(_, c)| c).collect();
        out.extend(negatives);
        out.push(Case {
            id: format!("versioning/unknown-method/{}", self.name),
            group: "versioning".into(),
            method: None,
            message: Message::Request {
                method: format!("{}conformance/no-such-method", self.prefix),
                params: Some(json!({})),
            },
            expect: Expect::Error(vec![METHOD_NOT_FOUND]),
        });
        out
    }

    /// Runs the extension's cases on `session` when `card` declares the
    /// extension; the results, or the note saying why nothing ran.
    pub async fn run(&self, session: &Session, card: Option<&Value>) -> Result<Vec<CaseResult>, String> {
        let cases = self.derive();
        if !card.is_some_and(|c| self.declared_by(c)) {
            return Err(format!(
                "extension {} ({}) is not declared by the Agent Card: its {} cases were not run",
                self.name,
                self.uri,
                cases.len()
            ));
        }
        let requirement = self.requirement();
        let capability = CapabilityUse {
            name: self.uri.clone(),
            declared: true,
        };
        let mut results = Vec::new();
        for case in &cases {
            let started = Instant::now();
            let answer = session.send(&case.message).await;
            let verdict = Verdict::of(self.judge(&case.expect, &answer));
            let subject = Subject {
                id: &case.id,
                group: &case.group,
                method: case.method.as_deref(),
                requirement: &requirement,
                capability: Some(&capability),
            };
            results.push(CaseResult::new(
                subject,
                &verdict,
                observe(&answer),
                started.elapsed().as_millis() as u64,
            ));
        }
        Ok(results)
    }

    /// How the answer meets `expect`: a note when it does, why not otherwise.
    fn judge(&self, expect: &Expect, answer: &Answer) -> Result<String, String> {
        match (expect, answer) {
            (Expect::Valid { result_type, .. }, Answer::Result(result)) => self
                .schemas
                .validate(result_type, result)
                .map(|()| format!("a valid `{result_type}`"))
                .map_err(|violations| {
                    format!(
                        "the result is no valid `{result_type}`: {}",
                        violations.join("; ")
                    )
                }),
            (Expect::Valid { declared, .. }, Answer::Error(error)) => {
                let code = error.get("code").and_then(Value::as_i64).unwrap_or_default();
                if !declared.contains(&code) {
                    return Err(format!(
                        "expected a result or an error the method declares, got {error}"
                    ));
                }
                self.registry_error(code, error)
            }
            (Expect::Error(codes), Answer::Error(error)) => {
                let code = error.get("code").and_then(Value::as_i64).unwrap_or_default();
                if !codes.contains(&code) {
                    return Err(format!(
                        "expected error {codes:?} of {}, got {error}",
                        self.domain
                    ));
                }
                self.registry_error(code, error)
            }
            (_, Answer::Broken(why)) => Err(why.clone()),
            (_, other) => Err(format!("unexpected answer: {}", observe(other))),
        }
    }

    /// An error of code `code` carries the extension's ErrorInfo for it.
    fn registry_error(&self, code: i64, error: &Value) -> Result<String, String> {
        let reason = self
            .reason(code)
            .ok_or_else(|| format!("the extension's registry has no error {code}"))?;
        let info: Option<&Map<String, Value>> = error
            .get("data")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .find(|d| d.get("@type").and_then(Value::as_str) == Some(a2a::rpc::ERROR_INFO_TYPE));
        let Some(info) = info else {
            return Err(format!("error {code} carries no google.rpc.ErrorInfo: {error}"));
        };
        let (got_reason, got_domain) = (
            info.get("reason").and_then(Value::as_str).unwrap_or_default(),
            info.get("domain").and_then(Value::as_str).unwrap_or_default(),
        );
        if got_reason != reason || got_domain != self.domain {
            return Err(format!(
                "error {code}: expected ErrorInfo {reason}@{}, got {got_reason}@{got_domain}",
                self.domain
            ));
        }
        Ok(format!("error {code} {reason}@{}", self.domain))
    }
}

/// One case of an extension.
#[derive(Clone, Debug)]
pub struct Case {
    /// Stable id, `<method>/<case>` or `versioning/unknown-method/<name>`.
    pub id: String,
    /// The method's service, or `versioning`.
    pub group: String,
    /// The method called (`None`: one the extension lacks).
    pub method: Option<String>,
    /// What the case sends.
    pub message: Message,
    /// What it accepts.
    pub expect: Expect,
}

/// What an extension case accepts.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// A result valid by `result_type`, or an error whose code is one of `declared`.
    Valid {
        /// The definition the result must validate against.
        result_type: String,
        /// The codes of the errors the method declares.
        declared: Vec<i64>,
    },
    /// An error with one of these codes.
    Error(Vec<i64>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        let error = |code: i64, reason: &str| json!({"code": code, "reason": reason});
        json!({
            "x-contract": {"name": "demo", "extensionUri": "urn:example:demo:v1",
                           "methodPrefix": "_demo/", "errorDomain": "urn:example:demo:v1"},
            "x-errors": {"A": error(-32600, "INVALID_REQUEST"), "B": error(-32601, "METHOD_NOT_FOUND"),
                         "C": error(-32602, "INVALID_PARAMS"), "D": error(-32050, "TOO_LOUD")},
            "x-methods": {"_demo/ping": {"service": "demo", "params": "PingParams", "result": "PingResult",
                "errors": ["D"], "examples": [{"params": {"word": "hi"}, "result": {"state": "TASK_STATE_WORKING"}}]}},
            "definitions": {
                "PingParams": {"type": "object", "required": ["word"], "properties": {"word": {"type": "string"}}},
                "PingResult": {"type": "object", "required": ["state"],
                               "properties": {"state": {"$ref": "a2a.json#/definitions/TaskState"}}}
            }
        })
    }

    #[test]
    fn the_cases_come_from_the_extensions_table_and_definitions() {
        let extension = Extension::parse(&schema().to_string()).expect("a valid extension");
        let cases = extension.derive();
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "_demo/ping/example-1",
                "_demo/ping/missing/word",
                "_demo/ping/wrong-type/word",
                "_demo/ping/params-not-object",
                "versioning/unknown-method/demo"
            ]
        );
        assert_eq!(
            cases[0].expect,
            Expect::Valid {
                result_type: "PingResult".into(),
                declared: vec![-32050]
            }
        );
        // The result type refers to an A2A definition, resolved in the bundle.
        let answer = Answer::Result(json!({"state": "TASK_STATE_WORKING"}));
        assert_eq!(
            extension.judge(&cases[0].expect, &answer),
            Ok("a valid `PingResult`".to_string())
        );
        let wrong = Answer::Result(json!({"state": "WORKING"}));
        assert!(extension.judge(&cases[0].expect, &wrong).is_err());
        // An error must carry the extension's own ErrorInfo.
        let foreign = Answer::Error(json!({"code": -32602, "message": "bad", "data": [
            {"@type": a2a::rpc::ERROR_INFO_TYPE, "reason": "INVALID_PARAMS", "domain": "a2a-protocol.org"}]}));
        assert_eq!(
            extension.judge(&cases[1].expect, &foreign),
            Err("error -32602: expected ErrorInfo INVALID_PARAMS@urn:example:demo:v1, got INVALID_PARAMS@a2a-protocol.org".to_string())
        );
    }

    #[test]
    fn a_schema_that_is_no_extension_is_refused_with_the_reason() {
        assert!(Extension::parse("[").is_err_and(|e| e.starts_with("not JSON")));
        let mut no_uri = schema();
        no_uri["x-contract"]
            .as_object_mut()
            .map(|c| c.remove("extensionUri"));
        assert_eq!(
            Extension::parse(&no_uri.to_string()).err(),
            Some("`x-contract.extensionUri` is missing".to_string())
        );
        let mut outside = schema();
        outside["x-methods"]["ping"] = outside["x-methods"]["_demo/ping"].clone();
        assert_eq!(
            Extension::parse(&outside.to_string()).err(),
            Some("method `ping` does not start with the prefix `_demo/`".to_string())
        );
        let mut clash = schema();
        clash["definitions"]["Task"] = json!({"type": "object"});
        assert!(Extension::parse(&clash.to_string()).is_err());
    }
}
