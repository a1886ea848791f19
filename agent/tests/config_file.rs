//! The agent's config file reaches the application: `task_limits` set there
//! bound what a caller can send.

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
