"""A session exported, deleted and imported again, over every transport:
the document passes through the typed models unchanged (its checksums
still hold), a tampered one and a second import are refused with their
typed errors."""

from __future__ import annotations

import asyncio

import pytest
from a2a.types import a2a_pb2

from cleveragents_contract import Client, errors, models
from support import open_async, text_message, unique


def test_session_export_import(client: Client) -> None:
    title = unique("export")
    session = client.session_create(models.SessionCreateParams(title=title, metadata={"n": 1}))
    for text in ("first", "second"):
        told = client.session_tell(
            models.SessionTellParams(session_id=session.id, message=text_message(text))
        )
        assert told.WhichOneof("payload") == "task"
        assert told.task.context_id == session.id
    shown = client.session_show(models.SessionShowParams(session_id=session.id))
    assert (shown.session.title, shown.session.task_count) == (title, 2)
    document = client.session_export(models.SessionExportParams(session_id=session.id))
    assert (document.format, document.format_version) == ("urn:cleveragents:session-export", 2)
    assert document.session.to_wire() == {
        "id": session.id,
        "title": title,
        "metadata": {"n": 1},
        "createdAt": session.created_at,
    }
    assert len(document.tasks) == 2
    assert all(isinstance(task.task, a2a_pb2.Task) for task in document.tasks)
    client.session_delete(models.SessionDeleteParams(session_id=session.id, force=True))
    with pytest.raises(errors.ExtNotFound):
        client.session_show(models.SessionShowParams(session_id=session.id))
    tampered = document.model_copy(
        update={"session": document.session.model_copy(update={"title": "changed"})}
    )
    with pytest.raises(errors.ExtInvalidParams) as refused:
        client.session_import(models.SessionImportParams(document=tampered))
    assert (refused.value.code, refused.value.reason) == (-32602, "INVALID_PARAMS")
    imported = client.session_import(models.SessionImportParams(document=document))
    assert imported == shown.session
    assert client.session_show(models.SessionShowParams(session_id=session.id)) == shown
    with pytest.raises(errors.ExtAlreadyExists):
        client.session_import(models.SessionImportParams(document=document))


def test_session_export_import_async(transport: str, server_url: str) -> None:
    async def run() -> None:
        async with await open_async(transport, server_url) as client:
            session = await client.session_create(
                models.SessionCreateParams(title=unique("export"))
            )
            await client.session_tell(
                models.SessionTellParams(session_id=session.id, message=text_message("hi"))
            )
            shown = await client.session_show(models.SessionShowParams(session_id=session.id))
            document = await client.session_export(
                models.SessionExportParams(session_id=session.id)
            )
            await client.session_delete(
                models.SessionDeleteParams(session_id=session.id, force=True)
            )
            imported = await client.session_import(models.SessionImportParams(document=document))
            assert imported == shown.session
            try:
                await client.session_import(models.SessionImportParams(document=document))
            except errors.ExtAlreadyExists as again:
                assert (again.code, again.reason) == (-32005, "ALREADY_EXISTS")
            else:
                raise AssertionError("a second import succeeded")

    asyncio.run(run())
