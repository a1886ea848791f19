// Version negotiation on every transport: the stdio handshake's answer, a
// method newer than the negotiated minor version (METHOD_NOT_FOUND) and a
// minor version the server does not serve (VERSION_MISMATCH, with the
// supported versions in the ErrorInfo metadata), each as its typed error.

import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import {
  EXTENSION_URI,
  EXTENSION_VERSIONS,
  ExtMethodNotFoundError,
  ExtVersionMismatchError,
  ExtensionClient,
  HttpTransport,
  STDIO_BINDING_URI,
  StdioTransport,
  type ExtensionVersion,
} from "../src/index.js";
import { AGENT, startServer, type ServerAgent, TRANSPORTS, type TransportKind } from "./agent.js";

let server: ServerAgent | undefined;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const NEWEST = EXTENSION_VERSIONS[EXTENSION_VERSIONS.length - 1];
const OLDEST: ExtensionVersion = "1.1";

async function clientAt(kind: TransportKind, extensionVersion: ExtensionVersion): Promise<ExtensionClient> {
  if (kind === "stdio") {
    return new ExtensionClient(
      await StdioTransport.spawn({ command: AGENT, args: ["--stdio", "--memory"], stderr: "ignore", extensionVersion }),
    );
  }
  if (server === undefined) throw new Error("no server");
  const { transport } = await HttpTransport.fromAgentCard(server.url, kind, { extensionVersion, timeoutMs: 20_000 });
  return new ExtensionClient(transport);
}

it("initializes a stdio session with the newest extension version", { timeout: 30_000 }, async () => {
  const transport = await StdioTransport.spawn({ command: AGENT, args: ["--stdio", "--memory"], stderr: "ignore" });
  try {
    assert.equal(transport.session.protocolVersion, "1.0");
    assert.deepEqual(transport.session.extensions, [{ uri: EXTENSION_URI, version: NEWEST }]);
    assert.ok(transport.session.serverInfo.name.length > 0);
    assert.ok(transport.session.agentCard.supportedInterfaces.some((i) => i.protocolBinding === STDIO_BINDING_URI));
  } finally {
    await transport.close();
  }
});

for (const kind of TRANSPORTS) {
  it(`hides methods newer than the negotiated version over ${kind}`, { timeout: 30_000 }, async () => {
    const client = await clientAt(kind, OLDEST);
    try {
      const error: unknown = await client.sessionCreate({}).catch((e: unknown) => e);
      assert.ok(error instanceof ExtMethodNotFoundError, String(error));
      assert.equal(error.code, -32601);
      assert.equal(error.reason, "METHOD_NOT_FOUND");
      // A method of the negotiated version is served.
      assert.deepEqual((await client.namespaceList({})).items.map((n) => n.name), ["default"]);
    } finally {
      await client.close();
    }
  });

  it(`refuses a minor version it does not serve over ${kind}`, { timeout: 30_000 }, async () => {
    // @ts-expect-error -- 1.0 is not a served version, and the server says so too
    const retired: ExtensionVersion = "1.0";
    const refused: unknown = await (async () => {
      const client = await clientAt(kind, retired);
      try {
        return await client.planList({});
      } finally {
        await client.close();
      }
    })().catch((e: unknown) => e);
    assert.ok(refused instanceof ExtVersionMismatchError, String(refused));
    assert.equal(refused.code, -32007);
    assert.equal(refused.reason, "VERSION_MISMATCH");
    assert.deepEqual(refused.metadata, { supportedVersions: EXTENSION_VERSIONS.join(",") });
  });
}
