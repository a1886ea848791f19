//! The statements a commit runs, in two forms.
//!
//! The **lenient** form answers a failed optimistic check with no row (an
//! insert that met an existing key, an update that found another version),
//! so the replay path ([`writer`](super::writer)) can tell which write failed
//! and look up what it found. The **strict** form raises an error instead
//! ([`REFUSE`]), so a group sent in one round trip ([`group`](super::group))
//! aborts its transaction on the first failed check, and the `COMMIT` sent
//! behind it rolls the whole group back: nothing of it stands, and the group
//! is replayed the lenient way. Each strict statement wraps its lenient one
//! or is built from the same parts, so the two cannot drift apart.
//!
//! Every statement that changes tasks also keeps the task counts
//! ([`count!`]), so no path can write a task and miss them.

/// The strict form of a lenient statement returning one value: the value,
/// or the transaction aborted.
macro_rules! strict {
    ($lenient:expr) => {
        concat!(
            "WITH written AS (",
            $lenient,
            ") SELECT COALESCE((SELECT * FROM written), cleveragents_refuse())"
        )
    };
}

/// The kept task counts changed by the rows of the CTE `delta` (namespace,
/// context, state, and `d`: +1 or -1), rows of no net change left alone:
/// the namespace's counts, and those of every context that has counts. A
/// context has them once it holds two tasks: most hold one, which a kept
/// row would cost a write, and which a listing counts in one index probe.
/// A context reaching two tasks gets its counts from its tasks as this
/// statement found them (at most one) plus this statement's change. The
/// statements that change tasks keep the counts themselves, under the event
/// order lock every such transaction holds, so nothing changes the tasks or
/// the counts between what a statement read and what it writes.
macro_rules! count {
    () => {
        ", counted AS (INSERT INTO namespace_counts AS c
             SELECT namespace, state, SUM(d) FROM delta GROUP BY 1, 2 HAVING SUM(d) <> 0
             ON CONFLICT (namespace, state) DO UPDATE SET n = c.n + excluded.n),
           contexts AS (
             SELECT c.namespace, c.context_id, c.kept,
               CASE WHEN c.kept THEN NULL ELSE c.d + (SELECT COUNT(*) FROM tasks t
                 WHERE t.namespace = c.namespace AND t.context_id = c.context_id) END AS total
             FROM (SELECT namespace, context_id, SUM(d) AS d, EXISTS (SELECT 1 FROM context_counts k
                     WHERE k.namespace = delta.namespace AND k.context_id = delta.context_id) AS kept
                   FROM delta GROUP BY 1, 2) c),
           context_counted AS (INSERT INTO context_counts AS c
             SELECT namespace, context_id, state, SUM(n) FROM (
               SELECT d.namespace, d.context_id, d.state, d.d AS n FROM delta d
                 JOIN contexts x ON x.namespace = d.namespace AND x.context_id = d.context_id
                 WHERE x.kept OR x.total >= 2
               UNION ALL SELECT t.namespace, t.context_id, t.state, 1 FROM tasks t
                 JOIN contexts x ON x.namespace = t.namespace AND x.context_id = t.context_id
                 WHERE NOT x.kept AND x.total >= 2) s
             GROUP BY 1, 2, 3 HAVING SUM(n) <> 0
             ON CONFLICT (namespace, context_id, state) DO UPDATE SET n = c.n + excluded.n)"
    };
}

/// The events of task `$task` of namespace `$ns` inserted (sequence numbers
/// in `$seqs`, bodies in `$bodies`), given the next positions in that order
/// (under the event order lock).
macro_rules! insert_events {
    ($task:literal, $ns:literal, $seqs:literal, $bodies:literal) => {
        concat!(
            "INSERT INTO task_events(task_id, seq, body, namespace, position) SELECT ",
            $task,
            ", s, b, ",
            $ns,
            ", nextval('event_position') FROM unnest(",
            $seqs,
            "::bigint[], ",
            $bodies,
            "::text[]) AS e(s, b)"
        )
    };
}

/// [`insert_events!`] of task `$1` of namespace `$2`, as the statement's
/// `stored` part.
macro_rules! stored_events {
    ($seqs:literal, $bodies:literal) => {
        concat!(", stored AS (", insert_events!("$1", "$2", $seqs, $bodies), ")")
    };
}

/// The strict answer of a task write: its rank, or the transaction aborted.
macro_rules! strict_rank {
    () => {
        " SELECT COALESCE((SELECT rank FROM written), cleveragents_refuse())"
    };
}

/// A task created (`$1`…`$7`) as `written`, counted.
macro_rules! create_task {
    () => {
        concat!(
            "WITH written AS (INSERT INTO tasks(id, namespace, context_id, state, status_ts, last_seq, rank, body)
               VALUES($1, $2, $3, $4, $5, $6, nextval('task_rank'), $7)
               ON CONFLICT (id) DO NOTHING RETURNING rank, namespace, context_id, state),
             delta AS (SELECT namespace, context_id, state, 1::bigint AS d FROM written)",
            count!()
        )
    };
}

/// A task updated (`$1`…`$7`) if its log ends at `$8`, as `written`,
/// counted: out of what it was (read in the same statement, under the
/// event order lock, so no other writer changed it since), into what it is.
macro_rules! update_task {
    ($rank:literal) => {
        concat!(
            "WITH written AS (UPDATE tasks t SET namespace = $2, context_id = $3, state = $4, status_ts = $5,
                 last_seq = $6, rank = nextval('task_rank'), body = $7
               FROM tasks was WHERE t.id = $1 AND t.last_seq = $8 AND was.id = t.id
                 AND (",
            $rank,
            "::bigint IS NULL OR t.rank = ",
            $rank,
            ")
               RETURNING t.rank, t.namespace, t.context_id, t.state,
                 was.namespace AS was_namespace, was.context_id AS was_context, was.state AS was_state),
             delta AS (SELECT namespace, context_id, state, 1::bigint AS d FROM written
               UNION ALL SELECT was_namespace, was_context, was_state, -1 FROM written)",
            count!()
        )
    };
}

macro_rules! put_doc_absent {
    () => {
        "INSERT INTO docs(coll, namespace, key, version, body) VALUES($1, $2, $3, 1, $4)
         ON CONFLICT (coll, namespace, key) DO NOTHING RETURNING version"
    };
}
macro_rules! put_doc_version {
    () => {
        "UPDATE docs SET version = version + 1, body = $4
         WHERE coll = $1 AND namespace = $2 AND key = $3 AND version = $5 RETURNING version"
    };
}
macro_rules! delete_doc_version {
    () => {
        "DELETE FROM docs WHERE coll = $1 AND namespace = $2 AND key = $3 AND version = $4 RETURNING 0::bigint"
    };
}
macro_rules! doc_absent {
    () => {
        "SELECT 0::bigint WHERE NOT EXISTS (SELECT 1 FROM docs WHERE coll = $1 AND namespace = $2 AND key = $3)"
    };
}

/// Creates a task (`$1`…`$7`: id, namespace, context, state, status
/// timestamp, last sequence number, body); its rank, or no row if it exists.
pub(super) const CREATE_TASK: &str = concat!(create_task!(), " SELECT rank FROM written");
/// [`CREATE_TASK`] with its events (`$8` sequence numbers, `$9` bodies), strict.
pub(super) const CREATE_TASK_STRICT: &str =
    concat!(create_task!(), stored_events!("$8", "$9"), strict_rank!());
/// Updates a task whose log ends at `$8` and, unless `$9` is NULL, whose
/// rank is `$9` (the row was not rewritten since it was read); its new rank,
/// or no row.
pub(super) const UPDATE_TASK: &str = concat!(update_task!("$9"), " SELECT rank FROM written");
/// [`UPDATE_TASK`] with its events (`$9` sequence numbers, `$10` bodies) and
/// the expected rank in `$11`, strict.
pub(super) const UPDATE_TASK_STRICT: &str =
    concat!(update_task!("$11"), stored_events!("$9", "$10"), strict_rank!());
/// Every task write of a group whose commits write nothing else, each on a
/// task no other commit of the group touches, in one strict statement: the
/// set form of [`CREATE_TASK_STRICT`] and [`UPDATE_TASK_STRICT`] with
/// [`FAN_OUT`](super::outbox::FAN_OUT) folded in. One row per task write
/// (`$1`…`$12`: id, namespace, context, state, status timestamp, last
/// sequence number, body, whether it creates, the expected last sequence
/// number, and the fan-out's collection, key prefix and prefix end, or
/// NULL; `$17`: the expected rank, or NULL), one per event (`$13`…`$16`: task id, namespace, sequence number,
/// body; the events get their positions in that order). Answers, per task
/// write, its ordinal, its new rank and the outbox rows its events owe, or
/// raises when any write failed its check. The fan-out joins the events
/// given here rather than the table: a statement does not see its own rows.
pub(super) const WRITE_TASKS_STRICT: &str = concat!(
    "WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                            $7::text[], $8::bool[], $9::bigint[], $10::text[], $11::text[], $12::text[],
                            $17::bigint[])
         WITH ORDINALITY AS i(id, namespace, context_id, state, status_ts, last_seq, body, is_create,
                              expected, coll, prefix, prefix_end, expected_rank, n)),
     events AS (
       SELECT * FROM unnest($13::text[], $14::text[], $15::bigint[], $16::text[]) AS e(task_id, namespace, seq, body)),
     created AS (
       INSERT INTO tasks(id, namespace, context_id, state, status_ts, last_seq, rank, body)
       SELECT id, namespace, context_id, state, status_ts, last_seq, nextval('task_rank'), body
       FROM input WHERE is_create
       ON CONFLICT (id) DO NOTHING RETURNING id, rank, namespace, context_id, state),
     updated AS (
       UPDATE tasks t SET namespace = i.namespace, context_id = i.context_id, state = i.state,
         status_ts = i.status_ts, last_seq = i.last_seq, rank = nextval('task_rank'), body = i.body
       FROM input i JOIN tasks was ON was.id = i.id
       WHERE NOT i.is_create AND t.id = i.id AND t.last_seq = i.expected
         AND (i.expected_rank IS NULL OR t.rank = i.expected_rank)
       RETURNING t.id, t.rank, t.namespace, t.context_id, t.state,
         was.namespace AS was_namespace, was.context_id AS was_context, was.state AS was_state),
     delta AS (
       SELECT namespace, context_id, state, 1::bigint AS d FROM created
       UNION ALL SELECT namespace, context_id, state, 1 FROM updated
       UNION ALL SELECT was_namespace, was_context, was_state, -1 FROM updated)",
    count!(),
    ",
     stored AS (INSERT INTO task_events(task_id, seq, body, namespace, position)
       SELECT task_id, seq, body, namespace, nextval('event_position') FROM events),
     owed AS (INSERT INTO push_outbox(namespace, task_id, config_id, seq, body)
       SELECT i.namespace, i.id, substr(d.key, length(i.prefix) + 1), e.seq, e.body
       FROM input i
       JOIN docs d ON d.coll = i.coll AND d.namespace = i.namespace AND d.key >= i.prefix
         AND (i.prefix_end IS NULL OR d.key < i.prefix_end) AND left(d.key, length(i.prefix)) = i.prefix
       JOIN events e ON e.task_id = i.id
       RETURNING task_id),
     written AS (SELECT id, rank FROM created UNION ALL SELECT id, rank FROM updated),
     owed_per_task AS (SELECT task_id, count(*) AS owed FROM owed GROUP BY task_id)
     SELECT i.n, COALESCE(w.rank, cleveragents_refuse()), COALESCE(o.owed, 0)
     FROM input i LEFT JOIN written w ON w.id = i.id LEFT JOIN owed_per_task o ON o.task_id = i.id"
);
pub(super) const TASK_LAST_SEQ: &str = "SELECT last_seq FROM tasks WHERE id = $1";
/// Stores the events of task `$1` of namespace `$2` (`$3` sequence numbers,
/// `$4` bodies), as the strict writes do.
pub(super) const APPEND_EVENTS: &str = insert_events!("$1", "$2", "$3", "$4");
pub(super) const LOCK_EVENT_ORDER: &str = "SELECT pg_advisory_xact_lock($1)";
pub(super) const ANNOUNCE: &str = "SELECT pg_notify($1, $2)";
/// Every announcement of a group (`$2`) on channel `$1`, in one statement.
pub(super) const ANNOUNCE_ALL: &str = "SELECT pg_notify($1, a) FROM unnest($2::text[]) AS a";

/// Removes task `$1` of namespace `$2` with its events and its outbox rows,
/// and counts it out, in one statement; how many tasks went (0 or 1).
pub(super) const DELETE_TASK: &str = concat!(
    "WITH gone AS (DELETE FROM tasks WHERE id = $1 AND namespace = $2 RETURNING id, namespace, context_id, state),
       events AS (DELETE FROM task_events WHERE task_id IN (SELECT id FROM gone)),
       owed AS (DELETE FROM push_outbox WHERE namespace = $2 AND task_id IN (SELECT id FROM gone)),
       delta AS (SELECT namespace, context_id, state, -1::bigint AS d FROM gone)",
    count!(),
    " SELECT COUNT(*) FROM gone"
);

pub(super) const DOC_VERSION: &str =
    "SELECT version FROM docs WHERE coll = $1 AND namespace = $2 AND key = $3";
/// Puts a document whatever it holds; its new version.
pub(super) const PUT_DOC_ANY: &str =
    "INSERT INTO docs(coll, namespace, key, version, body) VALUES($1, $2, $3, 1, $4)
     ON CONFLICT (coll, namespace, key) DO UPDATE SET version = docs.version + 1, body = excluded.body
     RETURNING version";
/// Puts a document that must not exist; version 1, or no row.
pub(super) const PUT_DOC_ABSENT: &str = put_doc_absent!();
pub(super) const PUT_DOC_ABSENT_STRICT: &str = strict!(put_doc_absent!());
/// Puts a document found at version `$5`; its new version, or no row.
pub(super) const PUT_DOC_VERSION: &str = put_doc_version!();
pub(super) const PUT_DOC_VERSION_STRICT: &str = strict!(put_doc_version!());
pub(super) const DELETE_DOC_ANY: &str = "DELETE FROM docs WHERE coll = $1 AND namespace = $2 AND key = $3";
/// Deletes a document found at version `$4`; 0, or no row.
pub(super) const DELETE_DOC_VERSION: &str = delete_doc_version!();
pub(super) const DELETE_DOC_VERSION_STRICT: &str = strict!(delete_doc_version!());
/// Checks that a document a deletion expects absent is; 0, or no row.
pub(super) const DOC_ABSENT_STRICT: &str = strict!(doc_absent!());

/// The migration that creates the function a strict statement calls when
/// its check fails.
pub(super) const CREATE_REFUSE: &str = "
    -- Raised by a commit's statement whose optimistic check failed, so a
    -- group of commits sent in one round trip aborts and is replayed one
    -- commit at a time.
    CREATE OR REPLACE FUNCTION cleveragents_refuse() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
        RAISE EXCEPTION 'a commit found another version than it expected' USING ERRCODE = 'CAR01';
    END $$;
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strict_statement_wraps_its_lenient_one_and_calls_the_refusal() {
        for (statement, parts) in [
            (CREATE_TASK_STRICT, create_task!()),
            (CREATE_TASK, create_task!()),
            (UPDATE_TASK_STRICT, update_task!("$11")),
            (UPDATE_TASK, update_task!("$9")),
        ] {
            assert!(statement.starts_with(parts), "{statement}");
        }
        for changes_tasks in [
            CREATE_TASK,
            CREATE_TASK_STRICT,
            UPDATE_TASK,
            UPDATE_TASK_STRICT,
            WRITE_TASKS_STRICT,
            DELETE_TASK,
        ] {
            assert!(changes_tasks.contains(count!()), "{changes_tasks}");
        }
        assert!(PUT_DOC_VERSION_STRICT.contains(PUT_DOC_VERSION));
        for strict in [
            CREATE_TASK_STRICT,
            UPDATE_TASK_STRICT,
            PUT_DOC_ABSENT_STRICT,
            PUT_DOC_VERSION_STRICT,
            DELETE_DOC_VERSION_STRICT,
            DOC_ABSENT_STRICT,
            WRITE_TASKS_STRICT,
        ] {
            assert!(strict.contains("cleveragents_refuse())"), "{strict}");
        }
        assert!(CREATE_REFUSE.contains("FUNCTION cleveragents_refuse()"));
    }
}
