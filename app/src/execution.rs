//! Plan execution and its outcomes: `plan/execute`, `prompt`, `artifacts`,
//! `diff`, `apply` and `rollback`, the built-in tools, the validations, and
//! the default executor's hooks (a message whose data part names an action
//! starts a plan inside the message's task, `App::plan_start_in_task`; a
//! message replying to a plan's input-required task answers its prompt).
//!
//! # Running
//!
//! `plan/execute` snapshots the action's step arguments, validations and the
//! automation profile's approval mode into the plan record, creates the A2A
//! task (SUBMITTED; its metadata names the plan under the extension URI) in
//! the same commit that makes the plan RUNNING, and returns. A detached
//! runner then drives the steps in order. Every change of the plan is
//! committed **together with the task event announcing it** (one atomic
//! commit), so the plan and its task never disagree, also after a restart.
//! Each status or artifact event carries a `PlanDomainEvent` in its metadata
//! under `urn:cleveragents:extensions:v1`, whose `seq` is the event's own
//! per-task sequence number.
//!
//! A plan's operations are serialized by a per-plan lock (always taken before
//! the task's lock). A runner that finds the plan no longer RUNNING (answered,
//! cancelled) stops. Plans left RUNNING by a crash are picked up again by
//! [`App::resume_plans`], which the agent calls at start-up.
//!
//! Domain events, in order, for a run:
//! `plan.phase_changed` (WORKING, phase EXECUTE); per step `tool.invoked`
//! (WORKING) then the tool's outcome; after the steps one
//! `validation.completed` artifact per action validation, then
//! `plan.phase_changed` (WORKING, phase REVIEW), with autoApply
//! `plan.apply_completed` (WORKING), and `plan.state_changed` (COMPLETED).
//! A failing step or ERROR validation ends with `plan.error` (task FAILED).
//!
//! # Built-in tools and their arguments
//!
//! Every string in a step's `arguments` is rendered first: `{{name}}` is the
//! plan input `name` (strings verbatim, other values as compact JSON) and
//! `{{steps.ID}}` the text a TEMPLATE step `ID` produced; an unknown
//! placeholder fails the step. The rendered arguments must satisfy the tool's
//! `inputSchema`. A registered (non-built-in) tool runs as its kind, with its
//! `config` as defaults.
//!
//! - **TEMPLATE** (`template`): `{"template": string, "name"?: string}`
//!   (`name` names the artifact, default the step id); a registered TEMPLATE
//!   tool may carry the template in `config.template` instead. Produces a REPORT artifact
//!   (text/plain) and `tool.completed` on that artifact event.
//! - **WRITE_FILE** (`write-file`): `{"path": string, "content"?: string,
//!   "fromStep"?: string, "mediaType"?: string}`; the content is `content`,
//!   else the output of TEMPLATE step `fromStep`; the media type defaults by
//!   extension (`.md` text/markdown, `.json` application/json, else
//!   text/plain). Writes into the plan's virtual workspace only (never the
//!   host filesystem, never the project before apply) and produces a FILE
//!   artifact with `tool.completed`.
//! - **APPROVAL** (`approval`): `{"question"?: string}`. With an AUTO
//!   profile: `plan.decision_made` then `tool.completed`. Otherwise (MANUAL,
//!   or no profile) the plan becomes INPUT_REQUIRED with prompt
//!   `prm-<stepId>-<n>` and the task input-required (`plan.state_changed`,
//!   the question as status message). APPROVE (plan/prompt, or a reply whose
//!   text starts with approve/approved/yes/y/ok/lgtm) emits
//!   `plan.state_changed` (RUNNING), `plan.decision_made`, `tool.completed`
//!   and continues; REJECT (reject/rejected/no/n/deny) fails step and plan
//!   (`plan.state_changed` FAILED, task FAILED). Any other reply asks again.
//!   A data part `{"decision": "PROMPT_DECISION_…"}` is also understood.
//! - **RUN_VALIDATION** (`run-validation`): `{"validations"?: [string]}`,
//!   defaulting to the action's validations. One VALIDATION_RESULT artifact
//!   with `validation.completed` per validation, then `tool.completed`.
//!
//! # Validations
//!
//! Run on the plan's tree: the project at the plan's base revision with the
//! workspace written over it (for invariants at apply: the tree the apply
//! would produce). `pathGlob`: `*` and `?` stay within a path segment, `**`
//! spans segments. FILE_EXISTS needs a matching file, FILE_ABSENT none;
//! CONTENT_MATCHES / CONTENT_EXCLUDES need `pattern` (a regex) to match /
//! not match every matching file (binary files never match); JSON_SCHEMA
//! parses each matching file and checks it against the schema subset of
//! [`crate::plans::check_schema`]; MAX_FILE_BYTES bounds each file's size.
//! Checks over no matching files pass. A failure is FAILED for ERROR
//! severity, WARNED for WARNING. Invariants: a FAILED validation of a BLOCK
//! invariant makes apply fail (ExtPlanError); failures of WARN invariants
//! are reported as WARNED.
//!
//! # Diff, apply, rollback
//!
//! The plan's FILE artifacts (its workspace) are diffed against the
//! project's *current* revision; unchanged files are omitted, files are never
//! deleted by a plan. UNIFIED hunks come from a longest-common-subsequence
//! line diff (deletions before insertions), lines split on `\n` with a final
//! newline not starting a line; an empty range's start is the line before it
//! (0 for an empty file). Files whose old or new content is not UTF-8 are
//! `binary` and carry only digests. Apply checks the expected revision, the
//! budget (tokens = ceil(UTF-8 bytes / 4) of generated content, tool calls,
//! files and bytes the apply writes) and the invariants, then commits the new
//! project revision, the project entity and the plan in one transaction.
//! The schema leaves the default revision message open: it is
//! "Applied plan <id> (action <action>)" / "Rolled back plan <id>".

use crate::app::App;
use crate::executor::TaskHandle;
use crate::plans::{state_name, PlanRecord, COLL};
use crate::registry::{self, file_bytes, file_infos, hex, revision_key, PROJECT_REV};
use crate::store::{Commit, DocWrite, Expect, StoreError};
use crate::tasks::{artifact_change, status_change};
use crate::util::{self, from_json, namespace_of, require, to_json, Family, EXTENSION_URI};
use a2a::rpc::{Access, CallContext, Error};
use a2a::types::RegistryKind as Kind;
use a2a::types::{
    Artifact, Message, PartContent, Plan, PlanApplyParams, PlanApplyResult, PlanArtifactList,
    PlanArtifactsParams, PlanDiff, PlanDiffParams, PlanExecuteParams, PlanExecution, PlanFailure, PlanPhase,
    PlanPrompt, PlanPromptKind, PlanPromptParams, PlanRollbackParams, PlanRollbackResult, PlanState,
    PlanStepState, PlanUseParams, PromptDecision, Role, Task, TaskState, TaskStatus,
};
use a2a::ErrorKind;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

const FAMILY: Family = Family::Ext;

/// Line-diff work above this many cells falls back to replacing the whole file.
const MAX_DIFF_CELLS: usize = 4_000_000;

/// The execution state of a plan's current revision (part of its record).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecState {
    /// Index of the next step to run.
    #[serde(default)]
    pub next_step: usize,
    /// True once the run announced its start.
    #[serde(default)]
    pub started: bool,
    /// Each step's arguments as the action declared them at execute.
    #[serde(default)]
    pub arguments: Vec<Value>,
    /// The action's validations, run after the last step.
    #[serde(default)]
    pub validations: Vec<String>,
    #[serde(default)]
    pub auto_approve: bool,
    #[serde(default)]
    pub auto_apply: bool,
    /// The virtual workspace: ProjectFile values, sorted by path.
    #[serde(default)]
    pub workspace: Vec<Value>,
    /// Text produced by TEMPLATE steps, by step id.
    #[serde(default)]
    pub outputs: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_prompt: Option<PlanPrompt>,
    /// Prompts already answered (answering again is ExtInvalidState).
    #[serde(default)]
    pub answered: Vec<String>,
    #[serde(default)]
    pub prompts: u32,
}

/// What a plan event does to its task.
enum Out {
    Status(TaskState, Option<String>),
    Artifact(Artifact),
}

/// How a step ended.
enum StepEnd {
    Next,
    Stop,
}

fn invalid_state(message: String, state: PlanState) -> Error {
    Error::new(ErrorKind::ExtInvalidState, message).with_metadata("state", state_name(state))
}

fn plan_error(message: String) -> Error {
    Error::new(ErrorKind::ExtPlanError, message)
}

fn tokens_of(bytes: usize) -> i64 {
    i64::try_from(bytes.div_ceil(4)).unwrap_or(i64::MAX)
}

fn agent_text(text: &str) -> Message {
    Message {
        message_id: util::new_id(),
        context_id: None,
        task_id: None,
        role: Role::Agent,
        parts: vec![crate::executor::text_part(text)],
        metadata: None,
        extensions: vec![],
        reference_task_ids: vec![],
    }
}

/// Renders `{{name}}` / `{{steps.ID}}` placeholders.
pub fn render(
    text: &str,
    inputs: &Map<String, Value>,
    outputs: &BTreeMap<String, String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open + 2..].find("}}") else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = rest[open + 2..open + 2 + close].trim();
        let value = match name.strip_prefix("steps.") {
            Some(step) => outputs.get(step).cloned(),
            None => inputs.get(name).map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
        };
        match value {
            Some(v) => out.push_str(&v),
            None => return Err(format!("unknown placeholder {{{{{name}}}}}")),
        }
        rest = &rest[open + 2 + close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn render_value(
    value: &Value,
    inputs: &Map<String, Value>,
    outputs: &BTreeMap<String, String>,
) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => Value::String(render(s, inputs, outputs)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| render_value(v, inputs, outputs))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => {
            let mut rendered = Map::new();
            for (k, v) in map {
                rendered.insert(k.clone(), render_value(v, inputs, outputs)?);
            }
            Value::Object(rendered)
        }
        other => other.clone(),
    })
}

/// The anchored regex of a path glob.
pub fn glob_regex(glob: &str) -> Result<regex::Regex, String> {
    let chars: Vec<char> = glob.chars().collect();
    let mut re = String::from("^");
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                if chars.get(i + 2) == Some(&'/') {
                    re.push_str("(?:.*/)?");
                    i += 3;
                } else {
                    re.push_str(".*");
                    i += 2;
                }
                continue;
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push('$');
    regex::Regex::new(&re).map_err(|e| format!("pathGlob `{glob}` is invalid: {e}"))
}

/// Checks one validation entity on a tree: `Err` describes the failure.
fn check_validation(v: &Value, tree: &[Value]) -> Result<(), String> {
    let glob = v["pathGlob"].as_str().unwrap_or_default();
    let matcher = glob_regex(glob)?;
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
    match v["kind"].as_str().unwrap_or_default() {
        "VALIDATION_KIND_FILE_EXISTS" if matched.is_empty() => Err(format!("no file matches `{glob}`")),
        "VALIDATION_KIND_FILE_EXISTS" => Ok(()),
        "VALIDATION_KIND_FILE_ABSENT" if matched.is_empty() => Ok(()),
        "VALIDATION_KIND_FILE_ABSENT" => Err(format!("present: {}", list(matched))),
        "VALIDATION_KIND_CONTENT_MATCHES" => {
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
        "VALIDATION_KIND_CONTENT_EXCLUDES" => {
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
        "VALIDATION_KIND_JSON_SCHEMA" => {
            let schema = v.get("schema").cloned().unwrap_or(json!({}));
            for f in matched {
                let value: Value = serde_json::from_slice(&file_bytes(f))
                    .map_err(|e| format!("{} is not JSON: {e}", path(f)))?;
                crate::plans::check_schema(&schema, &value, &path(f))?;
            }
            Ok(())
        }
        "VALIDATION_KIND_MAX_FILE_BYTES" => {
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
        other => Err(format!("unknown validation kind `{other}`")),
    }
}

/// `tree` with the `workspace` files written over it, sorted by path.
fn overlay(tree: &[Value], workspace: &[Value]) -> Vec<Value> {
    let mut files: BTreeMap<String, Value> = tree
        .iter()
        .map(|f| (f["path"].as_str().unwrap_or_default().to_string(), f.clone()))
        .collect();
    for f in workspace {
        files.insert(f["path"].as_str().unwrap_or_default().to_string(), f.clone());
    }
    files.into_values().collect()
}

fn media_type_of(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        _ => "text/plain",
    }
}

fn valid_path(path: &str) -> bool {
    !(path.is_empty()
        || path.starts_with('/')
        || path
            .split('/')
            .any(|seg| seg.is_empty() || seg == "." || seg == "..")
        || path.chars().any(char::is_control))
}

fn lines_of(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return vec![];
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// The edit script from `a` to `b`: (' ' | '-' | '+', line).
fn edit_script<'t>(a: &[&'t str], b: &[&'t str]) -> Vec<(char, &'t str)> {
    let (n, m) = (a.len(), b.len());
    if (n + 1).saturating_mul(m + 1) > MAX_DIFF_CELLS {
        let mut ops: Vec<(char, &str)> = a.iter().map(|l| ('-', *l)).collect();
        ops.extend(b.iter().map(|l| ('+', *l)));
        return ops;
    }
    // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if a[i] == b[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::with_capacity(n + m));
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j >= m || (i < n && lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    ops
}

/// Unified hunks of an edit script with `context` unchanged lines around changes.
fn hunks(ops: &[(char, &str)], context: usize) -> Vec<Value> {
    let mut old_before = Vec::with_capacity(ops.len() + 1);
    let mut new_before = Vec::with_capacity(ops.len() + 1);
    let (mut o, mut n) = (0i64, 0i64);
    for (op, _) in ops {
        old_before.push(o);
        new_before.push(n);
        if *op != '+' {
            o += 1;
        }
        if *op != '-' {
            n += 1;
        }
    }
    old_before.push(o);
    new_before.push(n);
    let changes: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _))| *op != ' ')
        .map(|(i, _)| i)
        .collect();
    let mut out = vec![];
    let mut k = 0;
    while k < changes.len() {
        let start = changes[k].saturating_sub(context);
        let mut end = changes[k] + 1;
        k += 1;
        while k < changes.len() && changes[k] - end <= 2 * context {
            end = changes[k] + 1;
            k += 1;
        }
        let end = (end + context).min(ops.len());
        let slice = &ops[start..end];
        let old_lines = slice.iter().filter(|(op, _)| *op != '+').count() as i64;
        let new_lines = slice.iter().filter(|(op, _)| *op != '-').count() as i64;
        let first = |before: i64, count: i64| if count == 0 { before } else { before + 1 };
        out.push(json!({
            "oldStart": first(old_before[start], old_lines), "oldLines": old_lines,
            "newStart": first(new_before[start], new_lines), "newLines": new_lines,
            "lines": slice.iter().map(|(op, line)| format!("{op}{line}")).collect::<Vec<_>>(),
        }));
    }
    out
}

/// The FileDiffs of writing `workspace` over `tree`, and (lines added, deleted).
fn file_diffs(tree: &[Value], workspace: &[Value], full: bool, context: usize) -> (Vec<Value>, i64, i64) {
    let (mut files, mut added, mut deleted) = (vec![], 0i64, 0i64);
    for new in workspace {
        let path = new["path"].as_str().unwrap_or_default();
        let old = tree.iter().find(|f| f["path"] == path);
        let after = file_bytes(new);
        let before = old.map(file_bytes);
        if let Some(o) = old {
            if before.as_deref() == Some(after.as_slice()) && o["mediaType"] == new["mediaType"] {
                continue;
            }
        }
        let mut diff = json!({
            "path": path,
            "change": if old.is_some() { "FILE_CHANGE_KIND_MODIFIED" } else { "FILE_CHANGE_KIND_ADDED" },
            "mediaType": new["mediaType"],
            "afterSha256": hex(&Sha256::digest(&after)),
        });
        if let Some(b) = &before {
            diff["beforeSha256"] = json!(hex(&Sha256::digest(b)));
        }
        let after_text = std::str::from_utf8(&after).ok();
        let before_text = match &before {
            None => Some(""),
            Some(b) => std::str::from_utf8(b).ok(),
        };
        match (before_text, after_text) {
            (Some(b), Some(a)) => {
                diff["binary"] = json!(false);
                let (old_lines, new_lines) = (lines_of(b), lines_of(a));
                let ops = edit_script(&old_lines, &new_lines);
                added += ops.iter().filter(|(op, _)| *op == '+').count() as i64;
                deleted += ops.iter().filter(|(op, _)| *op == '-').count() as i64;
                if full {
                    if before.is_some() {
                        diff["before"] = json!(b);
                    }
                    diff["after"] = json!(a);
                } else {
                    diff["hunks"] = json!(hunks(&ops, context));
                }
            }
            _ => diff["binary"] = json!(true),
        }
        files.push(diff);
    }
    (files, added, deleted)
}

impl App {
    /// Serializes a plan's operations (taken before any task lock).
    pub(crate) async fn plan_guard(&self, plan_id: &str) -> Result<tokio::sync::OwnedMutexGuard<()>, Error> {
        let lock = {
            let mut map = self
                .plan_locks
                .lock()
                .map_err(|_| FAMILY.internal("plan lock registry poisoned"))?;
            map.entry(plan_id.to_string()).or_default().clone()
        };
        Ok(lock.lock_owned().await)
    }

    /// Commits the plan record together with one task event carrying `event`.
    async fn emit(
        &self,
        ns: &str,
        rec: &mut PlanRecord,
        ver: &mut u64,
        out: Out,
        event: &str,
        fields: Value,
    ) -> Result<(), Error> {
        let now = util::now();
        rec.plan.updated_at = now.clone();
        let mut domain = json!({
            "event": event, "planId": rec.plan.id, "revision": rec.plan.revision,
            "seq": 0, "occurredAt": now,
        });
        if let (Some(d), Some(f)) = (domain.as_object_mut(), fields.as_object()) {
            d.extend(f.clone());
        }
        let mut metadata = Map::new();
        metadata.insert(EXTENSION_URI.into(), domain);
        let task_id = rec
            .plan
            .task_id
            .clone()
            .ok_or_else(|| FAMILY.internal("a running plan without a task"))?;
        let doc = DocWrite::put(
            COLL,
            ns,
            &rec.plan.id,
            Expect::Version(*ver),
            to_json(rec, FAMILY)?,
        );
        self.mutate_with(ns, &task_id, vec![doc], move |task| match out {
            Out::Status(state, text) => {
                status_change(task, state, text.as_deref().map(agent_text), Some(metadata))
            }
            Out::Artifact(artifact) => artifact_change(task, artifact, false, Some(true), Some(metadata)),
        })
        .await?;
        *ver += 1;
        Ok(())
    }

    async fn load_plan_rec(&self, ns: &str, plan_id: &str) -> Result<(PlanRecord, u64), Error> {
        let (n, key) = (ns.to_string(), plan_id.to_string());
        let doc = self
            .db(FAMILY, move |s| s.get_doc(COLL, &n, &key))
            .await?
            .ok_or_else(|| FAMILY.not_found(&format!("Plan `{plan_id}`")))?;
        Ok((from_json(doc.value, FAMILY)?, doc.version))
    }

    async fn put_plan(&self, ns: &str, rec: &PlanRecord, ver: u64) -> Result<(), Error> {
        let commit = Commit {
            task: None,
            docs: vec![DocWrite::put(
                COLL,
                ns,
                &rec.plan.id,
                Expect::Version(ver),
                to_json(rec, FAMILY)?,
            )],
        };
        self.commit_plan(commit, &rec.plan.id).await
    }

    async fn commit_plan(&self, commit: Commit, plan_id: &str) -> Result<(), Error> {
        match self.db_raw(move |s| s.commit(&commit)).await {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { .. }) => Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!("Plan `{plan_id}` or its project changed concurrently; retry"),
            )),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }

    /// Prepares a CREATED plan for a run: checks the action still matches the
    /// plan's steps and every tool is runnable, then snapshots the step
    /// arguments, validations and the profile's approval mode and resets the
    /// steps, usage and this revision's artifacts. Changes only `rec`.
    async fn arm(&self, ns: &str, rec: &mut PlanRecord) -> Result<(), Error> {
        let action = self
            .reg_get(ns, Kind::Action, &rec.plan.action)
            .await?
            .ok_or_else(|| plan_error(format!("Action `{}` no longer exists", rec.plan.action)))?;
        let action_steps = action["steps"].as_array().cloned().unwrap_or_default();
        let same = action_steps.len() == rec.steps.len()
            && action_steps
                .iter()
                .zip(&rec.steps)
                .all(|(a, s)| a["id"] == s.id.as_str() && a["tool"] == s.tool.as_str());
        if !same {
            return Err(plan_error(format!(
                "Action `{}` changed since the plan was drafted; correct the plan first",
                rec.plan.action
            )));
        }
        for step in &rec.steps {
            let tool = self.reg_get(ns, Kind::Tool, &step.tool).await?.ok_or_else(|| {
                plan_error(format!(
                    "step `{}` uses tool `{}`, which does not exist",
                    step.id, step.tool
                ))
            })?;
            if tool["kind"] == "TOOL_KIND_EXTERNAL" {
                return Err(plan_error(format!(
                    "step `{}` uses the EXTERNAL tool `{}`, which this server cannot run",
                    step.id, step.tool
                )));
            }
        }
        let (mut auto_approve, mut auto_apply) = (false, false);
        if let Some(name) = &rec.plan.automation_profile {
            let profile = self
                .reg_get(ns, Kind::AutomationProfile, name)
                .await?
                .ok_or_else(|| plan_error(format!("Automation profile `{name}` no longer exists")))?;
            auto_approve = profile["approvalMode"] == "APPROVAL_MODE_AUTO";
            auto_apply = profile["autoApply"].as_bool().unwrap_or(false);
        }
        rec.exec = ExecState {
            arguments: action_steps
                .iter()
                .map(|s| s.get("arguments").cloned().unwrap_or(json!({})))
                .collect(),
            validations: action["validations"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            auto_approve,
            auto_apply,
            ..ExecState::default()
        };
        for step in &mut rec.steps {
            step.state = PlanStepState::Pending;
            step.started_at = None;
            step.finished_at = None;
            step.message = None;
        }
        rec.usage = a2a::types::BudgetUsage {
            tokens: 0,
            tool_calls: 0,
            files_changed: 0,
            bytes_changed: 0,
        };
        // Artifacts of an earlier execution of this revision are superseded.
        let revision = rec.plan.revision;
        rec.artifacts.retain(|a| a["revision"].as_i64() != Some(revision));
        Ok(())
    }

    pub(crate) async fn plan_execute(
        &self,
        ctx: &CallContext,
        params: PlanExecuteParams,
    ) -> Result<PlanExecution, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let _guard = self.plan_guard(&params.plan_id).await?;
        let (mut rec, ver) = self.load_plan_rec(&ns, &params.plan_id).await?;
        if rec.plan.state != PlanState::Created {
            return Err(invalid_state(
                format!(
                    "Plan `{}` is {}; only CREATED plans can be executed",
                    rec.plan.id,
                    state_name(rec.plan.state)
                ),
                rec.plan.state,
            ));
        }
        self.arm(&ns, &mut rec).await?;
        let revision = rec.plan.revision;
        let task_id = util::new_id();
        let now = util::now();
        rec.plan.state = PlanState::Running;
        rec.plan.phase = PlanPhase::Execute;
        rec.plan.task_id = Some(task_id.clone());
        rec.plan.failure = None;
        rec.plan.updated_at = now.clone();
        let mut metadata = Map::new();
        metadata.insert(
            EXTENSION_URI.into(),
            json!({ "planId": rec.plan.id, "revision": revision }),
        );
        let task = Task {
            id: task_id.clone(),
            context_id: Some(rec.plan.context_id.clone()),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(now),
            },
            artifacts: vec![],
            history: vec![],
            metadata: Some(metadata),
        };
        let doc = DocWrite::put(
            COLL,
            &ns,
            &rec.plan.id,
            Expect::Version(ver),
            to_json(&rec, FAMILY)?,
        );
        let (_first, rx) = self.create_task(&ns, task, vec![doc]).await?;
        drop(rx);
        let app = self.arc()?;
        let (n, id) = (ns.clone(), rec.plan.id.clone());
        tokio::spawn(async move { app.run_plan(&n, &id).await });
        Ok(PlanExecution {
            context_id: rec.plan.context_id.clone(),
            plan: rec.plan,
            task_id,
        })
    }

    /// Restarts the runners of plans left RUNNING (by a crash or a shutdown
    /// mid-run); the agent calls it once at start-up. A step that was under
    /// way runs again from its start. Returns how many runs were resumed.
    pub async fn resume_plans(self: &std::sync::Arc<Self>) -> Result<usize, Error> {
        let namespaces = self.db(FAMILY, |s| s.namespaces()).await?;
        let mut resumed = 0;
        for ns in namespaces {
            let n = ns.clone();
            let docs = self
                .db(FAMILY, move |s| s.list_docs(COLL, &n, "", None, usize::MAX))
                .await?;
            for doc in docs {
                // An unreadable record is reported by diagnostics, not here.
                let Ok(rec) = from_json::<PlanRecord>(doc.value, FAMILY) else {
                    continue;
                };
                if rec.plan.state == PlanState::Running && rec.plan.task_id.is_some() {
                    let (app, ns, id) = (self.clone(), ns.clone(), rec.plan.id.clone());
                    tokio::spawn(async move { app.run_plan(&ns, &id).await });
                    resumed += 1;
                }
            }
        }
        Ok(resumed)
    }

    /// Drives a RUNNING plan until it waits, fails or completes.
    pub(crate) async fn run_plan(&self, ns: &str, plan_id: &str) {
        if let Err(error) = self.drive(ns, plan_id).await {
            self.fail_plan(ns, plan_id, None, &error.message).await;
        }
    }

    /// Fails a running plan and its task for an unexpected error.
    async fn fail_plan(&self, ns: &str, plan_id: &str, step_id: Option<String>, message: &str) {
        let Ok(_guard) = self.plan_guard(plan_id).await else {
            return;
        };
        let Ok((mut rec, mut ver)) = self.load_plan_rec(ns, plan_id).await else {
            return;
        };
        if rec.plan.state != PlanState::Running {
            return;
        }
        rec.plan.state = PlanState::Failed;
        rec.plan.failure = Some(PlanFailure {
            message: message.to_string(),
            step_id: step_id.clone(),
        });
        // The task may already be terminal (e.g. cancelled): nothing more to say then.
        let _ = self
            .emit(
                ns,
                &mut rec,
                &mut ver,
                Out::Status(TaskState::Failed, Some(message.to_string())),
                "plan.error",
                json!({ "state": "PLAN_STATE_FAILED", "message": message, "stepId": step_id }),
            )
            .await;
    }

    async fn drive(&self, ns: &str, plan_id: &str) -> Result<(), Error> {
        // Bounded: every iteration finishes a step or stops.
        loop {
            let _guard = self.plan_guard(plan_id).await?;
            let (mut rec, mut ver) = self.load_plan_rec(ns, plan_id).await?;
            if rec.plan.state != PlanState::Running {
                return Ok(());
            }
            if !rec.exec.started {
                rec.exec.started = true;
                self.emit(
                    ns,
                    &mut rec,
                    &mut ver,
                    Out::Status(TaskState::Working, None),
                    "plan.phase_changed",
                    json!({ "phase": "PLAN_PHASE_EXECUTE" }),
                )
                .await?;
            }
            let i = rec.exec.next_step;
            if i >= rec.steps.len() {
                return self.finish(ns, &mut rec, &mut ver).await;
            }
            match self.run_step(ns, &mut rec, &mut ver, i).await? {
                StepEnd::Next => continue,
                StepEnd::Stop => return Ok(()),
            }
        }
    }

    async fn step_failed(
        &self,
        ns: &str,
        rec: &mut PlanRecord,
        ver: &mut u64,
        i: usize,
        message: String,
    ) -> Result<StepEnd, Error> {
        let step_id = rec.steps[i].id.clone();
        rec.steps[i].state = PlanStepState::Failed;
        rec.steps[i].finished_at = Some(util::now());
        rec.steps[i].message = Some(message.clone());
        rec.plan.state = PlanState::Failed;
        let message = format!("Step `{step_id}` failed: {message}");
        rec.plan.failure = Some(PlanFailure {
            message: message.clone(),
            step_id: Some(step_id.clone()),
        });
        self.emit(
            ns,
            rec,
            ver,
            Out::Status(TaskState::Failed, Some(message.clone())),
            "plan.error",
            json!({ "state": "PLAN_STATE_FAILED", "stepId": step_id, "message": message }),
        )
        .await?;
        Ok(StepEnd::Stop)
    }

    /// The tree the plan sees: the project at its base revision with the workspace over it.
    async fn plan_files(&self, ns: &str, rec: &PlanRecord) -> Result<Vec<Value>, Error> {
        let (_, base) = self
            .project_files(ns, &rec.plan.project, Some(rec.plan.base_project_revision))
            .await?;
        Ok(overlay(&base, &rec.exec.workspace))
    }

    /// Runs a validation on a tree: the ValidationResult, or why it cannot run.
    async fn run_validation(
        &self,
        ns: &str,
        name: &str,
        tree: &[Value],
        invariant: Option<&str>,
    ) -> Result<Value, String> {
        let v = self
            .reg_get(ns, Kind::Validation, name)
            .await
            .map_err(|e| e.message)?
            .ok_or_else(|| format!("validation `{name}` does not exist"))?;
        let mut result = json!({ "validation": name });
        if let Some(inv) = invariant {
            result["invariant"] = json!(inv);
        }
        match check_validation(&v, tree) {
            Ok(()) => result["outcome"] = json!("VALIDATION_OUTCOME_PASSED"),
            Err(why) => {
                let error = v["severity"] != "VALIDATION_SEVERITY_WARNING";
                result["outcome"] = json!(if error {
                    "VALIDATION_OUTCOME_FAILED"
                } else {
                    "VALIDATION_OUTCOME_WARNED"
                });
                result["message"] = json!(why);
            }
        }
        Ok(result)
    }

    /// Runs validations as artifacts with `validation.completed`; the first ERROR failure.
    async fn validate_into(
        &self,
        ns: &str,
        rec: &mut PlanRecord,
        ver: &mut u64,
        names: &[String],
        step_id: Option<&str>,
    ) -> Result<Result<(), String>, Error> {
        let tree = self.plan_files(ns, rec).await?;
        let mut failed = None;
        for name in names {
            let result = match self.run_validation(ns, name, &tree, None).await {
                Ok(r) => r,
                Err(why) => return Ok(Err(why)),
            };
            if failed.is_none() && result["outcome"] == "VALIDATION_OUTCOME_FAILED" {
                failed = Some(format!(
                    "validation `{name}` failed: {}",
                    result["message"].as_str().unwrap_or_default()
                ));
            }
            let artifact_id = format!(
                "{}-r{}-{}-{name}",
                rec.plan.id,
                rec.plan.revision,
                step_id.unwrap_or("validations")
            );
            let artifact: Artifact = from_json(
                json!({ "artifactId": artifact_id, "name": name, "parts": [{ "data": result }] }),
                FAMILY,
            )?;
            let mut entry = json!({ "kind": "PLAN_ARTIFACT_KIND_VALIDATION_RESULT", "revision": rec.plan.revision,
                                    "artifact": artifact });
            let mut fields = json!({ "validation": result });
            if let Some(s) = step_id {
                entry["stepId"] = json!(s);
                fields["stepId"] = json!(s);
            }
            rec.artifacts.push(entry);
            self.emit(
                ns,
                rec,
                ver,
                Out::Artifact(artifact),
                "validation.completed",
                fields,
            )
            .await?;
        }
        Ok(failed.map_or(Ok(()), Err))
    }

    async fn run_step(
        &self,
        ns: &str,
        rec: &mut PlanRecord,
        ver: &mut u64,
        i: usize,
    ) -> Result<StepEnd, Error> {
        let step = rec.steps[i].clone();
        let tool_fields = json!({ "stepId": step.id, "tool": step.tool });
        rec.steps[i].state = PlanStepState::Running;
        rec.steps[i].started_at = Some(util::now());
        rec.usage.tool_calls += 1;
        self.emit(
            ns,
            rec,
            ver,
            Out::Status(TaskState::Working, None),
            "tool.invoked",
            tool_fields.clone(),
        )
        .await?;
        let Some(tool) = self.reg_get(ns, Kind::Tool, &step.tool).await? else {
            return self
                .step_failed(ns, rec, ver, i, format!("tool `{}` no longer exists", step.tool))
                .await;
        };
        let raw = rec.exec.arguments.get(i).cloned().unwrap_or(json!({}));
        let args = match render_value(&raw, &rec.plan.inputs, &rec.exec.outputs) {
            Ok(a) => a,
            Err(why) => return self.step_failed(ns, rec, ver, i, why).await,
        };
        if let Some(schema) = tool.get("inputSchema") {
            if let Err(why) = crate::plans::check_schema(schema, &args, "arguments") {
                return self.step_failed(ns, rec, ver, i, why).await;
            }
        }
        let config = tool.get("config").cloned().unwrap_or(json!({}));
        let arg = |name: &str| -> Option<Value> { args.get(name).or_else(|| config.get(name)).cloned() };
        let artifact_id = format!("{}-r{}-{}", rec.plan.id, rec.plan.revision, step.id);
        let revision = rec.plan.revision;
        let finish_step = |rec: &mut PlanRecord, message: String| {
            rec.steps[i].state = PlanStepState::Succeeded;
            rec.steps[i].finished_at = Some(util::now());
            rec.steps[i].message = Some(message);
            rec.exec.next_step = i + 1;
        };
        match tool["kind"].as_str().unwrap_or_default() {
            "TOOL_KIND_TEMPLATE" => {
                let Some(template) = arg("template").and_then(|t| t.as_str().map(str::to_string)) else {
                    return self
                        .step_failed(
                            ns,
                            rec,
                            ver,
                            i,
                            "no template (arguments.template or config.template)".into(),
                        )
                        .await;
                };
                let text = match render(&template, &rec.plan.inputs, &rec.exec.outputs) {
                    Ok(t) => t,
                    Err(why) => return self.step_failed(ns, rec, ver, i, why).await,
                };
                let name = arg("name")
                    .and_then(|n| n.as_str().map(str::to_string))
                    .unwrap_or_else(|| step.id.clone());
                let artifact: Artifact = from_json(
                    json!({ "artifactId": artifact_id, "name": name,
                            "parts": [{ "text": text, "mediaType": "text/plain" }] }),
                    FAMILY,
                )?;
                rec.usage.tokens += tokens_of(text.len());
                rec.artifacts
                    .push(json!({ "kind": "PLAN_ARTIFACT_KIND_REPORT", "revision": revision,
                                           "stepId": step.id, "artifact": artifact }));
                finish_step(rec, format!("Rendered {} line(s).", lines_of(&text).len()));
                rec.exec.outputs.insert(step.id.clone(), text);
                self.emit(
                    ns,
                    rec,
                    ver,
                    Out::Artifact(artifact),
                    "tool.completed",
                    tool_fields,
                )
                .await?;
                Ok(StepEnd::Next)
            }
            "TOOL_KIND_WRITE_FILE" => {
                let Some(path) = arg("path").and_then(|p| p.as_str().map(str::to_string)) else {
                    return self
                        .step_failed(ns, rec, ver, i, "arguments.path is required".into())
                        .await;
                };
                if !valid_path(&path) {
                    return self
                        .step_failed(
                            ns,
                            rec,
                            ver,
                            i,
                            format!("path `{path}` must be relative without empty, '.' or '..' segments"),
                        )
                        .await;
                }
                let content = match (arg("content"), arg("fromStep")) {
                    (Some(Value::String(c)), _) => c,
                    (_, Some(Value::String(from))) => match rec.exec.outputs.get(&from) {
                        Some(text) => text.clone(),
                        None => {
                            return self
                                .step_failed(ns, rec, ver, i, format!("step `{from}` produced no text"))
                                .await
                        }
                    },
                    _ => {
                        return self
                            .step_failed(
                                ns,
                                rec,
                                ver,
                                i,
                                "arguments.content or arguments.fromStep is required".into(),
                            )
                            .await
                    }
                };
                let media_type = arg("mediaType")
                    .and_then(|m| m.as_str().map(str::to_string))
                    .unwrap_or_else(|| media_type_of(&path).to_string());
                let file = json!({ "path": path, "mediaType": media_type, "text": content });
                rec.exec.workspace = overlay(&rec.exec.workspace, &[file]);
                let artifact: Artifact = from_json(
                    json!({ "artifactId": artifact_id, "name": path,
                            "parts": [{ "text": content, "mediaType": media_type, "filename": path }] }),
                    FAMILY,
                )?;
                rec.usage.tokens += tokens_of(content.len());
                rec.artifacts
                    .push(json!({ "kind": "PLAN_ARTIFACT_KIND_FILE", "revision": revision,
                                           "stepId": step.id, "path": path, "artifact": artifact }));
                finish_step(rec, format!("Wrote {path} ({} bytes).", content.len()));
                self.emit(
                    ns,
                    rec,
                    ver,
                    Out::Artifact(artifact),
                    "tool.completed",
                    tool_fields,
                )
                .await?;
                Ok(StepEnd::Next)
            }
            "TOOL_KIND_APPROVAL" => {
                let question = arg("question")
                    .and_then(|q| q.as_str().map(str::to_string))
                    .unwrap_or_else(|| format!("Approve step `{}` ({})?", step.id, step.name));
                if rec.exec.auto_approve {
                    finish_step(rec, "Approved automatically.".into());
                    self.emit(
                        ns,
                        rec,
                        ver,
                        Out::Status(TaskState::Working, None),
                        "plan.decision_made",
                        json!({ "stepId": step.id, "nodeId": format!("n-{}", step.id),
                                "message": "Approved automatically by the automation profile." }),
                    )
                    .await?;
                    self.emit(
                        ns,
                        rec,
                        ver,
                        Out::Status(TaskState::Working, None),
                        "tool.completed",
                        tool_fields,
                    )
                    .await?;
                    return Ok(StepEnd::Next);
                }
                rec.exec.prompts += 1;
                rec.exec.pending_prompt = Some(PlanPrompt {
                    prompt_id: format!("prm-{}-{}", step.id, rec.exec.prompts),
                    step_id: step.id.clone(),
                    kind: PlanPromptKind::Approval,
                    question: question.clone(),
                    choices: vec![],
                    created_at: util::now(),
                });
                rec.steps[i].state = PlanStepState::WaitingInput;
                rec.plan.state = PlanState::InputRequired;
                self.emit(
                    ns,
                    rec,
                    ver,
                    Out::Status(TaskState::InputRequired, Some(question)),
                    "plan.state_changed",
                    json!({ "state": "PLAN_STATE_INPUT_REQUIRED", "stepId": step.id }),
                )
                .await?;
                Ok(StepEnd::Stop)
            }
            "TOOL_KIND_RUN_VALIDATION" => {
                let names: Vec<String> = match arg("validations") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect(),
                    _ => rec.exec.validations.clone(),
                };
                match self.validate_into(ns, rec, ver, &names, Some(&step.id)).await? {
                    Ok(()) => {}
                    Err(why) => return self.step_failed(ns, rec, ver, i, why).await,
                }
                finish_step(rec, format!("{} validation(s) passed.", names.len()));
                self.emit(
                    ns,
                    rec,
                    ver,
                    Out::Status(TaskState::Working, None),
                    "tool.completed",
                    tool_fields,
                )
                .await?;
                Ok(StepEnd::Next)
            }
            other => {
                self.step_failed(ns, rec, ver, i, format!("tool kind `{other}` cannot run here"))
                    .await
            }
        }
    }

    /// After the last step: the action's validations, REVIEW, optional auto-apply, COMPLETED.
    async fn finish(&self, ns: &str, rec: &mut PlanRecord, ver: &mut u64) -> Result<(), Error> {
        let names = rec.exec.validations.clone();
        if let Err(why) = self.validate_into(ns, rec, ver, &names, None).await? {
            rec.plan.state = PlanState::Failed;
            rec.plan.failure = Some(PlanFailure {
                message: why.clone(),
                step_id: None,
            });
            return self
                .emit(
                    ns,
                    rec,
                    ver,
                    Out::Status(TaskState::Failed, Some(why.clone())),
                    "plan.error",
                    json!({ "state": "PLAN_STATE_FAILED", "message": why }),
                )
                .await;
        }
        let (_, current) = self.project_files(ns, &rec.plan.project, None).await?;
        let (changed, bytes) = changed_files(&current, &rec.exec.workspace);
        rec.usage.files_changed = changed;
        rec.usage.bytes_changed = bytes;
        rec.plan.phase = PlanPhase::Review;
        self.emit(
            ns,
            rec,
            ver,
            Out::Status(TaskState::Working, None),
            "plan.phase_changed",
            json!({ "phase": "PLAN_PHASE_REVIEW" }),
        )
        .await?;
        rec.plan.state = PlanState::Completed;
        let mut note = None;
        if rec.exec.auto_apply {
            match self.apply_core(ns, rec, ver, None, None).await {
                Ok(result) => {
                    self.emit(
                        ns,
                        rec,
                        ver,
                        Out::Status(TaskState::Working, None),
                        "plan.apply_completed",
                        json!({ "state": "PLAN_STATE_APPLIED", "phase": "PLAN_PHASE_APPLY",
                                "projectRevision": result.revision.revision }),
                    )
                    .await?;
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        Some(ErrorKind::ExtBudgetExceeded | ErrorKind::ExtPlanError)
                    ) =>
                {
                    note = Some(format!("Automatic apply refused: {}", e.message));
                }
                Err(e) => return Err(e),
            }
        }
        let state = state_name(rec.plan.state);
        let mut fields = json!({ "state": state, "phase": rec.plan.phase });
        if let Some(n) = &note {
            fields["message"] = json!(n);
        }
        self.emit(
            ns,
            rec,
            ver,
            Out::Status(TaskState::Completed, note),
            "plan.state_changed",
            fields,
        )
        .await
    }

    /// Answers the pending prompt; true when the plan runs on.
    async fn answer_prompt(
        &self,
        ns: &str,
        plan_id: &str,
        prompt_id: Option<&str>,
        decision: PromptDecision,
        text: Option<String>,
    ) -> Result<(Plan, bool), Error> {
        let _guard = self.plan_guard(plan_id).await?;
        let (mut rec, mut ver) = self.load_plan_rec(ns, plan_id).await?;
        if let Some(p) = prompt_id {
            if rec.exec.answered.iter().any(|a| a == p) {
                return Err(invalid_state(
                    format!("Prompt `{p}` was already answered"),
                    rec.plan.state,
                ));
            }
        }
        let pending = match (&rec.exec.pending_prompt, rec.plan.state) {
            (Some(p), PlanState::InputRequired) => p.clone(),
            _ => {
                return Err(invalid_state(
                    format!(
                        "Plan `{plan_id}` is {}; only INPUT_REQUIRED plans take an answer",
                        state_name(rec.plan.state)
                    ),
                    rec.plan.state,
                ))
            }
        };
        if let Some(p) = prompt_id {
            if p != pending.prompt_id {
                return Err(FAMILY.not_found(&format!("Prompt `{p}` of plan `{plan_id}`")));
            }
        }
        if decision == PromptDecision::Answer {
            return Err(FAMILY.invalid_params("decision", "an APPROVAL prompt takes APPROVE or REJECT"));
        }
        let i = rec
            .steps
            .iter()
            .position(|s| s.id == pending.step_id)
            .ok_or_else(|| FAMILY.internal("the prompt's step is missing"))?;
        let step = rec.steps[i].clone();
        rec.exec.pending_prompt = None;
        rec.exec.answered.push(pending.prompt_id.clone());
        let comment = text.filter(|t| !t.trim().is_empty());
        let with_comment = |verdict: &str| match &comment {
            Some(c) => format!("{verdict}: {c}"),
            None => verdict.to_string(),
        };
        rec.steps[i].finished_at = Some(util::now());
        if decision == PromptDecision::Reject {
            let message = with_comment("Rejected");
            rec.steps[i].state = PlanStepState::Failed;
            rec.steps[i].message = Some(message.clone());
            rec.plan.state = PlanState::Failed;
            rec.plan.failure = Some(PlanFailure {
                message: message.clone(),
                step_id: Some(step.id.clone()),
            });
            self.emit(
                ns,
                &mut rec,
                &mut ver,
                Out::Status(TaskState::Failed, Some(message.clone())),
                "plan.state_changed",
                json!({ "state": "PLAN_STATE_FAILED", "stepId": step.id, "message": message }),
            )
            .await?;
            return Ok((rec.plan, false));
        }
        let message = with_comment("Approved");
        rec.steps[i].state = PlanStepState::Succeeded;
        rec.steps[i].message = Some(message.clone());
        rec.exec.next_step = i + 1;
        rec.plan.state = PlanState::Running;
        self.emit(
            ns,
            &mut rec,
            &mut ver,
            Out::Status(TaskState::Working, None),
            "plan.state_changed",
            json!({ "state": "PLAN_STATE_RUNNING", "stepId": step.id }),
        )
        .await?;
        self.emit(
            ns,
            &mut rec,
            &mut ver,
            Out::Status(TaskState::Working, None),
            "plan.decision_made",
            json!({ "stepId": step.id, "nodeId": format!("n-{}", step.id), "message": message }),
        )
        .await?;
        self.emit(
            ns,
            &mut rec,
            &mut ver,
            Out::Status(TaskState::Working, None),
            "tool.completed",
            json!({ "stepId": step.id, "tool": step.tool }),
        )
        .await?;
        Ok((rec.plan, true))
    }

    pub(crate) async fn plan_prompt(
        &self,
        ctx: &CallContext,
        params: PlanPromptParams,
    ) -> Result<Plan, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let (plan, resume) = self
            .answer_prompt(
                &ns,
                &params.plan_id,
                Some(&params.prompt_id),
                params.decision,
                params.text.clone(),
            )
            .await?;
        if resume {
            let app = self.arc()?;
            let id = plan.id.clone();
            tokio::spawn(async move { app.run_plan(&ns, &id).await });
        }
        Ok(plan)
    }

    /// A message replying to a plan's input-required task answers its prompt.
    pub(crate) async fn plan_reply(
        &self,
        task: &TaskHandle,
        plan_id: &str,
        message: &Message,
    ) -> Result<(), Error> {
        let ns = task.namespace.clone();
        let text = crate::executor::message_text(message);
        let data_decision = message.parts.iter().find_map(|p| match &p.content {
            PartContent::Data(d) => serde_json::from_value::<PromptDecision>(d["decision"].clone()).ok(),
            _ => None,
        });
        let word = text
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .unwrap_or_default()
            .to_lowercase();
        let decision = data_decision.or(match word.as_str() {
            "approve" | "approved" | "yes" | "y" | "ok" | "lgtm" => Some(PromptDecision::Approve),
            "reject" | "rejected" | "no" | "n" | "deny" => Some(PromptDecision::Reject),
            _ => None,
        });
        {
            // A message while the plan is not waiting (e.g. still running) is
            // only recorded in the task's history; the run goes on.
            let _guard = self.plan_guard(plan_id).await?;
            let (rec, _) = self.load_plan_rec(&ns, plan_id).await?;
            if rec.plan.state != PlanState::InputRequired {
                return Ok(());
            }
        }
        let Some(decision) = decision else {
            // Not an answer: ask again, so the caller is not left waiting.
            let _guard = self.plan_guard(plan_id).await?;
            let (mut rec, mut ver) = self.load_plan_rec(&ns, plan_id).await?;
            let step_id = rec.exec.pending_prompt.as_ref().map(|p| p.step_id.clone());
            let question = rec
                .exec
                .pending_prompt
                .as_ref()
                .map(|p| format!("Reply `approve` or `reject`. {}", p.question))
                .unwrap_or_else(|| "Reply `approve` or `reject`.".into());
            let fields = json!({ "state": state_name(rec.plan.state), "stepId": step_id });
            return self
                .emit(
                    &ns,
                    &mut rec,
                    &mut ver,
                    Out::Status(TaskState::InputRequired, Some(question)),
                    "plan.state_changed",
                    fields,
                )
                .await;
        };
        let answered = self
            .answer_prompt(&ns, plan_id, None, decision, Some(text).filter(|t| !t.is_empty()))
            .await;
        let (plan, resume) = match answered {
            Ok(answered) => answered,
            // Answered or cancelled meanwhile (plan/prompt, plan/cancel): the
            // message stays in the history and the task is left as it is.
            Err(e) if e.kind() == Some(ErrorKind::ExtInvalidState) => return Ok(()),
            Err(e) => return Err(e),
        };
        if resume {
            self.run_plan(&ns, &plan.id).await;
        }
        Ok(())
    }

    /// Starts a plan from a message (the default executor's
    /// [`crate::plans::plan_request`]) and runs it inside the message's task,
    /// which the caller (the executor) drives; returns once the run waits,
    /// fails or completes.
    ///
    /// The plan is created exactly as `plan/use` would (same validation and
    /// errors, in the task's namespace and context), then armed as
    /// `plan/execute` would. Linking commits the plan RUNNING with this task
    /// id together with the task's metadata naming the plan (so a reply
    /// resumes it, see [`plan_of_task`]); from there the task's events are
    /// the plan's events. A refusal ends the task FAILED with a `plan.error`
    /// domain event instead of a JSON-RPC error (the task already exists):
    /// its status message is the error's text plus a data part
    /// `{"code": <JSON-RPC code>, "message": <text>}`, the code `plan/use` or
    /// `plan/execute` would have answered. A refusal before any plan exists
    /// (unknown action, project or profile, inputs not matching the schema)
    /// names no plan: `planId` is empty and `revision` 0. A plan that exists
    /// but cannot run (e.g. an EXTERNAL tool) stays CREATED and is named.
    pub(crate) async fn plan_start_in_task(
        &self,
        task: &TaskHandle,
        start: crate::plans::PlanStart,
    ) -> Result<(), Error> {
        let ns = task.namespace.clone();
        let params = PlanUseParams {
            action: start.action,
            project: start.project,
            inputs: start.inputs,
            automation_profile: start.automation_profile,
            title: start.title,
            context_id: Some(task.context_id.clone()),
            namespace: Some(ns.clone()),
        };
        let plan = match self.create_plan(&ns, params).await {
            Ok(plan) => plan,
            Err(error) => return refuse_start(task, "", 0, &error).await,
        };
        // Any refusal from here on leaves the plan CREATED (nothing below
        // is committed unless the link is).
        let linked = async {
            let _guard = self.plan_guard(&plan.id).await?;
            let (mut rec, ver) = self.load_plan_rec(&ns, &plan.id).await?;
            self.arm(&ns, &mut rec).await?;
            let revision = rec.plan.revision;
            rec.plan.state = PlanState::Running;
            rec.plan.phase = PlanPhase::Execute;
            rec.plan.task_id = Some(task.task_id.clone());
            rec.plan.failure = None;
            rec.plan.updated_at = util::now();
            let doc = DocWrite::put(
                COLL,
                &ns,
                &rec.plan.id,
                Expect::Version(ver),
                to_json(&rec, FAMILY)?,
            );
            let plan_id = rec.plan.id.clone();
            self.mutate_with(&ns, &task.task_id, vec![doc], move |t| {
                if crate::tasks::is_terminal(t.status.state) {
                    return Err(Error::new(
                        ErrorKind::ExtInvalidState,
                        "the task ended before its plan could start",
                    ));
                }
                let metadata = t.metadata.get_or_insert_with(Map::new);
                metadata.insert(
                    EXTENSION_URI.into(),
                    json!({ "planId": plan_id, "revision": revision }),
                );
                Ok(crate::tasks::Change { events: vec![] })
            })
            .await
            .map(|_| ())
        }
        .await;
        if let Err(error) = linked {
            return refuse_start(task, &plan.id, plan.revision, &error).await;
        }
        self.run_plan(&ns, &plan.id).await;
        Ok(())
    }

    /// The plan's task was cancelled through A2A: the plan follows.
    pub(crate) async fn plan_task_cancelled(&self, ns: &str, plan_id: &str) {
        let Ok(_guard) = self.plan_guard(plan_id).await else {
            return;
        };
        let Ok((mut rec, ver)) = self.load_plan_rec(ns, plan_id).await else {
            return;
        };
        if matches!(rec.plan.state, PlanState::Running | PlanState::InputRequired) {
            rec.plan.state = PlanState::Cancelled;
            rec.plan.updated_at = util::now();
            rec.exec.pending_prompt = None;
            rec.cancel_reason = Some("The plan's task was cancelled.".into());
            let _ = self.put_plan(ns, &rec, ver).await;
        }
    }

    pub(crate) async fn plan_artifacts(
        &self,
        ctx: &CallContext,
        params: PlanArtifactsParams,
    ) -> Result<PlanArtifactList, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Reader,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let (rec, _) = self.load_plan_rec(&ns, &params.plan_id).await?;
        let revision = params.revision.unwrap_or(rec.plan.revision);
        if revision != rec.plan.revision && !rec.past.iter().any(|p| p.revision == revision) {
            return Err(FAMILY.not_found(&format!("revision {revision} of plan `{}`", rec.plan.id)));
        }
        let items: Vec<Value> = rec
            .artifacts
            .iter()
            .filter(|a| a["revision"].as_i64() == Some(revision))
            .cloned()
            .collect();
        from_json(
            json!({ "planId": rec.plan.id, "revision": revision, "items": items }),
            FAMILY,
        )
    }

    pub(crate) async fn plan_diff(
        &self,
        ctx: &CallContext,
        params: PlanDiffParams,
    ) -> Result<PlanDiff, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Reader,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let context = match params.context_lines {
            None => 3,
            Some(n) if (0..=1000).contains(&n) => n as usize,
            Some(_) => return Err(FAMILY.invalid_params("contextLines", "must be between 0 and 1000")),
        };
        let full = params.format == Some(a2a::types::FileDiffFormat::Full);
        let (rec, _) = self.load_plan_rec(&ns, &params.plan_id).await?;
        if rec.plan.state == PlanState::Created {
            return Err(invalid_state(
                format!(
                    "Plan `{}` is CREATED and has produced no artifacts; execute it first",
                    rec.plan.id
                ),
                rec.plan.state,
            ));
        }
        let (project_revision, current) = self.project_files(&ns, &rec.plan.project, None).await?;
        let (files, added, deleted) = file_diffs(&current, &rec.exec.workspace, full, context);
        from_json(
            json!({
                "planId": rec.plan.id, "revision": rec.plan.revision, "project": rec.plan.project,
                "projectRevision": project_revision,
                "stats": { "filesChanged": files.len(), "linesAdded": added, "linesDeleted": deleted },
                "files": files,
            }),
            FAMILY,
        )
    }

    pub(crate) async fn plan_apply(
        &self,
        ctx: &CallContext,
        params: PlanApplyParams,
    ) -> Result<PlanApplyResult, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let _guard = self.plan_guard(&params.plan_id).await?;
        let (mut rec, mut ver) = self.load_plan_rec(&ns, &params.plan_id).await?;
        if rec.plan.state != PlanState::Completed {
            return Err(invalid_state(
                format!(
                    "Plan `{}` is {}; only COMPLETED plans can be applied",
                    rec.plan.id,
                    state_name(rec.plan.state)
                ),
                rec.plan.state,
            ));
        }
        self.apply_core(
            &ns,
            &mut rec,
            &mut ver,
            params.expected_project_revision,
            params.message.clone(),
        )
        .await
    }

    /// Writes a COMPLETED plan's workspace into its project (checks, then one commit).
    async fn apply_core(
        &self,
        ns: &str,
        rec: &mut PlanRecord,
        ver: &mut u64,
        expected: Option<i64>,
        message: Option<String>,
    ) -> Result<PlanApplyResult, Error> {
        let project = rec.plan.project.clone();
        let mut entity = self
            .reg_get(ns, Kind::Project, &project)
            .await?
            .ok_or_else(|| FAMILY.not_found(&format!("Project `{project}`")))?;
        let project_version = entity["version"].as_u64().unwrap_or(0);
        let (current_rev, current) = self.project_files(ns, &project, None).await?;
        if let Some(e) = expected {
            if e != current_rev {
                return Err(Error::new(
                    ErrorKind::ExtInvalidState,
                    format!("Project `{project}` is at revision {current_rev}, not the expected {e}"),
                )
                .with_metadata("currentRevision", current_rev.to_string()));
            }
        }
        let (files_changed, bytes_changed) = changed_files(&current, &rec.exec.workspace);
        let mut usage = rec.usage.clone();
        usage.files_changed = files_changed;
        usage.bytes_changed = bytes_changed;
        if let Some(budget) = &rec.budget {
            let over = [
                (
                    "tokens",
                    budget.max_tokens.is_some_and(|m| usage.tokens > m),
                    usage.tokens,
                    budget.max_tokens,
                ),
                (
                    "tool calls",
                    budget.max_tool_calls.is_some_and(|m| usage.tool_calls > m),
                    i64::from(usage.tool_calls),
                    budget.max_tool_calls.map(i64::from),
                ),
                (
                    "files changed",
                    budget.max_files_changed.is_some_and(|m| usage.files_changed > m),
                    i64::from(usage.files_changed),
                    budget.max_files_changed.map(i64::from),
                ),
                (
                    "bytes changed",
                    budget.max_bytes_changed.is_some_and(|m| usage.bytes_changed > m),
                    usage.bytes_changed,
                    budget.max_bytes_changed,
                ),
            ];
            if let Some((what, _, used, max)) = over.iter().find(|o| o.1) {
                return Err(Error::new(
                    ErrorKind::ExtBudgetExceeded,
                    format!(
                        "Plan `{}` would exceed its budget: {used} {what}, at most {} allowed",
                        rec.plan.id,
                        max.unwrap_or_default()
                    ),
                ));
            }
        }
        let new_files = overlay(&current, &rec.exec.workspace);
        let validations = self.check_invariants(ns, &project, &new_files).await?;
        let next = current_rev + 1;
        let now = util::now();
        let message = message
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| format!("Applied plan {} (action {})", rec.plan.id, rec.plan.action));
        let changes = registry::changes(&current, &new_files);
        rec.plan.state = PlanState::Applied;
        rec.plan.phase = PlanPhase::Apply;
        rec.plan.applied_project_revision = Some(next);
        rec.plan.updated_at = now.clone();
        rec.applied_parent = Some(current_rev);
        rec.usage = usage.clone();
        let revision = self
            .write_revision(
                ns,
                rec,
                *ver,
                &mut entity,
                project_version,
                RevisionWrite {
                    next,
                    parent: current_rev,
                    origin: "PROJECT_REVISION_ORIGIN_PLAN_APPLIED",
                    message,
                    now,
                    files: new_files,
                    changes,
                },
            )
            .await?;
        *ver += 1;
        from_json(
            json!({ "plan": rec.plan, "revision": revision, "validations": validations, "usage": usage }),
            FAMILY,
        )
    }

    /// Runs the namespace's invariants for `project` on `tree`; a BLOCK violation is ExtPlanError.
    async fn check_invariants(&self, ns: &str, project: &str, tree: &[Value]) -> Result<Vec<Value>, Error> {
        let n = ns.to_string();
        let invariants = self
            .db(FAMILY, move |s| {
                s.list_docs(Kind::Invariant.descriptor().name, &n, "", None, usize::MAX)
            })
            .await?;
        let mut results = vec![];
        let mut blocked = vec![];
        for doc in invariants {
            let inv = doc.value;
            let name = inv["name"].as_str().unwrap_or(&doc.key).to_string();
            let projects: Vec<&str> = inv["projects"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if !projects.is_empty() && !projects.contains(&project) {
                continue;
            }
            let block = inv["enforcement"] == "INVARIANT_ENFORCEMENT_BLOCK";
            for v in inv["validations"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let mut result = self
                    .run_validation(ns, v, tree, Some(&name))
                    .await
                    .map_err(|why| plan_error(format!("invariant `{name}`: {why}")))?;
                if result["outcome"] == "VALIDATION_OUTCOME_FAILED" {
                    if block {
                        blocked.push(format!(
                            "invariant `{name}` failed validation `{v}`: {}",
                            result["message"].as_str().unwrap_or_default()
                        ));
                    } else {
                        result["outcome"] = json!("VALIDATION_OUTCOME_WARNED");
                    }
                }
                results.push(result);
            }
        }
        if !blocked.is_empty() {
            return Err(plan_error(format!(
                "The apply would break {}",
                blocked.join("; ")
            )));
        }
        Ok(results)
    }

    /// Commits a new project revision, the project entity and the plan together.
    async fn write_revision(
        &self,
        ns: &str,
        rec: &PlanRecord,
        plan_version: u64,
        entity: &mut Value,
        project_version: u64,
        w: RevisionWrite,
    ) -> Result<Value, Error> {
        let project = rec.plan.project.clone();
        if let Some(e) = entity.as_object_mut() {
            e.remove("version");
            e.insert("files".into(), json!(file_infos(&w.files)));
            e.insert("currentRevision".into(), json!(w.next));
            e.insert("updatedAt".into(), json!(w.now));
        }
        let summary = json!({
            "project": project, "revision": w.next, "parentRevision": w.parent, "origin": w.origin,
            "planId": rec.plan.id, "message": w.message, "createdAt": w.now,
            "fileCount": w.files.len(), "changes": w.changes,
        });
        let commit = Commit {
            task: None,
            docs: vec![
                DocWrite::put(
                    Kind::Project.descriptor().name,
                    ns,
                    &project,
                    Expect::Version(project_version),
                    entity.clone(),
                ),
                DocWrite::put(
                    PROJECT_REV,
                    ns,
                    &revision_key(&project, w.next),
                    Expect::Absent,
                    json!({ "revision": w.next, "parentRevision": w.parent, "origin": w.origin,
                            "planId": rec.plan.id, "message": w.message, "createdAt": w.now,
                            "files": w.files, "changes": w.changes }),
                ),
                DocWrite::put(
                    COLL,
                    ns,
                    &rec.plan.id,
                    Expect::Version(plan_version),
                    to_json(rec, FAMILY)?,
                ),
            ],
        };
        self.commit_plan(commit, &rec.plan.id).await?;
        Ok(summary)
    }

    pub(crate) async fn plan_rollback(
        &self,
        ctx: &CallContext,
        params: PlanRollbackParams,
    ) -> Result<PlanRollbackResult, Error> {
        let ns = namespace_of(params.namespace.as_deref());
        require(
            ctx,
            &ns,
            Access::Writer,
            FAMILY,
            &format!("Plan `{}`", params.plan_id),
        )?;
        let _guard = self.plan_guard(&params.plan_id).await?;
        let (mut rec, ver) = self.load_plan_rec(&ns, &params.plan_id).await?;
        if rec.plan.state != PlanState::Applied {
            return Err(invalid_state(
                format!(
                    "Plan `{}` is {}; only APPLIED plans can be rolled back",
                    rec.plan.id,
                    state_name(rec.plan.state)
                ),
                rec.plan.state,
            ));
        }
        let project = rec.plan.project.clone();
        let mut entity = self
            .reg_get(&ns, Kind::Project, &project)
            .await?
            .ok_or_else(|| FAMILY.not_found(&format!("Project `{project}`")))?;
        let project_version = entity["version"].as_u64().unwrap_or(0);
        let (current_rev, current) = self.project_files(&ns, &project, None).await?;
        let applied = rec.plan.applied_project_revision.unwrap_or_default();
        if current_rev != applied {
            return Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!(
                    "Project `{project}` moved on to revision {current_rev} after the apply (revision {applied}); it cannot be rolled back"
                ),
            )
            .with_metadata("currentRevision", current_rev.to_string()));
        }
        let restored = rec.applied_parent.unwrap_or(applied - 1);
        let (_, files) = self.project_files(&ns, &project, Some(restored)).await?;
        let now = util::now();
        let message = params
            .message
            .clone()
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| format!("Rolled back plan {}", rec.plan.id));
        let changes = registry::changes(&current, &files);
        rec.plan.state = PlanState::RolledBack;
        rec.plan.updated_at = now.clone();
        let revision = self
            .write_revision(
                &ns,
                &rec,
                ver,
                &mut entity,
                project_version,
                RevisionWrite {
                    next: current_rev + 1,
                    parent: current_rev,
                    origin: "PROJECT_REVISION_ORIGIN_PLAN_ROLLED_BACK",
                    message,
                    now,
                    files,
                    changes,
                },
            )
            .await?;
        from_json(
            json!({ "plan": rec.plan, "restoredRevision": restored, "revision": revision }),
            FAMILY,
        )
    }
}

/// A new project revision to write.
struct RevisionWrite {
    next: i64,
    parent: i64,
    origin: &'static str,
    message: String,
    now: String,
    files: Vec<Value>,
    changes: Vec<Value>,
}

/// Files the workspace would add or modify in `tree`, and their total size.
fn changed_files(tree: &[Value], workspace: &[Value]) -> (i32, i64) {
    let (mut count, mut bytes) = (0i32, 0i64);
    for f in workspace {
        let same = tree
            .iter()
            .find(|o| o["path"] == f["path"])
            .is_some_and(|o| file_bytes(o) == file_bytes(f) && o["mediaType"] == f["mediaType"]);
        if !same {
            count += 1;
            bytes += file_bytes(f).len() as i64;
        }
    }
    (count, bytes)
}

/// Ends a message's task FAILED because its plan could not start: a
/// `plan.error` domain event naming `plan_id` (empty when no plan exists) and
/// a status message with the error's text and `{"code", "message"}`.
async fn refuse_start(task: &TaskHandle, plan_id: &str, revision: i64, error: &Error) -> Result<(), Error> {
    let mut metadata = Map::new();
    metadata.insert(
        EXTENSION_URI.into(),
        json!({
            "event": "plan.error", "planId": plan_id, "revision": revision, "seq": 0,
            "occurredAt": util::now(), "message": error.message,
        }),
    );
    let message = task.agent_message(vec![
        crate::executor::text_part(&error.message),
        a2a::types::Part {
            content: PartContent::Data(json!({ "code": error.code, "message": error.message })),
            filename: None,
            media_type: None,
            metadata: None,
        },
    ]);
    task.status_with(TaskState::Failed, Some(message), Some(metadata))
        .await
        .map(|_| ())
}

/// The plan a task executes (named in the task's metadata by plan/execute).
pub fn plan_of_task(task: &Task) -> Option<String> {
    task.metadata
        .as_ref()?
        .get(EXTENSION_URI)?
        .get("planId")?
        .as_str()
        .map(str::to_string)
}

/// Keeps the compiler honest about the shared helpers' use in tests.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_render_inputs_and_step_outputs() {
        let inputs: Map<String, Value> =
            serde_json::from_value(json!({ "version": "2.4.0", "n": 3 })).unwrap_or_default();
        let outputs = BTreeMap::from([("render".to_string(), "notes".to_string())]);
        assert_eq!(
            render("v{{version}} x{{ n }} {{steps.render}}", &inputs, &outputs),
            Ok("v2.4.0 x3 notes".into())
        );
        assert_eq!(
            render("{{missing}}", &inputs, &outputs),
            Err("unknown placeholder {{missing}}".into())
        );
        assert_eq!(
            render("open {{ only", &inputs, &outputs),
            Ok("open {{ only".into())
        );
    }

    #[test]
    fn globs_stay_within_segments_unless_double_star() {
        let matches = |glob: &str, path: &str| glob_regex(glob).map(|r| r.is_match(path));
        assert_eq!(matches("docs/**/*.md", "docs/a.md"), Ok(true));
        assert_eq!(matches("docs/**/*.md", "docs/x/y/a.md"), Ok(true));
        assert_eq!(matches("docs/**/*.md", "docs/a.txt"), Ok(false));
        assert_eq!(matches("*.md", "a/b.md"), Ok(false));
        assert_eq!(matches("*.md", "CHANGELOG.md"), Ok(true));
        assert_eq!(matches("a?c", "abc"), Ok(true));
    }

    #[test]
    fn unified_hunks_match_the_schema_example() {
        let old = "# Changelog\n\n## 2.3.0\n\n- Initial public API.\n";
        let new = "# Changelog\n\n## 2.4.0\n\n- Faster search indexing.\n- Dark mode for the dashboard.\n\n## 2.3.0\n\n- Initial public API.\n";
        let (a, b) = (lines_of(old), lines_of(new));
        let ops = edit_script(&a, &b);
        assert_eq!(
            hunks(&ops, 2),
            vec![
                json!({ "oldStart": 1, "oldLines": 4, "newStart": 1, "newLines": 9, "lines": [
                " # Changelog", " ", "+## 2.4.0", "+", "+- Faster search indexing.",
                "+- Dark mode for the dashboard.", "+", " ## 2.3.0", " "] })
            ]
        );
        let added = edit_script(&[], &["a", "b"]);
        assert_eq!(
            hunks(&added, 3),
            vec![
                json!({ "oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": 2, "lines": ["+a", "+b"] })
            ]
        );
        let far = edit_script(
            &["1", "2", "3", "4", "5", "6", "7", "8"],
            &["x", "2", "3", "4", "5", "6", "7", "y"],
        );
        assert_eq!(hunks(&far, 1).len(), 2);
        assert_eq!(hunks(&far, 3).len(), 1);
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
