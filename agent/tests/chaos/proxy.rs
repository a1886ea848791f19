//! A TCP proxy on loopback between one agent and PostgreSQL, which the
//! nemesis controls: it can cut every connection through it at once and
//! refuse new ones for a while (a network partition of that agent from its
//! database, mid-transaction included), or hold each chunk of traffic back
//! for a while (a slow link, during which leases may lapse).

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the accepting thread looks at whether the proxy is dropped.
const POLL: Duration = Duration::from_millis(20);

/// What the proxy's threads share.
struct State {
    target: SocketAddr,
    /// Set while new connections are refused (closed as accepted).
    refusing: AtomicBool,
    /// How long each chunk is held back before it is passed on, in ms.
    delay_ms: AtomicU64,
    /// Both ends of every open connection, by number, to cut them.
    open: Mutex<BTreeMap<u64, [TcpStream; 2]>>,
    /// The number of the next connection.
    next: AtomicU64,
    dropped: AtomicBool,
}

/// A running proxy; dropping it stops accepting (open connections run on).
pub struct Proxy {
    port: u16,
    state: Arc<State>,
}

impl Proxy {
    /// A proxy on a free loopback port forwarding to `target`.
    pub fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.set_nonblocking(true).expect("a non-blocking listener");
        let port = listener.local_addr().expect("the proxy's address").port();
        let state = Arc::new(State {
            target,
            refusing: AtomicBool::new(false),
            delay_ms: AtomicU64::new(0),
            open: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(0),
            dropped: AtomicBool::new(false),
        });
        let accepting = state.clone();
        std::thread::spawn(move || accept(listener, accepting));
        Proxy { port, state }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Cuts every connection through the proxy and refuses new ones for `down`.
    pub fn cut(&self, down: Duration) {
        self.state.refusing.store(true, Ordering::SeqCst);
        let open = std::mem::take(&mut *self.state.open.lock().expect("open connections"));
        for stream in open.values().flatten() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        std::thread::sleep(down);
        self.state.refusing.store(false, Ordering::SeqCst);
    }

    /// Holds each chunk of traffic back by `delay` for `spell`.
    pub fn slow(&self, delay: Duration, spell: Duration) {
        self.state
            .delay_ms
            .store(delay.as_millis() as u64, Ordering::SeqCst);
        std::thread::sleep(spell);
        self.state.delay_ms.store(0, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.state.dropped.store(true, Ordering::SeqCst);
    }
}

fn accept(listener: TcpListener, state: Arc<State>) {
    while !state.dropped.load(Ordering::SeqCst) {
        let client = match listener.accept() {
            Ok((client, _)) => client,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(POLL);
                continue;
            }
            Err(_) => continue,
        };
        if state.refusing.load(Ordering::SeqCst) {
            continue;
        }
        let Ok(server) = TcpStream::connect(state.target) else {
            continue;
        };
        if client.set_nonblocking(false).is_err() {
            continue;
        }
        let clones = || [&client, &server].map(|s| s.try_clone());
        let ([Ok(client_end), Ok(server_end)], [Ok(client_back), Ok(server_back)]) = (clones(), clones())
        else {
            continue;
        };
        let number = state.next.fetch_add(1, Ordering::SeqCst);
        state
            .open
            .lock()
            .expect("open connections")
            .insert(number, [client_end, server_end]);
        let (up, down) = (state.clone(), state.clone());
        std::thread::spawn(move || pump(client, server_back, number, up));
        std::thread::spawn(move || pump(server, client_back, number, down));
    }
}

/// Copies `from` to `to` (holding each chunk back while the proxy is
/// slow) until either end closes, then closes both and forgets connection
/// `number`.
fn pump(mut from: TcpStream, mut to: TcpStream, number: u64, state: Arc<State>) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let delay = state.delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            std::thread::sleep(Duration::from_millis(delay));
        }
        if to.write_all(&buffer[..n]).is_err() {
            break;
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
    state.open.lock().expect("open connections").remove(&number);
}
