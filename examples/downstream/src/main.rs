//! `notes-agent`: the example's agent binary. Serves the standard A2A methods
//! (the reference application, in memory) and the `_notes/` extension over
//! HTTP on a loopback address until interrupted, and prints the endpoint's
//! URL on stdout once it listens (port 0 picks a free port).
//!
//! ```text
//! notes-agent [--listen 127.0.0.1:7430]
//! ```

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut listen = "127.0.0.1:7430".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--listen", Some(addr)) => listen = addr,
            _ => {
                eprintln!("usage: notes-agent [--listen ADDR]");
                return ExitCode::from(2);
            }
        }
    }
    let Ok(listen) = listen.parse() else {
        eprintln!("notes-agent: `{listen}` is not an address (like 127.0.0.1:7430)");
        return ExitCode::from(2);
    };
    let dispatch = match notes::dispatch() {
        Ok(dispatch) => dispatch,
        Err(error) => {
            eprintln!("notes-agent: {error}");
            return ExitCode::FAILURE;
        }
    };
    let config = notes::server_config(listen);
    let server = match server::HttpServer::bind(config, dispatch).await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("notes-agent: {error}");
            return ExitCode::FAILURE;
        }
    };
    match server.local_addr() {
        Ok(addr) => println!("http://{addr}/"),
        Err(error) => {
            eprintln!("notes-agent: {error}");
            return ExitCode::FAILURE;
        }
    }
    let stopped = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match server.serve(stopped).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("notes-agent: {error}");
            ExitCode::FAILURE
        }
    }
}
