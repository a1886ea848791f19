"""The JSON-RPC 2.0 envelope on the client side, shared by the transports."""

from __future__ import annotations

import itertools
import threading

from pydantic import JsonValue

from ._errors import RpcFailure, TransportError

__all__ = ["Ids", "outcome", "request"]


class Ids:
    """Request ids: increasing integers, safe to draw from several threads."""

    def __init__(self) -> None:
        self._next = itertools.count(1)
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            return next(self._next)


def request(id: int, method: str, params: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A request envelope."""
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params}


def outcome(answer: object) -> JsonValue:
    """The result a response carries; its error raised as an `RpcFailure`."""
    if not isinstance(answer, dict):
        raise TransportError(f"the answer is not a JSON-RPC response: {answer!r:.200}")
    error = answer.get("error")
    if error is not None:
        if not isinstance(error, dict) or not isinstance(error.get("code"), int):
            raise TransportError(f"malformed JSON-RPC error: {error!r:.200}")
        message = error.get("message")
        data: JsonValue = error.get("data")
        raise RpcFailure(error["code"], message if isinstance(message, str) else "", data)
    if "result" not in answer:
        raise TransportError(f"a JSON-RPC response without result or error: {answer!r:.200}")
    result: JsonValue = answer["result"]
    return result
