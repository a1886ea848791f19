// The domain event stream over every transport: the stored events of a
// session in cursor order, resumed after an event (`lastEventId`: SSE
// Last-Event-ID, stdio `stream/resume`) and by `after`, stopped early,
// followed live; over HTTP, a connection broken mid-stream is reopened
// after the last event seen and no event is lost or repeated.

import assert from "node:assert/strict";
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { it } from "node:test";
import {
  ExtensionClient,
  HttpTransport,
  streamResponseCase,
  toSdkStreamResponse,
  type DomainEvent,
  type ExtensionClient as Client,
  type StreamEvent,
} from "../src/index.js";
import { collect, overEveryTransport } from "./agent.js";

/** A session with two answered messages: four stored events. */
async function sessionWithTwoMessages(client: Client, unique: (p: string) => string): Promise<string> {
  const session = await client.sessionCreate({ title: unique("events") });
  for (const text of ["one", "two"]) {
    await client.sessionTell({
      sessionId: session.id,
      message: { messageId: unique("msg"), role: "ROLE_USER", parts: [{ text }] },
    });
  }
  return session.id;
}

/** What an event says, without generated ids and times. */
function describe(event: StreamEvent<DomainEvent>): string {
  const data = event.data;
  const inner = data.event;
  const state = inner.task?.status.state ?? inner.statusUpdate?.status.state ?? "?";
  return `${data.type}:${data.taskSeq}:${streamResponseCase(inner) ?? "?"}:${state}`;
}

const STORED = [
  "session.message:1:task:TASK_STATE_SUBMITTED",
  "session.message:3:statusUpdate:TASK_STATE_COMPLETED",
  "session.message:1:task:TASK_STATE_SUBMITTED",
  "session.message:3:statusUpdate:TASK_STATE_COMPLETED",
];

overEveryTransport("domain events", (context, kind) => {
  it("streams a session's events in cursor order, each with its cursor as resume position", { timeout: 30_000 }, async () => {
    const { client, unique } = context();
    const sessionId = await sessionWithTwoMessages(client, unique);
    const events = await collect(client.eventsSubscribe({ sessionId }));
    assert.deepEqual(events.map(describe), STORED);
    for (const [i, event] of events.entries()) {
      assert.equal(event.id, event.data.cursor);
      assert.equal(event.data.sessionId, sessionId);
      if (i > 0) assert.ok(event.data.cursor > (events[i - 1]?.data.cursor ?? Infinity));
    }
    const first = events[0]?.data.event;
    assert.ok(first?.task !== undefined);
    assert.deepEqual(first.task.history?.[0]?.parts, [{ text: "one" }]);
    // The embedded A2A event in the official SDK's model.
    assert.equal(toSdkStreamResponse(first).payload?.$case, "task");
  });

  it("resumes after the last event seen, by lastEventId and by after", { timeout: 30_000 }, async () => {
    const { client, unique } = context();
    const sessionId = await sessionWithTwoMessages(client, unique);
    const all = await collect(client.eventsSubscribe({ sessionId }));
    const second = all[1]?.id;
    assert.equal(typeof second, "number");
    const resumed = await collect(client.eventsSubscribe({ sessionId }, { lastEventId: second }));
    assert.deepEqual(resumed, all.slice(2));
    const firstCursor = all[0]?.data.cursor;
    assert.ok(firstCursor !== undefined);
    const after = await collect(client.eventsSubscribe({ sessionId, after: firstCursor }));
    assert.deepEqual(after, all.slice(1));
  });

  it("stops a stream early and keeps serving", { timeout: 30_000 }, async () => {
    const { client, unique } = context();
    const sessionId = await sessionWithTwoMessages(client, unique);
    const firstOnly = await collect(client.eventsSubscribe({ sessionId, follow: true }), 1);
    assert.deepEqual(firstOnly.map(describe), STORED.slice(0, 1));
    const status = await client.sessionShow({ sessionId });
    assert.equal(status.session.taskCount, 2);
  });

  it("follows new events as they happen", { timeout: 30_000 }, async () => {
    const { client, unique } = context();
    const sessionId = await sessionWithTwoMessages(client, unique);
    const seen: string[] = [];
    let told: Promise<unknown> | undefined;
    const signal = AbortSignal.timeout(20_000);
    for await (const event of client.eventsSubscribe({ sessionId, follow: true }, { signal })) {
      seen.push(describe(event));
      if (seen.length === STORED.length) {
        told = client.sessionTell({
          sessionId,
          message: { messageId: unique("msg"), role: "ROLE_USER", parts: [{ text: "three" }] },
        });
      }
      if (seen.length === STORED.length + 2) break;
    }
    await told;
    assert.deepEqual(seen, [...STORED, ...STORED.slice(0, 2)]);
  });

  if (kind !== "stdio") {
    it("reopens a broken connection after the last event seen", { timeout: 30_000 }, async () => {
      const { client, unique, server } = context();
      const sessionId = await sessionWithTwoMessages(client, unique);
      const all = await collect(client.eventsSubscribe({ sessionId }));
      const proxy = await breakingProxy(server.url, 2, 1);
      try {
        const { transport } = await HttpTransport.fromAgentCard(server.url, kind);
        const endpoint = new URL(transport.binding === "JSONRPC" ? "/" : "/rest", proxy.url).toString();
        const viaProxy = new ExtensionClient(new HttpTransport({ url: endpoint, binding: kind, timeoutMs: 20_000 }));
        const events = await collect(viaProxy.eventsSubscribe({ sessionId }));
        assert.deepEqual(events, all);
        // The first reopening is refused (the connection dropped at once), the next one succeeds.
        assert.deepEqual(
          proxy.requests.map((h) => h["last-event-id"]),
          [undefined, String(all[1]?.id), String(all[1]?.id)],
        );
      } finally {
        await proxy.close();
      }
    });
  }
});

/**
 * A proxy to `target` that cuts its first event stream after `cut` events
 * (a dropped connection), then drops the next `refuse` stream requests at
 * once, and passes everything else through.
 */
async function breakingProxy(
  target: string,
  cut: number,
  refuse: number,
): Promise<{ url: string; requests: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const requests: IncomingHttpHeaders[] = [];
  let broken = false;
  let refused = 0;
  const proxy = createServer((req, res) => {
    const streaming = (req.headers.accept ?? "").includes("text/event-stream");
    if (streaming) requests.push(req.headers);
    if (streaming && broken && refused < refuse) {
      refused += 1;
      req.socket.destroy();
      return;
    }
    const upstream = httpRequest(new URL(req.url ?? "/", target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!streaming || broken) {
        answer.pipe(res);
        return;
      }
      broken = true;
      // The stored events end the stream, so the whole answer is read first.
      let body = "";
      answer.setEncoding("utf8");
      answer.on("data", (chunk: string) => (body += chunk));
      answer.on("end", () => {
        const events = body.split("\n\n").filter((e) => e.trim() !== "");
        res.write(events.slice(0, cut).map((e) => `${e}\n\n`).join(""), () => res.socket?.destroy());
      });
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
