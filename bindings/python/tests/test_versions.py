"""The extension's minor version: asked for by header over HTTP and in
``initialize`` over stdio; one the agent does not serve is the typed
ExtVersionMismatch, with the versions it does serve."""

from __future__ import annotations

import asyncio

import pytest

from cleveragents_contract import AsyncClient, Client, StdioTransport, errors, methods, models
from support import AGENT_ARGS, TIMEOUT, agent_program

RETIRED = "1.0"


def check(mismatch: errors.ExtVersionMismatch) -> None:
    assert (mismatch.code, mismatch.reason, mismatch.domain) == (
        -32007,
        "VERSION_MISMATCH",
        methods.EXTENSION_URIS[0],
    )
    assert isinstance(mismatch.data, list)
    [info] = [
        d for d in mismatch.data if isinstance(d, dict) and d.get("reason") == "VERSION_MISMATCH"
    ]
    metadata = info.get("metadata")
    assert isinstance(metadata, dict)
    assert metadata.get("supportedVersions") == ",".join(methods.EXTENSION_VERSIONS)


def test_a_served_version_is_spoken(server_url: str) -> None:
    oldest = methods.EXTENSION_VERSIONS[0]
    with Client.http(server_url, extension_version=oldest, timeout=TIMEOUT) as client:
        assert isinstance(client.plan_list(), models.PlanList)
    transport = StdioTransport(
        agent_program(), ["--stdio", *AGENT_ARGS], extension_version=oldest, timeout=TIMEOUT
    )
    with Client(transport) as client:
        assert isinstance(client.plan_list(), models.PlanList)
        extensions = [e.to_wire() for e in transport.session.extensions]
        assert extensions == [{"uri": methods.EXTENSION_URIS[0], "version": oldest}]
        assert transport.session.agent_card.name


def test_a_retired_version_is_refused_over_http(server_url: str) -> None:
    with Client.http(server_url, extension_version=RETIRED, timeout=TIMEOUT) as client:
        with pytest.raises(errors.ExtVersionMismatch) as refused:
            client.plan_list()
    check(refused.value)


def test_a_retired_version_is_refused_over_stdio() -> None:
    with pytest.raises(errors.ExtVersionMismatch) as refused:
        Client.stdio(
            agent_program(), ["--stdio", *AGENT_ARGS], extension_version=RETIRED, timeout=TIMEOUT
        )
    check(refused.value)

    async def run() -> None:
        try:
            await AsyncClient.stdio(
                agent_program(),
                ["--stdio", *AGENT_ARGS],
                extension_version=RETIRED,
                timeout=TIMEOUT,
            )
        except errors.ExtVersionMismatch as mismatch:
            check(mismatch)
        else:
            raise AssertionError("a retired version was accepted")

    asyncio.run(run())
