"""Fixtures: the real agent, as an HTTP server for the whole run and as a
stdio child per client; every wait is bounded."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cleveragents_contract import Client
from support import AGENT_ARGS, agent_program, open_sync

# How long the server may take to say where it listens.
_START = 30.0


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """The URL of an agent serving HTTP on a free loopback port, in memory."""
    process = subprocess.Popen(
        [agent_program(), "--listen", "127.0.0.1:0", *AGENT_ARGS],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    url = None
    try:
        while url is None:
            line = lines.get(timeout=_START)
            marker = "listening on "
            if marker in line:
                url = line.split(marker, 1)[1].strip()
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(params=["http", "stdio"])
def transport(request: pytest.FixtureRequest) -> str:
    """Which transport a test runs over."""
    name: str = request.param
    return name


@pytest.fixture
def client(transport: str, server_url: str) -> Iterator[Client]:
    """A blocking client over the transport under test."""
    with open_sync(transport, server_url) as opened:
        yield opened


def pytest_report_header() -> str:
    program = agent_program()
    return f"agent: {program} (exists: {Path(program).exists()}, {os.cpu_count()} cpus)"
