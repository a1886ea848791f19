//! A webhook receiver on loopback for the push tests: it records every POST
//! (the task, the event's sequence number, the body, the status it answered)
//! and answers as told (accept, 503, or hold the request unanswered).

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Generous bound on waiting for deliveries, so a broken agent fails the
/// test instead of hanging it.
pub const DELIVERY_WAIT: Duration = Duration::from_secs(90);

/// The header the sequence number travels in.
pub const SEQUENCE: &str = "x-cleveragents-event-sequence";

/// What the receiver answers.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Mode {
    /// 200.
    Accept,
    /// 503, which the agent retries.
    Unavailable,
    /// Nothing: the request is held unanswered until the mode changes.
    Hold,
}

/// One POST the receiver got: the task, the sequence number, the body and
/// the status answered (0 for a request held and never answered).
#[derive(Clone, Debug)]
pub struct Post {
    pub task_id: String,
    pub seq: u64,
    pub body: Value,
    pub status: u16,
}

/// A webhook receiver on loopback that records every POST.
pub struct Receiver {
    pub url: String,
    mode: Arc<Mutex<Mode>>,
    posts: Arc<Mutex<Vec<Post>>>,
}

impl Receiver {
    pub fn start(mode: Mode) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
        let mode = Arc::new(Mutex::new(mode));
        let posts = Arc::new(Mutex::new(Vec::new()));
        let (m, p) = (mode.clone(), posts.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (m, p) = (m.clone(), p.clone());
                std::thread::spawn(move || serve(stream, &m, &p));
            }
        });
        Receiver { url, mode, posts }
    }

    pub fn set(&self, mode: Mode) {
        *self.mode.lock().expect("mode") = mode;
    }

    pub fn posts(&self) -> Vec<Post> {
        self.posts.lock().expect("posts").clone()
    }

    /// Waits until `done` holds for the POSTs received, or fails the test.
    pub fn wait_for(&self, what: &str, done: impl Fn(&[Post]) -> bool) -> Vec<Post> {
        let deadline = Instant::now() + DELIVERY_WAIT;
        loop {
            let posts = self.posts();
            if done(&posts) {
                return posts;
            }
            assert!(Instant::now() < deadline, "{what}: {posts:#?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Serves one connection's requests (kept alive) until the peer closes it.
fn serve(stream: TcpStream, mode: &Mutex<Mode>, posts: &Mutex<Vec<Post>>) {
    let mut writer = stream.try_clone().expect("clone");
    let mut reader = BufReader::new(stream);
    loop {
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if line == "\r\n" => break,
                Ok(_) => head.push(line.trim_end().to_string()),
            }
        }
        let header = |name: &str| {
            head.iter().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_string())
            })
        };
        let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let seq = header(SEQUENCE).and_then(|v| v.parse().ok()).unwrap_or(0);
        let task_id = task_of(&body);
        let current = *mode.lock().expect("mode");
        let status = match current {
            Mode::Accept => 200,
            Mode::Unavailable => 503,
            Mode::Hold => 0,
        };
        posts.lock().expect("posts").push(Post {
            task_id,
            seq,
            body,
            status,
        });
        if current == Mode::Hold {
            // Held until the mode changes (or the agent goes), then dropped unanswered.
            while *mode.lock().expect("mode") == Mode::Hold {
                std::thread::sleep(Duration::from_millis(10));
            }
            return;
        }
        let reply = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n");
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// The task a StreamResponse belongs to.
pub fn task_of(event: &Value) -> String {
    let id = event["task"]["id"]
        .as_str()
        .or_else(|| event["statusUpdate"]["taskId"].as_str())
        .or_else(|| event["artifactUpdate"]["taskId"].as_str())
        .or_else(|| event["message"]["taskId"].as_str());
    id.unwrap_or_default().to_string()
}
