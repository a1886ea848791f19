// What a web page does with the package's browser entry: finds the agent's
// endpoint in its Agent Card, checks its health, opens a session, tells it
// a message, reads the session's domain events as a Server-Sent Events
// stream (again after the first one, resumed with `Last-Event-ID`, and once
// more while following, stopped with an AbortSignal), and reads a typed
// error. The browser tests bundle this file for a bare page and run it over
// both HTTP bindings; its bundle is the size the README reports.

import {
  ExtensionClient,
  HttpTransport,
  RpcError,
  TransportError,
  type HttpBinding,
} from "@cleveragents/contract/http";

/** What one run saw, for the page (and the tests) to show. */
export interface PageRun {
  binding: HttpBinding;
  agentName: string;
  health: string;
  sessionTitle: string | undefined;
  answered: "task" | "message";
  /** The event types of the session, in order. */
  eventTypes: string[];
  /** The events after the first one, read by resuming after it. */
  resumedCursors: number[];
  allCursors: number[];
  /** How the followed stream ended when its signal fired. */
  aborted: string;
  /** The reason of the error a plan that does not exist gets. */
  missingPlan: string;
}

/** Runs the page's calls against the agent at `agentUrl` over `binding`. */
export async function runPage(
  agentUrl: string,
  binding: HttpBinding,
  headers: { [name: string]: string } = {},
): Promise<PageRun> {
  const { transport, card } = await HttpTransport.fromAgentCard(agentUrl, binding, { headers, timeoutMs: 20_000 });
  const client = new ExtensionClient(transport);
  try {
    const health = await client.healthCheck();
    const session = await client.sessionCreate({ title: `page ${binding}` });
    const told = await client.sessionTell({
      sessionId: session.id,
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hello from a page" }] },
    });

    const eventTypes: string[] = [];
    const allCursors: number[] = [];
    for await (const { data } of client.eventsSubscribe({ sessionId: session.id })) {
      eventTypes.push(data.type);
      allCursors.push(data.cursor);
    }
    const resumedCursors: number[] = [];
    const first = allCursors[0];
    if (first !== undefined) {
      for await (const { data } of client.eventsSubscribe({ sessionId: session.id }, { lastEventId: first })) {
        resumedCursors.push(data.cursor);
      }
    }

    const stop = new AbortController();
    let aborted = "not aborted";
    try {
      for await (const _ of client.eventsSubscribe({ sessionId: session.id, follow: true }, { signal: stop.signal })) {
        stop.abort();
      }
    } catch (error) {
      aborted = error instanceof TransportError ? error.name : String(error);
    }

    let missingPlan = "no error";
    try {
      await client.planStatus({ planId: "no-such-plan" });
    } catch (error) {
      missingPlan = error instanceof RpcError ? `${error.name} ${error.reason ?? ""}` : String(error);
    }

    return {
      binding,
      agentName: card.name,
      health: health.status,
      sessionTitle: session.title,
      answered: told.task !== undefined ? "task" : "message",
      eventTypes,
      resumedCursors,
      allCursors,
      aborted,
      missingPlan,
    };
  } finally {
    await client.close();
  }
}

// A page that loads the bundle calls it from here.
(globalThis as { contractPage?: { runPage: typeof runPage } }).contractPage = { runPage };
