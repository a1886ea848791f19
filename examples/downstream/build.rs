//! Generates the `_notes/` extension beside the contract into `OUT_DIR`.

fn main() -> std::process::ExitCode {
    codegen::extension::Builder::new("schema/notes-ext.json").build_script()
}
