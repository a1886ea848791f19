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
