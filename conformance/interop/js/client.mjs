// Interop check driven by the official A2A JavaScript SDK (@a2a-js/sdk).
//
// Usage: node client.mjs URL [BINDING]   (URL: the agent's base URL, e.g.
//                                         http://127.0.0.1:8080/; BINDING: JSONRPC
//                                         (default) or HTTP+JSON)
//
// Resolves the public Agent Card and builds a client of the binding from it,
// then sends a message (blocking), streams a message, gets and lists tasks, and
// cancels a task the agent leaves open (the TCK executor's `tck-input-required`
// scenario) and one already finished, which must fail with the SDK's typed
// TaskNotCancelableError. Prints one line per step; exits non-zero on the first
// failure.

import { randomUUID } from "node:crypto";
import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageRequest, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { TaskNotCancelableError } from "@a2a-js/sdk/errors";

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

function check(condition, what) {
  if (!condition) throw new Error(what);
}

// Requests are written in their wire (ProtoJSON) form and read with the SDK's
// own `fromJSON`, as its types expect every field present.
function message(text, messageId) {
  return { messageId: messageId ?? `interop-${randomUUID()}`, role: "ROLE_USER", parts: [{ text }] };
}

const send = (fields) => SendMessageRequest.fromJSON(fields);

const stateName = (state) => TaskState[state];
const isTask = (result) => result && typeof result === "object" && "status" in result && "id" in result;

async function collect(stream) {
  const events = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function main(url, binding) {
  const card = await (await fetch(new URL("/.well-known/agent-card.json", url))).json();
  check(card.name, "the card has a name");
  const interfaces = card.supportedInterfaces ?? [];
  check(interfaces.some((i) => i.protocolBinding === binding), `the card declares ${binding}`);

  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
      preferredTransports: [binding],
    }),
  );
  const client = await factory.createFromUrl(url);
  console.log(`card: ${card.name} (${interfaces.length} interface(s)), over ${binding}`);

  // send (blocking): one task answer.
  const sent = await client.sendMessage(send({ message: message("interop: hello") }));
  check(isTask(sent), `send answers a task: ${JSON.stringify(sent)}`);
  check(sent.id && sent.contextId, "the task has an id and a context id");
  console.log(`send: task ${sent.id} ${stateName(sent.status.state)}`);

  // stream: the task first, in order, ending in a final state.
  const events = await collect(client.sendMessageStream(send({ message: message("interop: stream") })));
  check(events.length > 0 && events[0].payload?.$case === "task", `the stream starts with the task`);
  const streamedId = events[0].payload.value.id;
  let last = events[0].payload.value.status.state;
  for (const event of events.slice(1)) {
    const { $case, value } = event.payload ?? {};
    if ($case === "statusUpdate") {
      check(value.taskId === streamedId, "status updates name the task");
      last = value.status.state;
    } else if ($case === "artifactUpdate") {
      check(value.taskId === streamedId, "artifact updates name the task");
    }
  }
  check(TERMINAL.has(last) || last === TaskState.TASK_STATE_INPUT_REQUIRED, `the stream ends final: ${stateName(last)}`);
  console.log(`stream: ${events.length} event(s), ends ${stateName(last)}`);

  // get
  const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id }));
  check(got.id === sent.id && got.contextId === sent.contextId, "get returns the sent task");
  console.log(`get: ${got.id} ${stateName(got.status.state)}`);

  // list: both tasks are there; by context only that context's.
  const listed = await client.listTasks(ListTasksRequest.fromJSON({}));
  const ids = new Set(listed.tasks.map((t) => t.id));
  check(ids.has(sent.id) && ids.has(streamedId), `list shows both tasks: ${[...ids]}`);
  const byContext = await client.listTasks(ListTasksRequest.fromJSON({ contextId: sent.contextId }));
  check(byContext.tasks.every((t) => t.contextId === sent.contextId), "list filters by context");
  console.log(`list: ${listed.tasks.length} task(s), ${byContext.tasks.length} in the context`);

  // cancel: an open task is canceled; a finished one is refused with the typed error.
  const pending = await client.sendMessage(
    send({
      message: message("interop: wait for input", `tck-input-required-${randomUUID()}`),
      configuration: { returnImmediately: false },
    }),
  );
  check(isTask(pending) && !TERMINAL.has(pending.status.state), `the open task is not final: ${JSON.stringify(pending)}`);
  const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: pending.id }));
  check(canceled.status.state === TaskState.TASK_STATE_CANCELED, `cancel cancels: ${stateName(canceled.status.state)}`);
  console.log(`cancel: ${pending.id} CANCELED`);
  try {
    await client.cancelTask(CancelTaskRequest.fromJSON({ id: sent.id }));
    throw new Error("canceling a finished task must fail");
  } catch (error) {
    check(error instanceof TaskNotCancelableError, `the refusal is TaskNotCancelableError: ${error}`);
    console.log(`cancel (finished task): TaskNotCancelableError: ${error.message}`);
  }
  console.log("interop: OK");
}

const [url, binding = "JSONRPC"] = process.argv.slice(2);
if (!url) {
  console.error("usage: node client.mjs URL [JSONRPC|HTTP+JSON]");
  process.exit(2);
}
main(url, binding).catch((error) => {
  console.error(`interop: FAILED: ${error?.stack ?? error}`);
  process.exit(1);
});
