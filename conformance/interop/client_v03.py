"""Interop check driven by the official A2A Python SDK's 0.3 client (a2a-sdk 0.3.x).

Usage: client_v03.py URL   (URL: the agent's base URL, e.g. http://127.0.0.1:8080/)

A 0.3 client sends no A2A-Version header, which the agent reads as 0.3. The
script resolves the public Agent Card with the SDK's card resolver (its 0.3
fields: url, preferredTransport, protocolVersion), builds the SDK's JSON-RPC
client from it, then: message/send (blocking) answers a completed task holding
the sent message; message/stream streams kind-tagged events of one task, the
task first and a final status update last; tasks/get reads the sent task back
unchanged; tasks/cancel cancels a task the agent leaves open (the TCK
executor's `tck-input-required` scenario) and refuses a finished one with
TaskNotCancelableError (-32002); tasks/pushNotificationConfig/set and /get
store and read a webhook config exactly as given. Prints one line per step
and exits non-zero on the first failure.
"""

import asyncio
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientJSONRPCError
from a2a.types import (
    GetTaskPushNotificationConfigParams,
    Message,
    Part,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
    TransportProtocol,
)

TERMINAL = {TaskState.completed, TaskState.failed, TaskState.canceled, TaskState.rejected}
TASK_NOT_CANCELABLE = -32002


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def message(text, message_id=None):
    return Message(
        kind="message",
        message_id=message_id or f"interop-v03-{uuid.uuid4()}",
        role=Role.user,
        parts=[Part(root=TextPart(kind="text", text=text))],
    )


async def collect(stream):
    return [event async for event in stream]


async def main(url):
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        check(card.name, "the card has a name")
        check(card.url == url, f"the card's url is the endpoint: {card.url} != {url}")
        check(card.preferred_transport == TransportProtocol.jsonrpc.value,
              f"the preferred transport is JSON-RPC: {card.preferred_transport}")
        check(card.capabilities.streaming is True, "the card declares streaming")
        print(f"card: {card.name}, protocolVersion {card.protocol_version}, "
              f"{card.preferred_transport} at {card.url}")

        def config(streaming):
            return ClientConfig(streaming=streaming, httpx_client=http,
                                supported_transports=[TransportProtocol.jsonrpc])

        blocking = ClientFactory(config(False)).create(card)
        streaming = ClientFactory(config(True)).create(card)

        # message/send (blocking): one completed task holding the sent message.
        sent = message("interop v0.3: hello")
        events = await collect(blocking.send_message(sent))
        check(len(events) == 1 and isinstance(events[0], tuple), f"send answers one task: {events}")
        task, update = events[0]
        check(update is None and isinstance(task, Task) and task.kind == "task", f"a task: {task}")
        check(task.status.state == TaskState.completed, f"the task completed: {task.status.state}")
        check(task.id and task.context_id, "the task has an id and a context id")
        first = task.history[0] if task.history else None
        check(first is not None and first.message_id == sent.message_id and first.role == Role.user,
              f"the history starts with the sent message: {task.history}")
        check(first.parts[0].root.text == "interop v0.3: hello", f"the sent text: {first.parts}")
        check(first.task_id == task.id and first.context_id == task.context_id,
              "the stored message names its task and context")
        print(f"send: task {task.id} {task.status.state.value}")

        # message/stream: kind-tagged events of one task, the task first, the final update last.
        events = await collect(streaming.send_message(message("interop v0.3: stream")))
        check(events and isinstance(events[0], tuple) and events[0][1] is None,
              f"the stream starts with the task: {events[:1]}")
        streamed = events[0][0]
        kinds = ["task"]
        for i, (_, e) in enumerate(events[1:], start=2):
            check(isinstance(e, (TaskStatusUpdateEvent, TaskArtifactUpdateEvent)), f"event {i}: {e}")
            check(e.task_id == streamed.id and e.context_id == streamed.context_id, f"event {i} names the task")
            kinds.append(e.kind)
        last = events[-1][1]
        check(isinstance(last, TaskStatusUpdateEvent) and last.final is True,
              f"the last event is the final status update: {last}")
        check(all(not (isinstance(e, TaskStatusUpdateEvent) and e.final) for _, e in events[1:-1]),
              "only the last status update is final")
        check(last.status.state == TaskState.completed, f"the stream ends completed: {last.status.state}")
        print(f"stream: {len(events)} event(s) {','.join(kinds)}, ends {last.status.state.value}")

        # tasks/get: the sent task, unchanged.
        got = await blocking.get_task(TaskQueryParams(id=task.id))
        check(got.id == task.id and got.context_id == task.context_id, "get returns the sent task")
        check(got.status.state == task.status.state, f"the same state: {got.status.state}")
        check([m.message_id for m in got.history] == [m.message_id for m in task.history],
              "the same history")
        check(got.artifacts == task.artifacts, "the same artifacts")
        print(f"get: {got.id} {got.status.state.value}")

        # tasks/cancel: an open task is canceled; a finished one is refused with -32002.
        pending_message = message("interop v0.3: wait for input",
                                  message_id=f"tck-input-required-{uuid.uuid4()}")
        events = await collect(blocking.send_message(pending_message))
        pending = events[0][0] if events and isinstance(events[0], tuple) else None
        check(pending is not None and pending.status.state == TaskState.input_required,
              f"the task waits for input: {pending}")
        canceled = await blocking.cancel_task(TaskIdParams(id=pending.id))
        check(canceled.id == pending.id and canceled.status.state == TaskState.canceled,
              f"cancel cancels: {canceled.status}")
        print(f"cancel: {pending.id} {canceled.status.state.value}")
        try:
            await blocking.cancel_task(TaskIdParams(id=task.id))
            raise AssertionError("canceling a finished task must fail")
        except A2AClientJSONRPCError as e:
            check(e.error.code == TASK_NOT_CANCELABLE, f"TaskNotCancelableError: {e.error}")
            print(f"cancel (finished task): {type(e.error).__name__} {e.error.code}")

        # tasks/pushNotificationConfig/set and /get: stored and read exactly as given.
        config = TaskPushNotificationConfig(
            task_id=task.id,
            push_notification_config=PushNotificationConfig(
                id=f"interop-v03-config-{uuid.uuid4()}",
                url="https://push.example.com/interop-v03",
                token="interop-v03-token",
                authentication=PushNotificationAuthenticationInfo(schemes=["Bearer"]),
            ),
        )
        stored = await blocking.set_task_callback(config)
        check(stored == config, f"set stores the config as given: {stored}")
        read = await blocking.get_task_callback(GetTaskPushNotificationConfigParams(
            id=task.id, push_notification_config_id=config.push_notification_config.id))
        check(read == config, f"get reads the config back: {read}")
        print(f"push config: set and get {config.push_notification_config.id}")

        await blocking.close()
        await streaming.close()
    print("interop: OK")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        asyncio.run(main(sys.argv[1]))
    except Exception as e:  # report any failure as one clear line, non-zero exit
        print(f"interop: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
