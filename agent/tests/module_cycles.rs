//! No module imports a module that imports it back: within each crate of the
//! workspace, the graph of `use` paths between its modules (`crate::a::b`,
//! `super::c`) has no two-way edge. Read from the sources, outside comments and
//! before a file's first `#[cfg(test)]` (tests reach into their parent freely).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src` (`plans/runner.rs` → `plans::runner`,
/// `plans/mod.rs` → `plans`, `lib.rs` → ``).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src").with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The code of a file that counts: no comments, nothing after `#[cfg(test)]`.
fn code(text: &str) -> String {
    text.lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers following each occurrence of `prefix`, split on `::`.
fn paths_after<'a>(code: &'a str, prefix: &'a str) -> impl Iterator<Item = Vec<&'a str>> + 'a {
    code.match_indices(prefix).map(move |(at, _)| {
        let rest = &code[at + prefix.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        rest[..end].split("::").filter(|s| !s.is_empty()).collect()
    })
}

/// The longest prefix of `path` that names a module of the crate.
fn target(modules: &BTreeSet<Vec<String>>, path: &[&str]) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .find(|candidate| modules.contains(candidate))
}

fn two_way_imports(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(src, f)).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in &files {
        let here = module_of(src, file);
        let text = code(&std::fs::read_to_string(file).expect("source"));
        let mut deps = BTreeSet::new();
        for path in paths_after(&text, "crate::") {
            deps.extend(target(&modules, &path));
        }
        // `super` of a file module is its parent; of a `mod.rs`, its own parent too.
        let parent = &here[..here.len().saturating_sub(1)];
        for path in paths_after(&text, "super::") {
            let full: Vec<&str> = parent.iter().map(String::as_str).chain(path).collect();
            deps.extend(target(&modules, &full).or_else(|| Some(parent.to_vec())));
        }
        deps.remove(&here);
        edges.insert(here, deps);
    }
    let mut cycles = Vec::new();
    for (a, deps) in &edges {
        for b in deps {
            if a < b && edges.get(b).is_some_and(|back| back.contains(a)) {
                cycles.push(format!("{} <-> {}", a.join("::"), b.join("::")));
            }
        }
    }
    cycles
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let root = workspace();
    let mut found = Vec::new();
    let mut crates = 0;
    for entry in std::fs::read_dir(&root).expect("workspace").flatten() {
        let src = entry.path().join("src");
        if entry.path().join("Cargo.toml").is_file() && src.is_dir() {
            crates += 1;
            let name = entry.file_name().to_string_lossy().into_owned();
            found.extend(two_way_imports(&src).into_iter().map(|c| format!("{name}: {c}")));
        }
    }
    assert!(crates >= 8, "too few crates found: {crates}");
    assert!(
        found.is_empty(),
        "modules that import each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_a_two_way_import() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path();
    std::fs::create_dir(src.join("a")).expect("dir");
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").expect("write");
    std::fs::write(src.join("a/mod.rs"), "use crate::b::thing;\npub mod c;\n").expect("write");
    std::fs::write(src.join("a/c.rs"), "use super::x;\n").expect("write");
    std::fs::write(
        src.join("b.rs"),
        "// use crate::a;\nuse crate::a::c::y;\n#[cfg(test)]\nuse crate::a;\n",
    )
    .expect("write");
    assert_eq!(two_way_imports(src), Vec::<String>::new());
    std::fs::write(src.join("a/c.rs"), "use crate::b::z;\n").expect("write");
    assert_eq!(two_way_imports(src), ["a::c <-> b"]);
}
