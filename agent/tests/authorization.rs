//! The authorization matrix of the real agent over HTTP, driven by the method
//! table: every dispatched method, with each way a caller can fail to
//! authenticate (no credentials, a malformed header, an unknown key or token,
//! an expired, not-yet-valid, wrongly issued, wrongly addressed or forged JWT),
//! a principal of another namespace, a reader on a write method and a writer on
//! an admin method, answers the exact HTTP status, JSON-RPC code and ErrorInfo;
//! refused calls change nothing; an id that exists in another namespace answers
//! byte for byte like one that exists nowhere (ids masked), streams and push
//! configs included; and the holder of the method's role is admitted. One agent
//! process serves every request.

mod common;

use a2a::methods::markers;
use a2a::registry::{RegistryOperation, REGISTRY_KINDS};
use a2a::rpc::{Access, ContractFacts, Method};
use a2a::{ErrorKind, MethodDescriptor, METHODS};
use common::http::Reply;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

const HS_SECRET: &str = "matrix-hs256-secret-of-sufficient-length";
const ISSUER: &str = "https://issuer.matrix.test";
const AUDIENCE: &str = "cleveragents-matrix";
/// The one address push configs may name: nothing listens there, and the
/// fixture tasks are finished, so nothing is ever delivered.
const WEBHOOK: &str = "http://127.0.0.1:9/webhook";

/// The namespaces: `north` holds the fixture the refused calls aim at; `south`
/// another principal's fixture; `east-*` are empty namespaces of north's admin.
const NORTH: &str = "north";
const SOUTH: &str = "south";
const EAST_EMPTY: &str = "east-0";
const EAST_OTHER: &str = "east-1";
const EAST_NOWHERE: &str = "east-2";

/// A caller: the headers it sends.
#[derive(Clone)]
struct Caller {
    label: &'static str,
    headers: Vec<(&'static str, Vec<u8>)>,
}

fn api_key(label: &'static str, key: &str) -> Caller {
    Caller {
        label,
        headers: vec![("X-API-Key", key.as_bytes().to_vec())],
    }
}

fn bearer(label: &'static str, token: &str) -> Caller {
    Caller {
        label,
        headers: vec![("Authorization", format!("Bearer {token}").into_bytes())],
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Valid claims of `sub` with `namespaces` in the configured claim.
fn claims(sub: &str, namespaces: Value) -> Map<String, Value> {
    let claims = json!({"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "exp": now() + 3600,
                        "nbf": now() - 60, "namespaces": namespaces});
    claims.as_object().cloned().unwrap_or_default()
}

fn hs256(claims: &Map<String, Value>, secret: &str) -> String {
    encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .expect("HS256 token")
}

fn es256(claims: &Map<String, Value>) -> String {
    let pem = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../server/tests/keys/es256.pem"
    ))
    .expect("test EC key");
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("test-es256".into());
    encode(&header, claims, &EncodingKey::from_ec_pem(&pem).expect("EC key")).expect("ES256 token")
}

/// Every principal the matrix uses, over each scheme.
struct Callers {
    admin_north: Caller,
    writers_north: Vec<Caller>,
    readers_north: Vec<Caller>,
    admins_south: Vec<Caller>,
}

fn callers() -> Callers {
    Callers {
        admin_north: api_key("admin of north (API key)", "key-admin-north"),
        writers_north: vec![
            bearer("writer of north (static bearer)", "token-writer-north"),
            bearer(
                "writer of north (ES256 JWT, role from its claim)",
                &es256(&claims("jwt-writer", json!({NORTH: "writer"}))),
            ),
        ],
        readers_north: vec![
            api_key("reader of north (API key)", "key-reader-north"),
            bearer(
                "reader of north (HS256 JWT, role from its claim)",
                &hs256(&claims("jwt-reader", json!({NORTH: "reader"})), HS_SECRET),
            ),
        ],
        admins_south: vec![
            api_key("admin of south (API key)", "key-admin-south"),
            bearer("admin of south (static bearer)", "token-admin-south"),
            bearer(
                "admin of south (HS256 JWT, role from its claim)",
                &hs256(&claims("jwt-south", json!({SOUTH: "admin"})), HS_SECRET),
            ),
        ],
    }
}

/// Credentials that do not authenticate, each with the exact message it earns.
fn unauthenticated() -> Vec<(Caller, &'static str)> {
    let valid = claims("jwt-reader", json!({NORTH: "reader"}));
    let with = |changes: Value| {
        let mut claims = valid.clone();
        for (key, value) in changes.as_object().cloned().unwrap_or_default() {
            if value.is_null() {
                claims.remove(&key);
            } else {
                claims.insert(key, value);
            }
        }
        claims
    };
    let raw = |label: &'static str, name: &'static str, value: &[u8]| Caller {
        label,
        headers: vec![(name, value.to_vec())],
    };
    let token = |label: &'static str, token: String| bearer(label, &token);
    vec![
        (
            Caller {
                label: "no credentials",
                headers: vec![],
            },
            "Authentication required",
        ),
        (
            raw("Basic scheme", "Authorization", b"Basic YWxpY2U6c2VjcmV0"),
            "Invalid credentials: only the Bearer scheme is accepted",
        ),
        (
            raw("empty bearer", "Authorization", b"Bearer "),
            "Invalid credentials: empty bearer token",
        ),
        (
            raw("non-ASCII Authorization", "Authorization", b"Bearer \xff\xfe"),
            "Invalid credentials: malformed Authorization header",
        ),
        (
            api_key("unknown API key", "key-nobody"),
            "Invalid credentials: unknown API key",
        ),
        (
            bearer("unknown bearer token", "token-nobody"),
            "Invalid credentials: unknown bearer token",
        ),
        (
            token("garbage JWT", "not.a.jwt".into()),
            "Invalid credentials: malformed token",
        ),
        (
            token(
                "expired JWT",
                hs256(&with(json!({"exp": now() - 120, "nbf": now() - 600})), HS_SECRET),
            ),
            "Invalid credentials: token expired",
        ),
        (
            token(
                "not-yet-valid JWT",
                hs256(&with(json!({"nbf": now() + 600})), HS_SECRET),
            ),
            "Invalid credentials: token not yet valid",
        ),
        (
            token(
                "JWT of another issuer",
                hs256(&with(json!({"iss": "https://elsewhere.test"})), HS_SECRET),
            ),
            "Invalid credentials: wrong issuer",
        ),
        (
            token(
                "JWT for another audience",
                hs256(&with(json!({"aud": "someone-else"})), HS_SECRET),
            ),
            "Invalid credentials: wrong audience",
        ),
        (
            token(
                "JWT signed with another secret",
                hs256(&valid, "another-secret-of-sufficient-length"),
            ),
            "Invalid credentials: bad signature",
        ),
        (
            token("JWT without exp", hs256(&with(json!({"exp": null})), HS_SECRET)),
            "Invalid credentials: missing required claim",
        ),
    ]
}

fn config_file(dir: &std::path::Path) -> std::path::PathBuf {
    let credential = |secret: &str, subject: &str| json!({"secret": secret, "subject": subject});
    let config = json!({
        "push": {"allow_list": ["127.0.0.1:9"]},
        // The schema's SendMessage example, which makes the fixture's task,
        // sends a PDF with its text: this agent takes PDFs.
        "server": {"agent": {"default_input_modes": ["text/plain", "application/json", "application/pdf"]},
        "auth": {
            "api_keys": [
                credential("key-admin-north", "admin-north"),
                credential("key-reader-north", "reader-north"),
                credential("key-admin-south", "admin-south"),
            ],
            "bearer_tokens": [
                credential("token-writer-north", "writer-north"),
                credential("token-admin-south", "admin-south"),
            ],
            "jwt": {
                "hs256_secret": HS_SECRET,
                "jwks_file": concat!(env!("CARGO_MANIFEST_DIR"), "/../server/tests/keys/jwks.json"),
                "issuer": ISSUER, "audience": [AUDIENCE], "leeway_secs": 0,
            },
            "principals": [
                {"subject": "admin-north", "namespaces": {
                    NORTH: "admin", EAST_EMPTY: "admin", EAST_OTHER: "admin", EAST_NOWHERE: "admin"}},
                {"subject": "writer-north", "namespaces": {NORTH: "writer"}},
                {"subject": "reader-north", "namespaces": {NORTH: "reader"}},
                {"subject": "admin-south", "namespaces": {SOUTH: "admin"}},
            ],
        }},
    });
    let path = dir.join("agent.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&config).expect("encodes")).expect("config written");
    path
}

/// A connection-per-request HTTP/1.1 client for the agent's JSON-RPC endpoint.
struct Agent {
    addr: String,
    next_id: AtomicU64,
}

impl Agent {
    fn post(&self, caller: &Caller, extra: &[(&str, &str)], method: &str, params: &Value) -> Reply {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let headers: Vec<(&str, &[u8])> = caller
            .headers
            .iter()
            .map(|(n, v)| (*n, v.as_slice()))
            .chain(extra.iter().map(|(n, v)| (*n, v.as_bytes())))
            .collect();
        let call = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = common::http::post(&self.addr, &headers, &call);
        for message in reply.messages() {
            assert_eq!(message["id"], id, "{method}: the answer carries the request id");
        }
        reply
    }
}

/// The ErrorInfo of an error object.
fn error_info(error: &Value) -> &Value {
    error["data"]
        .as_array()
        .and_then(|details| details.iter().find(|d| d.get("reason").is_some()))
        .unwrap_or(&Value::Null)
}

/// Asserts the exchange ended with exactly `kind` at HTTP `status`.
fn assert_refused(reply: &Reply, status: u16, kind: ErrorKind, context: &str) -> Value {
    let body = String::from_utf8_lossy(&reply.body);
    assert_eq!(reply.status, status, "{context}: {body}");
    let error = reply
        .error()
        .unwrap_or_else(|| panic!("{context}: no error in {body}"));
    assert_eq!(error["code"], kind.code(), "{context}: {body}");
    let info = error_info(&error);
    assert_eq!(info["reason"], kind.reason(), "{context}: {body}");
    assert_eq!(info["domain"], kind.domain(), "{context}: {body}");
    error
}

fn is_auth_refusal(reply: &Reply) -> bool {
    let refused_kinds = [ErrorKind::ExtAuthRequired, ErrorKind::ExtAuthForbidden];
    matches!(reply.status, 401 | 403)
        || reply.error().is_some_and(|error| {
            let info = error_info(&error);
            refused_kinds
                .iter()
                .any(|k| info["reason"] == k.reason() && info["domain"] == k.domain())
        })
}

/// The methods HTTP dispatches: the table without the stdio binding's own.
fn dispatched() -> impl Iterator<Item = &'static MethodDescriptor> {
    METHODS.iter().filter(|d| d.is_dispatched())
}

fn example_params(d: &MethodDescriptor) -> Value {
    a2a::schema::method_entry(d.name)
        .and_then(|entry| entry.get("examples")?.as_array()?.first()?.get("params").cloned())
        .unwrap_or_else(|| json!({}))
}

/// What a namespace holds for the examples to point at.
#[derive(Clone, Debug, Default)]
struct Fixture {
    task_id: String,
    push_config_id: String,
    plan_id: String,
}

static UNIQUE: AtomicU64 = AtomicU64::new(1);

/// A fresh id in the shape the agent generates (a UUID).
fn fresh_id() -> String {
    format!(
        "00000000-0000-4000-8000-{:012x}",
        UNIQUE.fetch_add(1, Ordering::Relaxed)
    )
}

/// `d`'s example aimed at `fixture` in `namespace`: the contract's namespace
/// field set, task, push-config and plan ids replaced by the fixture's, a
/// fresh message id, webhooks at the one allowed address.
fn aimed(d: &MethodDescriptor, fixture: &Fixture, namespace: &str) -> Value {
    let mut params = example_params(d);
    let Some(obj) = params.as_object_mut() else {
        return params;
    };
    if let Some(field) = d.contract.namespace_field() {
        if d.namespaced {
            obj.insert(field.into(), json!(namespace));
        }
    }
    let on_push_config = d.params_type.contains("PushNotificationConfig");
    for (key, value) in obj.iter_mut() {
        let replacement = match key.as_str() {
            "taskId" => &fixture.task_id,
            "id" if on_push_config => &fixture.push_config_id,
            "id" => &fixture.task_id,
            "planId" => &fixture.plan_id,
            "url" if on_push_config => WEBHOOK,
            _ => continue,
        };
        *value = json!(replacement);
    }
    if let Some(message) = obj.get_mut("message").and_then(Value::as_object_mut) {
        message.insert("messageId".into(), json!(fresh_id()));
    }
    params
}

/// Creates the fixture of `namespace` as its admin: every registry kind's
/// example entity, a finished task with a push config, a plan.
fn populate(agent: &Agent, admin: &Caller, namespace: &str) -> Fixture {
    let mut fixture = Fixture::default();
    // Twice: an entity may name one of a kind that comes later in the table.
    for _ in 0..2 {
        for kind in REGISTRY_KINDS {
            let add = a2a::find_method(kind.method(RegistryOperation::Add)).expect("add method");
            agent.post(admin, &[], add.name, &aimed(add, &fixture, namespace));
        }
    }
    let send = markers::SendMessage::descriptor();
    let reply = agent.post(admin, &[], send.name, &aimed(send, &fixture, namespace));
    fixture.task_id = result_string(&reply, "/task/id");
    let create = markers::CreateTaskPushNotificationConfig::descriptor();
    let reply = agent.post(admin, &[], create.name, &aimed(create, &fixture, namespace));
    fixture.push_config_id = result_string(&reply, "/id");
    // The schema's example action names tools the examples do not define; the
    // plan is of an action of one built-in step.
    let action =
        json!({"name": "matrix-action", "steps": [{"id": "approve", "name": "Approve", "tool": "approval"}]});
    agent.post(
        admin,
        &[],
        markers::RegistryActionsAdd::NAME,
        &json!({"namespace": namespace, "action": action}),
    );
    let plan = markers::PlanUse::descriptor();
    let mut params = aimed(plan, &fixture, namespace);
    params["action"] = action["name"].clone();
    let reply = agent.post(admin, &[], plan.name, &params);
    fixture.plan_id = result_string(&reply, "/id");
    fixture
}

fn result_string(reply: &Reply, pointer: &str) -> String {
    let message = reply.messages().pop().expect("an answer");
    message["result"]
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no {pointer} in {message}"))
        .to_string()
}

/// What `namespace` shows its admin: the answer of every namespaced read of
/// the table, aimed at the fixture.
fn fingerprint(agent: &Agent, admin: &Caller, namespace: &str, fixture: &Fixture) -> Vec<(String, Value)> {
    dispatched()
        .filter(|d| d.namespaced && d.is_read_only() && !d.streaming)
        .map(|d| {
            let reply = agent.post(admin, &[], d.name, &aimed(d, fixture, namespace));
            let mut answer = reply.messages().pop().expect("an answer");
            answer.as_object_mut().map(|a| a.remove("id"));
            (d.name.to_string(), answer)
        })
        .collect()
}

fn assert_same_state(before: &[(String, Value)], after: &[(String, Value)], what: &str) {
    assert_eq!(before.len(), after.len());
    for ((method, a), (_, b)) in before.iter().zip(after) {
        assert_eq!(a, b, "{what}: `{method}` answers differently");
    }
}

fn start() -> (common::ServerAgent, Agent, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config_file(dir.path());
    let config = config.to_str().expect("utf-8 path");
    let server = common::ServerAgent::start_with(&["--memory", "--config", config]);
    let agent = Agent {
        addr: server.addr(),
        next_id: AtomicU64::new(1),
    };
    (server, agent, dir)
}

#[test]
fn every_method_refuses_every_bad_caller_exactly_and_changes_nothing() {
    let (_server, agent, _dir) = start();
    let callers = callers();
    let north = populate(&agent, &callers.admin_north, NORTH);
    let south = populate(&agent, &callers.admins_south[0], SOUTH);
    let north_before = fingerprint(&agent, &callers.admin_north, NORTH, &north);
    let south_before = fingerprint(&agent, &callers.admins_south[0], SOUTH, &south);

    let mut refused = 0usize;
    for d in dispatched() {
        let params = aimed(d, &north, NORTH);
        for (caller, message) in unauthenticated() {
            let context = format!("{} by {}", d.name, caller.label);
            let reply = agent.post(&caller, &[], d.name, &params);
            let error = assert_refused(&reply, 401, ErrorKind::ExtAuthRequired, &context);
            assert_eq!(error["message"], message, "{context}");
            // RFC 6750: presented credentials that fail are an invalid token.
            let bearer = if caller.headers.is_empty() {
                "Bearer realm=\"cleveragents\""
            } else {
                "Bearer realm=\"cleveragents\", error=\"invalid_token\""
            };
            assert_eq!(
                reply.header("www-authenticate").unwrap_or_default(),
                format!("{bearer}, ApiKey realm=\"cleveragents\", header=\"X-API-Key\""),
                "{context}"
            );
            refused += 1;
        }
        if !d.namespaced {
            continue;
        }
        let needed = d.access.expect("a dispatched method needs a role");
        let not_found = d
            .contract
            .namespace_not_found()
            .expect("the contract's not-found");
        for caller in &callers.admins_south {
            let context = format!("{} in {NORTH} by {}", d.name, caller.label);
            let reply = agent.post(caller, &[], d.name, &params);
            let error = assert_refused(&reply, 200, not_found, &context);
            assert_eq!(error["message"], not_found.default_message(), "{context}");
            refused += 1;
        }
        let lesser = match needed {
            Access::Reader => vec![],
            Access::Writer => callers.readers_north.clone(),
            Access::Admin => [callers.readers_north.clone(), callers.writers_north.clone()].concat(),
        };
        for caller in &lesser {
            let context = format!("{} in {NORTH} by {}", d.name, caller.label);
            let reply = agent.post(caller, &[], d.name, &params);
            let error = assert_refused(&reply, 403, ErrorKind::ExtAuthForbidden, &context);
            assert_eq!(
                error_info(&error)["metadata"]["requiredRole"],
                needed.name(),
                "{context}"
            );
            refused += 1;
        }
    }
    assert_same_state(
        &north_before,
        &fingerprint(&agent, &callers.admin_north, NORTH, &north),
        "north after the refused calls",
    );
    assert_same_state(
        &south_before,
        &fingerprint(&agent, &callers.admins_south[0], SOUTH, &south),
        "south after the refused calls",
    );
    eprintln!(
        "authorization matrix: {} methods, {refused} refused calls, each exact; nothing changed",
        dispatched().count()
    );
}

/// Replaces in `text` every value of `masks` by its placeholder, then in the
/// parsed messages every generated value (UUIDs, timestamps) by its shape.
fn masked(reply: &Reply, masks: &[(String, &str)]) -> (u16, bool, Vec<Value>) {
    let mut text = String::from_utf8_lossy(&reply.body).to_string();
    for (value, placeholder) in masks {
        text = text.replace(value.as_str(), placeholder);
    }
    let masked_reply = Reply {
        status: reply.status,
        head: reply.head.clone(),
        body: text.into_bytes(),
    };
    let mut messages = masked_reply.messages();
    for message in &mut messages {
        message.as_object_mut().map(|m| m.remove("id"));
        mask_generated(message);
    }
    (reply.status, reply.is_stream(), messages)
}

fn mask_generated(value: &mut Value) {
    match value {
        Value::String(s) if looks_like_uuid(s) => *s = "<uuid>".into(),
        Value::String(s) if looks_like_timestamp(s) => *s = "<time>".into(),
        Value::Array(items) => items.iter_mut().for_each(mask_generated),
        Value::Object(fields) => fields.values_mut().for_each(mask_generated),
        _ => {}
    }
}

fn looks_like_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 20 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[10] == b'T'
}

/// The names of the fixture's registry entities.
fn entity_names() -> Vec<String> {
    REGISTRY_KINDS
        .iter()
        .filter_map(|kind| {
            let add = a2a::find_method(kind.method(RegistryOperation::Add))?;
            Some(
                example_params(add)
                    .get(kind.spec_field)?
                    .get("name")?
                    .as_str()?
                    .to_string(),
            )
        })
        .collect()
}

/// Every string equal to one of `names` gets `suffix`.
fn rename(value: &mut Value, names: &[String], suffix: &str) {
    match value {
        Value::String(s) if names.contains(s) => s.push_str(suffix),
        Value::Array(items) => items.iter_mut().for_each(|v| rename(v, names, suffix)),
        Value::Object(fields) => fields.values_mut().for_each(|v| rename(v, names, suffix)),
        _ => {}
    }
}

#[test]
fn ids_of_another_namespace_answer_like_ids_that_exist_nowhere() {
    let (_server, agent, _dir) = start();
    let callers = callers();
    let admin = &callers.admin_north;
    let nowhere = Fixture {
        task_id: fresh_id(),
        push_config_id: fresh_id(),
        plan_id: fresh_id(),
    };
    // Reads in an empty namespace, before and after another one fills up.
    let empty_before = fingerprint(&agent, admin, EAST_EMPTY, &nowhere);
    let south = populate(&agent, &callers.admins_south[0], SOUTH);
    let south_before = fingerprint(&agent, &callers.admins_south[0], SOUTH, &south);
    assert_same_state(
        &empty_before,
        &fingerprint(&agent, admin, EAST_EMPTY, &nowhere),
        "an empty namespace once another holds entities",
    );

    // The same calls in two empty namespaces: one aimed at south's ids and
    // names, one at ids and names that exist nowhere.
    let names = entity_names();
    const SUFFIX: &str = "-nowhere";
    let mut compared = 0usize;
    for d in dispatched().filter(|d| d.namespaced) {
        let mut other = aimed(d, &south, EAST_OTHER);
        let mut absent = aimed(d, &nowhere, EAST_NOWHERE);
        rename(&mut absent, &names, SUFFIX);
        // A message continuing a task of another namespace.
        for (params, task) in [(&mut other, &south.task_id), (&mut absent, &nowhere.task_id)] {
            if let Some(message) = params.get_mut("message").and_then(Value::as_object_mut) {
                message.insert("taskId".into(), json!(task));
            }
        }
        let resume: &[&[(&str, &str)]] = if d.streaming {
            &[&[], &[("Last-Event-ID", "1")]]
        } else {
            &[&[]]
        };
        for extra in resume {
            let masks_other = [
                (south.task_id.clone(), "<task>"),
                (south.push_config_id.clone(), "<push-config>"),
                (south.plan_id.clone(), "<plan>"),
                (EAST_OTHER.to_string(), "<namespace>"),
            ];
            let masks_absent = [
                (nowhere.task_id.clone(), "<task>"),
                (nowhere.push_config_id.clone(), "<push-config>"),
                (nowhere.plan_id.clone(), "<plan>"),
                (EAST_NOWHERE.to_string(), "<namespace>"),
                (SUFFIX.to_string(), ""),
            ];
            let answer_other = masked(&agent.post(admin, extra, d.name, &other), &masks_other);
            let answer_absent = masked(&agent.post(admin, extra, d.name, &absent), &masks_absent);
            assert_eq!(
                answer_other, answer_absent,
                "{} {extra:?}: south's ids answer differently from ids that exist nowhere",
                d.name
            );
            compared += 1;
        }
    }
    assert_same_state(
        &south_before,
        &fingerprint(&agent, &callers.admins_south[0], SOUTH, &south),
        "south after calls on its ids from another namespace",
    );
    eprintln!("cross-namespace ids: {compared} answers identical to those of ids that exist nowhere");
}

#[test]
fn the_holder_of_each_methods_role_is_admitted() {
    let (_server, agent, _dir) = start();
    let callers = callers();
    let north = populate(&agent, &callers.admin_north, NORTH);
    let mut admitted = 0usize;
    for d in dispatched() {
        let holders = match (d.namespaced, d.access) {
            // Any authenticated caller, even one without a role anywhere here.
            (false, _) => callers.admins_south.clone(),
            (true, Some(Access::Reader)) => callers.readers_north.clone(),
            (true, Some(Access::Writer)) => callers.writers_north.clone(),
            (true, _) => vec![callers.admin_north.clone()],
        };
        for caller in &holders {
            let reply = agent.post(caller, &[], d.name, &aimed(d, &north, NORTH));
            assert!(
                !is_auth_refusal(&reply),
                "{} by {}: refused: {}",
                d.name,
                caller.label,
                String::from_utf8_lossy(&reply.body)
            );
            admitted += 1;
        }
    }
    assert!(admitted >= dispatched().count());
}
