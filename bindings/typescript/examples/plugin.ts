// How an IDE plugin uses the package: one client in local mode (the agent
// as a child process over stdio) and in server mode (HTTP), the same typed
// calls on both, typed errors checked by reason, and the plan's events
// followed with resume after a dropped stream.

import {
  ExtensionClient,
  HttpTransport,
  StdioTransport,
  isExtensionError,
  type DomainEvent,
  type PlanStatus,
} from "@cleveragents/contract";

/** Local mode when no server URL is configured, server mode otherwise. */
export async function connect(settings: { server?: string; token?: string; agentArgs?: string[] }): Promise<ExtensionClient> {
  if (settings.server === undefined) {
    const transport = await StdioTransport.spawn({ args: settings.agentArgs ?? ["--stdio"] });
    return new ExtensionClient(transport);
  }
  const headers: { [name: string]: string } = settings.token === undefined ? {} : { authorization: `Bearer ${settings.token}` };
  const { transport } = await HttpTransport.fromAgentCard(settings.server, "JSONRPC", { headers });
  return new ExtensionClient(transport);
}

/** The status line of a plan, or undefined when there is no such plan. */
export async function planStatusLine(client: ExtensionClient, planId: string): Promise<string | undefined> {
  let status: PlanStatus;
  try {
    status = await client.planStatus({ planId });
  } catch (error) {
    if (isExtensionError(error, "NOT_FOUND")) return undefined;
    throw error;
  }
  const prompt = status.pendingPrompt;
  return prompt === undefined ? status.plan.state : `${status.plan.state}: ${prompt.question}`;
}

/** Follows a plan's events until `signal` fires, reopening a dropped stream after the last event seen. */
export async function followPlan(
  client: ExtensionClient,
  planId: string,
  onEvent: (event: DomainEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  let lastEventId: number | undefined;
  while (!signal.aborted) {
    try {
      for await (const event of client.eventsSubscribe({ planId, follow: true }, { signal, lastEventId })) {
        lastEventId = event.id;
        onEvent(event.data);
      }
      return;
    } catch (error) {
      if (signal.aborted || isExtensionError(error, "NOT_FOUND")) return;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
