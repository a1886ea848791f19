//! Group commit: one writer thread owns the write connection. Commits queue
//! up while it is busy; each turn takes everything queued, applies the
//! commits in one transaction (a commit that fails its checks is rolled
//! back alone and changes nothing: see [`commit_batch`]), makes the
//! transaction durable with one `fsync`, and only then tells every caller
//! its outcome. Under load many commits share one `fsync`; alone, a commit
//! costs what it did before. What the readers are served from memory (the
//! task counts, the recent bodies) takes a turn's changes once it is durable.

use super::checkpoint::Checkpointer;
use super::counts::{Delta, TaskCounts};
use super::outbox;
use super::recent::{BodyChange, RecentBodies};
use super::rows::backend;
use a2a::rpc::RawJson;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use store::json::encode;
use store::{
    Commit, CommitDone, Committed, DocWrite, Expect, StoreError, StoreResult, TaskDelete, TaskWrite,
};

/// The most commits one transaction takes, so one turn's latency stays bounded.
const MAX_BATCH: usize = 256;

type Job = (Commit, CommitDone);

/// What the writer keeps current for the readers, in memory.
pub(super) struct Published {
    pub counts: Arc<TaskCounts>,
    pub recent: Arc<RecentBodies>,
    /// Told of every durable turn, so the WAL is checkpointed off this thread.
    pub checkpoint: Checkpointer,
}

/// A turn's changes to what is published, gathered while it is applied and
/// handed over once it is durable.
#[derive(Default)]
struct Effects {
    deltas: Vec<Delta>,
    bodies: Vec<BodyChange>,
}

impl Effects {
    fn extend(&mut self, other: Effects) {
        self.deltas.extend(other.deltas);
        self.bodies.extend(other.bodies);
    }
}

/// The queue of the writer thread.
pub(super) struct Writer {
    // Behind a mutex so `Writer` is `Sync` on every supported toolchain;
    // the critical section is one channel send. `None` once shutting down.
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Writer {
    /// Starts the writer thread on `conn`.
    pub(super) fn start(conn: Connection, published: Published) -> StoreResult<Self> {
        let (tx, rx) = mpsc::channel::<Job>();
        let seqs = Sequences::load(&conn)?;
        let thread = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || run(conn, seqs, &published, rx))
            .map_err(backend)?;
        Ok(Writer {
            queue: Mutex::new(Some(tx)),
            thread: Some(thread),
        })
    }

    /// Queues `commit`; `done` hears the outcome once it is durable.
    pub(super) fn submit(&self, commit: Commit, done: CommitDone) {
        let refused = match self.queue.lock() {
            Ok(queue) => match queue.as_ref() {
                Some(queue) => queue.send((commit, done)).err().map(|e| e.0 .1),
                None => Some(done),
            },
            Err(_) => {
                done(Err(StoreError::Backend(
                    "sqlite writer queue lock poisoned".into(),
                )));
                return;
            }
        };
        if let Some(done) = refused {
            done(Err(StoreError::Backend("the sqlite writer has stopped".into())));
        }
    }
}

impl Drop for Writer {
    /// Lets the writer finish what is queued and close its connection
    /// before the store is gone, so a reopen finds the file at rest.
    fn drop(&mut self) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.take();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The writer's loop: one transaction per turn until every sender is gone.
fn run(mut conn: Connection, mut seqs: Sequences, published: &Published, rx: mpsc::Receiver<Job>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let outcomes = commit_batch(&mut conn, &mut seqs, published, &batch);
        for ((_, done), outcome) in batch.into_iter().zip(outcomes) {
            done(outcome);
        }
    }
}

/// Applies every commit of `batch` in one durable transaction; the outcome
/// of each, in order. A commit that fails changes nothing and the others
/// still land.
///
/// Most turns fail nothing, so the commits are first applied straight into
/// the transaction. Only when one of them fails is that attempt rolled back
/// and the turn applied again with a savepoint around each commit, which
/// costs a statement pair and a journal copy of every page a commit touches.
fn commit_batch(
    conn: &mut Connection,
    seqs: &mut Sequences,
    published: &Published,
    batch: &[Job],
) -> Vec<StoreResult<Committed>> {
    match commit_straight(conn, seqs, published, batch) {
        Some(outcomes) => outcomes,
        None => commit_isolated(conn, seqs, published, batch),
    }
}

/// Every commit of `batch` applied in order in one transaction, made
/// durable. `None` when a commit failed in a turn of several: nothing of the
/// attempt is kept (the transaction is rolled back) and the turn must be
/// applied commit by commit. A turn of one commit needs no second attempt:
/// its failure is its outcome.
fn commit_straight(
    conn: &mut Connection,
    seqs: &mut Sequences,
    published: &Published,
    batch: &[Job],
) -> Option<Vec<StoreResult<Committed>>> {
    let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => return Some(failed_all(batch.len(), backend(e))),
    };
    let mut outcomes = Vec::with_capacity(batch.len());
    let mut effects = Effects::default();
    for (commit, _) in batch {
        match apply(&tx, seqs, commit) {
            Ok((applied, effect)) => {
                effects.extend(effect);
                outcomes.push(Ok(applied));
            }
            // Dropping the transaction rolls the attempt back.
            Err(e) if batch.len() == 1 => return Some(vec![Err(e)]),
            Err(_) => return None,
        }
    }
    Some(finish(tx, seqs, published, outcomes, effects))
}

/// Every commit of `batch` in its own savepoint of one transaction: one that
/// fails is rolled back alone.
fn commit_isolated(
    conn: &mut Connection,
    seqs: &mut Sequences,
    published: &Published,
    batch: &[Job],
) -> Vec<StoreResult<Committed>> {
    let mut tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => return failed_all(batch.len(), backend(e)),
    };
    let mut outcomes = Vec::with_capacity(batch.len());
    let mut effects = Effects::default();
    for (commit, _) in batch {
        let outcome = tx.savepoint().map_err(backend).and_then(|sp| {
            let (applied, effect) = apply(&sp, seqs, commit)?;
            sp.commit().map_err(backend)?;
            effects.extend(effect);
            Ok(applied)
        });
        // A savepoint dropped without `commit` rolls back what it did.
        outcomes.push(outcome);
    }
    finish(tx, seqs, published, outcomes, effects)
}

/// Saves the sequences and commits the turn's transaction; what is
/// published takes the turn's changes once it is durable.
fn finish(
    tx: rusqlite::Transaction<'_>,
    seqs: &mut Sequences,
    published: &Published,
    outcomes: Vec<StoreResult<Committed>>,
    effects: Effects,
) -> Vec<StoreResult<Committed>> {
    if let Err(e) = seqs.save(&tx) {
        return failed_all(outcomes.len(), e);
    }
    match tx.commit() {
        Ok(()) => {
            published.counts.apply(&effects.deltas);
            published.recent.apply(effects.bodies);
            published.checkpoint.committed();
            outcomes
        }
        // Nothing of the turn is on disk: the numbers handed out are lost
        // too, which only leaves a gap in their sequence.
        Err(e) => failed_all(outcomes.len(), backend(e)),
    }
}

/// `count` outcomes, each the turn's failure `e`.
fn failed_all(count: usize, e: StoreError) -> Vec<StoreResult<Committed>> {
    vec![Err(e); count]
}

/// One commit: the task write, then the document writes in order; what it
/// does to what is published.
fn apply(conn: &Connection, seqs: &mut Sequences, commit: &Commit) -> StoreResult<(Committed, Effects)> {
    let mut effects = Effects::default();
    let task_rank = match &commit.task {
        Some(tw) => {
            let (rank, delta, body) = write_task(conn, seqs, tw)?;
            effects.deltas.push(delta);
            effects.bodies.push(BodyChange::Written {
                namespace: tw.row.namespace.clone(),
                id: tw.row.id.clone(),
                body,
            });
            Some(rank)
        }
        None => None,
    };
    let mut versions = Vec::with_capacity(commit.docs.len());
    for (index, write) in commit.docs.iter().enumerate() {
        versions.push(write_doc(conn, index, write)?);
    }
    // After the documents: a target written by this commit is owed its events too.
    let deliveries_owed = match (&commit.task, &commit.fanout) {
        (Some(tw), Some(fanout)) => outbox::fan_out(conn, tw, fanout)?,
        _ => 0,
    };
    let mut deleted_tasks = 0;
    for delete in &commit.delete_tasks {
        if let Some(delta) = delete_task(conn, delete)? {
            deleted_tasks += 1;
            effects.deltas.push(delta);
            effects.bodies.push(BodyChange::Deleted {
                id: delete.id.clone(),
            });
        }
    }
    for change in &commit.deliveries {
        outbox::apply(conn, change)?;
    }
    Ok((
        Committed {
            task_rank,
            doc_versions: versions,
            deleted_tasks,
            deliveries_owed,
        },
        effects,
    ))
}

/// Deletes one task with its events and their places in the event order;
/// what it does to the counts, `None` when there was no such task.
fn delete_task(conn: &Connection, delete: &TaskDelete) -> StoreResult<Option<Delta>> {
    let stored: Option<(String, String)> = conn
        .prepare_cached("SELECT context_id, state FROM tasks WHERE id = ?1 AND namespace = ?2")
        .and_then(|mut stmt| {
            stmt.query_row(params![delete.id, delete.namespace], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
        })
        .map_err(backend)?;
    let Some((context, state)) = stored else {
        return Ok(None);
    };
    for sql in [
        "DELETE FROM task_events WHERE task_id = ?1",
        "DELETE FROM tasks WHERE id = ?1",
    ] {
        conn.prepare_cached(sql)
            .and_then(|mut stmt| stmt.execute([&delete.id]))
            .map_err(backend)?;
    }
    outbox::drop_task(conn, &delete.namespace, &delete.id)?;
    let context = (&delete.namespace, &context);
    if counted(conn, context)? {
        count_out(conn, context, &state)?;
    }
    Ok(Some(Delta {
        namespace: delete.namespace.clone(),
        from: Some((delete.namespace.clone(), state)),
        to: None,
    }))
}

/// The numbers the writer hands out: the recency rank of task writes and
/// the store-wide position of task events. Kept in memory, saved once per
/// turn; they only need to grow, and a failed turn leaves a gap.
struct Sequences {
    rank: Counter,
    position: Counter,
}

impl Sequences {
    fn load(conn: &Connection) -> StoreResult<Self> {
        Ok(Sequences {
            rank: Counter::load(conn, "task_rank", "SELECT MAX(rank) FROM tasks")?,
            position: Counter::load(conn, "event_position", "SELECT MAX(position) FROM task_events")?,
        })
    }

    fn save(&mut self, conn: &Connection) -> StoreResult<()> {
        self.rank.save(conn)?;
        self.position.save(conn)
    }
}

/// One of [`Sequences`], saved as row `name` of `counters`; on load, never
/// below what is stored (`stored` gives the largest).
struct Counter {
    name: &'static str,
    last: i64,
    saved: i64,
}

impl Counter {
    fn load(conn: &Connection, name: &'static str, stored: &str) -> StoreResult<Self> {
        let last: i64 = conn
            .query_row(
                &format!(
                    "SELECT MAX(COALESCE((SELECT value FROM counters WHERE name = ?1), 0),
                                COALESCE(({stored}), 0))"
                ),
                [name],
                |r| r.get(0),
            )
            .map_err(backend)?;
        Ok(Counter {
            name,
            last,
            saved: last,
        })
    }

    fn next(&mut self) -> i64 {
        self.last += 1;
        self.last
    }

    fn save(&mut self, conn: &Connection) -> StoreResult<()> {
        if self.last != self.saved {
            conn.prepare_cached(
                "INSERT INTO counters(name, value) VALUES(?1, ?2)
                 ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            )
            .and_then(|mut stmt| stmt.execute(params![self.name, self.last]))
            .map_err(backend)?;
            self.saved = self.last;
        }
        Ok(())
    }
}

/// Checks the task write's expectation, then stores the task row under the
/// next rank and appends its events at the next positions; the rank given,
/// the change of state and the body as stored.
fn write_task(conn: &Connection, seqs: &mut Sequences, tw: &TaskWrite) -> StoreResult<(i64, Delta, RawJson)> {
    let rank = seqs.rank.next();
    let stored: Option<(i64, i64, String, String, String)> = conn
        .prepare_cached("SELECT last_seq, rank, namespace, state, context_id FROM tasks WHERE id = ?1")
        .and_then(|mut stmt| {
            stmt.query_row([&tw.row.id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .optional()
        })
        .map_err(backend)?;
    let (found, stored_rank, from, from_context) = match stored {
        Some((seq, rank, namespace, state, context)) => (
            Some(seq as u64),
            Some(rank),
            Some((namespace, state)),
            Some(context),
        ),
        None => (None, None, None, None),
    };
    let ok = match (tw.create, found) {
        (true, None) => true,
        (false, Some(seq)) => {
            seq == tw.expected_last_seq
                && tw
                    .expected_rank
                    .is_none_or(|expected| Some(expected) == stored_rank)
        }
        _ => false,
    };
    if !ok {
        return Err(StoreError::Conflict { index: None, found });
    }
    let last_seq = tw.events.last().map(|e| e.seq).unwrap_or(tw.row.last_seq);
    let body = serde_json::value::to_raw_value(&tw.row.body).map_err(backend)?;
    let mut upsert = conn
        .prepare_cached(
            "INSERT INTO tasks(id, namespace, context_id, state, status_ts, last_seq, rank, body)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT(id) DO UPDATE SET namespace = excluded.namespace,
               context_id = excluded.context_id, state = excluded.state,
               status_ts = excluded.status_ts, last_seq = excluded.last_seq,
               rank = excluded.rank, body = excluded.body",
        )
        .map_err(backend)?;
    upsert
        .execute(params![
            tw.row.id,
            tw.row.namespace,
            tw.row.context_id,
            tw.row.state,
            tw.row.status_ts,
            last_seq as i64,
            rank,
            body.get()
        ])
        .map_err(backend)?;
    let mut append = conn
        .prepare_cached(
            "INSERT INTO task_events(task_id, seq, body, namespace, position) VALUES(?1, ?2, ?3, ?4, ?5)",
        )
        .map_err(backend)?;
    for event in &tw.events {
        let body = encode(&event.body)?;
        append
            .execute(params![
                tw.row.id,
                event.seq as i64,
                body,
                tw.row.namespace,
                seqs.position.next()
            ])
            .map_err(backend)?;
    }
    let context = (&tw.row.namespace, &tw.row.context_id);
    let stayed = from
        .as_ref()
        .map(|(namespace, _)| namespace)
        .zip(from_context.as_ref())
        == Some(context);
    match (&from, &from_context) {
        (Some((_, state)), _) if stayed && *state == tw.row.state => {}
        (Some((_, state)), _) if stayed => {
            if counted(conn, context)? {
                count_out(conn, context, state)?;
                count_in(conn, context, &tw.row.state)?;
            }
        }
        // Written under another context: out of the counts of the one it
        // leaves, into those of the one it joins as a new task would be.
        (Some((namespace, state)), Some(left)) => {
            if counted(conn, (namespace, left))? {
                count_out(conn, (namespace, left), state)?;
            }
            join_counts(conn, context, &tw.row.state, &tw.row.id)?;
        }
        _ => join_counts(conn, context, &tw.row.state, &tw.row.id)?,
    }
    let delta = Delta {
        namespace: tw.row.namespace.clone(),
        from,
        to: Some(tw.row.state.clone()),
    };
    Ok((rank, delta, body))
}

/// Task `id`, now in `state`, joins (namespace, context): counted in when
/// the context has counts, else the context's counts start if it now holds
/// another task.
fn join_counts(conn: &Connection, context: (&String, &String), state: &str, id: &str) -> StoreResult<()> {
    if counted(conn, context)? {
        count_in(conn, context, state)
    } else {
        start_counting_if_shared(conn, context, id)
    }
}

/// True when the (namespace, context) has counts: it holds two tasks or more.
fn counted(conn: &Connection, (namespace, context): (&String, &String)) -> StoreResult<bool> {
    conn.prepare_cached("SELECT 1 FROM context_counts WHERE namespace = ?1 AND context_id = ?2 LIMIT 1")
        .and_then(|mut stmt| stmt.exists(params![namespace, context]))
        .map_err(backend)
}

/// After task `id` was added to an uncounted (namespace, context): when the
/// context held a task already, its counts start, from its rows. A context
/// of one task (most of them) costs two index probes and no write.
fn start_counting_if_shared(
    conn: &Connection,
    (namespace, context): (&String, &String),
    id: &str,
) -> StoreResult<()> {
    let shared = conn
        .prepare_cached("SELECT 1 FROM tasks WHERE namespace = ?1 AND context_id = ?2 AND id <> ?3 LIMIT 1")
        .and_then(|mut stmt| stmt.exists(params![namespace, context, id]))
        .map_err(backend)?;
    if shared {
        conn.prepare_cached(
            "INSERT INTO context_counts(namespace, context_id, state, n)
             SELECT namespace, context_id, state, COUNT(*) FROM tasks
             WHERE namespace = ?1 AND context_id = ?2 GROUP BY state",
        )
        .and_then(|mut stmt| stmt.execute(params![namespace, context]))
        .map_err(backend)?;
    }
    Ok(())
}

/// One task more in `state` in its (namespace, context).
fn count_in(conn: &Connection, (namespace, context): (&String, &String), state: &str) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO context_counts(namespace, context_id, state, n) VALUES(?1, ?2, ?3, 1)
         ON CONFLICT(namespace, context_id, state) DO UPDATE SET n = n + 1",
    )
    .and_then(|mut stmt| stmt.execute(params![namespace, context, state]))
    .map_err(backend)?;
    Ok(())
}

/// One task fewer in `state` in its (namespace, context): the row goes with
/// its last task (the common case, one statement), else it is decremented.
fn count_out(conn: &Connection, (namespace, context): (&String, &String), state: &str) -> StoreResult<()> {
    let deleted = conn
        .prepare_cached(
            "DELETE FROM context_counts WHERE namespace = ?1 AND context_id = ?2 AND state = ?3 AND n <= 1",
        )
        .and_then(|mut stmt| stmt.execute(params![namespace, context, state]))
        .map_err(backend)?;
    if deleted == 0 {
        conn.prepare_cached(
            "UPDATE context_counts SET n = n - 1 WHERE namespace = ?1 AND context_id = ?2 AND state = ?3",
        )
        .and_then(|mut stmt| stmt.execute(params![namespace, context, state]))
        .map_err(backend)?;
    }
    Ok(())
}

/// Checks document write `index` against its expectation, then puts or
/// deletes it; the document's new version (0 for a deletion).
fn write_doc(conn: &Connection, index: usize, write: &DocWrite) -> StoreResult<u64> {
    let found: Option<i64> = conn
        .prepare_cached("SELECT version FROM docs WHERE coll = ?1 AND namespace = ?2 AND key = ?3")
        .and_then(|mut stmt| {
            stmt.query_row(params![write.coll, write.namespace, write.key], |r| r.get(0))
                .optional()
        })
        .map_err(backend)?;
    let found = found.map(|v| v as u64);
    let ok = match write.expect {
        Expect::Any => true,
        Expect::Absent => found.is_none(),
        Expect::Version(v) => found == Some(v),
    };
    if !ok {
        return Err(StoreError::Conflict {
            index: Some(index),
            found,
        });
    }
    match &write.value {
        Some(value) => {
            let version = found.unwrap_or(0) + 1;
            let body = encode(value)?;
            conn.prepare_cached(
                "INSERT INTO docs(coll, namespace, key, version, body) VALUES(?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(coll, namespace, key) DO UPDATE SET version = excluded.version, body = excluded.body",
            )
            .and_then(|mut stmt| {
                stmt.execute(params![write.coll, write.namespace, write.key, version as i64, body])
            })
            .map_err(backend)?;
            Ok(version)
        }
        None => {
            conn.prepare_cached("DELETE FROM docs WHERE coll = ?1 AND namespace = ?2 AND key = ?3")
                .and_then(|mut stmt| stmt.execute(params![write.coll, write.namespace, write.key]))
                .map_err(backend)?;
            Ok(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A migrated database in a scratch directory and the writer's state over it.
    fn database() -> (tempfile::TempDir, Connection, Sequences, Published) {
        let dir = tempfile::tempdir().expect("scratch dir");
        let path = dir.path().join("store.db");
        let mut conn = Connection::open_with_flags_and_vfs(
            &path,
            rusqlite::OpenFlags::default(),
            crate::rows::EXCLUSIVE_VFS,
        )
        .expect("open");
        crate::migrate(&mut conn).expect("migrate");
        let seqs = Sequences::load(&conn).expect("sequences");
        let published = Published {
            counts: Arc::new(TaskCounts::load(&conn).expect("counts")),
            recent: Arc::default(),
            checkpoint: Checkpointer::start(&path).expect("checkpointer"),
        };
        (dir, conn, seqs, published)
    }

    fn put(key: &str, expect: Expect) -> DocWrite {
        DocWrite::put("notes", "ns", key, expect, json!({ "key": key }))
    }

    fn job(docs: Vec<DocWrite>) -> Job {
        let commit = Commit {
            docs,
            ..Commit::default()
        };
        (commit, Box::new(|_| {}))
    }

    /// A commit creating task `id`, then writing `docs`.
    fn task_job(id: &str, docs: Vec<DocWrite>) -> Job {
        let task: a2a::types::Task = serde_json::from_value(
            json!({ "id": id, "contextId": "c", "status": { "state": a2a::types::TaskState::Completed } }),
        )
        .expect("task");
        let commit = Commit {
            task: Some(TaskWrite {
                row: store::TaskRow::new("ns", task, 0),
                create: true,
                expected_last_seq: 0,
                expected_rank: None,
                events: vec![],
            }),
            docs,
            ..Commit::default()
        };
        (commit, Box::new(|_| {}))
    }

    fn stored_keys(conn: &Connection) -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT key FROM docs WHERE coll = 'notes' ORDER BY key")
            .expect("prepare");
        let keys = stmt.query_map([], |r| r.get(0)).expect("query");
        keys.collect::<Result<_, _>>().expect("keys")
    }

    #[test]
    fn a_commit_failing_after_a_write_in_a_turn_of_several_changes_nothing_and_the_others_land() {
        let (_dir, mut conn, mut seqs, published) = database();
        let batch = vec![
            job(vec![put("a", Expect::Absent)]),
            // Writes `b`, then fails on `a`, which the commit before created.
            job(vec![put("b", Expect::Absent), put("a", Expect::Absent)]),
            job(vec![put("c", Expect::Absent)]),
        ];
        let outcomes = commit_batch(&mut conn, &mut seqs, &published, &batch);
        assert_eq!(outcomes[0].as_ref().map(|c| c.doc_versions.clone()), Ok(vec![1]));
        assert_eq!(
            outcomes[1],
            Err(StoreError::Conflict {
                index: Some(1),
                found: Some(1)
            })
        );
        assert_eq!(outcomes[2].as_ref().map(|c| c.doc_versions.clone()), Ok(vec![1]));
        assert_eq!(stored_keys(&conn), ["a", "c"]);
    }

    #[test]
    fn a_turn_of_one_failing_commit_changes_nothing() {
        let (_dir, mut conn, mut seqs, published) = database();
        let first = vec![job(vec![put("a", Expect::Absent)])];
        assert!(commit_batch(&mut conn, &mut seqs, &published, &first)[0].is_ok());
        let failing = vec![job(vec![put("b", Expect::Absent), put("a", Expect::Version(7))])];
        let outcomes = commit_batch(&mut conn, &mut seqs, &published, &failing);
        assert_eq!(
            outcomes,
            [Err(StoreError::Conflict {
                index: Some(1),
                found: Some(1)
            })]
        );
        assert_eq!(stored_keys(&conn), ["a"]);
    }

    #[test]
    fn only_the_bodies_of_durable_commits_are_served_from_memory() {
        let (_dir, mut conn, mut seqs, published) = database();
        let batch = vec![
            task_job("t1", vec![put("a", Expect::Absent)]),
            // Creates t2, then fails on `a`: t2 was never stored.
            task_job("t2", vec![put("a", Expect::Absent)]),
            task_job("t3", vec![]),
        ];
        let outcomes = commit_batch(&mut conn, &mut seqs, &published, &batch);
        assert_eq!(
            outcomes.iter().map(Result::is_ok).collect::<Vec<_>>(),
            [true, false, true]
        );
        let held = |id: &str| published.recent.get("ns", id).map(|b| b.get().to_string());
        let stored: Option<String> = conn
            .query_row("SELECT body FROM tasks WHERE id = 't1'", [], |r| r.get(0))
            .optional()
            .expect("read");
        assert_eq!(held("t1"), stored);
        assert!(held("t1").is_some_and(|b| b.contains(r#""id":"t1""#)));
        assert_eq!(held("t2"), None);
        assert!(held("t3").is_some());
        // Deleted, the task is no longer held.
        let delete = Commit {
            delete_tasks: vec![TaskDelete {
                namespace: "ns".into(),
                id: "t1".into(),
            }],
            ..Commit::default()
        };
        let outcomes = commit_batch(&mut conn, &mut seqs, &published, &[(delete, Box::new(|_| {}))]);
        assert_eq!(outcomes[0].as_ref().map(|c| c.deleted_tasks), Ok(1));
        assert_eq!(held("t1"), None);
    }
}
