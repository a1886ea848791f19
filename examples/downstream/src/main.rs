//! `notes-agent`: the example's agent binary. Serves the standard A2A methods
//! (the reference application, in memory) and the `_notes/` extension over
//! HTTP on a loopback address until interrupted.
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
    eprintln!("notes-agent: serving on http://{listen}/");
    let stopped = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match server::serve_http(config, dispatch, stopped).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("notes-agent: {error}");
            ExitCode::FAILURE
        }
    }
}
