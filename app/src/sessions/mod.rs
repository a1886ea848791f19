//! Sessions (`_cleveragents/session/*`): a session is an A2A context with a
//! title, stored as one document (`sessions` collection, keyed by its id);
//! everything else about it — its tasks, plans, activity, whether it waits
//! for input — is read from the tasks of that context, so a task sent with
//! the session's id as `contextId` belongs to it whichever method sent it.
//! Export and import are in `transfer`.
//!
//! `session/list` pages newest first through a second document per session,
//! in the `sessions-newest` collection, keyed by creation time then id and
//! holding a copy of the record (a session's record never changes once
//! created): the store reads that collection backwards from the cursor, so a
//! page costs its own documents, whatever the number of sessions. Both
//! documents are written and deleted in one commit. A namespace whose
//! sessions predate the listing collection gets it filled on its first
//! listing (`SessionService::ensure_listing`).

mod transfer;

use crate::store::{Commit, DocWrite, Expect, Internal, StoreError, StoreHandle, TaskQuery, TaskRow};
use crate::tasks::{is_terminal, TaskService};
use crate::util::{self, namespace, to_json, Family, EXTENSION_URI};
use a2a::rpc::{CallContext, Error};
use a2a::types::*;
use a2a::ErrorKind;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

const FAMILY: Family = Family::Ext;
const COLLECTION: &str = "sessions";
/// The listing documents: key `<createdAt>/<id>`, value the record.
const LISTING: &str = "sessions-newest";
/// Marks a namespace whose listing documents are complete.
const LISTING_STATE: &str = "sessions-listing";
const LISTING_COMPLETE: &str = "complete";
const MAX_TITLE_CHARS: usize = 200;
/// Tasks of one session read at most (show, resume, export, delete).
const MAX_TASKS: usize = 10_000;
/// Tasks read per store call.
const TASK_PAGE: usize = 500;
/// Sessions read per store call when listing or filling the listing.
const DOC_PAGE: usize = 500;

/// The stored part of a session: what is not derived from its tasks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionRecord {
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<Map<String, Value>>,
    created_at: String,
}

/// The sessions service.
#[derive(Clone)]
pub struct SessionService {
    db: StoreHandle,
    tasks: TaskService,
}

/// Where a listing continues: after this (createdAt, id), newest first.
#[derive(Serialize, Deserialize)]
struct ListCursor(String, String);

/// The key of a session's listing document: its creation time in the fixed
/// width form (so keys sort by time), then its id (so equal times still
/// order, and keys are unique).
fn listing_key(created_at: &str, id: &str) -> String {
    let ts = util::normalize_ts(created_at).unwrap_or_else(|| created_at.to_string());
    format!("{ts}/{id}")
}

impl SessionService {
    pub fn new(db: StoreHandle, tasks: TaskService) -> Self {
        SessionService { db, tasks }
    }

    pub(crate) async fn create(
        &self,
        ctx: &CallContext,
        params: SessionCreateParams,
    ) -> Result<Session, Error> {
        if let Some(title) = &params.title {
            if title.chars().count() > MAX_TITLE_CHARS {
                return Err(FAMILY.invalid_params("title", "at most 200 characters"));
            }
        }
        let ns = namespace(ctx);
        let record = SessionRecord {
            id: util::new_id(),
            title: params.title,
            metadata: params.metadata,
            created_at: util::now(),
        };
        self.put_new(&ns, &record).await?;
        self.view(&ns, &record).await
    }

    pub(crate) async fn list(
        &self,
        ctx: &CallContext,
        params: SessionListParams,
    ) -> Result<SessionList, Error> {
        let limit = match params.limit {
            None => 50,
            Some(n @ 1..=100) => n as usize,
            Some(_) => return Err(FAMILY.invalid_params("limit", "must be between 1 and 100")),
        };
        let after = match &params.cursor {
            None => None,
            Some(text) => Some(
                decode_cursor(text)
                    .ok_or_else(|| FAMILY.invalid_params("cursor", "not a cursor of session/list"))?,
            ),
        };
        let ns = namespace(ctx);
        self.ensure_listing(&ns).await?;
        let needle = params.title_contains.as_deref().map(str::to_lowercase);
        let mut before = after.map(|ListCursor(created_at, id)| listing_key(&created_at, &id));
        let mut items = Vec::new();
        let mut more = false;
        // One more than the page shows tells whether another follows; a
        // filter may skip many, so then read the store in larger pages.
        let filtered = needle.is_some() || params.awaiting_input.is_some();
        let page_size = if filtered { DOC_PAGE } else { limit + 1 };
        // Bounded: every turn reads a page further back, and a short page ends it.
        'pages: loop {
            let page = self
                .db
                .store()
                .list_docs_before(LISTING, &ns, before.as_deref(), page_size)
                .await
                .internal(FAMILY)?;
            let full = page.len() == page_size;
            for doc in page {
                before = Some(doc.key.clone());
                let record: SessionRecord = util::from_json(doc.value, FAMILY)?;
                if let Some(needle) = &needle {
                    let title = record.title.as_deref().unwrap_or_default().to_lowercase();
                    if !title.contains(needle.as_str()) {
                        continue;
                    }
                }
                let session = self.view(&ns, &record).await?;
                if params.awaiting_input.is_some_and(|w| w != session.awaiting_input) {
                    continue;
                }
                if items.len() == limit {
                    more = true;
                    break 'pages;
                }
                items.push(session);
            }
            if !full {
                break;
            }
        }
        let next_cursor = match (more, items.last()) {
            (true, Some(last)) => Some(encode_cursor(&ListCursor(
                last.created_at.clone(),
                last.id.clone(),
            ))),
            _ => None,
        };
        Ok(SessionList { items, next_cursor })
    }

    pub(crate) async fn show(
        &self,
        ctx: &CallContext,
        params: SessionShowParams,
    ) -> Result<SessionDetail, Error> {
        let ns = namespace(ctx);
        let record = self.record(&ns, &params.session_id).await?;
        let rows = self.task_rows(&ns, &record.id).await?;
        Ok(SessionDetail {
            session: self.view(&ns, &record).await?,
            tasks: rows.iter().map(session_task).collect(),
            plans: plan_links(&rows),
        })
    }

    pub(crate) async fn resume(
        &self,
        ctx: &CallContext,
        params: SessionResumeParams,
    ) -> Result<SessionResume, Error> {
        let limit = match params.message_limit {
            None => 20,
            Some(n @ 1..=100) => n as usize,
            Some(_) => return Err(FAMILY.invalid_params("messageLimit", "must be between 1 and 100")),
        };
        let ns = namespace(ctx);
        let record = self.record(&ns, &params.session_id).await?;
        let rows = self.task_rows(&ns, &record.id).await?;
        let pending_task = rows
            .iter()
            .find(|r| r.body.status.state == TaskState::InputRequired)
            .map(|r| r.body.clone());
        let mut messages: Vec<Message> = Vec::new();
        for row in rows.iter().rev() {
            for message in &row.body.history {
                messages.push(message.clone());
            }
            if let Some(status) = &row.body.status.message {
                if !row.body.history.iter().any(|m| m.message_id == status.message_id) {
                    messages.push(status.clone());
                }
            }
        }
        let recent_messages = messages.split_off(messages.len().saturating_sub(limit));
        Ok(SessionResume {
            session: self.view(&ns, &record).await?,
            pending_task,
            recent_messages,
        })
    }

    pub(crate) async fn tell(
        &self,
        ctx: &CallContext,
        params: SessionTellParams,
    ) -> Result<SendMessageResponse, Error> {
        let ns = namespace(ctx);
        let record = self.record(&ns, &params.session_id).await?;
        let mut message = params.message;
        match &message.context_id {
            Some(other) if *other != record.id => {
                return Err(FAMILY.invalid_params("message.contextId", "must be the session id (or absent)"));
            }
            _ => message.context_id = Some(record.id.clone()),
        }
        let request = SendMessageRequest {
            tenant: None,
            message,
            configuration: params.configuration,
            metadata: params.metadata,
        };
        self.tasks
            .send_message(ctx, request)
            .await
            .map_err(in_extension_terms)
    }

    pub(crate) async fn delete(
        &self,
        ctx: &CallContext,
        params: SessionDeleteParams,
    ) -> Result<SessionDeleteResult, Error> {
        let ns = namespace(ctx);
        let record = self.record(&ns, &params.session_id).await?;
        let rows = self.task_rows(&ns, &record.id).await?;
        let running: Vec<&str> = rows
            .iter()
            .filter(|r| !is_terminal(r.body.status.state))
            .map(|r| r.id.as_str())
            .collect();
        if !running.is_empty() && !params.force.unwrap_or(false) {
            return Err(Error::new(
                ErrorKind::ExtInvalidState,
                format!(
                    "Session {} has {} task(s) not in a terminal state ({}); pass force to delete it anyway",
                    record.id,
                    running.len(),
                    running.join(", ")
                ),
            ));
        }
        let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        let deleted = self
            .db
            .delete_tasks(
                &ns,
                ids,
                vec![
                    DocWrite::delete(COLLECTION, &ns, &record.id, Expect::Any),
                    DocWrite::delete(
                        LISTING,
                        &ns,
                        &listing_key(&record.created_at, &record.id),
                        Expect::Any,
                    ),
                ],
            )
            .await
            .map_err(|e| FAMILY.internal(e.to_string()))?;
        Ok(SessionDeleteResult {
            session_id: record.id,
            deleted_tasks: i32::try_from(deleted).unwrap_or(i32::MAX),
        })
    }

    pub(crate) async fn export(
        &self,
        ctx: &CallContext,
        params: SessionExportParams,
    ) -> Result<SessionExport, Error> {
        let ns = namespace(ctx);
        let record = self.record(&ns, &params.session_id).await?;
        let rows = self.task_rows(&ns, &record.id).await?;
        let mut logs = Vec::with_capacity(rows.len());
        for row in &rows {
            logs.push(
                self.db
                    .store()
                    .events_after(&ns, &row.id, 0)
                    .await
                    .internal(FAMILY)?,
            );
        }
        transfer::export(&record, &rows, logs)
    }

    pub(crate) async fn import(
        &self,
        ctx: &CallContext,
        params: SessionImportParams,
    ) -> Result<Session, Error> {
        let ns = namespace(ctx);
        let (record, tasks) = transfer::check(params.document)?;
        if self.find(&ns, &record.id).await?.is_some() {
            return Err(already_exists(&format!("Session {}", record.id)));
        }
        for imported in &tasks {
            let id = &imported.task.id;
            if self
                .db
                .store()
                .get_task(&ns, id)
                .await
                .internal(FAMILY)?
                .is_some()
            {
                return Err(already_exists(&format!("Task {id}")));
            }
        }
        transfer::recreate(&self.db, &ns, &record, tasks).await?;
        self.put_new(&ns, &record).await?;
        self.view(&ns, &record).await
    }

    async fn put_new(&self, ns: &str, record: &SessionRecord) -> Result<(), Error> {
        let value = to_json(record, FAMILY)?;
        let writes = vec![
            DocWrite::put(COLLECTION, ns, &record.id, Expect::Absent, value.clone()),
            DocWrite::put(
                LISTING,
                ns,
                &listing_key(&record.created_at, &record.id),
                Expect::Absent,
                value,
            ),
        ];
        let commit = Commit {
            task: None,
            docs: writes,
            ..Commit::default()
        };
        match self.db.commit(commit).await {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { .. }) => Err(already_exists(&format!("Session {}", record.id))),
            Err(e) => Err(FAMILY.internal(e.to_string())),
        }
    }

    async fn find(&self, ns: &str, id: &str) -> Result<Option<SessionRecord>, Error> {
        match self
            .db
            .store()
            .get_doc(COLLECTION, ns, id)
            .await
            .internal(FAMILY)?
        {
            Some(doc) => Ok(Some(util::from_json(doc.value, FAMILY)?)),
            None => Ok(None),
        }
    }

    async fn record(&self, ns: &str, id: &str) -> Result<SessionRecord, Error> {
        self.find(ns, id)
            .await?
            .ok_or_else(|| FAMILY.not_found(&format!("Session {id}")))
    }

    /// Fills the listing documents of a namespace whose sessions were stored
    /// before them, once: each missing listing document is written in a
    /// commit that also checks the session is still there (its record is put
    /// again at the version read), so a session deleted meanwhile gets none.
    /// Then the namespace is marked complete. Concurrent fillers write the
    /// same documents; sessions created meanwhile already have theirs.
    async fn ensure_listing(&self, ns: &str) -> Result<(), Error> {
        if self
            .db
            .store()
            .get_doc(LISTING_STATE, ns, LISTING_COMPLETE)
            .await
            .internal(FAMILY)?
            .is_some()
        {
            return Ok(());
        }
        let mut after: Option<String> = None;
        let mut sessions = 0;
        loop {
            let docs = self
                .db
                .store()
                .list_docs(COLLECTION, ns, "", after.as_deref(), DOC_PAGE)
                .await
                .internal(FAMILY)?;
            let done = docs.len() < DOC_PAGE;
            after = docs.last().map(|d| d.key.clone());
            sessions += docs.len();
            for doc in docs {
                let record: SessionRecord = util::from_json(doc.value.clone(), FAMILY)?;
                let key = listing_key(&record.created_at, &record.id);
                if self
                    .db
                    .store()
                    .get_doc(LISTING, ns, &key)
                    .await
                    .internal(FAMILY)?
                    .is_some()
                {
                    continue;
                }
                let commit = Commit {
                    task: None,
                    docs: vec![
                        DocWrite::put(
                            COLLECTION,
                            ns,
                            &doc.key,
                            Expect::Version(doc.version),
                            doc.value.clone(),
                        ),
                        DocWrite::put(LISTING, ns, &key, Expect::Any, doc.value),
                    ],
                    ..Commit::default()
                };
                match self.db.commit(commit).await {
                    // Changed or deleted since it was read: it has its own.
                    Ok(_) | Err(StoreError::Conflict { .. }) => {}
                    Err(e) => return Err(FAMILY.internal(e.to_string())),
                }
            }
            if done {
                break;
            }
        }
        if sessions == 0 {
            // Nothing to fill, and nothing written by a listing of an empty namespace.
            return Ok(());
        }
        let mark = Commit {
            task: None,
            docs: vec![DocWrite::put(
                LISTING_STATE,
                ns,
                LISTING_COMPLETE,
                Expect::Any,
                serde_json::json!({ "filledAt": util::now() }),
            )],
            ..Commit::default()
        };
        self.db
            .commit(mark)
            .await
            .map(|_| ())
            .map_err(|e| FAMILY.internal(e.to_string()))
    }

    /// The session's tasks, newest first.
    async fn task_rows(&self, ns: &str, id: &str) -> Result<Vec<TaskRow>, Error> {
        let mut rows: Vec<TaskRow> = Vec::new();
        loop {
            let query = TaskQuery {
                namespace: ns.to_string(),
                context_id: Some(id.to_string()),
                before_rank: rows.last().map(|r| r.rank),
                limit: TASK_PAGE,
                ..TaskQuery::default()
            };
            let page = self.db.store().list_tasks(&query).await.internal(FAMILY)?;
            rows.extend(page.rows);
            if !page.more || rows.len() >= MAX_TASKS {
                return Ok(rows);
            }
        }
    }

    /// The session as the contract shows it: the record and what its tasks say.
    async fn view(&self, ns: &str, record: &SessionRecord) -> Result<Session, Error> {
        let query = |state: Option<String>| TaskQuery {
            namespace: ns.to_string(),
            context_id: Some(record.id.clone()),
            state,
            limit: 1,
            ..TaskQuery::default()
        };
        let (all, waiting) = (query(None), query(Some(TaskState::InputRequired.to_string())));
        let store = self.db.store();
        // Both at once: on a networked store they share one round trip.
        let (all, waiting) =
            tokio::try_join!(store.list_tasks(&all), store.list_tasks(&waiting)).internal(FAMILY)?;
        let newest = all.rows.first().and_then(|r| util::normalize_ts(&r.status_ts));
        let created = util::normalize_ts(&record.created_at).unwrap_or_else(|| record.created_at.clone());
        let last_activity_at = match newest {
            Some(ts) if ts > created => ts,
            _ => created,
        };
        Ok(Session {
            id: record.id.clone(),
            namespace: ns.to_string(),
            title: record.title.clone(),
            metadata: record.metadata.clone(),
            created_at: record.created_at.clone(),
            last_activity_at,
            task_count: i32::try_from(all.total).unwrap_or(i32::MAX),
            awaiting_input: waiting.total > 0,
        })
    }
}

fn already_exists(what: &str) -> Error {
    Error::new(ErrorKind::ExtAlreadyExists, format!("{what} already exists"))
}

fn encode_cursor(cursor: &ListCursor) -> String {
    let text = serde_json::to_string(cursor).unwrap_or_default();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

fn decode_cursor(text: &str) -> Option<ListCursor> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The extension's part of a task's metadata: the plan it runs, if any.
fn plan_of(task: &Task) -> Option<(String, i64)> {
    let part = task.metadata.as_ref()?.get(EXTENSION_URI)?;
    let plan_id = part.get("planId")?.as_str()?.to_string();
    let revision = part.get("revision").and_then(Value::as_i64).unwrap_or(1);
    Some((plan_id, revision))
}

fn session_task(row: &TaskRow) -> SessionTask {
    SessionTask {
        task_id: row.id.clone(),
        state: row.body.status.state,
        updated_at: row
            .body
            .status
            .timestamp
            .clone()
            .unwrap_or_else(|| row.status_ts.clone()),
        plan_id: plan_of(&row.body).map(|(id, _)| id),
    }
}

/// One link per plan, from its newest task (`rows` are newest first).
fn plan_links(rows: &[TaskRow]) -> Vec<SessionPlanLink> {
    let mut links: Vec<SessionPlanLink> = Vec::new();
    for row in rows {
        if let Some((plan_id, revision)) = plan_of(&row.body) {
            if !links.iter().any(|l| l.plan_id == plan_id) {
                links.push(SessionPlanLink {
                    plan_id,
                    revision,
                    task_id: row.id.clone(),
                });
            }
        }
    }
    links
}

/// session/tell answers in the extension's taxonomy what the A2A send path
/// answers in the standard one.
fn in_extension_terms(error: Error) -> Error {
    let Some(kind) = error.kind::<ErrorKind>() else {
        return error;
    };
    let ext = match kind {
        ErrorKind::TaskNotFound => ErrorKind::ExtNotFound,
        ErrorKind::InvalidParams | ErrorKind::ContentTypeNotSupported | ErrorKind::ParseError => {
            ErrorKind::ExtInvalidParams
        }
        ErrorKind::TaskNotCancelable | ErrorKind::UnsupportedOperation => ErrorKind::ExtInvalidState,
        ErrorKind::InternalError | ErrorKind::InvalidAgentResponse => ErrorKind::ExtInternalError,
        _ => return error,
    };
    let mut mapped = Error::new(ext, error.message.clone());
    for (field, description) in error.field_violations() {
        mapped = mapped.with_field_violation(&field, description);
    }
    mapped
}
