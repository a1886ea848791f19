// The plan lifecycle over every transport: use → execute → status (waiting
// for approval) → approve (plan/prompt) → diff → apply, with exact wire
// values and the typed error of an invalid transition.

import assert from "node:assert/strict";
import { it } from "node:test";
import { ExtInvalidStateError, ExtNotFoundError, EXTENSION_URI, isExtensionError, type PlanStatus } from "../src/index.js";
import { eventually, overEveryTransport } from "./agent.js";

overEveryTransport("plan lifecycle", (context) => {
  it("uses, executes, approves, diffs and applies a plan", { timeout: 60_000 }, async () => {
    const { client, unique } = context();
    const project = unique("site");
    const profile = unique("careful");
    const action = unique("notes");
    await client.registryProjectsAdd({
      project: { name: project, files: [{ path: "README.md", mediaType: "text/markdown", text: "# Site\n" }] },
    });
    await client.registryAutomationProfilesAdd({
      automationProfile: { name: profile, approvalMode: "APPROVAL_MODE_MANUAL", budget: { maxFilesChanged: 5 } },
    });
    await client.registryActionsAdd({
      action: {
        name: action,
        automationProfile: profile,
        steps: [
          { id: "approve", name: "Approve", tool: "approval", arguments: { question: "Write notes for {{version}}?" } },
          { id: "write", name: "Write", tool: "write-file", arguments: { path: "NOTES.md", content: "Release {{version}}\n" } },
        ],
      },
    });

    const plan = await client.planUse({ action, project, inputs: { version: "1.0" } });
    assert.equal(plan.state, "PLAN_STATE_CREATED");
    assert.equal(plan.phase, "PLAN_PHASE_STRATEGIZE");
    assert.equal(plan.action, action);
    assert.equal(plan.project, project);

    const execution = await client.planExecute({ planId: plan.id });
    assert.equal(execution.plan.state, "PLAN_STATE_RUNNING");
    assert.equal(execution.plan.phase, "PLAN_PHASE_EXECUTE");
    assert.equal(typeof execution.taskId, "string");

    const waiting = await eventually("the approval prompt", 20_000, async () => {
      const status: PlanStatus = await client.planStatus({ planId: plan.id });
      return status.plan.state === "PLAN_STATE_INPUT_REQUIRED" ? status : undefined;
    });
    assert.ok(waiting.pendingPrompt !== undefined);
    const { createdAt, ...prompt } = waiting.pendingPrompt;
    assert.equal(typeof createdAt, "string");
    assert.deepEqual(prompt, {
      promptId: "prm-approve-1",
      stepId: "approve",
      kind: "PLAN_PROMPT_KIND_APPROVAL",
      question: "Write notes for 1.0?",
    });

    // Applying before the plan completed is an invalid transition, typed.
    await assert.rejects(client.planApply({ planId: plan.id }), (error: unknown) => {
      assert.ok(error instanceof ExtInvalidStateError, `got ${String(error)}`);
      assert.equal(error.reason, "INVALID_STATE");
      assert.equal(error.code, -32004);
      assert.equal(error.domain, EXTENSION_URI);
      return true;
    });

    const approved = await client.planPrompt({
      planId: plan.id,
      promptId: waiting.pendingPrompt.promptId,
      decision: "PROMPT_DECISION_APPROVE",
    });
    assert.equal(approved.id, plan.id);
    const done = await eventually("the plan's completion", 20_000, async () => {
      const status = await client.planStatus({ planId: plan.id });
      return status.plan.state === "PLAN_STATE_COMPLETED" ? status : undefined;
    });
    assert.equal(done.pendingPrompt, undefined);

    const diff = await client.planDiff({ planId: plan.id });
    assert.deepEqual(diff, {
      planId: plan.id,
      revision: 1,
      project,
      projectRevision: 1,
      files: [
        {
          path: "NOTES.md",
          change: "FILE_CHANGE_KIND_ADDED",
          mediaType: "text/markdown",
          binary: false,
          afterSha256: "c71e729588bc4d3c7cf9a100b10f7a4e57ac1dae598ff8d1a1e887e3ed4f2388",
          hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ["+Release 1.0"] }],
        },
      ],
      stats: { filesChanged: 1, linesAdded: 1, linesDeleted: 0 },
    });

    const applied = await client.planApply({ planId: plan.id, expectedProjectRevision: diff.projectRevision });
    assert.equal(applied.plan.state, "PLAN_STATE_APPLIED");
    assert.equal(applied.plan.appliedProjectRevision, 2);
    const { createdAt: revisionCreated, ...revision } = applied.revision;
    assert.equal(typeof revisionCreated, "string");
    assert.deepEqual(revision, {
      project,
      revision: 2,
      parentRevision: 1,
      origin: "PROJECT_REVISION_ORIGIN_PLAN_APPLIED",
      planId: plan.id,
      message: `Applied plan ${plan.id} (action ${action})`,
      fileCount: 2,
      changes: [{ path: "NOTES.md", change: "FILE_CHANGE_KIND_ADDED" }],
    });

    // A second apply is refused the same way, and the guard narrows by reason.
    const again = await client.planApply({ planId: plan.id }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(isExtensionError(again, "INVALID_STATE"));
    assert.equal(again.errorName, "ExtInvalidState");
  });

  it("reports an unknown plan as not found", { timeout: 20_000 }, async () => {
    const { client, unique, kind } = context();
    await assert.rejects(client.planStatus({ planId: unique("missing") }), (error: unknown) => {
      assert.ok(error instanceof ExtNotFoundError, `got ${String(error)}`);
      assert.equal(error.reason, "NOT_FOUND");
      assert.equal(error.code, -32001);
      assert.equal(error.httpStatus, kind === "HTTP+JSON" ? 404 : undefined);
      return true;
    });
  });
});
