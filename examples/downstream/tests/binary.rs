//! The example's agent binary: started on a free loopback port, it prints its
//! endpoint, and our client calls the extension method and a standard one there.

use a2a::types::ListTasksRequest;
use client::{Client, HttpConfig, HttpTransport};
use notes::client::NotesClient;
use notes::types::{EchoParams, EchoResult, Role};
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};

#[tokio::test]
async fn the_binary_serves_the_extension_beside_the_standard_methods() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_notes-agent"))
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("its stdout");
    let mut url = String::new();
    BufReader::new(stdout)
        .read_line(&mut url)
        .await
        .expect("the binary prints its endpoint");
    let url = url.trim().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let client = Client::new(HttpTransport::new(HttpConfig::new(url)).expect("a loopback URL"));
    let echoed = client
        .echo(EchoParams {
            text: "ping".into(),
            times: None,
            author: None,
        })
        .await
        .expect("the extension answers");
    assert_eq!(
        echoed,
        EchoResult {
            echoes: vec!["ping".into()],
            length: 4,
            author: Role::User,
        }
    );
    let tasks = client
        .list_tasks(ListTasksRequest::default())
        .await
        .expect("the application answers ListTasks");
    assert!(tasks.tasks.is_empty(), "{tasks:?}");
    child.kill().await.expect("the binary stops");
}
