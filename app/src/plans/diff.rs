//! What applying a plan would change in its project (`plan/diff`): one
//! FileDiff per workspace file that differs from the project's *current*
//! revision. Files are never deleted by a plan.
//!
//! Lines are split on `\n`, a final newline not starting a line. The edit
//! script is `similar`'s LCS diff (deletions before insertions); UNIFIED
//! hunks are its groups with `context` unchanged lines around changes, and an
//! empty range's start is the line before it (0 for an empty file), as the
//! schema's example has it. Files whose old or new content is not UTF-8 are
//! `binary` and carry only digests.

use super::record::{invalid_state, load, FAMILY};
use super::PlanService;
use crate::registry::{file_bytes, hex};
use a2a::rpc::Error;
use a2a::types::{
    DiffHunk, DiffStats, FileChangeKind, FileDiff, FileDiffFormat, PlanDiff, PlanDiffParams, PlanState,
};
use serde_json::Value;
use sha2::{Digest, Sha256};
use similar::algorithms::{lcs, Capture, Replace};
use similar::{group_diff_ops, DiffOp, DiffTag};

/// Line-diff work above this many cells falls back to replacing the whole
/// file: the LCS table grows with the product of the line counts.
const MAX_DIFF_CELLS: usize = 4_000_000;

/// The lines of a text: split on `\n`; a final newline does not start a line.
pub(crate) fn lines_of(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return vec![];
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// The edit script from one list of lines to another.
pub(crate) struct EditScript<'t> {
    old: Vec<&'t str>,
    new: Vec<&'t str>,
    ops: Vec<DiffOp>,
}

impl EditScript<'_> {
    /// (lines added, lines deleted).
    fn counts(&self) -> (i64, i64) {
        let (mut added, mut deleted) = (0, 0);
        for op in &self.ops {
            let (_, old, new) = op.as_tag_tuple();
            match op.tag() {
                DiffTag::Equal => {}
                DiffTag::Delete => deleted += old.len(),
                DiffTag::Insert => added += new.len(),
                DiffTag::Replace => {
                    deleted += old.len();
                    added += new.len();
                }
            }
        }
        (count(added), count(deleted))
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn int(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A line of one side, or the end of that side. Each side ends with an end
/// of its own, so the two never share a suffix: the LCS then matches lines
/// front to back as this server always has, instead of claiming a common
/// suffix first (which aligns repeated lines differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Line<'t> {
    Text(&'t str),
    EndOld,
    EndNew,
}

/// `op` without the end markers (`n`, `m`: the real line counts).
fn without_ends(op: DiffOp, n: usize, m: usize) -> Option<DiffOp> {
    let (tag, old, new) = op.as_tag_tuple();
    let old = old.start.min(n)..old.end.min(n);
    let new = new.start.min(m)..new.end.min(m);
    match (old.is_empty(), new.is_empty()) {
        (true, true) => None,
        (false, true) => Some(DiffOp::Delete {
            old_index: old.start,
            old_len: old.len(),
            new_index: new.start,
        }),
        (true, false) => Some(DiffOp::Insert {
            old_index: old.start,
            new_index: new.start,
            new_len: new.len(),
        }),
        (false, false) if tag == DiffTag::Equal => Some(DiffOp::Equal {
            old_index: old.start,
            new_index: new.start,
            len: old.len(),
        }),
        (false, false) => Some(DiffOp::Replace {
            old_index: old.start,
            old_len: old.len(),
            new_index: new.start,
            new_len: new.len(),
        }),
    }
}

/// The LCS edit script from `old` to `new`, deletions before insertions
/// (no compaction: the alignment is the plain LCS one).
pub(crate) fn edit_script<'t>(old: &[&'t str], new: &[&'t str]) -> EditScript<'t> {
    let (n, m) = (old.len(), new.len());
    let ops = if (n + 1).saturating_mul(m + 1) > MAX_DIFF_CELLS {
        let mut ops = vec![];
        if n > 0 {
            ops.push(DiffOp::Delete {
                old_index: 0,
                old_len: n,
                new_index: 0,
            });
        }
        if m > 0 {
            ops.push(DiffOp::Insert {
                old_index: n,
                new_index: 0,
                new_len: m,
            });
        }
        ops
    } else {
        let a: Vec<Line> = old.iter().map(|l| Line::Text(l)).chain([Line::EndOld]).collect();
        let b: Vec<Line> = new.iter().map(|l| Line::Text(l)).chain([Line::EndNew]).collect();
        let mut hook = Replace::new(Capture::new());
        match lcs::diff_deadline_raw(&mut hook, &a, 0..a.len(), &b, 0..b.len(), None) {
            Ok(()) => {}
            Err(never) => match never {},
        }
        hook.into_inner()
            .into_ops()
            .into_iter()
            .filter_map(|op| without_ends(op, n, m))
            .collect()
    };
    EditScript {
        old: old.to_vec(),
        new: new.to_vec(),
        ops,
    }
}

/// Unified hunks of an edit script with `context` unchanged lines around changes.
pub(crate) fn hunks(script: &EditScript<'_>, context: usize) -> Vec<DiffHunk> {
    let mut out = vec![];
    for group in group_diff_ops(script.ops.clone(), context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        let lines = group
            .iter()
            .flat_map(|op| op.iter_changes(&script.old[..], &script.new[..]))
            .map(|change| format!("{}{}", change.tag(), change.value()))
            .collect();
        // An empty range starts at the line before it; a non-empty one at its first line.
        let start = |at: usize, len: usize| int(if len == 0 { at } else { at + 1 });
        out.push(DiffHunk {
            old_start: start(old.start, old.len()),
            old_lines: int(old.len()),
            new_start: start(new.start, new.len()),
            new_lines: int(new.len()),
            lines,
        });
    }
    out
}

/// The FileDiffs of writing `workspace` over `tree`, and (lines added, deleted).
pub(crate) fn file_diffs(
    tree: &[Value],
    workspace: &[Value],
    full: bool,
    context: usize,
) -> (Vec<FileDiff>, i64, i64) {
    let (mut files, mut added, mut deleted) = (vec![], 0i64, 0i64);
    for new in workspace {
        let path = new["path"].as_str().unwrap_or_default();
        let old = tree.iter().find(|f| f["path"] == path);
        let after = file_bytes(new);
        let before = old.map(file_bytes);
        if let Some(o) = old {
            if before.as_deref() == Some(after.as_slice()) && o["mediaType"] == new["mediaType"] {
                continue;
            }
        }
        let mut diff = FileDiff {
            path: path.to_string(),
            change: if old.is_some() {
                FileChangeKind::Modified
            } else {
                FileChangeKind::Added
            },
            media_type: new["mediaType"].as_str().unwrap_or_default().to_string(),
            after_sha256: Some(hex(&Sha256::digest(&after))),
            before_sha256: before.as_ref().map(|b| hex(&Sha256::digest(b))),
            binary: true,
            after: None,
            before: None,
            hunks: vec![],
        };
        let after_text = std::str::from_utf8(&after).ok();
        let before_text = match &before {
            None => Some(""),
            Some(b) => std::str::from_utf8(b).ok(),
        };
        if let (Some(b), Some(a)) = (before_text, after_text) {
            diff.binary = false;
            let (old_lines, new_lines) = (lines_of(b), lines_of(a));
            let script = edit_script(&old_lines, &new_lines);
            let (plus, minus) = script.counts();
            added += plus;
            deleted += minus;
            if full {
                diff.before = before.is_some().then(|| b.to_string());
                diff.after = Some(a.to_string());
            } else {
                diff.hunks = hunks(&script, context);
            }
        }
        files.push(diff);
    }
    (files, added, deleted)
}

/// `plan/diff`: the plan's workspace against the project's current revision.
pub(crate) async fn diff(plans: &PlanService, ns: &str, params: PlanDiffParams) -> Result<PlanDiff, Error> {
    let context = match params.context_lines {
        None => 3,
        Some(n) if (0..=1000).contains(&n) => n as usize,
        Some(_) => return Err(FAMILY.invalid_params("contextLines", "must be between 0 and 1000")),
    };
    let full = params.format == Some(FileDiffFormat::Full);
    let (rec, _) = load(plans, ns, &params.plan_id).await?;
    if rec.plan.state == PlanState::Created {
        return Err(invalid_state(
            format!(
                "Plan `{}` is CREATED and has produced no artifacts; execute it first",
                rec.plan.id
            ),
            rec.plan.state,
        ));
    }
    let (project_revision, current) = plans.registry.project_files(ns, &rec.plan.project, None).await?;
    let (files, added, deleted) = file_diffs(&current, &rec.exec.workspace, full, context);
    Ok(PlanDiff {
        plan_id: rec.plan.id.clone(),
        revision: rec.plan.revision,
        project: rec.plan.project.clone(),
        project_revision,
        stats: DiffStats {
            files_changed: int(files.len()),
            lines_added: i32::try_from(added).unwrap_or(i32::MAX),
            lines_deleted: i32::try_from(deleted).unwrap_or(i32::MAX),
        },
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The hunks as the wire carries them.
    fn hunks(script: &EditScript<'_>, context: usize) -> Vec<Value> {
        super::hunks(script, context)
            .iter()
            .map(|h| serde_json::to_value(h).unwrap_or_default())
            .collect()
    }

    #[test]
    fn unified_hunks_match_the_schema_example() {
        let old = "# Changelog\n\n## 2.3.0\n\n- Initial public API.\n";
        let new = "# Changelog\n\n## 2.4.0\n\n- Faster search indexing.\n- Dark mode for the dashboard.\n\n## 2.3.0\n\n- Initial public API.\n";
        let (a, b) = (lines_of(old), lines_of(new));
        let ops = edit_script(&a, &b);
        assert_eq!(
            hunks(&ops, 2),
            vec![
                json!({ "oldStart": 1, "oldLines": 4, "newStart": 1, "newLines": 9, "lines": [
                " # Changelog", " ", "+## 2.4.0", "+", "+- Faster search indexing.",
                "+- Dark mode for the dashboard.", "+", " ## 2.3.0", " "] })
            ]
        );
        let added = edit_script(&[], &["a", "b"]);
        assert_eq!(
            hunks(&added, 3),
            vec![
                json!({ "oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": 2, "lines": ["+a", "+b"] })
            ]
        );
        let far = edit_script(
            &["1", "2", "3", "4", "5", "6", "7", "8"],
            &["x", "2", "3", "4", "5", "6", "7", "y"],
        );
        assert_eq!(hunks(&far, 1).len(), 2);
        assert_eq!(hunks(&far, 3).len(), 1);
    }

    #[test]
    fn repeated_lines_align_front_to_back() {
        let script = edit_script(&["y", "x"], &["x", "y", "y", "x"]);
        assert_eq!(
            hunks(&script, 3),
            vec![
                json!({ "oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 4,
                         "lines": ["+x", " y", "+y", " x"] })
            ]
        );
        assert_eq!(script.counts(), (2, 0));
        let replaced = edit_script(&["a", "b"], &["c"]);
        assert_eq!(
            hunks(&replaced, 0),
            vec![
                json!({ "oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 1,
                         "lines": ["-a", "-b", "+c"] })
            ]
        );
        assert!(hunks(&edit_script(&["a"], &["a"]), 3).is_empty());
    }
}
