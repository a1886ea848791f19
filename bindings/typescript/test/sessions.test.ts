// Sessions over every transport: create, tell (an A2A SendMessageResponse,
// also read with the official SDK's types), export, delete, import of the
// exported document, and the typed errors of a duplicate import and of a
// document whose checksum does not match.

import assert from "node:assert/strict";
import { it } from "node:test";
import {
  ExtAlreadyExistsError,
  ExtInvalidParamsError,
  ExtNotFoundError,
  sendMessageResponseCase,
  toSdkSendMessageResponse,
  type SessionExport,
} from "../src/index.js";
import { overEveryTransport } from "./agent.js";

overEveryTransport("session export/import", (context) => {
  it("exports a session, deletes it and imports it back", { timeout: 30_000 }, async () => {
    const { client, unique } = context();
    const title = unique("review");
    const session = await client.sessionCreate({ title, metadata: { ide: "vscode" } });
    assert.equal(session.title, title);
    assert.deepEqual(session.metadata, { ide: "vscode" });
    assert.equal(session.namespace, "default");
    assert.equal(session.taskCount, 0);
    assert.equal(session.awaitingInput, false);

    const told = await client.sessionTell({
      sessionId: session.id,
      message: { messageId: unique("msg"), role: "ROLE_USER", parts: [{ text: "hello" }] },
    });
    assert.equal(sendMessageResponseCase(told), "task");
    assert.ok(told.task !== undefined);
    assert.equal(told.task.contextId, session.id);
    assert.equal(told.task.status.state, "TASK_STATE_COMPLETED");
    assert.deepEqual(told.task.status.message?.parts, [{ text: "Received: hello" }]);
    // The same answer in the official SDK's model.
    const sdk = toSdkSendMessageResponse(told);
    assert.equal(sdk.payload?.$case, "task");
    assert.equal(sdk.payload.value.id, told.task.id);

    const document: SessionExport = await client.sessionExport({ sessionId: session.id });
    assert.equal(document.format, "urn:cleveragents:session-export");
    assert.equal(document.formatVersion, 2);
    assert.equal(document.session.id, session.id);
    assert.equal(document.session.title, title);
    assert.deepEqual(document.session.metadata, { ide: "vscode" });
    assert.match(document.sessionSha256, /^[0-9a-f]{64}$/);
    assert.equal(document.tasks.length, 1);
    assert.equal(document.tasks[0]?.task.id, told.task.id);
    assert.deepEqual(document.plans, []);

    const duplicate: unknown = await client.sessionImport({ document }).catch((e: unknown) => e);
    assert.ok(duplicate instanceof ExtAlreadyExistsError, String(duplicate));
    assert.equal(duplicate.reason, "ALREADY_EXISTS");

    assert.deepEqual(await client.sessionDelete({ sessionId: session.id }), { sessionId: session.id, deletedTasks: 1 });
    const gone: unknown = await client.sessionShow({ sessionId: session.id }).catch((e: unknown) => e);
    assert.ok(gone instanceof ExtNotFoundError, String(gone));

    const tampered: SessionExport = { ...document, session: { ...document.session, title: "changed" } };
    const refused: unknown = await client.sessionImport({ document: tampered }).catch((e: unknown) => e);
    assert.ok(refused instanceof ExtInvalidParamsError, String(refused));
    assert.equal(refused.code, -32602);
    assert.equal(refused.reason, "INVALID_PARAMS");

    const imported = await client.sessionImport({ document });
    assert.equal(imported.id, session.id);
    assert.equal(imported.title, title);
    assert.equal(imported.taskCount, 1);
    const shown = await client.sessionShow({ sessionId: session.id });
    assert.deepEqual(
      shown.tasks.map((t) => [t.taskId, t.state]),
      [[told.task.id, "TASK_STATE_COMPLETED"]],
    );
  });
});
