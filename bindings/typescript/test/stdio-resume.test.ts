// A stdio stream broken by the agent's death resumes on a new agent over
// the same data directory: the stream ends with a TransportError, and
// `lastEventId` (stdio `stream/resume`) continues after the last event seen,
// with nothing lost or repeated and the new agent's events after them.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { ExtensionClient, StdioTransport, TransportError, type DomainEvent, type StreamEvent } from "../src/index.js";
import { AGENT, collect } from "./agent.js";

const dataDir = mkdtempSync(join(tmpdir(), "cleveragents-ts-"));
after(() => rmSync(dataDir, { recursive: true, force: true }));

async function agent(): Promise<{ client: ExtensionClient; transport: StdioTransport }> {
  const transport = await StdioTransport.spawn({
    command: AGENT,
    args: ["--stdio", "--data-dir", dataDir],
    stderr: "ignore",
    timeoutMs: 20_000,
  });
  return { client: new ExtensionClient(transport), transport };
}

it("resumes a stream on a new agent after the old one died", { timeout: 60_000 }, async () => {
  const first = await agent();
  const session = await first.client.sessionCreate({ title: "resume" });
  for (const text of ["one", "two"]) {
    await first.client.sessionTell({
      sessionId: session.id,
      message: { messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }] },
    });
  }
  const all = await collect(first.client.eventsSubscribe({ sessionId: session.id }));
  assert.equal(all.length, 4);

  // Follow the stream and kill the agent once the second event arrived. The
  // agent may have written later events already; the stream delivers what
  // reached it, in order, then ends with a TransportError.
  const seen: StreamEvent<DomainEvent>[] = [];
  const broken: unknown = await (async () => {
    for await (const event of first.client.eventsSubscribe({ sessionId: session.id, follow: true })) {
      seen.push(event);
      if (seen.length === 2 && first.transport.pid !== undefined) process.kill(first.transport.pid, "SIGKILL");
    }
  })().catch((e: unknown) => e);
  assert.ok(broken instanceof TransportError, String(broken));
  assert.ok(seen.length >= 2);
  assert.deepEqual(seen, all.slice(0, seen.length));
  await first.client.close();

  // A new agent over the same data; a third message arrives there.
  const second = await agent();
  try {
    await second.client.sessionTell({
      sessionId: session.id,
      message: { messageId: "m-three", role: "ROLE_USER", parts: [{ text: "three" }] },
    });
    const last = seen[seen.length - 1]?.id;
    const rest = await collect(second.client.eventsSubscribe({ sessionId: session.id }, { lastEventId: last }));
    assert.deepEqual(rest.slice(0, all.length - seen.length), all.slice(seen.length));
    const added = rest.slice(all.length - seen.length);
    assert.deepEqual(
      added.map((e) => [e.data.type, e.data.taskSeq]),
      [
        ["session.message", 1],
        ["session.message", 3],
      ],
    );
    assert.deepEqual(added[0]?.data.event.task?.history?.[0]?.parts, [{ text: "three" }]);
  } finally {
    await second.client.close();
  }
});
