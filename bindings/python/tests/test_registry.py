"""A registry entry's whole life with optimistic concurrency, over every
transport, sync and async: add, show, duplicate, update, stale update,
list, remove, show."""

from __future__ import annotations

import asyncio

import pytest

from cleveragents_contract import Client, errors, methods, models
from support import open_async, unique


def spec(name: str, instructions: str) -> models.ActorSpec:
    return models.ActorSpec(
        name=name,
        kind="ACTOR_KIND_AGENT",
        description="binding test actor",
        instructions=instructions,
    )


def check_added(name: str, added: models.Actor) -> None:
    assert added.to_wire() == {
        "name": name,
        "namespace": methods.DEFAULT_NAMESPACE,
        "version": 1,
        "createdAt": added.created_at,
        "updatedAt": added.updated_at,
        "description": "binding test actor",
        "kind": "ACTOR_KIND_AGENT",
        "instructions": "Say hello.",
    }


def test_registry_crud(client: Client) -> None:
    name = unique("actor")
    added = client.registry_actors_add(models.ActorAddParams(actor=spec(name, "Say hello.")))
    check_added(name, added)
    assert client.registry_actors_show(models.RegistryShowParams(name=name)) == added
    with pytest.raises(errors.ExtAlreadyExists) as duplicate:
        client.registry_actors_add(models.ActorAddParams(actor=spec(name, "Say hello.")))
    assert (duplicate.value.code, duplicate.value.reason) == (-32005, "ALREADY_EXISTS")
    update = models.ActorUpdateParams(expected_version=1, actor=spec(name, "Say goodbye."))
    updated = client.registry_actors_update(update)
    assert (updated.version, updated.instructions, updated.created_at) == (
        2,
        "Say goodbye.",
        added.created_at,
    )
    with pytest.raises(errors.ExtInvalidState) as stale:
        client.registry_actors_update(update)
    assert (stale.value.code, stale.value.reason, stale.value.domain) == (
        -32004,
        "INVALID_STATE",
        methods.EXTENSION_URIS[0],
    )
    listed = client.registry_actors_list(models.RegistryListParams(limit=500))
    assert name in [actor.name for actor in listed.items]
    removed = client.registry_actors_remove(
        models.RegistryRemoveParams(name=name, expected_version=2)
    )
    assert removed.to_wire() == {
        "namespace": methods.DEFAULT_NAMESPACE,
        "name": name,
        "removedVersion": 2,
    }
    with pytest.raises(errors.ExtNotFound) as gone:
        client.registry_actors_show(models.RegistryShowParams(name=name))
    assert gone.value.message == f"Actor `{name}` not found"


def test_registry_crud_async(transport: str, server_url: str) -> None:
    async def run() -> None:
        async with await open_async(transport, server_url) as client:
            name = unique("actor")
            added = await client.registry_actors_add(
                models.ActorAddParams(actor=spec(name, "Say hello."))
            )
            check_added(name, added)
            update = models.ActorUpdateParams(expected_version=1, actor=spec(name, "Say goodbye."))
            assert (await client.registry_actors_update(update)).version == 2
            try:
                await client.registry_actors_update(update)
            except errors.ExtInvalidState as stale:
                assert stale.code == -32004
            else:
                raise AssertionError("a stale update succeeded")
            removed = await client.registry_actors_remove(
                models.RegistryRemoveParams(name=name, expected_version=2)
            )
            assert removed.removed_version == 2
            try:
                await client.registry_actors_show(models.RegistryShowParams(name=name))
            except errors.ExtNotFound as gone:
                assert (gone.code, gone.reason) == (-32001, "NOT_FOUND")
            else:
                raise AssertionError("a removed actor is still shown")

    asyncio.run(run())
