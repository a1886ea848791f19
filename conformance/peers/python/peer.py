"""A minimal A2A 1.0 agent on the official Python SDK (a2a-sdk), gated by
a2a-conformance as a subject.

One process, the SDK's own server pieces on every binding it has:
JSON-RPC at http://HOST:PORT/, HTTP+JSON under http://HOST:PORT/rest and
gRPC at HOST:GRPC_PORT, the Agent Card at /.well-known/agent-card.json.
Tasks and push configs live in the SDK's in-memory stores; push
notifications are sent by the SDK's sender.

The executor follows the ACTS SUT behaviour contract (§11): the first text
part's prefix picks a behaviour (`tck-multi-turn`, `tck-stream-basic`, ...);
any other message completes its task with an echo artifact.

    python peer.py --port 7000 --grpc-port 7001
"""

import argparse
import asyncio
import base64
import logging

import grpc
import httpx
import uvicorn
from starlette.applications import Starlette

from a2a.helpers.proto_helpers import (
    new_data_part,
    new_raw_part,
    new_task_from_user_message,
    new_text_message,
    new_text_part,
    new_url_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events.event_queue_v2 import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks.base_push_notification_sender import (
    BasePushNotificationSender,
)
from a2a.server.tasks.inmemory_push_notification_config_store import (
    InMemoryPushNotificationConfigStore,
)
from a2a.server.tasks.inmemory_task_store import InMemoryTaskStore
from a2a.server.tasks.task_updater import TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Role,
)
from a2a.types import a2a_pb2_grpc


# Longest first, so the most specific prefix wins.
BEHAVIOURS = sorted(
    [
        'tck-complete-task',
        'tck-message-response',
        'tck-input-required',
        'tck-multi-turn',
        'tck-auth-required',
        'tck-task-failure',
        'tck-reject-task',
        'tck-cancel',
        'tck-long-running',
        'tck-artifact-text',
        'tck-artifact-file-url',
        'tck-artifact-file',
        'tck-artifact-data',
        'tck-stream-basic',
        'tck-stream-chunked',
    ],
    key=len,
    reverse=True,
)


def first_text(message: Message | None) -> str:
    if message is None or not message.parts:
        return ''
    part = message.parts[0]
    return part.text.lstrip() if part.HasField('text') else ''


def behaviour_of(message: Message | None) -> str:
    text = first_text(message)
    return next((b for b in BEHAVIOURS if text.startswith(b)), '')


class TckExecutor(AgentExecutor):
    """The ACTS behaviours; an echo for every other message."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        task = context.current_task
        opened_by = behaviour_of(task.history[0]) if task and task.history else ''
        behaviour = 'tck-multi-turn' if opened_by == 'tck-multi-turn' else behaviour_of(message)

        if behaviour == 'tck-message-response' and task is None:
            reply = new_text_message(
                'Direct message response', context_id=context.context_id, role=Role.ROLE_AGENT
            )
            await event_queue.enqueue_event(reply)
            return

        if task is None:
            task = new_task_from_user_message(message)
            task.id = context.task_id
            task.context_id = context.context_id
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        def note(text: str) -> Message:
            return updater.new_agent_message([new_text_part(text)])

        if behaviour == 'tck-multi-turn':
            continuing = opened_by == 'tck-multi-turn'
            if continuing and first_text(message).lower().startswith('done'):
                await updater.complete(note('Conversation complete'))
            else:
                await updater.requires_input(note('Please provide more input'))
        elif behaviour == 'tck-input-required':
            await updater.requires_input()
        elif behaviour == 'tck-auth-required':
            await updater.requires_auth(note('Authentication required to continue'))
        elif behaviour == 'tck-task-failure':
            await updater.start_work()
            await updater.failed(note('Task failed as requested'))
        elif behaviour == 'tck-reject-task':
            await updater.reject(note('rejected'))
        elif behaviour == 'tck-cancel':
            await updater.start_work()  # working until canceled
        elif behaviour == 'tck-long-running':
            await updater.start_work()
            await asyncio.sleep(2)
            await updater.add_artifact([new_text_part('Long-running result')])
            await updater.complete()
        elif behaviour == 'tck-artifact-text':
            await updater.add_artifact([new_text_part('Generated text content')])
            await updater.complete()
        elif behaviour == 'tck-artifact-file':
            part = new_raw_part(b'tck', media_type='text/plain', filename='output.txt')
            await updater.add_artifact([part])
            await updater.complete()
        elif behaviour == 'tck-artifact-file-url':
            part = new_url_part(
                'https://example.com/output.txt', media_type='text/plain', filename='output.txt'
            )
            await updater.add_artifact([part])
            await updater.complete()
        elif behaviour == 'tck-artifact-data':
            await updater.add_artifact([new_data_part({'key': 'value', 'count': 42})])
            await updater.complete()
        elif behaviour == 'tck-stream-basic':
            await updater.start_work()
            await updater.add_artifact([new_text_part('Streamed content')])
            await updater.complete()
        elif behaviour == 'tck-stream-chunked':
            await updater.start_work()
            await updater.add_artifact([new_text_part('chunk-1 ')], artifact_id='chunked')
            await updater.add_artifact(
                [new_text_part('chunk-2')], artifact_id='chunked', append=True, last_chunk=True
            )
            await updater.complete()
        elif behaviour == 'tck-complete-task':
            await updater.complete(note('Hello from TCK'))
        else:
            await updater.add_artifact([new_text_part(context.get_user_input())], name='echo')
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        await TaskUpdater(event_queue, task.id, task.context_id).cancel()


def agent_card(host: str, port: int, grpc_port: int) -> AgentCard:
    origin = f'http://{host}:{port}'
    interfaces = [
        AgentInterface(url=f'{origin}/', protocol_binding='JSONRPC', protocol_version='1.0'),
        AgentInterface(url=f'{origin}/rest', protocol_binding='HTTP+JSON', protocol_version='1.0'),
        AgentInterface(url=f'{host}:{grpc_port}', protocol_binding='GRPC', protocol_version='1.0'),
    ]
    return AgentCard(
        name='a2a-sdk peer',
        description='The official Python SDK serving the ACTS SUT behaviours.',
        version='1.0.0',
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            AgentSkill(
                id='echo',
                name='echo',
                description='Completes a task with an artifact echoing its message.',
                tags=['echo'],
            )
        ],
    )


async def serve(host: str, port: int, grpc_port: int) -> None:
    card = agent_card(host, port, grpc_port)
    push_store = InMemoryPushNotificationConfigStore()
    async with httpx.AsyncClient(timeout=10) as client:
        handler = DefaultRequestHandler(
            agent_executor=TckExecutor(),
            task_store=InMemoryTaskStore(),
            agent_card=card,
            push_config_store=push_store,
            push_sender=BasePushNotificationSender(client, push_store),
        )
        routes = (
            create_agent_card_routes(card)
            + create_jsonrpc_routes(handler, rpc_url='/')
            + create_rest_routes(handler, path_prefix='/rest')
        )
        app = Starlette(routes=routes)

        grpc_server = grpc.aio.server()
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
        grpc_server.add_insecure_port(f'{host}:{grpc_port}')
        await grpc_server.start()

        config = uvicorn.Config(app, host=host, port=port, log_level='warning')
        try:
            await uvicorn.Server(config).serve()
        finally:
            await grpc_server.stop(grace=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--grpc-port', type=int, required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(serve(args.host, args.port, args.grpc_port))


if __name__ == '__main__':
    main()
