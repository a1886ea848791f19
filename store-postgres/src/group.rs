//! A group of commits in one round trip: `BEGIN`, the event order lock,
//! one statement for every commit that only writes a task (with its events
//! and their fan-out), the statements of every other commit in order (a task
//! write and its events are one statement), every announcement in one
//! statement, and `COMMIT`, all written to the connection before any answer
//! is read (the driver pipelines requests in the order they are first
//! polled). Every statement costs the server a flush of its answer and the
//! set-up of an executor, so the common group, of task writes only, is four
//! or five statements whatever its size. The statements are the strict ones ([`sql`](super::sql)): a
//! failed check raises, the transaction aborts, every later statement is
//! refused and the `COMMIT` rolls it back, so a group either stands whole or
//! leaves nothing; the writer then replays it one commit at a time.

use super::conn::{backend, Conn};
use super::listen::announcement;
use super::outbox;
use super::schema::{EVENTS_CHANNEL, EVENT_ORDER_LOCK};
use super::sql;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use store::json::encode;
use store::{prefix_end, Commit, Committed, DeliveryChange, DocWrite, Expect, StoreError, StoreResult};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Error, Statement};

/// What became of a group sent in one round trip.
pub(super) enum Sent {
    /// Every commit stands, durably: what each did, in order.
    Committed(Vec<Committed>),
    /// A statement failed: nothing of the group stands; replay it.
    RolledBack,
    /// Every statement ran but the `COMMIT` failed (the connection broke):
    /// what stands is unknown, so every commit of the group failed.
    Unknown(StoreError),
}

/// A commit's parameters as the statements take them, made before anything
/// is sent (an encoding failure fails the commit alone), and living as long
/// as the requests that borrow them.
struct Encoded<'a> {
    commit: &'a Commit,
    task: Option<EncodedTask>,
    /// Each document's body (None for a deletion) and expected version (0
    /// unless one is expected).
    docs: Vec<(Option<String>, i64)>,
    /// Each outbox change's sequence number and attempts.
    deliveries: Vec<(i64, i32)>,
    /// The end of the fan-out's key prefix, if it has one.
    prefix_end: Option<String>,
}

/// A task write's parameters.
struct EncodedTask {
    body: String,
    last_seq: i64,
    expected: i64,
    seqs: Vec<i64>,
    events: Vec<String>,
    first_seq: i64,
    /// The announcement of its events, when it appends any.
    announced: Option<String>,
}

/// What one statement's answer means for its commit.
#[derive(Clone, Copy)]
enum Slot {
    None,
    /// The task writes of [`Bulk`]: one answer per commit it took.
    Bulk,
    Rank(usize),
    DocVersion(usize),
    /// A deletion of any version: 0 in its place among the versions.
    DocDeleted(usize),
    Owed(usize),
    Deleted(usize),
}

/// A statement's answer: one value, or the rows of [`sql::WRITE_TASKS_STRICT`].
enum Reply {
    Value(i64),
    Tasks(Vec<TaskReply>),
}

/// One task write's answer in [`Reply::Tasks`].
struct TaskReply {
    /// The write's ordinal among the bulk's, from 1.
    n: i64,
    rank: i64,
    owed: i64,
}

type Request<'a> = Pin<Box<dyn Future<Output = Result<Reply, Error>> + Send + 'a>>;

/// Sends `batch` as one transaction in one round trip (see the module docs).
/// A commit whose values cannot be encoded fails alone, before the others
/// are sent; its outcome is in `failed` at its index.
pub(super) async fn send(conn: &Conn, batch: &[Commit]) -> (Sent, Vec<Option<StoreError>>) {
    let mut failed: Vec<Option<StoreError>> = batch.iter().map(|_| None).collect();
    let mut encoded = Vec::with_capacity(batch.len());
    for (i, commit) in batch.iter().enumerate() {
        match encode_commit(commit) {
            Ok(e) => encoded.push((i, e)),
            Err(e) => failed[i] = Some(e),
        }
    }
    if encoded.is_empty() {
        return (
            Sent::Committed(batch.iter().map(|_| Committed::default()).collect()),
            failed,
        );
    }
    let statements = match Statements::prepare(conn).await {
        Ok(statements) => statements,
        Err(e) => return (Sent::Unknown(e), failed),
    };
    let sent = run(conn, &statements, &encoded, batch.len()).await;
    (sent, failed)
}

fn encode_commit(commit: &Commit) -> StoreResult<Encoded<'_>> {
    let task = match &commit.task {
        Some(tw) => {
            let last_seq = tw.events.last().map(|e| e.seq).unwrap_or(tw.row.last_seq);
            Some(EncodedTask {
                body: encode(&tw.row.body)?,
                last_seq: last_seq as i64,
                expected: tw.expected_last_seq as i64,
                seqs: tw.events.iter().map(|e| e.seq as i64).collect(),
                events: tw
                    .events
                    .iter()
                    .map(|e| encode(&e.body))
                    .collect::<StoreResult<_>>()?,
                first_seq: tw.events.first().map_or(0, |e| e.seq as i64),
                announced: (!tw.events.is_empty()).then(|| announcement(&tw.row.id, last_seq)),
            })
        }
        None => None,
    };
    let docs = commit
        .docs
        .iter()
        .map(|d| {
            let expected = match d.expect {
                Expect::Version(v) => v as i64,
                _ => 0,
            };
            Ok((d.value.as_ref().map(encode).transpose()?, expected))
        })
        .collect::<StoreResult<_>>()?;
    let deliveries = commit
        .deliveries
        .iter()
        .map(|d| match d {
            DeliveryChange::Done(key) => (key.seq as i64, 0),
            DeliveryChange::Retry { key, attempts, .. } => {
                (key.seq as i64, i32::try_from(*attempts).unwrap_or(i32::MAX))
            }
            DeliveryChange::DropTarget { .. } => (0, 0),
        })
        .collect();
    Ok(Encoded {
        commit,
        task,
        docs,
        deliveries,
        prefix_end: commit.fanout.as_ref().and_then(|f| prefix_end(&f.prefix)),
    })
}

/// Every statement a group may run, prepared (once per connection; later
/// groups find them cached), so that nothing waits between requests.
struct Statements {
    create_task: Statement,
    update_task: Statement,
    lock: Statement,
    announce: Statement,
    put_any: Statement,
    put_absent: Statement,
    put_version: Statement,
    delete_any: Statement,
    delete_version: Statement,
    absent: Statement,
    fan_out: Statement,
    delete_task: Statement,
    done: Statement,
    retry: Statement,
    drop_target: Statement,
    write_tasks: Statement,
}

impl Statements {
    async fn prepare(conn: &Conn) -> StoreResult<Statements> {
        Ok(Statements {
            create_task: conn.statement(sql::CREATE_TASK_STRICT).await?,
            update_task: conn.statement(sql::UPDATE_TASK_STRICT).await?,
            lock: conn.statement(sql::LOCK_EVENT_ORDER).await?,
            announce: conn.statement(sql::ANNOUNCE_ALL).await?,
            put_any: conn.statement(sql::PUT_DOC_ANY).await?,
            put_absent: conn.statement(sql::PUT_DOC_ABSENT_STRICT).await?,
            put_version: conn.statement(sql::PUT_DOC_VERSION_STRICT).await?,
            delete_any: conn.statement(sql::DELETE_DOC_ANY).await?,
            delete_version: conn.statement(sql::DELETE_DOC_VERSION_STRICT).await?,
            absent: conn.statement(sql::DOC_ABSENT_STRICT).await?,
            fan_out: conn.statement(outbox::FAN_OUT).await?,
            delete_task: conn.statement(sql::DELETE_TASK).await?,
            done: conn.statement(outbox::DONE).await?,
            retry: conn.statement(outbox::RETRY).await?,
            drop_target: conn.statement(outbox::DROP_TARGET).await?,
            write_tasks: conn.statement(sql::WRITE_TASKS_STRICT).await?,
        })
    }
}

/// The requests of one group, in the order they must reach the server, and
/// what each answer means.
struct Requests<'a> {
    conn: &'a Conn,
    sent: Vec<Request<'a>>,
    slots: Vec<Slot>,
}

impl<'a> Requests<'a> {
    /// A statement answering one value (a rank, a version, a count).
    fn value(&mut self, slot: Slot, statement: &'a Statement, params: Vec<&'a (dyn ToSql + Sync)>) {
        let client = &self.conn.client;
        self.sent.push(Box::pin(async move {
            client
                .query_one(statement, &params)
                .await?
                .try_get(0)
                .map(Reply::Value)
        }));
        self.slots.push(slot);
    }

    /// The statement of every bulk task write.
    fn bulk(&mut self, statement: &'a Statement, bulk: &'a Bulk<'_>) {
        let client = &self.conn.client;
        self.sent.push(Box::pin(async move {
            let rows = client.query(statement, &bulk.params()).await?;
            let replies = rows
                .iter()
                .map(|row| {
                    Ok(TaskReply {
                        n: row.try_get(0)?,
                        rank: row.try_get(1)?,
                        owed: row.try_get(2)?,
                    })
                })
                .collect::<Result<_, Error>>()?;
            Ok(Reply::Tasks(replies))
        }));
        self.slots.push(Slot::Bulk);
    }

    /// A statement answering how many rows it changed.
    fn rows(&mut self, slot: Slot, statement: &'a Statement, params: Vec<&'a (dyn ToSql + Sync)>) {
        let client = &self.conn.client;
        self.sent.push(Box::pin(async move {
            Ok(Reply::Value(client.execute(statement, &params).await? as i64))
        }));
        self.slots.push(slot);
    }

    /// A statement without parameters or answer (`BEGIN`, `COMMIT`).
    fn plain(&mut self, sql: &'static str) {
        let client = &self.conn.client;
        self.sent.push(Box::pin(async move {
            client.batch_execute(sql).await.map(|()| Reply::Value(0))
        }));
        self.slots.push(Slot::None);
    }
}

/// True when `commit` changes tasks: it appends task events (and so takes
/// positions) or changes the kept task counts, and so runs under the event
/// order lock, which also makes two agents' transactions lock the counts'
/// rows in one order.
pub(super) fn takes_event_order_lock(commit: &Commit) -> bool {
    commit.task.is_some() || !commit.delete_tasks.is_empty()
}

/// The commits of a group that only write a task, on a task no other
/// commit of the group touches, as the arrays of
/// [`sql::WRITE_TASKS_STRICT`]. Since each touches its own task, writing them
/// all at once, before the group's other commits, gives what writing them in
/// order would: commits in one group were all pending together, so any order
/// of theirs is one they could have had.
#[derive(Default)]
struct Bulk<'a> {
    /// The index in the group of each commit taken, in ordinal order.
    commits: Vec<usize>,
    ids: Vec<&'a str>,
    namespaces: Vec<&'a str>,
    contexts: Vec<&'a str>,
    states: Vec<&'a str>,
    status_ts: Vec<&'a str>,
    last_seqs: Vec<i64>,
    bodies: Vec<&'a str>,
    creates: Vec<bool>,
    expected: Vec<i64>,
    expected_ranks: Vec<Option<i64>>,
    colls: Vec<Option<&'a str>>,
    prefixes: Vec<Option<&'a str>>,
    prefix_ends: Vec<Option<&'a str>>,
    event_tasks: Vec<&'a str>,
    event_namespaces: Vec<&'a str>,
    event_seqs: Vec<i64>,
    event_bodies: Vec<&'a str>,
}

impl<'a> Bulk<'a> {
    /// The commits of `encoded` the bulk takes, and whether it took each.
    fn of(encoded: &'a [(usize, Encoded<'a>)]) -> (Bulk<'a>, Vec<bool>) {
        let mut touches: HashMap<&str, usize> = HashMap::new();
        for (_, e) in encoded {
            let tasks = e.commit.task.iter().map(|tw| &tw.row.id);
            for id in tasks.chain(e.commit.delete_tasks.iter().map(|d| &d.id)) {
                *touches.entry(id).or_default() += 1;
            }
        }
        let mut bulk = Bulk::default();
        let taken = encoded
            .iter()
            .map(|(i, e)| {
                let commit = e.commit;
                let (Some(tw), Some(task)) = (&commit.task, &e.task) else {
                    return false;
                };
                let alone =
                    commit.docs.is_empty() && commit.delete_tasks.is_empty() && commit.deliveries.is_empty();
                if !alone || touches.get(tw.row.id.as_str()) != Some(&1) {
                    return false;
                }
                bulk.add(*i, tw, task, commit.fanout.as_ref(), e.prefix_end.as_deref());
                true
            })
            .collect();
        (bulk, taken)
    }

    fn add(
        &mut self,
        commit: usize,
        tw: &'a store::TaskWrite,
        task: &'a EncodedTask,
        fanout: Option<&'a store::Fanout>,
        prefix_end: Option<&'a str>,
    ) {
        let row = &tw.row;
        self.commits.push(commit);
        self.ids.push(&row.id);
        self.namespaces.push(&row.namespace);
        self.contexts.push(&row.context_id);
        self.states.push(&row.state);
        self.status_ts.push(&row.status_ts);
        self.last_seqs.push(task.last_seq);
        self.bodies.push(&task.body);
        self.creates.push(tw.create);
        self.expected.push(task.expected);
        self.expected_ranks.push(tw.expected_rank);
        self.colls.push(fanout.map(|f| f.coll.as_str()));
        self.prefixes.push(fanout.map(|f| f.prefix.as_str()));
        self.prefix_ends.push(prefix_end);
        for (seq, body) in task.seqs.iter().zip(&task.events) {
            self.event_tasks.push(&row.id);
            self.event_namespaces.push(&row.namespace);
            self.event_seqs.push(*seq);
            self.event_bodies.push(body);
        }
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 17] {
        [
            &self.ids,
            &self.namespaces,
            &self.contexts,
            &self.states,
            &self.status_ts,
            &self.last_seqs,
            &self.bodies,
            &self.creates,
            &self.expected,
            &self.colls,
            &self.prefixes,
            &self.prefix_ends,
            &self.event_tasks,
            &self.event_namespaces,
            &self.event_seqs,
            &self.event_bodies,
            &self.expected_ranks,
        ]
    }
}

async fn run(conn: &Conn, st: &Statements, encoded: &[(usize, Encoded<'_>)], total: usize) -> Sent {
    let announcements: Vec<&String> = encoded
        .iter()
        .filter_map(|(_, e)| e.task.as_ref()?.announced.as_ref())
        .collect();
    let (bulk, taken) = Bulk::of(encoded);
    let mut requests = Requests {
        conn,
        sent: Vec::new(),
        slots: Vec::new(),
    };
    requests.plain("BEGIN");
    // Before any row lock, as the replay takes it (see the writer).
    if encoded.iter().any(|(_, e)| takes_event_order_lock(e.commit)) {
        requests.rows(Slot::None, &st.lock, vec![&EVENT_ORDER_LOCK]);
    }
    if !bulk.commits.is_empty() {
        requests.bulk(&st.write_tasks, &bulk);
    }
    for ((i, e), taken) in encoded.iter().zip(taken) {
        if taken {
            continue;
        }
        let commit = e.commit;
        if let (Some(tw), Some(task)) = (&commit.task, &e.task) {
            let row = &tw.row;
            let mut params: Vec<&(dyn ToSql + Sync)> = vec![
                &row.id,
                &row.namespace,
                &row.context_id,
                &row.state,
                &row.status_ts,
                &task.last_seq,
                &task.body,
            ];
            let statement = if tw.create {
                &st.create_task
            } else {
                params.push(&task.expected);
                &st.update_task
            };
            params.push(&task.seqs);
            params.push(&task.events);
            if !tw.create {
                params.push(&tw.expected_rank);
            }
            requests.value(Slot::Rank(*i), statement, params);
        }
        for (write, (body, version)) in commit.docs.iter().zip(&e.docs) {
            doc(&mut requests, st, *i, write, body.as_ref(), version);
        }
        if let (Some(tw), Some(task), Some(fanout)) = (&commit.task, &e.task, &commit.fanout) {
            if !tw.events.is_empty() {
                let params: Vec<&(dyn ToSql + Sync)> = vec![
                    &tw.row.namespace,
                    &tw.row.id,
                    &fanout.prefix,
                    &task.first_seq,
                    &fanout.coll,
                    &e.prefix_end,
                ];
                requests.rows(Slot::Owed(*i), &st.fan_out, params);
            }
        }
        for delete in &commit.delete_tasks {
            requests.value(
                Slot::Deleted(*i),
                &st.delete_task,
                vec![&delete.id, &delete.namespace],
            );
        }
        for (change, (seq, attempts)) in commit.deliveries.iter().zip(&e.deliveries) {
            match change {
                DeliveryChange::Done(key) => {
                    let params: Vec<&(dyn ToSql + Sync)> =
                        vec![&key.namespace, &key.task_id, &key.config_id, seq];
                    requests.rows(Slot::None, &st.done, params);
                }
                DeliveryChange::Retry {
                    key,
                    holder,
                    next_attempt_ms,
                    ..
                } => {
                    let params: Vec<&(dyn ToSql + Sync)> = vec![
                        &key.namespace,
                        &key.task_id,
                        &key.config_id,
                        seq,
                        holder,
                        attempts,
                        next_attempt_ms,
                    ];
                    requests.rows(Slot::None, &st.retry, params);
                }
                DeliveryChange::DropTarget {
                    namespace,
                    task_id,
                    config_id,
                } => {
                    requests.rows(Slot::None, &st.drop_target, vec![namespace, task_id, config_id]);
                }
            }
        }
    }
    if !announcements.is_empty() {
        requests.rows(Slot::None, &st.announce, vec![&EVENTS_CHANNEL, &announcements]);
    }
    requests.plain("COMMIT");
    let Requests { sent, slots, .. } = requests;
    let answers = in_order(sent).await;
    outcome(&slots, &bulk.commits, answers, total)
}

/// The request of one document write: its new version (0 for a deletion).
fn doc<'a>(
    requests: &mut Requests<'a>,
    st: &'a Statements,
    commit: usize,
    write: &'a DocWrite,
    body: Option<&'a String>,
    version: &'a i64,
) {
    let at: [&'a (dyn ToSql + Sync); 3] = [&write.coll, &write.namespace, &write.key];
    let slot = Slot::DocVersion(commit);
    match (body, write.expect) {
        (Some(body), Expect::Any) => requests.value(slot, &st.put_any, vec![at[0], at[1], at[2], body]),
        (Some(body), Expect::Absent) => requests.value(slot, &st.put_absent, vec![at[0], at[1], at[2], body]),
        (Some(body), Expect::Version(_)) => {
            requests.value(slot, &st.put_version, vec![at[0], at[1], at[2], body, version])
        }
        (None, Expect::Any) => requests.rows(Slot::DocDeleted(commit), &st.delete_any, at.to_vec()),
        (None, Expect::Absent) => requests.value(slot, &st.absent, at.to_vec()),
        (None, Expect::Version(_)) => {
            requests.value(slot, &st.delete_version, vec![at[0], at[1], at[2], version])
        }
    }
}

/// Polls every request once in order, so each is written to the connection
/// in that order, then awaits their answers, which come in that order too.
async fn in_order(mut requests: Vec<Request<'_>>) -> Vec<Result<Reply, Error>> {
    let mut answers: Vec<Option<Result<Reply, Error>>> = Vec::with_capacity(requests.len());
    std::future::poll_fn(|cx| {
        for request in &mut requests {
            answers.push(match request.as_mut().poll(cx) {
                Poll::Ready(outcome) => Some(outcome),
                Poll::Pending => None,
            });
        }
        Poll::Ready(())
    })
    .await;
    let mut outcomes = Vec::with_capacity(requests.len());
    for (request, answer) in requests.into_iter().zip(answers) {
        outcomes.push(match answer {
            Some(outcome) => outcome,
            None => request.await,
        });
    }
    outcomes
}

/// The group's fate from every answer (see [`Sent`]).
fn outcome(slots: &[Slot], bulk: &[usize], mut answers: Vec<Result<Reply, Error>>, total: usize) -> Sent {
    let Some(commit_answer) = answers.pop() else {
        return Sent::RolledBack;
    };
    if answers.iter().any(Result::is_err) {
        return Sent::RolledBack;
    }
    if let Err(e) = commit_answer {
        return Sent::Unknown(backend(e));
    }
    let mut committed: Vec<Committed> = (0..total).map(|_| Committed::default()).collect();
    for (slot, answer) in slots.iter().zip(answers) {
        let value = match answer {
            Ok(Reply::Value(value)) => value,
            Ok(Reply::Tasks(replies)) => {
                for reply in replies {
                    let Some(&i) = usize::try_from(reply.n - 1).ok().and_then(|n| bulk.get(n)) else {
                        continue;
                    };
                    committed[i].task_rank = Some(reply.rank);
                    committed[i].deliveries_owed = reply.owed.max(0) as u64;
                }
                continue;
            }
            Err(_) => 0,
        };
        match *slot {
            Slot::None | Slot::Bulk => {}
            Slot::Rank(i) => committed[i].task_rank = Some(value),
            Slot::DocVersion(i) => committed[i].doc_versions.push(value.max(0) as u64),
            Slot::DocDeleted(i) => committed[i].doc_versions.push(0),
            Slot::Owed(i) => committed[i].deliveries_owed = value.max(0) as u64,
            Slot::Deleted(i) => committed[i].deleted_tasks += u64::from(value > 0),
        }
    }
    Sent::Committed(committed)
}
