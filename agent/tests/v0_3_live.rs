//! A2A 0.3 against the real agent binary and its store: the decision record's
//! `message/send` example answers a task, and that task is the same task for a
//! 1.0 client, which reads it back with `GetTask`.

mod common;

use common::http::post_as;
use common::ServerAgent;
use serde_json::json;

#[test]
fn a_task_made_by_the_decision_records_message_send_is_read_back_by_1_0_get_task() {
    let agent = ServerAgent::start();
    let addr = agent.addr();
    let sent = post_as(
        &addr,
        None,
        &[],
        &json!({"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"messageId":"m2","role":"user","kind":"message","parts":[{"kind":"text","text":"hello"}]}}}),
    );
    assert_eq!(sent.status, 200);
    let answer = &sent.messages()[0];
    assert_eq!(answer["id"], 2);
    let task = &answer["result"];
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(
        task["history"][0],
        json!({"contextId": task["contextId"], "kind": "message", "messageId": "m2", "parts": [{"kind": "text", "text": "hello"}], "role": "user", "taskId": task["id"]})
    );

    let read = post_as(
        &addr,
        Some("1.0"),
        &[],
        &json!({"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id": task["id"]}}),
    );
    let read = &read.messages()[0]["result"];
    assert_eq!(read["id"], task["id"]);
    assert_eq!(read["contextId"], task["contextId"]);
    assert_eq!(read["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        read["history"][0],
        json!({"contextId": task["contextId"], "messageId": "m2", "parts": [{"text": "hello"}], "role": "ROLE_USER", "taskId": task["id"]})
    );
    // And a 0.3 client reads the task a 1.0 client sees.
    let again = post_as(
        &addr,
        Some("0.3"),
        &[],
        &json!({"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id": task["id"]}}),
    );
    assert_eq!(&again.messages()[0]["result"], task);
}
