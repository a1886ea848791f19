//! Replays every target's inputs: the seeds derived from the schemas, the
//! committed corpus (`fuzz/corpus/<name>/`, inputs the fuzzer found worth
//! keeping) and every crash or hang ever found (`fuzz/regressions/<name>/`,
//! kept once fixed). Any property failing on any of them fails the suite.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

fn committed(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut inputs: Vec<(String, Vec<u8>)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file() && e.file_name() != "README.md")
        .map(|e| {
            let data = std::fs::read(e.path()).expect("a committed input is readable");
            (e.path().display().to_string(), data)
        })
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn every_seed_corpus_and_regression_input_holds_every_property() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for target in fuzz::TARGETS {
        let seeds = (target.seeds)();
        assert!(!seeds.is_empty(), "target {} has no seeds", target.name);
        let mut inputs: Vec<(String, Vec<u8>)> = seeds
            .into_iter()
            .enumerate()
            .map(|(n, s)| (format!("{} seed {n}", target.name), s))
            .collect();
        inputs.extend(committed(&root.join("corpus").join(target.name)));
        inputs.extend(committed(&root.join("regressions").join(target.name)));
        counts.push(format!("{} {}", target.name, inputs.len()));
        for (label, data) in &inputs {
            if catch_unwind(AssertUnwindSafe(|| (target.run)(data))).is_err() {
                failures.push(label.clone());
            }
        }
    }
    eprintln!("replayed: {}", counts.join(", "));
    assert!(failures.is_empty(), "inputs that break a property: {failures:#?}");
}

#[test]
fn the_seeds_cover_every_method_with_examples() {
    let with_examples = a2a::METHODS
        .iter()
        .filter(|m| {
            a2a::schema::method_entry(m.name)
                .and_then(|e| e.get("examples"))
                .and_then(|e| e.as_array())
                .is_some_and(|e| !e.is_empty())
        })
        .count();
    assert!(with_examples > 80, "{with_examples}");
    assert!(fuzz::seeds::protojson().len() >= with_examples);
    assert!(fuzz::seeds::stdio().len() >= with_examples);
}
