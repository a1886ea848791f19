"""The HTTP transport: JSON-RPC 2.0 over HTTP POST, streams as Server-Sent
Events, with the A2A version and extension headers on every request.

It uses httpx, as the official ``a2a-sdk`` does, so one ``httpx.Client`` (with
its authentication, TLS and limits) can serve both."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence

import httpx
from pydantic import JsonValue

from ._errors import TransportError
from ._gen import methods
from ._jsonrpc import Ids, outcome, request
from ._sse import SseEvent, SseParser

__all__ = ["AsyncHttpTransport", "HttpTransport", "service_headers"]

_EVENT_STREAM = "text/event-stream"


def service_headers(
    extensions: Sequence[str] | None,
    extension_version: str | None,
    extra: Mapping[str, str] | None,
) -> dict[str, str]:
    """The headers of every request: the protocol version, the extensions
    activated (this package's unless named) and, when one is wanted, the
    extension's minor version."""
    headers = {
        methods.A2A_VERSION_HEADER: methods.PROTOCOL_VERSION,
        methods.A2A_EXTENSIONS_HEADER: ", ".join(extensions or methods.EXTENSION_URIS),
    }
    if extension_version is not None:
        headers[methods.EXTENSION_VERSION_HEADER] = extension_version
    headers.update(extra or {})
    return headers


def _stream_headers(last_event_id: int | None) -> dict[str, str]:
    headers = {"Accept": _EVENT_STREAM}
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    return headers


def _decode(response: httpx.Response) -> JsonValue:
    try:
        answer = response.json()
    except ValueError as error:
        raise TransportError(
            f"HTTP {response.status_code}: the answer is not JSON ({error})"
        ) from None
    return outcome(answer)


def _event(event: SseEvent, last_event_id: int | None) -> tuple[bool, JsonValue]:
    """Whether to deliver an SSE event, and its result (an error raised)."""
    if not event.data.strip():
        return False, None
    if event.id is not None and last_event_id is not None:
        try:
            if int(event.id) <= last_event_id:
                return False, None  # replayed: seen before the resume
        except ValueError:
            pass
    try:
        answer = json.loads(event.data)
    except ValueError as error:
        raise TransportError(f"an SSE event whose data is not JSON: {error}") from None
    return True, outcome(answer)


class HttpTransport:
    """Blocking JSON-RPC over HTTP to the endpoint `url`."""

    def __init__(
        self,
        url: str,
        *,
        extensions: Sequence[str] | None = None,
        extension_version: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 30.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.url = url
        self._owned = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)
        self._headers = service_headers(extensions, extension_version, headers)
        self._ids = Ids()

    def call(self, method: str, params: dict[str, JsonValue]) -> JsonValue:
        body = request(self._ids.next(), method, params)
        try:
            response = self._http.post(
                self.url, json=body, headers={**self._headers, "Accept": "application/json"}
            )
        except httpx.HTTPError as error:
            raise TransportError(f"{method}: {error}") from error
        return _decode(response)

    def stream(
        self, method: str, params: dict[str, JsonValue], last_event_id: int | None
    ) -> Iterator[JsonValue]:
        body = request(self._ids.next(), method, params)
        headers = {**self._headers, **_stream_headers(last_event_id)}
        try:
            with self._http.stream("POST", self.url, json=body, headers=headers) as response:
                if not response.headers.get("content-type", "").startswith(_EVENT_STREAM):
                    # An answer before the stream began: an error, as a whole.
                    response.read()
                    yield _decode(response)
                    return
                parser = SseParser()
                for line in response.iter_lines():
                    event = parser.feed(line)
                    if event is not None:
                        deliver, data = _event(event, last_event_id)
                        if deliver:
                            yield data
                last = parser.finish()
                if last is not None:
                    deliver, data = _event(last, last_event_id)
                    if deliver:
                        yield data
        except httpx.HTTPError as error:
            raise TransportError(f"{method}: {error}") from error

    def close(self) -> None:
        if self._owned:
            self._http.close()


class AsyncHttpTransport:
    """Asyncio JSON-RPC over HTTP to the endpoint `url`."""

    def __init__(
        self,
        url: str,
        *,
        extensions: Sequence[str] | None = None,
        extension_version: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = url
        self._owned = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._headers = service_headers(extensions, extension_version, headers)
        self._ids = Ids()

    async def call(self, method: str, params: dict[str, JsonValue]) -> JsonValue:
        body = request(self._ids.next(), method, params)
        try:
            response = await self._http.post(
                self.url, json=body, headers={**self._headers, "Accept": "application/json"}
            )
        except httpx.HTTPError as error:
            raise TransportError(f"{method}: {error}") from error
        return _decode(response)

    async def stream(
        self, method: str, params: dict[str, JsonValue], last_event_id: int | None
    ) -> AsyncIterator[JsonValue]:
        body = request(self._ids.next(), method, params)
        headers = {**self._headers, **_stream_headers(last_event_id)}
        try:
            async with self._http.stream("POST", self.url, json=body, headers=headers) as response:
                if not response.headers.get("content-type", "").startswith(_EVENT_STREAM):
                    await response.aread()
                    yield _decode(response)
                    return
                parser = SseParser()
                async for line in response.aiter_lines():
                    event = parser.feed(line)
                    if event is not None:
                        deliver, data = _event(event, last_event_id)
                        if deliver:
                            yield data
                last = parser.finish()
                if last is not None:
                    deliver, data = _event(last, last_event_id)
                    if deliver:
                        yield data
        except httpx.HTTPError as error:
            raise TransportError(f"{method}: {error}") from error

    async def close(self) -> None:
        if self._owned:
            await self._http.aclose()
