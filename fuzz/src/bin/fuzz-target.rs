//! Runs one fuzz target.
//!
//! Built with the `afl` feature (`cargo afl build --features afl`), it is the
//! AFL++ harness of the target named by its first argument, fed on stdin.
//! Without it: `fuzz-target NAME FILE...` runs the target on each file (to
//! reproduce a crash), `fuzz-target --seeds DIR` writes every target's seeds
//! under `DIR/<name>/`, and `fuzz-target --list` names the targets.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--list") => {
            for target in fuzz::TARGETS {
                println!("{:<12} {}", target.name, target.about);
            }
            ExitCode::SUCCESS
        }
        Some("--seeds") => match args.get(1) {
            Some(dir) => write_seeds(std::path::Path::new(dir)),
            None => usage(),
        },
        Some(name) => match fuzz::find(name) {
            Some(target) => run(target, &args[1..]),
            None => {
                eprintln!("fuzz-target: no target `{name}` (see --list)");
                ExitCode::from(2)
            }
        },
        None => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: fuzz-target --list | --seeds DIR | NAME [FILE...]");
    ExitCode::from(2)
}

fn write_seeds(dir: &std::path::Path) -> ExitCode {
    for target in fuzz::TARGETS {
        let target_dir = dir.join(target.name);
        if let Err(e) = std::fs::create_dir_all(&target_dir) {
            eprintln!("fuzz-target: cannot create {}: {e}", target_dir.display());
            return ExitCode::FAILURE;
        }
        for (n, seed) in (target.seeds)().iter().enumerate() {
            if let Err(e) = std::fs::write(target_dir.join(format!("seed-{n:04}")), seed) {
                eprintln!("fuzz-target: cannot write a seed: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(feature = "afl")]
fn run(target: &'static fuzz::Target, _files: &[String]) -> ExitCode {
    afl::fuzz!(|data: &[u8]| (target.run)(data));
    ExitCode::SUCCESS
}

#[cfg(not(feature = "afl"))]
fn run(target: &'static fuzz::Target, files: &[String]) -> ExitCode {
    for file in files {
        match std::fs::read(file) {
            Ok(data) => (target.run)(&data),
            Err(e) => {
                eprintln!("fuzz-target: cannot read {file}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
