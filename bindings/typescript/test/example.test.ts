// Runs the README's example against the real agent (local mode), so the
// documented usage stays true.

import assert from "node:assert/strict";
import { it } from "node:test";
import { connect, followPlan, planStatusLine } from "../examples/plugin.js";
import { AGENT } from "./agent.js";

it("the example connects, reads a plan's status and follows its events", { timeout: 30_000 }, async () => {
  process.env["CLEVERAGENTS_AGENT"] = AGENT;
  const client = await connect({ agentArgs: ["--stdio", "--memory"] });
  try {
    assert.equal(await planStatusLine(client, "no-such-plan"), undefined);
    const events: string[] = [];
    const stop = new AbortController();
    const following = followPlan(client, "no-such-plan", (e) => events.push(e.type), stop.signal);
    setTimeout(() => stop.abort(), 200);
    await following;
    assert.deepEqual(events, []);
  } finally {
    await client.close();
  }
});
