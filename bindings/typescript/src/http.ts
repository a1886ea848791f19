// The HTTP transport: the extension's calls over the agent's JSON-RPC
// endpoint or its HTTP+JSON (REST) binding, with the A2A version header and
// the extension activated, streams as Server-Sent Events resumed after a
// broken connection with `Last-Event-ID`.
//
// The official @a2a-js/sdk transports carry only the standard A2A methods
// (their Transport interface has one member per standard method and no
// generic call), so this one speaks the same envelopes over fetch.

import {
  A2A_EXTENSIONS_HEADER,
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  EXTENSION_URI,
  EXTENSION_VERSION_HEADER,
  type ExtensionVersion,
} from "./gen/contract.js";
import { EXTENSION_METHODS, type HttpRoute, type MethodInfo } from "./gen/methods.js";
import type { AgentCard } from "./gen/a2a.js";
import { TransportError, type CallOptions, type StreamEvent, type StreamOptions, type Transport } from "./transport.js";
import {
  bounded,
  errorOfBareStatus,
  errorOfJsonRpc,
  errorOfStatusBody,
  isStatusBody,
  position,
  request,
  resultOf,
  sseEvents,
} from "./wire.js";

/** Which HTTP binding a transport speaks. */
export type HttpBinding = "JSONRPC" | "HTTP+JSON";

/** How to reach the agent over HTTP. */
export interface HttpTransportOptions {
  /** The JSON-RPC endpoint, or the base URL of the HTTP+JSON routes (from the Agent Card). */
  url: string;
  /** The binding to speak; JSON-RPC when absent. */
  binding?: HttpBinding | undefined;
  /** The extension minor version wanted; the server's newest when absent. */
  extensionVersion?: ExtensionVersion | undefined;
  /** Further headers on every request (credentials: `Authorization`, an API key). */
  headers?: { readonly [name: string]: string } | undefined;
  /** Default bound on a call, and on opening a stream, in milliseconds (30 s when absent). */
  timeoutMs?: number | undefined;
  /** How often a broken stream is reopened after its last event (3 when absent). */
  maxResumes?: number | undefined;
  /** The fetch to use (the global one when absent). */
  fetch?: typeof fetch | undefined;
}

const JSON_TYPE = "application/json";
const SSE_TYPE = "text/event-stream";

/** Methods the transport may send again: a read repeated changes nothing. */
function repeatable(info: MethodInfo | undefined): boolean {
  return info?.access === "read";
}

function methodInfo(method: string): MethodInfo | undefined {
  return Object.prototype.hasOwnProperty.call(EXTENSION_METHODS, method)
    ? (EXTENSION_METHODS as { readonly [name: string]: MethodInfo })[method]
    : undefined;
}

/** A transport over HTTP: JSON-RPC 2.0 POSTs, or the HTTP+JSON routes. */
export class HttpTransport implements Transport {
  readonly binding: HttpBinding;
  private readonly options: HttpTransportOptions;
  private readonly fetch: typeof fetch;
  private nextId = 1;
  private closed = false;

  constructor(options: HttpTransportOptions) {
    this.options = options;
    this.binding = options.binding ?? "JSONRPC";
    // Called as a method of the transport, a browser's own fetch throws
    // "Illegal invocation": it must be called on the global object.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /**
   * A transport of `binding` to the agent at `baseUrl`: at the URL its
   * public Agent Card declares for the binding.
   */
  static async fromAgentCard(
    baseUrl: string,
    binding: HttpBinding,
    options: Omit<HttpTransportOptions, "url" | "binding"> = {},
  ): Promise<{ transport: HttpTransport; card: AgentCard }> {
    const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const cardUrl = new URL("/.well-known/agent-card.json", baseUrl);
    let response: Response;
    try {
      response = await fetcher(cardUrl, {
        headers: { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION, accept: JSON_TYPE },
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (cause) {
      // A browser says no more than "Failed to fetch" of a refused origin, too.
      throw new TransportError(`agent card: GET ${cardUrl.href}: ${describe(cause)}`, { cause });
    }
    if (!response.ok) throw new TransportError(`agent card: HTTP ${response.status}`);
    const card = (await response.json()) as AgentCard;
    const declared = card.supportedInterfaces.find(
      (i) => i.protocolBinding === binding && i.protocolVersion === A2A_PROTOCOL_VERSION,
    );
    if (declared === undefined) throw new TransportError(`the agent card declares no ${binding} interface`);
    return { transport: new HttpTransport({ ...options, url: declared.url, binding }), card };
  }

  private headers(accept: string, lastEventId?: number): Headers {
    const headers = new Headers(this.options.headers);
    headers.set(A2A_VERSION_HEADER, A2A_PROTOCOL_VERSION);
    headers.set(A2A_EXTENSIONS_HEADER, EXTENSION_URI);
    if (this.options.extensionVersion !== undefined) {
      headers.set(EXTENSION_VERSION_HEADER, this.options.extensionVersion);
    }
    headers.set("content-type", JSON_TYPE);
    headers.set("accept", accept);
    if (lastEventId !== undefined) headers.set("last-event-id", String(lastEventId));
    return headers;
  }

  /** The URL, verb and body of a call in the transport's binding. */
  private target(method: string, params: object): { url: string; verb: string; body: string | undefined } {
    if (this.binding === "JSONRPC") {
      return { url: this.options.url, verb: "POST", body: request(this.nextId++, method, params) };
    }
    const route: HttpRoute | undefined = methodInfo(method)?.http;
    if (route === undefined) throw new TransportError(`\`${method}\` has no HTTP+JSON route`);
    const rest: { [key: string]: unknown } = { ...params };
    const path = route.path.replace(/\{([^}]+)\}/g, (_, field: string) => {
      const value = rest[field];
      delete rest[field];
      if (value === undefined) throw new TransportError(`\`${method}\`: the params lack \`${field}\` of its route`);
      return encodeURIComponent(String(value));
    });
    let url = this.options.url.replace(/\/+$/, "") + path;
    if (route.body) return { url, verb: route.verb, body: JSON.stringify(rest) };
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) query.set(k, String(v));
    if ([...query].length > 0) url += `?${query.toString()}`;
    return { url, verb: route.verb, body: undefined };
  }

  private async send(
    method: string,
    params: object,
    accept: string,
    signal: AbortSignal,
    lastEventId?: number,
  ): Promise<Response> {
    if (this.closed) throw new TransportError("the transport is closed");
    const { url, verb, body } = this.target(method, params);
    try {
      const init: RequestInit = { method: verb, headers: this.headers(accept, lastEventId), signal };
      if (body !== undefined) init.body = body;
      return await this.fetch(url, init);
    } catch (cause) {
      throw new TransportError(`${verb} ${url}: ${describe(cause)}`, { cause });
    }
  }

  /**
   * The error an answer that is not a success carries: the error of its
   * body, else the registry's one error of that HTTP status (a proxy's or an
   * authentication layer's bare 401), else a TransportError.
   */
  private async failure(response: Response): Promise<Error> {
    const text = await response.text();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (isStatusBody(value)) return errorOfStatusBody(value, response.status);
    if (typeof value === "object" && value !== null && "error" in value) {
      return errorOfJsonRpc((value as { error: unknown }).error, response.status);
    }
    return errorOfBareStatus(response.status, text) ?? new TransportError(`HTTP ${response.status}: ${text.slice(0, 200)}`);
  }

  /** The result of a successful answer's JSON in the transport's binding. */
  private outcome(value: unknown): unknown {
    if (this.binding === "JSONRPC") return resultOf(value);
    if (isStatusBody(value)) throw errorOfStatusBody(value, 200);
    return value;
  }

  async call(method: string, params: object, options: CallOptions = {}): Promise<unknown> {
    const signal = bounded(options.signal, options.timeoutMs ?? this.options.timeoutMs ?? 30_000);
    const response = await this.send(method, params, JSON_TYPE, signal);
    if (!response.ok) throw await this.failure(response);
    let value: unknown;
    try {
      value = await response.json();
    } catch (cause) {
      throw new TransportError(`the answer to ${method} is not JSON: ${describe(cause)}`, { cause });
    }
    return this.outcome(value);
  }

  async *stream(method: string, params: object, options: StreamOptions = {}): AsyncGenerator<StreamEvent<unknown>> {
    const info = methodInfo(method);
    let lastId = options.lastEventId;
    let resumesLeft = this.options.maxResumes ?? 3;
    const abort = new AbortController();
    const onAbort = (): void => abort.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let resuming = false;
      for (;;) {
        // The bound holds until the answer's headers arrive; fetch applies
        // its signal to the whole body, so the timer aborts this attempt's
        // own controller and is cleared once the stream is open.
        const attempt = new AbortController();
        const follow = (): void => attempt.abort(abort.signal.reason);
        abort.signal.addEventListener("abort", follow, { once: true });
        const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
        const timer = setTimeout(() => attempt.abort(new TransportError(`${method}: no answer within ${timeoutMs} ms`)), timeoutMs);
        let response: Response;
        try {
          response = await this.send(method, params, SSE_TYPE, attempt.signal, lastId);
        } catch (error) {
          abort.signal.removeEventListener("abort", follow);
          // Reopening a broken stream: a refused connection is tried again, within the budget.
          if (!resuming || !(error instanceof TransportError) || abort.signal.aborted || resumesLeft <= 0) throw error;
          resumesLeft -= 1;
          await pause(RESUME_PAUSE_MS, abort.signal);
          continue;
        } finally {
          clearTimeout(timer);
        }
        if (!response.ok) throw await this.failure(response);
        const type = response.headers.get("content-type") ?? "";
        if (!type.startsWith(SSE_TYPE) || response.body === null) {
          // A single JSON answer instead of a stream: its one event, or its error.
          yield { data: this.outcome(await response.json()), id: undefined };
          return;
        }
        // Opened: from here only the caller's signal bounds the stream.
        const body = response.body;
        const cancel = (): void => void body.cancel().catch(() => undefined);
        abort.signal.addEventListener("abort", cancel, { once: true });
        try {
          for await (const event of sseEvents(body)) {
            if (event.data.trim() === "") continue;
            const id = position(event.id);
            // After a resume the server starts after Last-Event-ID; a replay is skipped.
            if (id !== undefined && lastId !== undefined && id <= lastId) continue;
            const data = this.outcome(JSON.parse(event.data));
            if (id !== undefined) lastId = id;
            resumesLeft = this.options.maxResumes ?? 3;
            yield { data, id };
          }
          return;
        } catch (error) {
          // The caller stopped the stream: said as on every transport.
          if (abort.signal.aborted) throw new TransportError(`${method} aborted`, { cause: error });
          // A typed error of the stream ends it; a broken connection may resume.
          if (!(error instanceof TypeError || error instanceof TransportError)) throw error;
          if (!repeatable(info) || resumesLeft <= 0) {
            throw new TransportError(`${method}: stream broken: ${describe(error)}`, { cause: error });
          }
          resumesLeft -= 1;
          resuming = true;
        } finally {
          abort.signal.removeEventListener("abort", cancel);
          abort.signal.removeEventListener("abort", follow);
        }
      }
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      abort.abort();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** The pause before reopening a stream whose connection was refused. */
const RESUME_PAUSE_MS = 200;

/** Waits `ms`, or less when `signal` fires. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
