//! The agent's config file reaches the application: `task_limits` set there
//! bound what a caller can send; its `a2a` section turns drafts on.

mod common;

use common::ServerAgent;
use serde_json::json;

#[test]
fn task_limits_from_the_config_file_bound_a_message() {
    let dir = std::env::temp_dir().join(format!("cleveragents-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("config.json");
    std::fs::write(&config, r#"{"task_limits": {"max_parts_per_message": 1}}"#).expect("config");
    let agent = ServerAgent::start_with(&["--memory", "--config", config.to_str().expect("utf-8 path")]);
    let call = |id: u64, parts: serde_json::Value| {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "SendMessage",
            "params": {"message": {"messageId": format!("m{id}"), "role": "ROLE_USER", "parts": parts}}});
        common::http::post(&agent.addr(), &[], &request)
    };
    let refused = call(1, json!([{"text": "a"}, {"text": "b"}]))
        .error()
        .expect("refused");
    assert_eq!(refused["code"], -32602);
    assert_eq!(refused["data"][0]["metadata"]["limit"], "1");
    let served = call(2, json!([{"text": "a"}]));
    assert!(served.error().is_none(), "{:?}", served.messages());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn draft_versions_come_from_the_a2a_section_and_must_be_drafts() {
    let dir = std::env::temp_dir().join(format!("cleveragents-drafts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("config.json");
    std::fs::write(
        &config,
        r#"{"a2a": {"draft_versions": ["1.1"], "long_poll_max_ms": 1000}}"#,
    )
    .expect("config");
    let agent = ServerAgent::start_with(&["--memory", "--config", config.to_str().expect("utf-8 path")]);
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "none"}});
    let reply = common::http::post_as(&agent.addr(), Some("1.1"), &[], &request);
    assert_eq!(reply.header("a2a-version"), Some("1.1"));
    assert_eq!(reply.error().expect("no such task")["code"], -32001);

    // A version that is no draft of this build stops the agent with a reason.
    let stderr = refused(&dir, r#"{"a2a": {"draft_versions": ["1.0"]}}"#);
    assert!(
        stderr.contains("A2A draft version `1.0` is not one this build can serve (drafts: 1.1)"),
        "{stderr}"
    );
    // The `server` section has no say in it.
    refused(&dir, r#"{"server": {"a2a": {"draft_versions": ["1.1"]}}}"#);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts the agent with the config file `text` (written in `dir`), which
/// it must refuse; what it said on stderr.
fn refused(dir: &std::path::Path, text: &str) -> String {
    let config = dir.join("refused.json");
    std::fs::write(&config, text).expect("config");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cleveragents-agent"))
        .args(["--listen", "127.0.0.1:0", "--memory", "--config"])
        .arg(&config)
        .output()
        .expect("agent runs");
    assert!(!output.status.success(), "{text} was taken");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The agent's card, as a 1.0 client reads it.
fn card_of(agent: &ServerAgent) -> serde_json::Value {
    let reply = common::http::get(
        &agent.addr(),
        "/.well-known/agent-card.json",
        &[("A2A-Version", b"1.0")],
    );
    serde_json::from_slice(&reply.body).expect("a JSON card")
}

#[test]
fn the_auth_section_places_the_api_key_and_declares_openid_connect() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, config: serde_json::Value| {
        let path = dir.path().join(name);
        std::fs::write(&path, config.to_string()).expect("config");
        path.to_str().expect("utf-8 path").to_string()
    };
    let key = json!([{"secret": "config-key", "subject": "config-admin"}]);
    // The key's name under its earlier setting name.
    let old = write(
        "old.json",
        json!({"server": {"auth": {"api_key_header": "X-Old-Key", "api_keys": key}}}),
    );
    let agent = ServerAgent::start_with(&["--memory", "--config", &old]);
    assert_eq!(
        card_of(&agent)["securitySchemes"],
        json!({"apiKey": {"apiKeySecurityScheme": {
            "description": "API key in a request header.", "location": "header", "name": "X-Old-Key"
        }}})
    );
    drop(agent);

    let secret = "config-hs256-secret-of-sufficient-length";
    let discovery = "https://issuer.test/.well-known/openid-configuration";
    let oidc = write(
        "oidc.json",
        json!({"server": {"auth": {
            "api_key_location": "cookie",
            "api_key_name": "a2a_key",
            "api_keys": key,
            "jwt": {"hs256_secret": secret, "issuer": "https://issuer.test", "audience": ["cleveragents"]},
            "openid_connect": {"url": discovery, "description": "Sign in at the issuer."},
            "principals": [{"subject": "oidc-user", "namespaces": {"default": "reader"}}],
        }}}),
    );
    let agent = ServerAgent::start_with(&["--memory", "--config", &oidc]);
    let card = card_of(&agent);
    assert_eq!(
        card["securitySchemes"],
        json!({
            "apiKey": {"apiKeySecurityScheme": {
                "description": "API key in a request cookie.", "location": "cookie", "name": "a2a_key"
            }},
            "jwt": {"httpAuthSecurityScheme": {
                "description": "JWT bearer token (HS256, RS256 or ES256).", "scheme": "Bearer", "bearerFormat": "JWT"
            }},
            "openIdConnect": {"openIdConnectSecurityScheme": {
                "description": "Sign in at the issuer.", "openIdConnectUrl": discovery
            }},
        })
    );
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"apiKey": {}}}, {"schemes": {"jwt": {}}}, {"schemes": {"openIdConnect": {}}}])
    );
    // A token of the issuer is a bearer credential.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &json!({"sub": "oidc-user", "iss": "https://issuer.test", "aud": "cleveragents", "exp": now + 600}),
        &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()),
    )
    .expect("a token");
    let bearer = format!("Bearer {token}");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "none"}});
    let reply = common::http::post(&agent.addr(), &[("Authorization", bearer.as_bytes())], &call);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.error().expect("no such task")["code"], -32001);
    let reply = common::http::post(&agent.addr(), &[("Cookie", b"a2a_key=config-key")], &call);
    assert_eq!(reply.status, 200);
    let reply = common::http::post(&agent.addr(), &[("a2a_key", b"config-key")], &call);
    assert_eq!(reply.status, 401);
    drop(agent);

    // OpenID Connect without the JWT checks its tokens need: refused, saying why.
    let stderr = refused(
        dir.path(),
        &json!({"server": {"auth": {"openid_connect": {"url": discovery}}}}).to_string(),
    );
    assert_eq!(
        stderr,
        "cleveragents-agent: invalid server configuration: auth.openid_connect needs auth.jwt: OpenID \
         Connect tokens are verified as JWTs against its keys (hs256_secret or jwks_file), issuer and \
         audience\n"
    );
    let stderr = refused(
        dir.path(),
        r#"{"server": {"auth": {"api_key_location": "body"}}}"#,
    );
    assert!(
        stderr.contains("unknown variant `body`, expected one of `header`, `query`, `cookie`"),
        "{stderr}"
    );
}
