//! The `agents` command-line tool: see the `client::cli` module.

fn main() {
    std::process::exit(client::cli::main());
}
