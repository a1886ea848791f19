//! The verdict on one case: how it passed, or which requirements it fell short
//! of. A case is held to its own requirement; along the way a check may find
//! that a weaker rule is broken too (an error without ErrorInfo while its code
//! is right), which is a violation of that rule's requirement, not the case's.

use crate::level::Requirement;

/// One requirement an answer fell short of.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The requirement broken; `None` for the case's own.
    pub requirement: Option<Requirement>,
    pub why: String,
}

impl Violation {
    /// A violation of the case's own requirement.
    pub fn own(why: impl Into<String>) -> Violation {
        Violation {
            requirement: None,
            why: why.into(),
        }
    }

    /// A violation of another rule's requirement.
    pub fn of(requirement: Requirement, why: impl Into<String>) -> Violation {
        Violation {
            requirement: Some(requirement),
            why: why.into(),
        }
    }
}

/// How a case ended: passed (with a note saying how) when `violations` is empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    pub note: String,
    pub violations: Vec<Violation>,
}

impl Verdict {
    /// A pass, `note` saying how.
    pub fn pass(note: impl Into<String>) -> Verdict {
        Verdict {
            note: note.into(),
            violations: Vec::new(),
        }
    }

    /// A failure of the case's own requirement.
    pub fn fail(why: impl Into<String>) -> Verdict {
        Verdict {
            note: String::new(),
            violations: vec![Violation::own(why)],
        }
    }

    /// A failure: this violation.
    pub fn violated(violation: Violation) -> Verdict {
        Verdict {
            note: String::new(),
            violations: vec![violation],
        }
    }

    /// A pass, or a failure of the case's own requirement.
    pub fn of(result: Result<String, String>) -> Verdict {
        match result {
            Ok(note) => Verdict::pass(note),
            Err(why) => Verdict::fail(why),
        }
    }

    /// The verdict with more violations (of weaker rules, found along the way).
    pub fn with(mut self, violations: Vec<Violation>) -> Verdict {
        self.violations.extend(violations);
        self
    }

    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }

    /// The violations with `own` standing for the case's requirement, the
    /// strongest first (stable among equals).
    pub fn resolved(&self, own: &Requirement) -> Vec<(Requirement, String)> {
        let mut out: Vec<(Requirement, String)> = self
            .violations
            .iter()
            .map(|v| {
                (
                    v.requirement.clone().unwrap_or_else(|| own.clone()),
                    v.why.clone(),
                )
            })
            .collect();
        out.sort_by_key(|(requirement, _)| requirement.level);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Level;

    #[test]
    fn the_strongest_violation_comes_first() {
        let own = Requirement::new(Level::Must, "A2A §3.1.3");
        let weak = Requirement::new(Level::Strict, "A2A §9.5");
        let verdict = Verdict::pass("valid")
            .with(vec![Violation::of(weak.clone(), "reason")])
            .with(vec![Violation::own("shape")]);
        assert!(!verdict.passed());
        assert_eq!(
            verdict.resolved(&own),
            vec![(own, "shape".to_string()), (weak, "reason".to_string())]
        );
    }
}
