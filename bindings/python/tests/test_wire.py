"""The exact messages the transports send: the HTTP headers and envelope
(against a mock server), and the stdio binding's handshake, stream cancel
and stream resume (against a recording stand-in for the agent)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest
from pydantic import JsonValue

from cleveragents_contract import Client, HttpTransport, errors, methods, models

FAKE_AGENT = Path(__file__).resolve().parent / "fake_agent.py"
EXT = "urn:cleveragents:extensions:v1"


def test_http_sends_the_version_and_extension_headers() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": {"items": []}})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    transport = HttpTransport("http://agent.test/", extension_version="1.1", http_client=http)
    listed = Client(transport).plan_list()
    assert listed.to_wire() == {"items": []}
    [request] = seen
    assert (request.method, str(request.url)) == ("POST", "http://agent.test/")
    assert request.headers["A2A-Version"] == "1.0"
    assert request.headers["A2A-Extensions"] == EXT
    assert request.headers["CleverAgents-Extension-Version"] == "1.1"
    assert request.headers["Accept"] == "application/json"
    assert json.loads(request.content) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": methods.PLAN_LIST.name,
        "params": {},
    }


def test_http_streams_resume_with_last_event_id() -> None:
    seen: list[httpx.Request] = []
    table = json.loads(
        (Path(__file__).resolve().parents[3] / "schema" / "cleveragents-ext.json").read_text()
    )
    event = table["x-methods"][methods.EVENTS_SUBSCRIBE.name]["examples"][0]["events"][0]

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answers = {
            c: {"jsonrpc": "2.0", "id": 1, "result": {**event, "cursor": c}} for c in (4, 5, 6)
        }
        body = "".join(f"id: {c}\ndata: {json.dumps(a)}\n\n" for c, a in answers.items())
        return httpx.Response(
            200, text=": keep-alive\n\n" + body, headers={"content-type": "text/event-stream"}
        )

    client = Client(
        HttpTransport(
            "http://agent.test/", http_client=httpx.Client(transport=httpx.MockTransport(answer))
        )
    )
    cursors = [e.cursor for e in client.events_subscribe(last_event_id=4)]
    # The server's replay of the event resumed after is not delivered again.
    assert cursors == [5, 6]
    assert seen[0].headers["Last-Event-ID"] == "4"
    assert seen[0].headers["Accept"] == "text/event-stream"


def test_http_error_before_the_stream_is_typed() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        error = {"code": -32602, "message": "Invalid params: types: unknown"}
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "error": error})

    client = Client(
        HttpTransport(
            "http://agent.test/", http_client=httpx.Client(transport=httpx.MockTransport(answer))
        )
    )
    with pytest.raises(errors.ExtInvalidParams) as refused:
        list(client.events_subscribe())
    assert (refused.value.code, refused.value.reason, refused.value.domain) == (
        -32602,
        "INVALID_PARAMS",
        EXT,
    )
    assert refused.value.message == "Invalid params: types: unknown"


def recorded(log: Path) -> list[dict[str, JsonValue]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_stdio_handshake_cancel_and_resume(tmp_path: Path) -> None:
    log = tmp_path / "agent.log"
    env = {"FAKE_AGENT_LOG": str(log), "PATH": ""}
    with Client.stdio(
        sys.executable, [str(FAKE_AGENT)], extension_version="1.2", env=env, timeout=20
    ) as client:
        stream = client.events_subscribe(models.EventsSubscribeParams(follow=True))
        first = next(stream)
        assert (first.cursor, first.type) == (1, "session.message")
        stream.close()
        resumed = list(
            client.events_subscribe(models.EventsSubscribeParams(plan_id="p"), last_event_id=11)
        )
        assert len(resumed) == 2
    sent = recorded(log)
    initialize, subscribe, cancel, resume = sent
    assert initialize["method"] == methods.STDIO_INITIALIZE.name
    params = initialize["params"]
    assert isinstance(params, dict)
    assert params["protocolVersion"] == "1.0"
    assert params["extensions"] == [{"uri": EXT, "version": "1.2"}]
    assert (
        isinstance(params["clientInfo"], dict)
        and params["clientInfo"]["name"] == "cleveragents-contract"
    )
    assert subscribe == {
        "jsonrpc": "2.0",
        "id": 2,
        "method": methods.EVENTS_SUBSCRIBE.name,
        "params": {"follow": True},
    }
    assert cancel == {
        "jsonrpc": "2.0",
        "id": 3,
        "method": methods.STDIO_STREAM_CANCEL.name,
        "params": {"requestId": 2},
    }
    assert resume == {
        "jsonrpc": "2.0",
        "id": 4,
        "method": methods.STDIO_STREAM_RESUME.name,
        "params": {
            "method": methods.EVENTS_SUBSCRIBE.name,
            "params": {"planId": "p"},
            "lastEventId": 11,
        },
    }
