//! The namespace's domain events (`_cleveragents/events/subscribe`): the
//! persisted task events read back in the store's order of appends, each as a
//! `DomainEvent` with its position as the namespace-wide cursor, filtered by
//! plan, session and type. An event is stored once, in its task's log; this
//! service only reads, so a stream resumed from a cursor sees every later
//! event exactly once, and the order within a task (so within a plan) is the
//! order of its log.

use crate::store::{Internal, OrderedEvent, StoreHandle};
use crate::util::{namespace, Family, EXTENSION_URI};
use a2a::rpc::{CallContext, Error, Event, EventStream, Stream};
use a2a::types::{DomainEvent, DomainEventType, EventsSubscribeParams, StreamResponse};
use serde_json::{Map, Value};
use std::pin::Pin;
use std::str::FromStr;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

const FAMILY: Family = Family::Ext;
/// Events read from the store per turn.
const PAGE: usize = 256;
/// Events a slow subscriber may have waiting before the reader pauses.
const BUFFERED: usize = 64;
/// How often a following stream looks again without being woken: commits of
/// other instances sharing the store wake no one here.
const POLL: Duration = Duration::from_millis(500);

/// The events service.
#[derive(Clone)]
pub struct EventService {
    db: StoreHandle,
}

/// What a subscription keeps.
#[derive(Clone, Debug, Default)]
struct Filter {
    plan_id: Option<String>,
    session_id: Option<String>,
    types: Vec<DomainEventType>,
}

impl Filter {
    fn matches(&self, event: &DomainEvent) -> bool {
        self.plan_id
            .as_ref()
            .is_none_or(|p| event.plan_id.as_ref() == Some(p))
            && self.session_id.as_ref().is_none_or(|s| &event.session_id == s)
            && (self.types.is_empty() || self.types.contains(&event.type_))
    }
}

impl EventService {
    pub fn new(db: StoreHandle) -> Self {
        EventService { db }
    }

    pub(crate) async fn subscribe(
        &self,
        ctx: &CallContext,
        params: EventsSubscribeParams,
    ) -> Result<EventStream<DomainEvent>, Error> {
        let after = match params.after {
            Some(n) if n < 0 => return Err(FAMILY.invalid_params("after", "must be zero or positive")),
            Some(n) => n as u64,
            None => 0,
        };
        let cursor = after.max(ctx.resume_after.unwrap_or(0));
        let filter = Filter {
            plan_id: params.plan_id,
            session_id: params.session_id,
            types: params.types,
        };
        let (tx, rx) = mpsc::channel(BUFFERED);
        let reader = Reader {
            db: self.db.clone(),
            namespace: namespace(ctx),
            filter,
            cursor,
            follow: params.follow.unwrap_or(false),
        };
        // The first page is read before answering, so a store failure is the
        // call's error rather than a stream that ends at once.
        let first = reader.page().await?;
        tokio::spawn(reader.run(first, tx));
        Ok(Box::pin(Received(rx)))
    }
}

/// Reads the store on behalf of one subscription and hands the matching
/// events over until the subscriber goes away (or, without `follow`, the
/// stored events are all read).
struct Reader {
    db: StoreHandle,
    namespace: String,
    filter: Filter,
    cursor: u64,
    follow: bool,
}

/// One item of a subscription's queue, boxed: a slot holds a pointer, so
/// an idle subscription's queue costs a few hundred bytes.
type Item = Box<Result<Event<DomainEvent>, Error>>;

type Sender = mpsc::Sender<Item>;

impl Reader {
    async fn page(&self) -> Result<Vec<OrderedEvent>, Error> {
        self.db
            .store()
            .namespace_events_after(&self.namespace, self.cursor, PAGE)
            .await
            .internal(FAMILY)
    }

    async fn run(mut self, first: Vec<OrderedEvent>, tx: Sender) {
        // Subscribed before the next read, so a commit between the read and
        // the wait still wakes the wait.
        let mut appended = self.db.appended();
        appended.borrow_and_update();
        let mut page = first;
        loop {
            let full = page.len() == PAGE;
            for row in page {
                self.cursor = row.position;
                let Some(event) = domain_event(&row) else { continue };
                if self.filter.matches(&event)
                    && tx
                        .send(Box::new(Ok(Event::with_seq(row.position, event))))
                        .await
                        .is_err()
                {
                    return;
                }
            }
            if !full {
                if !self.follow {
                    return;
                }
                let woken = async {
                    if appended.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                };
                tokio::select! {
                    _ = woken => {}
                    _ = tx.closed() => return,
                    _ = tokio::time::sleep(POLL) => {}
                }
                appended.borrow_and_update();
            }
            page = match self.page().await {
                Ok(page) => page,
                Err(e) => {
                    let _ = tx.send(Box::new(Err(e))).await;
                    return;
                }
            };
        }
    }
}

/// The stream end of a subscription.
struct Received(mpsc::Receiver<Item>);

impl Stream for Received {
    type Item = Result<Event<DomainEvent>, Error>;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut()
            .0
            .poll_recv(cx)
            .map(|item| item.map(|boxed| *boxed))
    }
}

/// The extension's part of an event's metadata.
fn extension_part(metadata: Option<&Map<String, Value>>) -> Option<&Map<String, Value>> {
    metadata?.get(EXTENSION_URI)?.as_object()
}

/// The domain event a stored task event is, if any: a plan event its metadata
/// names, or `session.message` for a message that opened a task (the task
/// snapshot holding it) or an agent's status message outside a plan's events.
/// The snapshot of a task no message opened (`plan/execute` makes one) is
/// none: its plan announces itself with `plan.created` next.
fn domain_event(row: &OrderedEvent) -> Option<DomainEvent> {
    let (metadata, is_message) = match &row.event.body {
        StreamResponse::Task(task) => (task.metadata.as_ref(), !task.history.is_empty()),
        StreamResponse::StatusUpdate(update) => (update.metadata.as_ref(), update.status.message.is_some()),
        StreamResponse::ArtifactUpdate(update) => (update.metadata.as_ref(), false),
        StreamResponse::Message(message) => (message.metadata.as_ref(), true),
    };
    let part = extension_part(metadata);
    let named = part
        .and_then(|p| p.get("event"))
        .and_then(Value::as_str)
        .and_then(|name| DomainEventType::from_str(name).ok());
    let type_ = match (named, &row.event.body) {
        (Some(kind), _) => kind,
        (None, StreamResponse::Message(_)) => DomainEventType::SessionMessage,
        (None, _) if is_message => DomainEventType::SessionMessage,
        (None, _) => return None,
    };
    let plan_id = part
        .and_then(|p| p.get("planId"))
        .and_then(Value::as_str)
        .map(str::to_string);
    Some(DomainEvent {
        cursor: i64::try_from(row.position).unwrap_or(i64::MAX),
        type_,
        session_id: row.context_id.clone(),
        task_id: row.task_id.clone(),
        task_seq: i64::try_from(row.event.seq).unwrap_or(i64::MAX),
        plan_id,
        event: row.event.body.clone(),
    })
}
