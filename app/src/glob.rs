//! Path globs: the one dialect of the application's path patterns (a
//! project's context include/exclude, a validation's `pathGlob`), on
//! `globset`. `*` and `?` stay within a `/`-separated segment, `**` as a whole
//! segment spans any number of segments, `[...]` is a character class and
//! `{a,b}` an alternation.

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

fn builder(glob: &str) -> GlobBuilder<'_> {
    let mut builder = GlobBuilder::new(glob);
    builder.literal_separator(true);
    builder
}

/// The matcher of one path glob.
pub fn path_glob(glob: &str) -> Result<GlobMatcher, globset::Error> {
    builder(glob).build().map(|g| g.compile_matcher())
}

/// Globs of which any one matching is enough. A glob that does not compile
/// (one stored before globs were checked) matches nothing.
pub fn any_of(globs: &[String]) -> GlobSet {
    let mut set = GlobSetBuilder::new();
    for glob in globs {
        if let Ok(glob) = builder(glob).build() {
            set.add(glob);
        }
    }
    set.build().unwrap_or_else(|_| GlobSet::empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_by_segment() {
        let is = |glob: &str, path: &str| path_glob(glob).expect("glob").is_match(path);
        assert!(is("**", "a/b/c.md"));
        assert!(is("**", "README.md"));
        assert!(is("assets/**", "assets/logo.png"));
        assert!(is("assets/**", "assets/img/logo.png"));
        assert!(!is("assets/**", "docs/assets.md"));
        // A trailing `/**` needs something below the directory.
        assert!(!is("assets/**", "assets"));
        assert!(is("**/*.md", "README.md"));
        assert!(is("**/*.md", "docs/a/b.md"));
        assert!(!is("*.md", "docs/b.md"));
        assert!(is("CHANGELOG.md", "CHANGELOG.md"));
        assert!(is("docs/?.md", "docs/a.md"));
        assert!(!is("docs/?.md", "docs/ab.md"));
        assert!(is("docs/{a,b}.md", "docs/b.md"));
        assert!(path_glob("docs/[").is_err());
    }

    #[test]
    fn any_of_skips_what_does_not_compile() {
        let set = any_of(&["docs/[".to_string(), "*.md".to_string()]);
        assert!(set.is_match("README.md"));
        assert!(!set.is_match("docs/["));
        assert!(!any_of(&[]).is_match("README.md"));
    }
}
