// The official SDK's client beside this package's, on one agent: the SDK
// sends a standard message over its own JSON-RPC and HTTP+JSON transports
// with the extension activated (`withExtension`), into a session this
// package created; the extension then sees the task the SDK made.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, it } from "node:test";
import { SendMessageRequest, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import {
  A2A_EXTENSIONS_HEADER,
  EXTENSION_URI,
  EXTENSION_VERSION_HEADER,
  ExtensionClient,
  HttpTransport,
  withExtension,
} from "../src/index.js";
import { startServer, type ServerAgent } from "./agent.js";

let server: ServerAgent | undefined;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
  it(`the SDK's ${binding} client sends into a session of the extension`, { timeout: 30_000 }, async () => {
    if (server === undefined) throw new Error("no server");
    const { transport } = await HttpTransport.fromAgentCard(server.url, binding);
    const extension = new ExtensionClient(transport);
    const session = await extension.sessionCreate({ title: `sdk-${binding}` });

    // The headers of the SDK's calls, as its transports send them.
    const sent: Headers[] = [];
    const fetchImpl: typeof fetch = (input, init) => {
      sent.push(new Headers(init?.headers));
      return fetch(input, init);
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        preferredTransports: [binding],
      }),
    );
    const sdk = await factory.createFromUrl(server.url);
    const request = SendMessageRequest.fromJSON({
      message: { messageId: randomUUID(), role: "ROLE_USER", contextId: session.id, parts: [{ text: "from the SDK" }] },
    });
    const result = await sdk.sendMessage(request, withExtension({ signal: AbortSignal.timeout(20_000) }, "1.2"));
    assert.ok("status" in result, "a task");
    assert.equal(result.contextId, session.id);
    assert.equal(result.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.get(A2A_EXTENSIONS_HEADER), EXTENSION_URI);
    assert.equal(sent[0]?.get(EXTENSION_VERSION_HEADER), "1.2");

    const shown = await extension.sessionShow({ sessionId: session.id });
    assert.deepEqual(
      shown.tasks.map((t) => [t.taskId, t.state]),
      [[result.id, "TASK_STATE_COMPLETED"]],
    );
  });
}
