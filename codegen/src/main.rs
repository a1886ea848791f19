//! `codegen`: regenerates the contract crate, or checks it is current.
//!
//! ```text
//! cargo run -p cleveragents-codegen              # write generated/src/gen/ and bindings/
//! cargo run -p cleveragents-codegen -- --check   # exit 1 if either differs
//! cargo run -p cleveragents-codegen -- --openrpc # print the OpenRPC document
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut check = false;
    let mut openrpc = false;
    let mut files: Vec<String> = codegen::SCHEMA_FILES.iter().map(|f| f.to_string()).collect();
    let mut root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--openrpc" => openrpc = true,
            "--root" => match args.next() {
                Some(dir) => root = PathBuf::from(dir),
                None => return usage("--root needs a directory"),
            },
            "--schemas" => match args.next() {
                Some(list) => files = list.split(',').map(str::to_string).collect(),
                None => return usage("--schemas needs a comma-separated list of files in schema/"),
            },
            "-h" | "--help" => {
                println!(
                    "usage: codegen [--check | --openrpc] [--root WORKSPACE] [--schemas a2a.json,cleveragents-ext.json]"
                );
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument `{other}`")),
        }
    }
    match run(&root, &files, check, openrpc) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("codegen: {error}");
            ExitCode::from(2)
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("codegen: {message}\nusage: codegen [--check | --openrpc] [--root WORKSPACE] [--schemas a2a.json,cleveragents-ext.json]");
    ExitCode::from(2)
}

fn run(root: &Path, files: &[String], check: bool, openrpc: bool) -> codegen::Result<ExitCode> {
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    // The workspace's own schemas come with the dialects they serve.
    let output = if files == codegen::SCHEMA_FILES {
        codegen::generate_workspace(root)?
    } else {
        codegen::generate(&codegen::load_schemas(&root.join("schema"), &files)?)?
    };
    if openrpc {
        print!("{}", output.files[codegen::OPENRPC_FILE]);
        return Ok(ExitCode::SUCCESS);
    }
    let out_dir = root.join(codegen::OUTPUT_DIR);
    // The other languages' bindings belong to the workspace's own schemas.
    let bindings = if files == codegen::SCHEMA_FILES {
        Some(codegen::bindings::generate_workspace(root)?)
    } else {
        None
    };
    let bindings_dir = root.join(codegen::bindings::BINDINGS_DIR);
    let existing = codegen::bindings::existing_files(&bindings_dir);
    if check {
        let mut stale: Vec<_> = codegen::stale_files(&out_dir, &output)?
            .into_iter()
            .map(|file| out_dir.join(file))
            .collect();
        if let Some(bindings) = &bindings {
            stale.extend(
                codegen::stale_among(&bindings_dir, bindings, &existing)
                    .into_iter()
                    .map(|file| bindings_dir.join(file)),
            );
        }
        if stale.is_empty() {
            println!("generated/ and bindings/ are current");
            return Ok(ExitCode::SUCCESS);
        }
        for file in stale {
            eprintln!("stale: {}", file.display());
        }
        eprintln!("run `cargo run -p cleveragents-codegen` to regenerate");
        return Ok(ExitCode::from(1));
    }
    codegen::write_output(&out_dir, &output)?;
    println!("wrote {} files to {}", output.files.len(), out_dir.display());
    if let Some(bindings) = &bindings {
        codegen::write_files(&bindings_dir, bindings, &existing)?;
        println!("wrote {} files to {}", bindings.len(), bindings_dir.display());
    }
    Ok(ExitCode::SUCCESS)
}
