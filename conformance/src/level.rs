//! Requirement levels and the profiles that gate on them. Every case holds an
//! implementation to one [`Requirement`]: a level — MUST / SHOULD / MAY of the
//! A2A 1.0 specification (or of the extension the case belongs to), or
//! [`Level::Strict`] for this project's own rules that are stricter than the
//! specification — and the section it comes from. A [`Profile`] says which
//! levels fail the gate; the others are reported as warnings.

use serde::Serialize;
use std::fmt;

/// How binding a requirement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Level {
    /// An absolute requirement of the specification (or of a declared extension).
    #[serde(rename = "MUST")]
    Must,
    /// A recommendation of the specification.
    #[serde(rename = "SHOULD")]
    Should,
    /// An option the specification allows.
    #[serde(rename = "MAY")]
    May,
    /// A rule of this project that is stricter than the specification (where
    /// the specification says SHOULD, or nothing).
    #[serde(rename = "strict")]
    Strict,
}

impl Level {
    /// Every level, strongest first.
    pub const ALL: [Level; 4] = [Level::Must, Level::Should, Level::May, Level::Strict];

    /// The label reports use (`MUST`, `SHOULD`, `MAY`, `strict`).
    pub fn label(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
            Level::Strict => "strict",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// What a case holds an implementation to, and where that is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Requirement {
    pub level: Level,
    /// The section of the document the requirement comes from (`A2A §3.1.3`), or
    /// the extension URI for an extension's requirement.
    pub section: String,
}

impl Requirement {
    pub fn new(level: Level, section: impl Into<String>) -> Requirement {
        Requirement {
            level,
            section: section.into(),
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.level, self.section)
    }
}

/// Which levels fail the gate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// What the specification demands: MUST failures fail; SHOULD, MAY and
    /// strict failures are warnings. The default, for gating any implementation.
    #[default]
    Spec,
    /// Everything must pass: what this project holds its own agent to.
    Strict,
}

impl Profile {
    /// Every profile, as the command line names them.
    pub const ALL: [Profile; 2] = [Profile::Spec, Profile::Strict];

    /// The name the command line and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Strict => "strict",
        }
    }

    /// The profile called `name`.
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// True when falling short of a requirement of `level` fails the gate.
    pub fn gates(self, level: Level) -> bool {
        match self {
            Profile::Spec => level == Level::Must,
            Profile::Strict => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_profile_gates_on_must_only_and_strict_on_everything() {
        let gated = |p: Profile| Level::ALL.into_iter().filter(|l| p.gates(*l)).collect::<Vec<_>>();
        assert_eq!(gated(Profile::Spec), [Level::Must]);
        assert_eq!(gated(Profile::Strict), Level::ALL);
        assert_eq!(Profile::from_name("strict"), Some(Profile::Strict));
        assert_eq!(Profile::from_name("lenient"), None);
    }

    #[test]
    fn levels_serialize_as_the_specification_spells_them() {
        let labels = serde_json::to_value(Level::ALL).expect("encodes");
        assert_eq!(labels, serde_json::json!(["MUST", "SHOULD", "MAY", "strict"]));
        assert_eq!(
            Requirement::new(Level::Should, "A2A §9.5").to_string(),
            "SHOULD A2A §9.5"
        );
    }
}
