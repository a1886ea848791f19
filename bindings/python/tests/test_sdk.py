"""Alongside the official a2a-sdk: one httpx client serves both, and the
A2A values this package returns are the SDK's own types, so a task told
through the extension is the task the SDK's GetTask reads."""

from __future__ import annotations

import asyncio

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.types import GetTaskRequest, Task
from a2a.utils.constants import TransportProtocol

from cleveragents_contract import AsyncClient, AsyncHttpTransport, models
from support import TIMEOUT, text_message, unique


def test_sdk_and_extension_share_a_client_and_types(server_url: str) -> None:
    async def run() -> None:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            config = ClientConfig(
                streaming=False,
                httpx_client=http,
                supported_protocol_bindings=[TransportProtocol.JSONRPC],
            )
            sdk = await ClientFactory(config).create_from_url(server_url)
            ours = AsyncClient(AsyncHttpTransport(server_url, http_client=http))
            session = await ours.session_create(models.SessionCreateParams(title=unique("sdk")))
            told = await ours.session_tell(
                models.SessionTellParams(session_id=session.id, message=text_message("hello"))
            )
            assert isinstance(told.task, Task)
            got = await sdk.get_task(GetTaskRequest(id=told.task.id))
            assert (got.id, got.context_id) == (told.task.id, session.id)
            detail = await ours.session_show(models.SessionShowParams(session_id=session.id))
            assert [t.task_id for t in detail.tasks] == [got.id]
            await ours.close()  # the shared client stays open: it is the caller's

    asyncio.run(run())
