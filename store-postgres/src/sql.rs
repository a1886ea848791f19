//! The statements a commit runs, in two forms.
//!
//! The **lenient** form answers a failed optimistic check with no row (an
//! insert that met an existing key, an update that found another version),
//! so the replay path ([`writer`](super::writer)) can tell which write failed
//! and look up what it found. The **strict** form raises an error instead
//! ([`REFUSE`]), so a group sent in one round trip ([`group`](super::group))
//! aborts its transaction on the first failed check, and the `COMMIT` sent
//! behind it rolls the whole group back: nothing of it stands, and the group
//! is replayed the lenient way. Each strict statement wraps its lenient one,
//! so the two cannot drift apart.

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

/// The strict form of a task write (`$1` its id, `$2` its namespace) that
/// also appends its events: sequence numbers in parameter `$seqs`, bodies in
/// `$bodies`, positions given in that order (under the event order lock).
macro_rules! strict_with_events {
    ($task:expr, $seqs:literal, $bodies:literal) => {
        concat!(
            "WITH written AS (",
            $task,
            "), stored AS (INSERT INTO task_events(task_id, seq, body) SELECT $1, s, b FROM unnest(",
            $seqs,
            "::bigint[], ",
            $bodies,
            "::text[]) AS e(s, b)), placed AS (INSERT INTO event_order(position, namespace, task_id, seq) \
             SELECT nextval('event_position'), $2, $1, s FROM unnest(",
            $seqs,
            "::bigint[]) AS e(s)) SELECT COALESCE((SELECT * FROM written), cleveragents_refuse())"
        )
    };
}

macro_rules! create_task {
    () => {
        "INSERT INTO tasks(id, namespace, context_id, state, status_ts, last_seq, rank, body)
         VALUES($1, $2, $3, $4, $5, $6, nextval('task_rank'), $7)
         ON CONFLICT (id) DO NOTHING RETURNING rank"
    };
}
macro_rules! update_task {
    () => {
        "UPDATE tasks SET namespace = $2, context_id = $3, state = $4, status_ts = $5,
           last_seq = $6, rank = nextval('task_rank'), body = $7
         WHERE id = $1 AND last_seq = $8 RETURNING rank"
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
pub(super) const CREATE_TASK: &str = create_task!();
/// [`CREATE_TASK`] with its events (`$8` sequence numbers, `$9` bodies), strict.
pub(super) const CREATE_TASK_STRICT: &str = strict_with_events!(create_task!(), "$8", "$9");
/// Updates a task whose log ends at `$8`; its new rank, or no row.
pub(super) const UPDATE_TASK: &str = update_task!();
/// [`UPDATE_TASK`] with its events (`$9` sequence numbers, `$10` bodies), strict.
pub(super) const UPDATE_TASK_STRICT: &str = strict_with_events!(update_task!(), "$9", "$10");
pub(super) const TASK_LAST_SEQ: &str = "SELECT last_seq FROM tasks WHERE id = $1";
/// Stores the events of task `$1` of namespace `$4` (`$2` sequence numbers,
/// `$3` bodies) and gives them the next positions in that order (under the
/// event order lock).
pub(super) const APPEND_EVENTS: &str = "WITH stored AS (
       INSERT INTO task_events(task_id, seq, body) SELECT $1, s, b FROM unnest($2::bigint[], $3::text[]) AS e(s, b))
     INSERT INTO event_order(position, namespace, task_id, seq)
       SELECT nextval('event_position'), $4, $1, s FROM unnest($2::bigint[]) AS e(s)";
pub(super) const LOCK_EVENT_ORDER: &str = "SELECT pg_advisory_xact_lock($1)";
pub(super) const ANNOUNCE: &str = "SELECT pg_notify($1, $2)";
/// Every announcement of a group (`$2`) on channel `$1`, in one statement.
pub(super) const ANNOUNCE_ALL: &str = "SELECT pg_notify($1, a) FROM unnest($2::text[]) AS a";

/// Removes task `$1` of namespace `$2` with its events, their positions and
/// its outbox rows, in one statement; how many tasks went (0 or 1). The task
/// counts are counted from the tasks on every listing, so there are none to
/// adjust.
pub(super) const DELETE_TASK: &str =
    "WITH gone AS (DELETE FROM tasks WHERE id = $1 AND namespace = $2 RETURNING id),
       events AS (DELETE FROM task_events WHERE task_id IN (SELECT id FROM gone)),
       positions AS (DELETE FROM event_order WHERE task_id IN (SELECT id FROM gone)),
       owed AS (DELETE FROM push_outbox WHERE namespace = $2 AND task_id IN (SELECT id FROM gone))
     SELECT COUNT(*) FROM gone";

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
        assert!(CREATE_TASK_STRICT.contains(CREATE_TASK));
        assert!(UPDATE_TASK_STRICT.contains(UPDATE_TASK));
        assert!(PUT_DOC_VERSION_STRICT.contains(PUT_DOC_VERSION));
        for strict in [
            CREATE_TASK_STRICT,
            UPDATE_TASK_STRICT,
            PUT_DOC_ABSENT_STRICT,
            PUT_DOC_VERSION_STRICT,
            DELETE_DOC_VERSION_STRICT,
            DOC_ABSENT_STRICT,
        ] {
            assert!(strict.ends_with("cleveragents_refuse())"), "{strict}");
        }
        assert!(CREATE_REFUSE.contains("FUNCTION cleveragents_refuse()"));
    }
}
