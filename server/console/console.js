// The console's behaviour: every view of index.html, on the package's
// browser entry (contract.js, the generated client and its HTTP transport).
// The page calls the agent's JSON-RPC endpoint on its own origin; a
// credential entered is held in this module's memory only (never in
// storage, a cookie or the URL), and masked in the wire pane. Text from the
// agent is put in the page as text nodes, never as markup.

import {
  DOMAIN_EVENT_TYPE_VALUES,
  ExtensionClient,
  HttpTransport,
  PLAN_STATE_VALUES,
  RpcError,
  TASK_STATE_VALUES,
  TransportError,
} from "/console/contract.js";

/** The page's state: the card, the client, the credential, the live streams. */
const state = {
  card: undefined,
  /** `{ header, value }` of the credential in use, or undefined. */
  credential: undefined,
  client: undefined,
  transport: undefined,
  /** One AbortController per live view (task, plan, events, send). */
  live: new Map(),
  wire: [],
};

const WIRE_LIMIT = 300;
const EVENT_LIMIT = 500;
const TERMINAL_TASK_STATES = new Set([
  "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED",
]);
const FINAL_PLAN_STATES = new Set([
  "PLAN_STATE_COMPLETED", "PLAN_STATE_APPLIED", "PLAN_STATE_FAILED", "PLAN_STATE_CANCELLED", "PLAN_STATE_ROLLED_BACK",
]);

// ---------------------------------------------------------------- helpers

const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** A state badge, coloured by what the state means. */
function badge(value) {
  const text = String(value ?? "").replace(/^(TASK_STATE|PLAN_STATE|PLAN_STEP_STATE|PLAN_PHASE)_/, "");
  let tone = "state-run";
  if (/COMPLETED|APPLIED|DONE|SUCCEEDED/.test(text)) tone = "state-ok";
  else if (/INPUT|WAITING|AUTH|PENDING|CREATED/.test(text)) tone = "state-warn";
  else if (/FAILED|CANCEL|REJECTED|ROLLED|ERROR/.test(text)) tone = "state-bad";
  return h("span", { class: `badge ${tone}`, "data-state": value }, text.toLowerCase().replaceAll("_", " "));
}

function json(value) {
  return h("pre", {}, JSON.stringify(value, null, 2));
}

function fill(container, ...children) {
  container.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null));
}

/** The text of a message's parts: text as is, data as JSON, files by name. */
function partsText(parts = []) {
  return parts
    .map((part) => {
      if (part.text !== undefined) return part.text;
      if (part.data !== undefined) return JSON.stringify(part.data);
      if (part.url !== undefined) return `[file ${part.filename ?? part.url}]`;
      if (part.raw !== undefined) return `[${part.mediaType ?? "bytes"} ${part.filename ?? ""}]`;
      return "";
    })
    .join("\n");
}

// ---------------------------------------------------------------- errors

/** Shows an error the way a person reads it: what failed, the agent's words, its code and reason. */
function showError(what, error) {
  const lines = [h("div", { class: "title" }, `${what} failed`)];
  if (error instanceof RpcError) {
    lines.push(h("div", {}, error.message));
    const facts = [`${error.name}`, `code ${error.code}`];
    if (error.reason !== undefined) facts.push(`reason ${error.reason}`);
    if (error.domain !== undefined) facts.push(error.domain);
    if (error.httpStatus !== undefined) facts.push(`HTTP ${error.httpStatus}`);
    lines.push(h("div", { class: "muted mono" }, facts.join(" · ")));
    if (error.code === -32002 || error.httpStatus === 401) {
      lines.push(h("div", {}, "Enter an API key or a bearer token above."));
    }
  } else if (error instanceof TransportError) {
    lines.push(h("div", {}, error.message));
    lines.push(h("div", { class: "muted" }, "The agent did not answer as the protocol says (see the Wire view)."));
  } else {
    lines.push(h("div", {}, String(error?.message ?? error)));
  }
  fill($("alert-text"), lines);
  $("alert").hidden = false;
}

function clearError() {
  $("alert").hidden = true;
}

/** Runs `action`, showing its error; the result, or undefined on failure. */
async function attempt(what, action) {
  try {
    return await action();
  } catch (error) {
    if (error?.name === "AbortError" || (error instanceof TransportError && / aborted$/.test(error.message))) {
      return undefined;
    }
    showError(what, error);
    return undefined;
  }
}

// ---------------------------------------------------------------- wire

const SECRET_HEADERS = new Set(["authorization"]);

function maskHeaders(headers) {
  const out = {};
  const keyHeader = state.credential?.header.toLowerCase();
  for (const [name, value] of headers) {
    out[name] = SECRET_HEADERS.has(name) || name === keyHeader ? "•••" : value;
  }
  return out;
}

function recordWire(entry) {
  state.wire.unshift(entry);
  if (state.wire.length > WIRE_LIMIT) state.wire.length = WIRE_LIMIT;
  if (!$("view-wire").hidden) renderWire();
}

/** The JSON-RPC method a request body names, if it is one. */
function rpcMethodOf(body) {
  if (typeof body !== "string") return undefined;
  try {
    const method = JSON.parse(body).method;
    return typeof method === "string" ? method : undefined;
  } catch {
    return undefined;
  }
}

/** fetch, recording each exchange for the wire pane (a stream's events as they arrive). */
async function wireFetch(input, init = {}) {
  const request = new Request(input, init);
  const entry = {
    at: new Date().toISOString().slice(11, 23),
    method: request.method,
    url: request.url,
    requestHeaders: maskHeaders(request.headers),
    requestBody: typeof init.body === "string" ? init.body : "",
    rpcMethod: rpcMethodOf(init.body),
    status: "…",
    responseBody: "",
  };
  recordWire(entry);
  const response = await fetch(input, init);
  entry.status = `${response.status} ${response.statusText}`;
  const type = response.headers.get("content-type") ?? "";
  if (response.body === null) return response;
  if (type.startsWith("text/event-stream")) {
    const [mine, theirs] = response.body.tee();
    void (async () => {
      const reader = mine.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          entry.responseBody += decoder.decode(value, { stream: true });
          if (!$("view-wire").hidden) renderWire();
        }
      } catch {
        entry.responseBody += "\n[stream closed]";
      }
    })();
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  void response.clone().text().then((text) => {
    entry.responseBody = text;
    if (!$("view-wire").hidden) renderWire();
  });
  return response;
}

function renderWire() {
  fill(
    $("wire"),
    state.wire.map((e) =>
      h(
        "li",
        {},
        h("div", { class: "mono" }, `${e.at}  ${e.method} ${e.url}${e.rpcMethod === undefined ? "" : ` ${e.rpcMethod}`}  → ${e.status}`),
        h("details", {}, h("summary", {}, "request"), json(e.requestHeaders), h("pre", {}, e.requestBody)),
        h("details", { open: e.responseBody.length < 2000 }, h("summary", {}, "answer"), h("pre", {}, e.responseBody)),
      ),
    ),
  );
}

// ---------------------------------------------------------------- connection

function cardHeaders() {
  return { "A2A-Version": "1.0", accept: "application/json" };
}

/** The API-key header the card declares, `X-API-Key` when it declares none. */
function apiKeyHeader(card) {
  for (const scheme of Object.values(card?.securitySchemes ?? {})) {
    const key = scheme.apiKeySecurityScheme;
    if (key !== undefined && key.location === "header") return key.name;
  }
  return "X-API-Key";
}

/** A client on the JSON-RPC interface the card declares, reached on this page's origin. */
function connect() {
  for (const controller of state.live.values()) controller.abort();
  state.live.clear();
  $("event-follow").textContent = "Follow";
  $("event-state").textContent = "stopped";
  const declared = state.card?.supportedInterfaces?.find((i) => i.protocolBinding === "JSONRPC");
  const path = declared === undefined ? "/" : new URL(declared.url).pathname;
  const headers = state.credential === undefined ? {} : { [state.credential.header]: state.credential.value };
  state.transport = new HttpTransport({
    url: new URL(path, location.origin).toString(),
    binding: "JSONRPC",
    headers,
    timeoutMs: 30_000,
    fetch: wireFetch,
  });
  state.client = new ExtensionClient(state.transport);
}

function useCredential(event) {
  event.preventDefault();
  const scheme = $("scheme").value;
  const secret = $("secret").value.trim();
  if (scheme === "none" || secret === "") {
    state.credential = undefined;
    $("credential-state").textContent = "anonymous";
  } else if (scheme === "bearer") {
    state.credential = { header: "Authorization", value: `Bearer ${secret}` };
    $("credential-state").textContent = "bearer token in use";
  } else {
    const header = apiKeyHeader(state.card);
    state.credential = { header, value: secret };
    $("credential-state").textContent = `API key in use (${header})`;
  }
  $("secret").value = "";
  clearError();
  connect();
}

/** Starts a live view under `key`, stopping the one it replaces. */
function live(key) {
  state.live.get(key)?.abort();
  const controller = new AbortController();
  state.live.set(key, controller);
  return controller.signal;
}

// ---------------------------------------------------------------- card

function b64urlBytes(text) {
  const base64 = text.replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function b64url(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** RFC 8785 (JCS): the canonical JSON the card's signatures cover. */
function canonical(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
}

// The canonical form leaves out what the proto's presence rules call unset
// (spec §8.4.1), read from the schemas the OpenRPC document carries: the
// same rules as the contract's Rust signing module.

/** The schema a `$ref` names, or the schema itself. */
function resolveSchema(schema, schemas) {
  let current = schema;
  for (let i = 0; i < 8 && typeof current?.$ref === "string"; i++) {
    current = schemas[current.$ref.split("/").pop()] ?? current;
  }
  return current ?? {};
}

function isDefault(value) {
  if (value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return value === false || value === "" || value === 0;
}

/** A required member, one of explicit presence, or a message stays even at its default. */
function keptWhenDefault(property, target, required) {
  const isMessage =
    target.properties !== undefined ||
    target.oneOf !== undefined ||
    (target.type === "object" && (typeof target.additionalProperties !== "object" || target.additionalProperties === null));
  return required || property["x-presence"] === "explicit" || isMessage;
}

/** `value` without what `schema` calls unset, recursively (a copy). */
function prune(value, schema, schemas) {
  const target = resolveSchema(schema, schemas);
  if (Array.isArray(value)) return target.items === undefined ? value : value.map((item) => prune(item, target.items, schemas));
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(target.oneOf)) {
    const keys = Object.keys(value);
    const arm = target.oneOf.find((a) => a.properties !== undefined && keys.length > 0 && keys.every((k) => k in a.properties));
    if (arm !== undefined) return pruneMembers(value, arm, schemas);
  }
  if (target.properties !== undefined) return pruneMembers(value, target, schemas);
  if (typeof target.additionalProperties === "object" && target.additionalProperties !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prune(v, target.additionalProperties, schemas)]));
  }
  return value;
}

function pruneMembers(object, schema, schemas) {
  const required = schema.required ?? [];
  const out = {};
  for (const [name, member] of Object.entries(object)) {
    const property = schema.properties[name];
    if (property === undefined) {
      out[name] = member; // a member the schema does not name is kept as received
      continue;
    }
    const target = resolveSchema(property, schemas);
    const pruned = prune(member, target, schemas);
    const keep = keptWhenDefault(property, target, required.includes(name)) ? pruned !== null : !isDefault(pruned);
    if (keep) out[name] = pruned;
  }
  return out;
}

/** The bytes a card signature covers: the card without `signatures`, pruned, in RFC 8785 form. */
async function canonicalCard(card) {
  await loadOpenRpc();
  const schemas = openrpc?.components?.schemas ?? {};
  const { signatures: _, ...unsigned } = card;
  const pruned = schemas.AgentCard === undefined ? unsigned : prune(unsigned, schemas.AgentCard, schemas);
  return new TextEncoder().encode(canonical(pruned));
}

const ALGORITHMS = {
  ES256: { import: { name: "ECDSA", namedCurve: "P-256" }, verify: { name: "ECDSA", hash: "SHA-256" } },
  RS256: { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, verify: { name: "RSASSA-PKCS1-v1_5" } },
};

/** The JWK Set the user pasted as the keys they trust, or undefined. */
function trustedKeys() {
  const text = $("trusted-keys")?.value.trim() ?? "";
  if (text === "") return undefined;
  const set = JSON.parse(text);
  if (!Array.isArray(set.keys)) throw new Error("a JWK Set has a `keys` array");
  return set.keys;
}

/**
 * What a signature of the card says against the keys the user trusts:
 * verified, failing, or why it is not checked. A key named by the card
 * itself (`jku`) proves nothing on its own, so none is fetched.
 */
async function signatureStatus(card, signature, keys) {
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(b64urlBytes(signature.protected)));
  } catch {
    return { header: {}, verdict: "unreadable protected header", tone: "state-bad" };
  }
  const algorithm = ALGORITHMS[header.alg];
  if (algorithm === undefined) return { header, verdict: `not checked: ${header.alg} is not ES256 or RS256`, tone: "state-warn" };
  if (keys === undefined) return { header, verdict: "not checked: no trusted keys given", tone: "state-warn" };
  const jwk = keys.find((k) => k.kid === header.kid);
  if (jwk === undefined) return { header, verdict: `unverified: no trusted key ${header.kid}`, tone: "state-bad" };
  try {
    const key = await crypto.subtle.importKey("jwk", jwk, algorithm.import, false, ["verify"]);
    const input = `${signature.protected}.${b64url(await canonicalCard(card))}`;
    const ok = await crypto.subtle.verify(algorithm.verify, key, b64urlBytes(signature.signature), new TextEncoder().encode(input));
    return ok
      ? { header, verdict: "verified", tone: "state-ok" }
      : { header, verdict: "does NOT verify", tone: "state-bad" };
  } catch (error) {
    return { header, verdict: `unverified: ${error.message}`, tone: "state-bad" };
  }
}

async function loadCard() {
  const card = await attempt("Loading the Agent Card", async () => {
    const response = await wireFetch("/.well-known/agent-card.json", { headers: cardHeaders() });
    if (!response.ok) throw new TransportError(`the Agent Card: HTTP ${response.status}`);
    return response.json();
  });
  if (card === undefined) return;
  state.card = card;
  $("agent-name").textContent = card.name;
  $("agent-version").textContent = `v${card.version}`;
  document.title = `${card.name} — console`;
  connect();
  await renderCard(card);
}

/** The card's signatures, each with what the trusted keys say of it. */
async function signatureList(card) {
  const signatures = card.signatures ?? [];
  if (signatures.length === 0) return h("p", { id: "signature-status" }, badge("UNSIGNED"), " The card carries no signature.");
  let keys;
  try {
    keys = trustedKeys();
  } catch (error) {
    showError("Reading the trusted keys", error);
  }
  const statuses = await Promise.all(signatures.map((s) => signatureStatus(card, s, keys)));
  return h(
    "ul",
    { id: "signature-status" },
    statuses.map(({ header, verdict, tone }) =>
      h("li", { "data-kid": header.kid }, h("span", { class: `badge ${tone}` }, verdict), ` ${header.alg ?? "?"} key ${header.kid ?? "?"}`),
    ),
  );
}

async function checkSignatures() {
  clearError();
  $("signature-status").replaceWith(await signatureList(state.card));
}

async function renderCard(card) {
  const signatureBox = await signatureList(card);
  const signed = (card.signatures ?? []).length > 0;
  const skills = card.skills ?? [];
  fill(
    $("card"),
    h(
      "div",
      { class: "cards" },
      h(
        "div",
        { class: "card-box" },
        h("h2", {}, card.name),
        h("p", {}, card.description),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "version"), h("dd", {}, card.version),
          h("dt", {}, "provider"), h("dd", {}, card.provider?.organization ?? "—"),
          h("dt", {}, "streaming"), h("dd", {}, String(card.capabilities?.streaming ?? false)),
          h("dt", {}, "push"), h("dd", {}, String(card.capabilities?.pushNotifications ?? false)),
          h("dt", {}, "security"), h("dd", {}, Object.keys(card.securitySchemes ?? {}).join(", ") || "none declared"),
        ),
        h("h3", {}, "Signature"),
        signatureBox,
        signed
          ? h(
              "details",
              {},
              h("summary", {}, "Check against keys you trust"),
              h("label", { for: "trusted-keys" }, "Trusted public keys (a JWK Set)"),
              h("textarea", { id: "trusted-keys", rows: 4, placeholder: '{"keys": [...]}' }),
              h("button", { type: "button", id: "check-signatures", onclick: () => void checkSignatures() }, "Check"),
            )
          : undefined,
      ),
      h(
        "div",
        { class: "card-box" },
        h("h3", {}, "Interfaces"),
        h("ul", {}, (card.supportedInterfaces ?? []).map((i) => h("li", {}, h("strong", {}, i.protocolBinding), ` ${i.protocolVersion} `, h("code", {}, i.url)))),
        h("h3", {}, "Extensions"),
        h("ul", {}, (card.capabilities?.extensions ?? []).map((e) => h("li", {}, h("code", {}, e.uri), e.required ? " (required)" : ""))),
        h("h3", {}, `Skills (${skills.length})`),
        h("ul", {}, skills.map((s) => h("li", {}, h("strong", {}, s.name), ` — ${s.description ?? ""}`))),
      ),
    ),
    h("details", {}, h("summary", {}, "The card as JSON"), json(card)),
  );
}

// ---------------------------------------------------------------- methods

let openrpc;

/** The agent's OpenRPC document (its methods and schemas), fetched once. */
async function loadOpenRpc() {
  if (openrpc === undefined) {
    openrpc = await attempt("Loading the OpenRPC document", async () => {
      const response = await wireFetch("/openrpc.json", { headers: { accept: "application/json" } });
      if (!response.ok) throw new TransportError(`openrpc.json: HTTP ${response.status}`);
      return response.json();
    });
  }
  return openrpc;
}

async function loadMethods() {
  await loadOpenRpc();
  renderMethods();
}

function renderMethods() {
  const methods = openrpc?.methods ?? [];
  const filter = $("method-filter").value.trim().toLowerCase();
  const shown = methods.filter((m) => m.name.toLowerCase().includes(filter) || (m.summary ?? "").toLowerCase().includes(filter));
  $("method-count").textContent = `${shown.length} of ${methods.length} methods`;
  fill(
    $("methods"),
    h(
      "ul",
      { class: "methods" },
      shown.map((m) =>
        h(
          "li",
          {},
          h(
            "details",
            {},
            h("summary", {}, h("code", {}, m.name), m.summary ? ` — ${m.summary}` : ""),
            h("p", {}, m.description ?? ""),
            h("div", { class: "muted" }, `params: ${(m.params ?? []).map((p) => p.name).join(", ") || "none"}`),
          ),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- tasks

async function listTasks(event) {
  event?.preventDefault();
  const params = { pageSize: 50 };
  if ($("task-state").value !== "") params.status = $("task-state").value;
  if ($("task-context").value.trim() !== "") params.contextId = $("task-context").value.trim();
  const result = await attempt("Listing tasks", () => state.transport.call("ListTasks", params));
  if (result === undefined) return;
  const tasks = result.tasks ?? [];
  fill(
    $("task-list"),
    tasks.length === 0
      ? h("p", { class: "muted" }, "No task matches.")
      : h(
          "ul",
          {},
          tasks.map((t) =>
            h(
              "li",
              {},
              h("button", { type: "button", "data-task": t.id, onclick: () => openTask(t.id) }, h("span", { class: "mono" }, t.id.slice(0, 18)), badge(t.status?.state)),
            ),
          ),
        ),
  );
}

function renderTask(task) {
  // The list shows the state the detail shows.
  document.querySelector(`#task-list [data-task="${CSS.escape(task.id)}"] .badge`)?.replaceWith(badge(task.status?.state));
  const history = task.history ?? [];
  const artifacts = task.artifacts ?? [];
  fill(
    $("task-detail"),
    h("h2", {}, "Task ", h("code", {}, task.id)),
    h("p", { id: "task-status" }, badge(task.status?.state), " ", partsText(task.status?.message?.parts)),
    h("div", { class: "muted" }, `context ${task.contextId}`),
    h("h3", {}, `History (${history.length})`),
    history.map((m) => h("div", { class: `message ${m.role}` }, h("div", { class: "muted" }, m.role === "ROLE_AGENT" ? "agent" : "user"), h("pre", {}, partsText(m.parts)))),
    h("h3", {}, `Artifacts (${artifacts.length})`),
    artifacts.map((a) => h("div", { class: "message" }, h("strong", {}, a.name ?? a.artifactId), h("pre", {}, partsText(a.parts)))),
  );
}

/** Opens a task and keeps its status live while it is not terminal. */
async function openTask(id) {
  for (const button of document.querySelectorAll("#task-list button")) {
    button.setAttribute("aria-current", String(button.dataset.task === id));
  }
  const task = await attempt(`Opening task ${id}`, () => state.transport.call("GetTask", { id, historyLength: 100 }));
  if (task === undefined) return;
  clearError();
  renderTask(task);
  if (TERMINAL_TASK_STATES.has(task.status?.state)) return;
  const signal = live("task");
  await attempt(`Following task ${id}`, async () => {
    for await (const { data } of state.transport.stream("SubscribeToTask", { id }, { signal })) {
      if (data.task !== undefined) Object.assign(task, data.task);
      if (data.statusUpdate !== undefined) task.status = data.statusUpdate.status;
      if (data.artifactUpdate !== undefined) {
        const artifacts = (task.artifacts ??= []);
        const at = artifacts.findIndex((a) => a.artifactId === data.artifactUpdate.artifact.artifactId);
        if (at >= 0 && data.artifactUpdate.append) artifacts[at].parts.push(...data.artifactUpdate.artifact.parts);
        else if (at >= 0) artifacts[at] = data.artifactUpdate.artifact;
        else artifacts.push(data.artifactUpdate.artifact);
      }
      if (data.message !== undefined) (task.history ??= []).push(data.message);
      renderTask(task);
    }
  });
}

// ---------------------------------------------------------------- send

/** Sends a message as a stream and shows each event as it arrives. */
async function send(event) {
  event.preventDefault();
  const text = $("send-text").value;
  const parts = [];
  if (text.trim() !== "") parts.push({ text });
  const dataText = $("send-data").value.trim();
  if (dataText !== "") {
    let data;
    try {
      data = JSON.parse(dataText);
    } catch (error) {
      showError("Reading the data part", new Error(`not JSON: ${error.message}`));
      return;
    }
    parts.push({ data });
  }
  if (parts.length === 0) return;
  const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", parts };
  const contextId = $("send-context").value.trim();
  if (contextId !== "") message.contextId = contextId;
  clearError();
  const list = $("send-events");
  list.replaceChildren();
  $("send-state").textContent = "sending…";
  const signal = live("send");
  let last;
  await attempt("Sending the message", async () => {
    for await (const { data } of state.transport.stream("SendStreamingMessage", { message }, { signal })) {
      list.append(eventItem(data));
      last = data;
    }
  });
  const taskId = last?.task?.id ?? last?.statusUpdate?.taskId ?? last?.artifactUpdate?.taskId;
  const stateName = last?.task?.status?.state ?? last?.statusUpdate?.status?.state;
  fill(
    $("send-state"),
    last === undefined ? "no answer" : "done",
    stateName === undefined ? undefined : [" ", badge(stateName)],
    taskId === undefined ? undefined : [" ", h("button", { type: "button", class: "plain", onclick: () => { showView("tasks"); void openTask(taskId); } }, "Open the task")],
  );
  if (contextId === "" && last !== undefined) {
    $("send-context").value = last.task?.contextId ?? last.statusUpdate?.contextId ?? last.message?.contextId ?? "";
  }
}

/** One stream event as a line: its kind, state and text. */
function eventItem(data) {
  if (data.task !== undefined) return h("li", { "data-kind": "task" }, h("strong", {}, "task "), h("code", {}, data.task.id), " ", badge(data.task.status?.state));
  if (data.statusUpdate !== undefined) {
    const s = data.statusUpdate.status;
    return h("li", { "data-kind": "status" }, h("strong", {}, "status "), badge(s?.state), " ", partsText(s?.message?.parts));
  }
  if (data.artifactUpdate !== undefined) {
    const a = data.artifactUpdate.artifact;
    return h("li", { "data-kind": "artifact" }, h("strong", {}, "artifact "), a.name ?? a.artifactId, ": ", partsText(a.parts));
  }
  if (data.message !== undefined) return h("li", { "data-kind": "message" }, h("strong", {}, "message "), partsText(data.message.parts));
  return h("li", {}, JSON.stringify(data));
}

// ---------------------------------------------------------------- plans

async function listPlans(event) {
  event?.preventDefault();
  const params = { limit: 50 };
  if ($("plan-state").value !== "") params.states = [$("plan-state").value];
  const page = await attempt("Listing plans", () => state.client.planList(params));
  if (page === undefined) return;
  fill(
    $("plan-list"),
    page.items.length === 0
      ? h("p", { class: "muted" }, "No plan matches.")
      : h(
          "ul",
          {},
          page.items.map((p) =>
            h(
              "li",
              {},
              h("button", { type: "button", "data-plan": p.id, onclick: () => openPlan(p.id) }, h("span", {}, p.title ?? `${p.action} on ${p.project}`), badge(p.state)),
            ),
          ),
        ),
  );
}

function treeNode(node) {
  return h(
    "li",
    { "data-node": node.id },
    h("span", { class: "muted" }, `${node.kind.replace(/^DECISION_NODE_KIND_/, "").toLowerCase()} `),
    node.label,
    node.state === undefined ? undefined : [" ", badge(node.state)],
    node.chosen ? " ✓" : undefined,
    node.children.length === 0 ? undefined : h("ul", {}, node.children.map(treeNode)),
  );
}

function promptBox(planId, prompt) {
  const answer = h("input", { id: "prompt-answer", "aria-label": "Your answer" });
  const decide = (decision) => async () => {
    const params = { planId, promptId: prompt.promptId, decision };
    if (decision === "PROMPT_DECISION_ANSWER") {
      if (prompt.choices?.length) params.choice = answer.value;
      else params.text = answer.value;
    }
    const done = await attempt("Answering the prompt", () => state.client.planPrompt(params));
    if (done !== undefined) await refreshPlan(planId);
  };
  const approval = prompt.kind === "PLAN_PROMPT_KIND_APPROVAL";
  return h(
    "div",
    { class: "prompt", id: "plan-prompt" },
    h("strong", {}, "The plan asks: "),
    prompt.question,
    prompt.choices?.length ? h("div", { class: "muted" }, `choices: ${prompt.choices.join(", ")}`) : undefined,
    h(
      "div",
      { class: "actions" },
      approval
        ? [
            h("button", { type: "button", id: "prompt-approve", onclick: decide("PROMPT_DECISION_APPROVE") }, "Approve"),
            h("button", { type: "button", class: "danger", id: "prompt-reject", onclick: decide("PROMPT_DECISION_REJECT") }, "Reject"),
          ]
        : [answer, h("button", { type: "button", id: "prompt-send", onclick: decide("PROMPT_DECISION_ANSWER") }, "Answer")],
    ),
  );
}

async function refreshPlan(planId) {
  const [status, tree] = await Promise.all([
    attempt("Reading the plan's status", () => state.client.planStatus({ planId })),
    attempt("Reading the plan's tree", () => state.client.planTree({ planId })),
  ]);
  if (status === undefined) return undefined;
  const plan = status.plan;
  // The list shows the state the detail shows.
  document.querySelector(`#plan-list [data-plan="${CSS.escape(planId)}"] .badge`)?.replaceWith(badge(plan.state));
  fill(
    $("plan-detail"),
    h("h2", {}, plan.title ?? `${plan.action} on ${plan.project}`),
    h("p", { id: "plan-state-line" }, badge(plan.state), " ", badge(plan.phase), h("span", { class: "muted" }, ` revision ${plan.revision} · `), h("code", {}, plan.id)),
    status.pendingPrompt === undefined ? undefined : promptBox(planId, status.pendingPrompt),
    h("h3", {}, "Steps"),
    h(
      "table",
      { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", {}, "step"), h("th", {}, "tool"), h("th", {}, "state"), h("th", {}, "note"))),
      h("tbody", {}, status.steps.map((s) => h("tr", { "data-step": s.id }, h("td", {}, s.name), h("td", {}, h("code", {}, s.tool)), h("td", {}, badge(s.state)), h("td", {}, s.message ?? "")))),
    ),
    tree === undefined ? undefined : [h("h3", {}, "Decision tree"), h("ul", { class: "tree" }, treeNode(tree.root))],
  );
  return status;
}

/** Opens a plan and redraws it on each of its domain events until it is final. */
async function openPlan(planId) {
  for (const button of document.querySelectorAll("#plan-list button")) {
    button.setAttribute("aria-current", String(button.dataset.plan === planId));
  }
  clearError();
  const status = await refreshPlan(planId);
  if (status === undefined || FINAL_PLAN_STATES.has(status.plan.state)) return;
  const signal = live("plan");
  await attempt("Following the plan", async () => {
    for await (const _ of state.client.eventsSubscribe({ planId, follow: true }, { signal })) {
      const now = await refreshPlan(planId);
      if (now === undefined || FINAL_PLAN_STATES.has(now.plan.state)) {
        state.live.get("plan")?.abort();
        return;
      }
    }
  });
}

// ---------------------------------------------------------------- events

async function followEvents(event) {
  event.preventDefault();
  if (state.live.has("events")) {
    state.live.get("events").abort();
    state.live.delete("events");
    $("event-follow").textContent = "Follow";
    $("event-state").textContent = "stopped";
    return;
  }
  const params = { follow: true };
  if ($("event-type").value !== "") params.types = [$("event-type").value];
  if ($("event-session").value.trim() !== "") params.sessionId = $("event-session").value.trim();
  if ($("event-plan").value.trim() !== "") params.planId = $("event-plan").value.trim();
  const signal = live("events");
  $("event-follow").textContent = "Stop";
  $("event-state").textContent = "following";
  const rows = $("event-rows");
  rows.replaceChildren();
  await attempt("Following domain events", async () => {
    for await (const { data } of state.client.eventsSubscribe(params, { signal })) {
      const e = data.event;
      const what = e.statusUpdate !== undefined ? badge(e.statusUpdate.status?.state) : e.artifactUpdate !== undefined ? `artifact ${e.artifactUpdate.artifact.name ?? ""}` : e.task !== undefined ? "task" : "message";
      rows.prepend(
        h(
          "tr",
          { "data-type": data.type },
          h("td", {}, String(data.cursor)),
          h("td", {}, data.type),
          h("td", { class: "mono" }, data.sessionId.slice(0, 12)),
          h("td", { class: "mono" }, data.taskId.slice(0, 12)),
          h("td", { class: "mono" }, data.planId?.slice(0, 12) ?? ""),
          h("td", {}, what),
        ),
      );
      while (rows.children.length > EVENT_LIMIT) rows.lastElementChild?.remove();
    }
  });
  if (state.live.get("events") === undefined || signal.aborted) return;
  state.live.delete("events");
  $("event-follow").textContent = "Follow";
  $("event-state").textContent = "ended";
}

// ---------------------------------------------------------------- navigation

const VIEWS = ["card", "methods", "tasks", "send", "plans", "events", "wire"];
const ON_SHOW = {
  methods: loadMethods,
  tasks: () => listTasks(),
  plans: () => listPlans(),
  wire: renderWire,
};

function showView(name) {
  for (const view of VIEWS) {
    const selected = view === name;
    $(`view-${view}`).hidden = !selected;
    const tab = $(`tab-${view}`);
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  if (location.hash !== `#${name}`) history.replaceState(null, "", `#${name}`);
  void ON_SHOW[name]?.();
}

/** Arrow keys, Home and End move between tabs (the ARIA tabs pattern). */
function tabKeys(event) {
  const current = VIEWS.indexOf(event.target.dataset.view);
  if (current < 0) return;
  const next = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: VIEWS.length - 1 }[event.key];
  if (next === undefined) return;
  event.preventDefault();
  const view = VIEWS[(next + VIEWS.length) % VIEWS.length];
  showView(view);
  $(`tab-${view}`).focus();
}

function options(select, values) {
  for (const value of values) select.append(h("option", { value }, value));
}

function start() {
  options($("task-state"), TASK_STATE_VALUES.filter((v) => v !== "TASK_STATE_UNSPECIFIED"));
  options($("plan-state"), PLAN_STATE_VALUES);
  options($("event-type"), DOMAIN_EVENT_TYPE_VALUES);
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => showView(tab.dataset.view));
    tab.addEventListener("keydown", tabKeys);
  }
  $("credentials").addEventListener("submit", useCredential);
  $("alert-close").addEventListener("click", clearError);
  $("method-filter").addEventListener("input", renderMethods);
  $("task-filter").addEventListener("submit", listTasks);
  $("task-open").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = $("task-id").value.trim();
    if (id !== "") void openTask(id);
  });
  $("send-form").addEventListener("submit", send);
  $("send-text").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("send-form").requestSubmit();
  });
  $("plan-filter").addEventListener("submit", listPlans);
  $("event-filter").addEventListener("submit", followEvents);
  $("wire-clear").addEventListener("click", () => {
    state.wire = [];
    renderWire();
  });
  connect();
  const first = VIEWS.includes(location.hash.slice(1)) ? location.hash.slice(1) : "card";
  void loadCard().then(() => {
    document.body.dataset.ready = "true";
  });
  showView(first);
}

start();
