// The wire shapes every transport shares: the JSON-RPC 2.0 envelope, the
// errors it and the HTTP+JSON binding carry (with google.rpc.ErrorInfo
// details), and Server-Sent Events. Pure functions, no I/O.

import { ERROR_REGISTRY, errorFromWire, errorNameOfStatus, type ErrorName, type RpcError, type WireError } from "./gen/errors.js";
import type { JsonValue } from "./gen/json.js";
import { TransportError } from "./transport.js";

/** The `@type` suffix of a google.rpc.ErrorInfo detail. */
const ERROR_INFO_TYPE = "google.rpc.ErrorInfo";

/** A JSON-RPC 2.0 request envelope. */
export function request(id: number, method: string, params: object): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The details of an error as JSON values (an array, or nothing). */
function detailsOf(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
}

/** Reads the ErrorInfo among `details` into the wire error's fields. */
function withErrorInfo(base: WireError, details: JsonValue[]): WireError {
  const info = details.find(
    (d): d is { [key: string]: JsonValue } =>
      isObject(d) && typeof d["@type"] === "string" && d["@type"].endsWith(ERROR_INFO_TYPE),
  );
  if (info === undefined) return { ...base, details };
  const metadata: { [key: string]: string } = {};
  if (isObject(info["metadata"])) {
    for (const [k, v] of Object.entries(info["metadata"])) {
      if (typeof v === "string") metadata[k] = v;
    }
  }
  return {
    ...base,
    details,
    reason: typeof info["reason"] === "string" ? info["reason"] : undefined,
    domain: typeof info["domain"] === "string" ? info["domain"] : undefined,
    metadata,
  };
}

/** The typed error of a JSON-RPC `error` member. */
export function errorOfJsonRpc(error: unknown, httpStatus?: number): RpcError {
  if (!isObject(error) || typeof error["code"] !== "number") {
    throw new TransportError(`malformed JSON-RPC error: ${JSON.stringify(error)}`);
  }
  const message = typeof error["message"] === "string" ? error["message"] : "";
  return errorFromWire(withErrorInfo({ code: error["code"], message, httpStatus }, detailsOf(error["data"])));
}

/** The result of a JSON-RPC response; its error, typed, is thrown. */
export function resultOf(response: unknown): unknown {
  if (!isObject(response) || response["jsonrpc"] !== "2.0") {
    throw new TransportError(`not a JSON-RPC response: ${JSON.stringify(response)}`);
  }
  if ("error" in response) throw errorOfJsonRpc(response["error"]);
  if (!("result" in response)) throw new TransportError("a JSON-RPC response without result or error");
  return response["result"];
}

/** True when `value` is a google.rpc.Status error body of the HTTP+JSON binding. */
export function isStatusBody(value: unknown): value is { error: { [key: string]: unknown } } {
  return isObject(value) && isObject(value["error"]) && "code" in value["error"];
}

/**
 * The typed error of an HTTP+JSON error body (`{"error": {code, status,
 * message, details}}`). The JSON-RPC code is the registry's: by the
 * ErrorInfo's reason, else by the HTTP and gRPC status pair.
 */
export function errorOfStatusBody(body: { error: { [key: string]: unknown } }, httpStatus: number): RpcError {
  const error = body.error;
  const message = typeof error["message"] === "string" ? error["message"] : `HTTP ${httpStatus}`;
  const status = typeof error["status"] === "string" ? error["status"] : "";
  const wire = withErrorInfo({ code: 0, message, httpStatus }, detailsOf(error["details"]));
  const names = Object.keys(ERROR_REGISTRY) as ErrorName[];
  const byReason = names.find((n) => ERROR_REGISTRY[n].reason === wire.reason && ERROR_REGISTRY[n].domain === wire.domain);
  const name = byReason ?? errorNameOfStatus(httpStatus, status);
  const code = name === undefined ? (typeof error["code"] === "number" ? error["code"] : httpStatus) : ERROR_REGISTRY[name].code;
  return errorFromWire({ ...wire, code });
}

/**
 * The typed error of an HTTP status whose body carries none: the registry's
 * error of that status when it is the only one (401: authentication
 * required, 403: forbidden), else undefined.
 */
export function errorOfBareStatus(httpStatus: number, body: string): RpcError | undefined {
  const names = (Object.keys(ERROR_REGISTRY) as ErrorName[]).filter((n) => ERROR_REGISTRY[n].httpStatus === httpStatus);
  const [only] = names;
  if (names.length !== 1 || only === undefined) return undefined;
  const entry = ERROR_REGISTRY[only];
  const message = body.trim() === "" ? entry.message : body.trim().slice(0, 200);
  return errorFromWire({ code: entry.code, message, httpStatus, reason: entry.reason, domain: entry.domain });
}

/** One Server-Sent Event. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * The chunks of a body: a `ReadableStream` is read through its reader, as
 * every browser can (not all make the stream itself async-iterable), and
 * cancelled when the reading stops before its end.
 */
async function* chunksOf(body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!("getReader" in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    // A reader that stops early closes the connection rather than leave it open.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** The events of an SSE body, as they arrive (spec: the `text/event-stream` format). */
export async function* sseEvents(body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let id: string | undefined;
  let event: string | undefined;
  let data: string[] = [];
  const dispatch = (): SseEvent | undefined => {
    const out = data.length > 0 ? { id, event, data: data.join("\n") } : undefined;
    event = undefined;
    data = [];
    return out;
  };
  for await (const chunk of chunksOf(body)) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        const ready = dispatch();
        if (ready !== undefined) yield ready;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "id") id = value;
      else if (field === "event") event = value;
    }
  }
  const last = dispatch();
  if (last !== undefined) yield last;
}

/** A signal that fires on `signal` or after `timeoutMs`, whichever comes first. */
export function bounded(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
}

/** An integer resume position from an SSE id or a stdio sequence number. */
export function position(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}
