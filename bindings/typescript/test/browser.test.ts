// The package's browser entry in a real browser: headless Chromium loads a
// bare page with the bundle of examples/browser-page.ts and runs its calls
// against the real agent over JSON-RPC and HTTP+JSON: same-origin (the page
// script evaluated in a document of the agent's own origin) and cross-origin
// (a page of another loopback port, listed for CORS, whose calls carry
// A2A-Version and so are preflighted). A page of an origin the agent does
// not list gets nothing.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { ExtensionClient, HttpTransport } from "../src/index.js";
import type { PageRun } from "../examples/browser-page.js";
import type { ServerAgent } from "./agent.js";
import { Browser, type Page } from "./cdp.js";
import { PAGE_BUNDLE, servePage, startBrowserAgent, type PageServer } from "./pages.js";

describe("the browser entry in Chromium", () => {
  let browser: Browser;
  let agent: ServerAgent;
  let listed: PageServer;
  let unlisted: PageServer;
  let bundle: string;
  let agentName: string;

  before(async () => {
    bundle = await readFile(PAGE_BUNDLE, "utf8");
    listed = await servePage();
    unlisted = await servePage();
    agent = await startBrowserAgent([listed.origin]);
    browser = await Browser.launch();
    const { card } = await HttpTransport.fromAgentCard(agent.url, "JSONRPC");
    agentName = card.name;
  });

  after(async () => {
    await browser?.close();
    await agent?.stop();
    await listed?.stop();
    await unlisted?.stop();
  });

  /** Runs the page's calls in `page` over `binding`, the agent at `agentUrl`. */
  function run(page: Page, binding: string): Promise<PageRun> {
    return page.evaluate<PageRun>(`contractPage.runPage(${JSON.stringify(agent.url)}, ${JSON.stringify(binding)})`);
  }

  /** What every run must have seen, whatever the binding and origin. */
  function assertRun(seen: PageRun, binding: string): void {
    assert.equal(seen.binding, binding);
    assert.equal(seen.agentName, agentName);
    assert.equal(seen.health, "HEALTH_STATUS_HEALTHY");
    assert.equal(seen.sessionTitle, `page ${binding}`);
    assert.ok(seen.eventTypes.length >= 1, `events: ${JSON.stringify(seen)}`);
    assert.ok(seen.eventTypes.every((t) => t === "session.message"), JSON.stringify(seen.eventTypes));
    assert.deepEqual(seen.resumedCursors, seen.allCursors.slice(1));
    assert.equal(seen.aborted, "TransportError");
    assert.equal(seen.missingPlan, "ExtNotFoundError NOT_FOUND");
  }

  for (const binding of ["JSONRPC", "HTTP+JSON"]) {
    it(`runs the page's calls over ${binding} from the agent's own origin`, { timeout: 120_000 }, async () => {
      const page = await browser.newPage();
      // A document of the agent's origin with nothing of the agent's in it.
      await page.goto(new URL("/bare-page", agent.url).toString());
      assert.equal(await page.evaluate("location.origin"), new URL(agent.url).origin);
      await page.evaluate(bundle);
      assertRun(await run(page, binding), binding);
      assert.deepEqual(page.requests.filter((r) => r.startsWith("OPTIONS ")), [], "no preflight on the agent's own origin");
    });

    it(`runs the page's calls over ${binding} from a listed origin, preflighted`, { timeout: 120_000 }, async () => {
      const page = await browser.newPage();
      await page.goto(`${listed.origin}/`);
      assert.equal(await page.evaluate("location.origin"), listed.origin);
      assert.notEqual(listed.origin, new URL(agent.url).origin);
      assertRun(await run(page, binding), binding);
      // The calls carry A2A-Version: the browser asked first (once per URL
      // while its preflight cache holds the answer, so the card's only once).
      const preflights = page.requests.filter((r) => r.startsWith("OPTIONS "));
      const endpoint = binding === "JSONRPC" ? `OPTIONS ${agent.url}` : `OPTIONS ${agent.url}rest/_cleveragents/health/check`;
      assert.ok(preflights.includes(endpoint), preflights.join("\n"));
    });
  }

  it("sends an API key as a header from a listed origin, preflighted", { timeout: 120_000 }, async () => {
    const key = "page-key-7d2e";
    const keyed = await startBrowserAgent([listed.origin], {
      auth: {
        api_keys: [{ secret: key, subject: "page-user" }],
        principals: [{ subject: "page-user", namespaces: { default: "admin" } }],
      },
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${listed.origin}/`);
      const call = (headers: object): Promise<string> =>
        page.evaluate<string>(
          `contractPage.runPage(${JSON.stringify(keyed.url)}, "JSONRPC", ${JSON.stringify(headers)})` +
            `.then((r) => r.health, (e) => e.name + " " + (e.reason ?? "") + " " + (e.httpStatus ?? ""))`,
        );
      assert.equal(await call({}), "ExtAuthRequiredError AUTH_REQUIRED 401");
      assert.equal(await call({ "X-API-Key": key }), "HEALTH_STATUS_HEALTHY");
      assert.ok(page.requests.includes(`OPTIONS ${keyed.url}`), page.requests.join("\n"));
    } finally {
      await keyed.stop();
    }
  });

  it("gives a page of an unlisted origin nothing", { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(`${unlisted.origin}/`);
    const outcome = await page.evaluate<string>(
      `contractPage.runPage(${JSON.stringify(agent.url)}, "JSONRPC").then(() => "served", (e) => e.name + ": " + e.message)`,
    );
    assert.match(outcome, /^TransportError: agent card: GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json: Failed to fetch$/);
    // The agent itself is fine: a client that is not a browser is served.
    const client = new ExtensionClient((await HttpTransport.fromAgentCard(agent.url, "JSONRPC")).transport);
    assert.equal((await client.healthCheck()).status, "HEALTH_STATUS_HEALTHY");
    await client.close();
  });
});
