//! The expected-failures file: one case id per line, `#` starts a comment.
//! It is a strict baseline — see [`crate::report::Report::apply_baseline`].

use std::collections::BTreeSet;

/// The case ids a baseline lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    ids: BTreeSet<String>,
}

impl Baseline {
    /// Parses the file's text.
    pub fn parse(text: &str) -> Baseline {
        let ids = text
            .lines()
            .map(|line| line.split('#').next().unwrap_or_default().trim())
            .filter(|line| !line.is_empty())
            .map(str::to_string)
            .collect();
        Baseline { ids }
    }

    /// Reads the file at `path`.
    pub fn load(path: &std::path::Path) -> Result<Baseline, String> {
        std::fs::read_to_string(path)
            .map(|t| Baseline::parse(&t))
            .map_err(|e| format!("cannot read the expected-failures file {}: {e}", path.display()))
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.ids.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_are_ignored() {
        let b = Baseline::parse("# header\n\nGetTask/example-1  # why\n  plan/x \n");
        assert!(b.contains("GetTask/example-1"));
        assert!(b.contains("plan/x"));
        assert_eq!(b.ids().count(), 2);
    }
}
