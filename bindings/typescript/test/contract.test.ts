// Checks without an agent: the generated method table against the schema
// it came from, the decoding of wire errors into the registry's classes,
// the header facts shared with the official SDK, and (at compile time) that
// misuse of the typed surface does not type-check.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { it } from "node:test";
import { A2A_PROTOCOL_VERSION as SDK_PROTOCOL_VERSION, A2A_VERSION_HEADER as SDK_VERSION_HEADER, HTTP_EXTENSION_HEADER } from "@a2a-js/sdk";
import {
  A2A_EXTENSIONS_HEADER,
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  BINDING_METHODS,
  ERROR_DOMAIN,
  ERROR_REGISTRY,
  EXTENSION_METHODS,
  ExtAuthRequiredError,
  ExtBudgetExceededError,
  ExtNotFoundError,
  ExtensionClient,
  ExtensionError,
  HttpTransport,
  RpcError,
  TransportError,
  errorFromWire,
  isExtensionError,
  partCase,
  type AnyExtensionError,
  type ErrorReason,
  type ExtensionMethod,
  type Part,
  type PlanState,
} from "../src/index.js";
import { errorOfJsonRpc, errorOfStatusBody, sseEvents } from "../src/wire.js";

interface SchemaMethod {
  streaming: boolean;
  errors?: string[];
  binding?: string;
}

const schema = JSON.parse(readFileSync(new URL("../../../../schema/cleveragents-ext.json", import.meta.url), "utf8")) as {
  "x-methods": { [name: string]: SchemaMethod };
  "x-errors": { [name: string]: { code: number; reason: string } };
};

it("the method table is the schema's, with a client method for each", () => {
  const dispatched = Object.entries(schema["x-methods"]).filter(([, m]) => m.binding === undefined);
  assert.deepEqual(Object.keys(EXTENSION_METHODS), dispatched.map(([name]) => name));
  for (const [name, method] of dispatched) {
    const info = EXTENSION_METHODS[name as ExtensionMethod];
    assert.equal(info.streaming, method.streaming, name);
    assert.deepEqual([...info.errors], method.errors ?? [], name);
    assert.equal(typeof (ExtensionClient.prototype as unknown as { [k: string]: unknown })[info.clientMethod], "function", name);
  }
});

it("the error registry is the schema's", () => {
  assert.deepEqual(
    Object.entries(ERROR_REGISTRY).map(([n, e]) => [n, e.code, e.reason, e.domain]),
    Object.entries(schema["x-errors"]).map(([n, e]) => [n, e.code, e.reason, ERROR_DOMAIN]),
  );
});

it("the A2A header facts are the official SDK's", () => {
  assert.equal(A2A_VERSION_HEADER, SDK_VERSION_HEADER);
  assert.equal(A2A_EXTENSIONS_HEADER, HTTP_EXTENSION_HEADER);
  assert.equal(A2A_PROTOCOL_VERSION, SDK_PROTOCOL_VERSION);
});

it("decodes JSON-RPC errors by their ErrorInfo, else by code", () => {
  const info = { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "BUDGET_EXCEEDED", domain: ERROR_DOMAIN, metadata: { limit: "5" } };
  const typed = errorOfJsonRpc({ code: -32006, message: "over budget", data: [info] });
  assert.ok(typed instanceof ExtBudgetExceededError);
  assert.ok(typed instanceof ExtensionError && typed instanceof RpcError && typed instanceof Error);
  assert.equal(typed.reason, "BUDGET_EXCEEDED");
  assert.equal(typed.message, "over budget");
  assert.deepEqual(typed.metadata, { limit: "5" });
  assert.deepEqual(typed.details, [info]);

  const bare = errorFromWire({ code: -32001, message: "gone" });
  assert.ok(bare instanceof ExtNotFoundError);
  assert.equal(bare.reason, "NOT_FOUND");

  const foreign = errorOfJsonRpc({ code: -32001, message: "task", data: [{ ...info, reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }] });
  assert.ok(!(foreign instanceof ExtensionError));
  assert.equal(foreign.reason, "TASK_NOT_FOUND");
  assert.equal(foreign.domain, "a2a-protocol.org");
});

it("decodes HTTP+JSON status bodies into the same classes", () => {
  const body = {
    error: { code: 404, status: "NOT_FOUND", message: "Plan `x` not found", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "NOT_FOUND", domain: ERROR_DOMAIN }] },
  };
  const error = errorOfStatusBody(body, 404);
  assert.ok(error instanceof ExtNotFoundError);
  assert.equal(error.code, -32001);
  assert.equal(error.httpStatus, 404);
  assert.ok(isExtensionError(error, "NOT_FOUND"));
  assert.ok(!isExtensionError(error, "INVALID_STATE"));
});

it("reads Server-Sent Events split anywhere", async () => {
  const text = ": keep-alive\n\nid: 7\ndata: {\"a\":\ndata: 1}\n\r\nid: 8\r\ndata: x\r\n\r\n";
  const bytes = new TextEncoder().encode(text);
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < bytes.length; i += 5) yield bytes.slice(i, i + 5);
  }
  const events = [];
  for await (const event of sseEvents(chunks())) events.push(event);
  assert.deepEqual(events, [
    { id: "7", event: undefined, data: "{\"a\":\n1}" },
    { id: "8", event: undefined, data: "x" },
  ]);
});

it("types one-ofs, enums and reasons strictly", () => {
  const part: Part = { text: "hi", mediaType: "text/plain" };
  assert.equal(partCase(part), "text");
  // @ts-expect-error -- a Part holds exactly one content member
  const both: Part = { text: "hi", url: "https://example.org/" };
  assert.ok(both);
  // @ts-expect-error -- not a PlanState
  const state: PlanState = "PLAN_STATE_SLEEPING";
  assert.ok(state);
  // @ts-expect-error -- not a reason of the registry
  const reason: ErrorReason = "NOT_A_REASON";
  assert.ok(reason);
  const client = new ExtensionClient({
    call: () => Promise.resolve({}),
    stream: async function* () {},
    close: () => Promise.resolve(),
  });
  // @ts-expect-error -- plan/status requires planId
  void client.planStatus({});
  // @ts-expect-error -- a streaming method is not called as unary
  void client.call("_cleveragents/events/subscribe", {});
});

it("the README's example is the compiled example", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const block = /## Example[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  const example = readFileSync(new URL("../../examples/plugin.ts", import.meta.url), "utf8");
  assert.ok(block !== undefined && block.length > 0);
  assert.ok(example.endsWith(block), "README.md's example block differs from examples/plugin.ts");
});

it("the hand-written sources name no method, reason or enum value", async () => {
  const generated: { [name: string]: unknown } = { ...(await import("../src/gen/types.js")), ...(await import("../src/gen/a2a.js")) };
  const names = new Set<string>([
    ...Object.keys(EXTENSION_METHODS),
    ...Object.values(BINDING_METHODS).map((m) => m.name),
    ...Object.values(ERROR_REGISTRY).map((e) => e.reason),
  ]);
  for (const [name, value] of Object.entries(generated)) {
    if (name.endsWith("_VALUES") && Array.isArray(value)) for (const v of value) names.add(String(v));
  }
  const dir = new URL("../../src/", import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    const text = readFileSync(new URL(file, dir), "utf8");
    for (const name of names) {
      assert.ok(!text.includes(`"${name}"`) && !text.includes(`'${name}'`), `src/${file} names "${name}"`);
    }
  }
});

it("narrows a registry error by its reason", () => {
  const describe = (error: AnyExtensionError): string => {
    switch (error.reason) {
      case "NOT_FOUND": {
        const narrowed: ExtNotFoundError = error;
        return narrowed.errorName;
      }
      default:
        return error.errorName;
    }
  };
  assert.equal(describe(new ExtNotFoundError({ code: -32001, message: "x" })), "ExtNotFound");
  assert.equal(describe(new ExtBudgetExceededError({ code: -32006, message: "x" })), "ExtBudgetExceeded");
});

it("types bare HTTP statuses the registry names once", async () => {
  const answering = (status: number, body: string): HttpTransport =>
    new HttpTransport({ url: "http://127.0.0.1:9/", fetch: () => Promise.resolve(new Response(body, { status })) });
  const unauthorized: unknown = await answering(401, "").call("any", {}).catch((e: unknown) => e);
  assert.ok(unauthorized instanceof ExtAuthRequiredError, String(unauthorized));
  assert.equal(unauthorized.httpStatus, 401);
  assert.equal(unauthorized.code, ERROR_REGISTRY.ExtAuthRequired.code);
  // 404 is two errors of the registry (no such method, no such entity): not guessed.
  const missing: unknown = await answering(404, "not found").call("any", {}).catch((e: unknown) => e);
  assert.ok(missing instanceof TransportError, String(missing));
  assert.equal(missing.message, "HTTP 404: not found");
});

it("bounds opening a stream, not following it", { timeout: 20_000 }, async () => {
  // A stream whose second event comes after the transport's timeout: the
  // timeout bounds the answer's headers only.
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write('id: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{"n":1}}\n\n');
    setTimeout(() => res.end('id: 2\ndata: {"jsonrpc":"2.0","id":1,"result":{"n":2}}\n\n'), 1_500);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const transport = new HttpTransport({ url: `http://127.0.0.1:${port}/`, timeoutMs: 1_000 });
    const events = [];
    for await (const event of transport.stream("any", {})) events.push(event);
    assert.deepEqual(events, [
      { data: { n: 1 }, id: 1 },
      { data: { n: 2 }, id: 2 },
    ]);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it("ends a stream the caller aborts with a TransportError", { timeout: 20_000 }, async () => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write('id: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{"n":1}}\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const transport = new HttpTransport({ url: `http://127.0.0.1:${port}/` });
    const stop = new AbortController();
    const seen: unknown[] = [];
    const ended: unknown = await (async () => {
      for await (const event of transport.stream("any", {}, { signal: stop.signal })) {
        seen.push(event.data);
        stop.abort();
      }
    })().catch((e: unknown) => e);
    assert.deepEqual(seen, [{ n: 1 }]);
    assert.ok(ended instanceof TransportError, String(ended));
    assert.equal(ended.message, "any aborted");
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
