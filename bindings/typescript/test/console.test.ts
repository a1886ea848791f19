// The agent's web console (/console) in headless Chromium, against the real
// agent: the card loads; a message sent from the page shows its events as
// they arrive; the task opens with its history; a plan waiting for approval
// is approved from the page and seen to finish; the domain events view
// follows the namespace; an agent error reads as one. Each main view is
// written as a screenshot under target/browser-screenshots/ (at 1280×800,
// and one on a narrow window); the keyboard moves between the views.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { ExtensionClient, HttpTransport } from "../src/index.js";
import { eventually, type ServerAgent } from "./agent.js";
import { Browser, type Page } from "./cdp.js";
import { SCREENSHOTS, startBrowserAgent } from "./pages.js";

/** A test key of the server crate's (server/tests/keys). */
function keyFile(name: string): string {
  return fileURLToPath(new URL(`../../../../server/tests/keys/${name}`, import.meta.url));
}

describe("the console in Chromium", () => {
  let browser: Browser;
  let agent: ServerAgent;
  let client: ExtensionClient;
  let page: Page;

  before(async () => {
    agent = await startBrowserAgent([], {
      agent: {
        card_signing_keys: [
          { kid: "test-es256", algorithm: "ES256", private_key_file: keyFile("es256.pem") },
          { kid: "test-rs256", algorithm: "RS256", private_key_file: keyFile("rs256.pem") },
        ],
      },
    });
    browser = await Browser.launch();
    client = new ExtensionClient((await HttpTransport.fromAgentCard(agent.url, "JSONRPC")).transport);
    page = await browser.newPage(1280, 800);
    await page.goto(new URL("/console", agent.url).toString());
    await page.waitFor("document.body.dataset.ready === 'true'", "the console to load the card");
  });

  after(async () => {
    await client?.close();
    await browser?.close();
    await agent?.stop();
  });

  /** A plan of an approval step and a write, executed: its task waits for the approval. */
  async function startPlan(): Promise<{ plan: { id: string }; taskId: string }> {
    const project = `site-${randomUUID().slice(0, 8)}`;
    const profile = `careful-${randomUUID().slice(0, 8)}`;
    const action = `notes-${randomUUID().slice(0, 8)}`;
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
    const { taskId } = await client.planExecute({ planId: plan.id });
    return { plan, taskId };
  }

  const click = (selector: string): Promise<void> =>
    page.evaluate(`document.querySelector(${JSON.stringify(selector)}).click()`);
  const text = (selector: string): Promise<string> =>
    page.evaluate(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? ""`);
  const shot = (name: string): Promise<void> => page.screenshot(`${SCREENSHOTS}console-${name}.png`);

  it("shows the Agent Card and checks its signatures against trusted keys", { timeout: 120_000 }, async () => {
    const { card } = await HttpTransport.fromAgentCard(agent.url, "JSONRPC");
    assert.equal(await text("#agent-name"), card.name);
    assert.equal(await text("#agent-version"), `v${card.version}`);
    const verdicts = (): Promise<string[]> =>
      page.evaluate("[...document.querySelectorAll('#signature-status li')].map((li) => li.textContent)");
    assert.deepEqual(await verdicts(), [
      "not checked: no trusted keys given ES256 key test-es256",
      "not checked: no trusted keys given RS256 key test-rs256",
    ]);
    const check = async (jwks: string): Promise<void> => {
      await page.evaluate(`document.querySelector('#card details').open = true; document.getElementById('trusted-keys').value = ${JSON.stringify(jwks)}`);
      const before = JSON.stringify(await verdicts());
      await click("#check-signatures");
      await page.waitFor(`JSON.stringify([...document.querySelectorAll('#signature-status li')].map((li) => li.textContent)) !== ${JSON.stringify(before)}`, "the check");
    };
    await check(await readFile(keyFile("impostor.jwks.json"), "utf8"));
    assert.deepEqual(await verdicts(), [
      "does NOT verify ES256 key test-es256",
      "unverified: no trusted key test-rs256 RS256 key test-rs256",
    ]);
    await check(await readFile(keyFile("card-signers.jwks.json"), "utf8"));
    assert.deepEqual(await verdicts(), ["verified ES256 key test-es256", "verified RS256 key test-rs256"]);
    const interfaces = await page.evaluate<string[]>(
      "[...document.querySelectorAll('#card li strong')].slice(0, 4).map((e) => e.textContent)",
    );
    assert.deepEqual(interfaces, ["JSONRPC", "JSONRPC", "HTTP+JSON", "GRPC"]);
    await shot("card");
  });

  it("moves between the views with the keyboard", { timeout: 120_000 }, async () => {
    await page.evaluate("document.getElementById('tab-card').focus()");
    await page.press("ArrowRight");
    assert.equal(await page.evaluate("document.activeElement.id"), "tab-methods");
    assert.equal(await page.evaluate("document.getElementById('view-methods').hidden"), false);
    assert.equal(await page.evaluate("document.getElementById('view-card').hidden"), true);
    const count = await page.waitFor<string>(
      "/^\\d+ of \\d+ methods$/.test(document.getElementById('method-count').textContent) && document.getElementById('method-count').textContent",
      "the OpenRPC methods",
    );
    await page.evaluate("document.getElementById('method-filter').focus()");
    await page.type("plan/prompt");
    assert.equal(await text("#method-count"), `1 of ${count.split(" of ")[1]}`);
    assert.equal(await text("#methods code"), "_cleveragents/plan/prompt");
    await shot("methods");
  });

  it("sends a message and shows its events as they arrive", { timeout: 120_000 }, async () => {
    await click("#tab-send");
    await page.evaluate("document.getElementById('send-text').focus()");
    await page.type("hello from the console");
    await click("#send-form button[type=submit]");
    await page.waitFor("document.getElementById('send-state').textContent.startsWith('done')", "the stream's end");
    const kinds = await page.evaluate<string[]>("[...document.querySelectorAll('#send-events li')].map((li) => li.dataset.kind)");
    assert.ok(kinds.length >= 2, `events: ${kinds.join(", ")}`);
    assert.equal(kinds[0], "task");
    const last = await page.evaluate<string>("document.querySelector('#send-state [data-state]').dataset.state");
    assert.equal(last, "TASK_STATE_COMPLETED");
    await shot("send");
  });

  it("lists the tasks and opens one with its history", { timeout: 120_000 }, async () => {
    await click("#send-state button");
    assert.equal(await page.evaluate("document.getElementById('view-tasks').hidden"), false);
    await page.waitFor("document.querySelector('#task-status [data-state]')", "the opened task");
    assert.equal(await page.evaluate("document.querySelector('#task-status [data-state]').dataset.state"), "TASK_STATE_COMPLETED");
    const history = await page.evaluate<string>("document.querySelector('#task-detail .message pre').textContent");
    assert.equal(history, "hello from the console");
    await page.waitFor("document.querySelectorAll('#task-list li').length >= 1", "the task list");
    await shot("tasks");
  });

  it("approves a plan's prompt and sees the plan finish", { timeout: 120_000 }, async () => {
    const { plan } = await startPlan();

    await click("#tab-plans");
    await page.waitFor(`document.querySelector('[data-plan="${plan.id}"]')`, "the plan in the list");
    await click(`[data-plan="${plan.id}"]`);
    await page.waitFor("document.getElementById('plan-prompt')", "the approval prompt");
    assert.equal(await text("#plan-prompt strong"), "The plan asks: ");
    assert.match(await text("#plan-prompt"), /Write notes for 1\.0\?/);
    const steps = await page.evaluate<string[]>("[...document.querySelectorAll('#plan-detail tr[data-step] [data-state]')].map((e) => e.dataset.state)");
    assert.deepEqual(steps, ["PLAN_STEP_STATE_WAITING_INPUT", "PLAN_STEP_STATE_PENDING"]);
    await shot("plan-prompt");

    await click("#prompt-approve");
    await page.waitFor(
      "document.querySelector('#plan-state-line [data-state=\"PLAN_STATE_COMPLETED\"]')",
      "the plan to complete after the approval",
    );
    assert.equal(await page.evaluate("document.getElementById('plan-prompt')"), null);
    const done = await page.evaluate<string[]>("[...document.querySelectorAll('#plan-detail tr[data-step] [data-state]')].map((e) => e.dataset.state)");
    assert.deepEqual(done, ["PLAN_STEP_STATE_SUCCEEDED", "PLAN_STEP_STATE_SUCCEEDED"]);
    assert.equal(await page.evaluate(`document.querySelector('[data-plan="${plan.id}"] .badge').dataset.state`), "PLAN_STATE_COMPLETED");
    assert.ok(await page.evaluate("document.querySelectorAll('.tree li').length >= 3"));
    await shot("plan-done");
    await page.resize(420, 800);
    await shot("plan-narrow");
    await page.resize(1280, 800);
  });

  it("keeps an open task's status live", { timeout: 120_000 }, async () => {
    const { plan, taskId } = await startPlan();
    await eventually("the approval prompt", 60_000, async () => {
      const status = await client.planStatus({ planId: plan.id });
      return status.pendingPrompt;
    });
    await click("#tab-tasks");
    await page.evaluate("document.getElementById('task-id').value = ''; document.getElementById('task-id').focus()");
    await page.type(taskId);
    await page.press("Enter");
    await page.waitFor("document.querySelector('#task-status [data-state=\"TASK_STATE_INPUT_REQUIRED\"]')", "the task waiting for input");
    const status = await client.planStatus({ planId: plan.id });
    const promptId = status.pendingPrompt?.promptId;
    assert.ok(promptId !== undefined);
    await page.evaluate("document.querySelector('#task-filter button').click()");
    await page.waitFor(`document.querySelector('[data-task="${taskId}"] .badge')`, "the task in the list");
    // Approved by another client: the open task follows without a reload.
    await client.planPrompt({ planId: plan.id, promptId, decision: "PROMPT_DECISION_APPROVE" });
    await page.waitFor("document.querySelector('#task-status [data-state=\"TASK_STATE_COMPLETED\"]')", "the task's live completion");
    assert.equal(await page.evaluate(`document.querySelector('[data-task="${taskId}"] .badge').dataset.state`), "TASK_STATE_COMPLETED");
    assert.match(await text("#task-detail"), /Artifacts \([1-9]\d*\)/);
    await shot("task-live");
  });

  it("follows the namespace's domain events with a filter", { timeout: 120_000 }, async () => {
    await click("#tab-events");
    await page.evaluate("document.getElementById('event-type').value = 'session.message'");
    await click("#event-follow");
    await page.waitFor("document.getElementById('event-state').textContent === 'following'", "the follow to start");
    const session = await client.sessionCreate({ title: "from the test" });
    await client.sessionTell({
      sessionId: session.id,
      message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "an event to see" }] },
    });
    await page.waitFor(
      `[...document.querySelectorAll('#event-rows tr')].some((tr) => tr.children[2].textContent === ${JSON.stringify(session.id.slice(0, 12))})`,
      "the new session's event to arrive",
    );
    const types = await page.evaluate<string[]>("[...new Set([...document.querySelectorAll('#event-rows tr')].map((tr) => tr.dataset.type))]");
    assert.deepEqual(types, ["session.message"]);
    await shot("events");
    await click("#event-follow");
    assert.equal(await text("#event-state"), "stopped");
  });

  it("shows an agent error readably", { timeout: 120_000 }, async () => {
    await click("#tab-tasks");
    await page.evaluate("document.getElementById('task-id').value = ''; document.getElementById('task-id').focus()");
    await page.type("no-such-task");
    await page.press("Enter");
    await page.waitFor("!document.getElementById('alert').hidden", "the error");
    assert.equal(await text("#alert .title"), "Opening task no-such-task failed");
    assert.match(await text("#alert-text"), /code -32001 · reason TASK_NOT_FOUND · a2a-protocol\.org/);
    await shot("error");
    await click("#alert-close");
    assert.equal(await page.evaluate("document.getElementById('alert').hidden"), true);
  });

  it("shows every exchange on the wire, credentials masked", { timeout: 120_000 }, async () => {
    await click("#tab-wire");
    const first = await page.waitFor<string>("document.querySelector('#wire li .mono')?.textContent", "the wire log");
    assert.match(first, /POST http:\/\/127\.0\.0\.1:\d+\/ GetTask {2}→ 200 OK$/);
    await shot("wire");
  });
});

describe("the console with an API key", () => {
  const KEY = "console-test-key-4f1c";
  let browser: Browser;
  let agent: ServerAgent;

  before(async () => {
    agent = await startBrowserAgent([], {
      auth: {
        api_keys: [{ secret: KEY, subject: "console-user" }],
        principals: [{ subject: "console-user", namespaces: { default: "admin" } }],
      },
    });
    browser = await Browser.launch();
  });

  after(async () => {
    await browser?.close();
    await agent?.stop();
  });

  it("asks for the key once and keeps it in the page's memory only", { timeout: 120_000 }, async () => {
    const page = await browser.newPage(1280, 800);
    await page.goto(new URL("/console#tasks", agent.url).toString());
    await page.waitFor("document.body.dataset.ready === 'true'", "the console to load the card");
    assert.equal(await page.evaluate("document.getElementById('signature-status').textContent"), "unsigned The card carries no signature.");
    // The public card loads; the task list needs the key.
    await page.evaluate("document.querySelector('#task-filter button').click()");
    await page.waitFor("!document.getElementById('alert').hidden", "the authentication error");
    assert.equal(await page.evaluate("document.querySelector('#alert .title').textContent"), "Listing tasks failed");
    assert.match(
      await page.evaluate<string>("document.getElementById('alert-text').textContent"),
      /code -32002 · reason AUTH_REQUIRED · urn:cleveragents:extensions:v1 · HTTP 401Enter an API key or a bearer token above\.$/,
    );
    await page.screenshot(`${SCREENSHOTS}console-auth-required.png`);

    await page.evaluate("document.getElementById('scheme').value = 'apiKey'; document.getElementById('secret').focus()");
    await page.type(KEY);
    await page.press("Enter");
    assert.equal(await page.evaluate("document.getElementById('credential-state').textContent"), "API key in use (X-API-Key)");
    assert.equal(await page.evaluate("document.getElementById('secret').value"), "");
    await page.evaluate("document.querySelector('#task-filter button').click()");
    await page.waitFor("document.querySelector('#task-list p')?.textContent === 'No task matches.'", "the task list");
    assert.equal(await page.evaluate("document.getElementById('alert').hidden"), true);
    // Nowhere but in memory: no storage, no cookie, no URL; masked on the wire.
    const kept = await page.evaluate<string>(
      `JSON.stringify([localStorage.length, sessionStorage.length, document.cookie, location.href.includes(${JSON.stringify(KEY)})])`,
    );
    assert.equal(kept, "[0,0,\"\",false]");
    await page.evaluate("document.getElementById('tab-wire').click()");
    const wire = await page.evaluate<string>("document.getElementById('wire').textContent");
    assert.ok(!wire.includes(KEY), "the wire pane shows the key");
    assert.match(wire, /"x-api-key": "•••"/);
  });
});
