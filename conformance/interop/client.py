"""Interop check driven by the official A2A Python SDK (a2a-sdk).

Usage: client.py URL [BINDING]   (URL: the agent's base URL, e.g. http://127.0.0.1:8080/;
                                  BINDING: JSONRPC (default), HTTP+JSON or GRPC)

Resolves the public Agent Card, builds a client of the binding from it (the
SDK picks the card's interface for it), then sends a
message (blocking), streams a message, gets and lists tasks, and cancels a
task — first one the agent leaves open (when its executor does, e.g. the TCK
executor's `tck-input-required` scenario), else one already finished, which
must fail with the SDK's typed TaskNotCancelableError —, and creates, gets,
lists and deletes a push notification config. Over GRPC the SDK's gRPC
client targets the card's GRPC interface (`host:port`). Prints one line per
step and exits non-zero on the first failure.
"""

import asyncio
import os
import ssl
import sys
import uuid

import grpc
import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.types import (
    AuthenticationInfo,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.constants import TransportProtocol
from a2a.utils.errors import TaskNotCancelableError

TERMINAL = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
}


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def message(text, message_id=None, context_id=None):
    msg = Message(
        message_id=message_id or f"interop-{uuid.uuid4()}",
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
    )
    if context_id:
        msg.context_id = context_id
    return msg


async def collect(stream):
    return [event async for event in stream]


def verify():
    """The CA to check an https agent's certificate with, when one is given."""
    ca_file = os.environ.get("A2A_INTEROP_CA_FILE")
    return ssl.create_default_context(cafile=ca_file) if ca_file else True


def grpc_channel(target):
    """A channel to the card's GRPC interface: TLS with the given CA, else clear text."""
    ca_file = os.environ.get("A2A_INTEROP_CA_FILE")
    if ca_file:
        with open(ca_file, "rb") as f:
            return grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=f.read()))
    return grpc.aio.insecure_channel(target)


async def main(url, binding):
    async with httpx.AsyncClient(timeout=30, verify=verify()) as http:
        card_url = url.rstrip("/") + "/.well-known/agent-card.json"
        raw_card = (await http.get(card_url)).json()
        check(raw_card.get("name"), "the card has a name")

        protocol = TransportProtocol(binding)

        def config(streaming):
            return ClientConfig(
                streaming=streaming,
                httpx_client=http,
                supported_protocol_bindings=[protocol],
                grpc_channel_factory=grpc_channel,
            )

        blocking = await ClientFactory(config(False)).create_from_url(url)
        streaming = await ClientFactory(config(True)).create_from_url(url)
        interfaces = raw_card.get("supportedInterfaces", [])
        check(any(i.get("protocolBinding") == binding for i in interfaces), f"the card declares {binding}")
        print(f"card: {raw_card['name']} ({len(interfaces)} interface(s)), over {binding}")

        # send (blocking): one task answer.
        events = await collect(blocking.send_message(SendMessageRequest(message=message("interop: hello"))))
        check(len(events) == 1 and events[0].HasField("task"), f"send answers one task: {events}")
        task = events[0].task
        check(task.id and task.context_id, "the task has an id and a context id")
        print(f"send: task {task.id} {TaskState.Name(task.status.state)}")

        # stream: the task first, in order, ending in a final state.
        events = await collect(streaming.send_message(SendMessageRequest(message=message("interop: stream"))))
        check(events and events[0].HasField("task"), f"the stream starts with the task: {events[:1]}")
        streamed_id = events[0].task.id
        last = events[0].task.status.state
        for e in events[1:]:
            if e.HasField("status_update"):
                check(e.status_update.task_id == streamed_id, "status updates name the task")
                last = e.status_update.status.state
            elif e.HasField("artifact_update"):
                check(e.artifact_update.task_id == streamed_id, "artifact updates name the task")
        check(last in TERMINAL or last == TaskState.TASK_STATE_INPUT_REQUIRED, f"the stream ends final: {last}")
        print(f"stream: {len(events)} event(s), ends {TaskState.Name(last)}")

        # get
        got = await blocking.get_task(GetTaskRequest(id=task.id))
        check(got.id == task.id and got.context_id == task.context_id, "get returns the sent task")
        print(f"get: {got.id} {TaskState.Name(got.status.state)}")

        # list: both tasks are there; by context only that context's.
        listed = await blocking.list_tasks(ListTasksRequest())
        ids = {t.id for t in listed.tasks}
        check(task.id in ids and streamed_id in ids, f"list shows both tasks: {ids}")
        by_context = await blocking.list_tasks(ListTasksRequest(context_id=task.context_id))
        check(all(t.context_id == task.context_id for t in by_context.tasks), "list filters by context")
        print(f"list: {len(listed.tasks)} task(s), {len(by_context.tasks)} in the context")

        # cancel: an open task is canceled; a finished one is refused with the typed error.
        open_request = SendMessageRequest(
            message=message("interop: wait for input", message_id=f"tck-input-required-{uuid.uuid4()}"),
            configuration=SendMessageConfiguration(return_immediately=False),
        )
        events = await collect(blocking.send_message(open_request))
        pending = events[0].task if events and events[0].HasField("task") else None
        if pending is not None and pending.status.state not in TERMINAL:
            canceled = await blocking.cancel_task(CancelTaskRequest(id=pending.id))
            check(canceled.status.state == TaskState.TASK_STATE_CANCELED, f"cancel cancels: {canceled.status}")
            print(f"cancel: {pending.id} CANCELED")
        try:
            await blocking.cancel_task(CancelTaskRequest(id=task.id))
            raise AssertionError("canceling a finished task must fail")
        except TaskNotCancelableError as e:
            print(f"cancel (finished task): TaskNotCancelableError: {e}")

        # push config: created with its id, read back, listed, deleted.
        created = await blocking.create_task_push_notification_config(TaskPushNotificationConfig(
            task_id=task.id,
            id=f"interop-config-{uuid.uuid4()}",
            url="https://push.example.com/interop",
            token="interop-token",
            authentication=AuthenticationInfo(scheme="Bearer"),
        ))
        check(created.task_id == task.id and created.url == "https://push.example.com/interop",
              f"create stores the config as given: {created}")
        read = await blocking.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id))
        check(read == created, f"get reads the config back: {read}")
        listed = await blocking.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task.id))
        check([c.id for c in listed.configs] == [created.id], f"list shows the config: {listed}")
        await blocking.delete_task_push_notification_config(
            DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=created.id))
        listed = await blocking.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task.id))
        check(not listed.configs, f"delete removes the config: {listed}")
        print(f"push config: create, get, list, delete {created.id}")

        await blocking.close()
        await streaming.close()
    print("interop: OK")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "JSONRPC"))
    except Exception as e:  # report any failure as one clear line, non-zero exit
        print(f"interop: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
