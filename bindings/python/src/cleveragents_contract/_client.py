"""What the generated clients build on: a transport, the encoding of params,
the decoding of results and the typing of error answers."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping, Sequence
from types import TracebackType
from typing import ClassVar, Protocol, TypeVar

import httpx
from pydantic import BaseModel, JsonValue
from typing_extensions import Self

from ._errors import RpcFailure, typed_error
from ._model import encode
from ._spec import MethodSpec

__all__ = [
    "AsyncClientBase",
    "AsyncTransport",
    "SyncClientBase",
    "SyncTransport",
    "default_agent",
    "typed_error",
]

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R")


def default_agent() -> str:
    """The agent program stdio clients start: ``$CLEVERAGENTS_AGENT`` or
    ``cleveragents-agent`` on the PATH."""
    return os.environ.get("CLEVERAGENTS_AGENT", "cleveragents-agent")


class SyncTransport(Protocol):
    """Carries JSON-RPC calls to the agent and back, blocking."""

    def call(self, method: str, params: dict[str, JsonValue]) -> JsonValue:
        """The result of one call; an error answer raised as `RpcFailure`."""
        ...

    def stream(
        self, method: str, params: dict[str, JsonValue], last_event_id: int | None
    ) -> Iterator[JsonValue]:
        """The events of a streaming call, after `last_event_id` when given."""
        ...

    def close(self) -> None:
        """Releases the connection or stops the agent process."""
        ...


class AsyncTransport(Protocol):
    """Carries JSON-RPC calls to the agent and back, awaiting."""

    async def call(self, method: str, params: dict[str, JsonValue]) -> JsonValue:
        """The result of one call; an error answer raised as `RpcFailure`."""
        ...

    def stream(
        self, method: str, params: dict[str, JsonValue], last_event_id: int | None
    ) -> AsyncIterator[JsonValue]:
        """The events of a streaming call, after `last_event_id` when given."""
        ...

    async def close(self) -> None:
        """Releases the connection or stops the agent process."""
        ...


class SyncClientBase:
    """A blocking client over any `SyncTransport`."""

    # The extensions activated on every call (the generated client's).
    extension_uris: ClassVar[tuple[str, ...]] = ()

    def __init__(self, transport: SyncTransport) -> None:
        self.transport = transport

    @classmethod
    def http(
        cls,
        url: str,
        *,
        extension_version: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 30.0,
        http_client: httpx.Client | None = None,
    ) -> Self:
        """A client of the agent serving JSON-RPC at `url` (``http://host:port/``)."""
        from ._http import HttpTransport

        return cls(
            HttpTransport(
                url,
                extensions=cls.extension_uris or None,
                extension_version=extension_version,
                headers=headers,
                timeout=timeout,
                http_client=http_client,
            )
        )

    @classmethod
    def stdio(
        cls,
        program: str | None = None,
        args: Sequence[str] = ("--stdio",),
        *,
        extension_version: str | None = None,
        timeout: float | None = 30.0,
        env: Mapping[str, str] | None = None,
    ) -> Self:
        """A client of an agent it starts as a child process (``--stdio``)."""
        from ._stdio import StdioTransport

        return cls(
            StdioTransport(
                program or default_agent(),
                args,
                extensions=cls.extension_uris or None,
                extension_version=extension_version,
                timeout=timeout,
                env=env,
            )
        )

    def close(self) -> None:
        """Closes the transport."""
        self.transport.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _call(self, spec: MethodSpec[P, R], params: P) -> R:
        try:
            raw = self.transport.call(spec.name, encode(params))
        except RpcFailure as failure:
            raise typed_error(failure, spec.domain) from None
        return spec.result.validate_python(raw)

    def _stream(
        self, spec: MethodSpec[P, R], params: P, last_event_id: int | None
    ) -> Generator[R, None, None]:
        events = self.transport.stream(spec.name, encode(params), last_event_id)
        try:
            for event in events:
                yield spec.result.validate_python(event)
        except RpcFailure as failure:
            raise typed_error(failure, spec.domain) from None
        finally:
            # Leaving the loop early stops the stream at the agent.
            close = getattr(events, "close", None)
            if close is not None:
                close()


class AsyncClientBase:
    """An asyncio client over any `AsyncTransport`."""

    extension_uris: ClassVar[tuple[str, ...]] = ()

    def __init__(self, transport: AsyncTransport) -> None:
        self.transport = transport

    @classmethod
    def http(
        cls,
        url: str,
        *,
        extension_version: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> Self:
        """A client of the agent serving JSON-RPC at `url` (``http://host:port/``)."""
        from ._http import AsyncHttpTransport

        return cls(
            AsyncHttpTransport(
                url,
                extensions=cls.extension_uris or None,
                extension_version=extension_version,
                headers=headers,
                timeout=timeout,
                http_client=http_client,
            )
        )

    @classmethod
    async def stdio(
        cls,
        program: str | None = None,
        args: Sequence[str] = ("--stdio",),
        *,
        extension_version: str | None = None,
        timeout: float | None = 30.0,
        env: Mapping[str, str] | None = None,
    ) -> Self:
        """A client of an agent it starts as a child process (``--stdio``),
        once the agent has answered ``initialize``."""
        from ._stdio import AsyncStdioTransport

        transport = await AsyncStdioTransport.start(
            program or default_agent(),
            args,
            extensions=cls.extension_uris or None,
            extension_version=extension_version,
            timeout=timeout,
            env=env,
        )
        return cls(transport)

    async def close(self) -> None:
        """Closes the transport."""
        await self.transport.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def _call(self, spec: MethodSpec[P, R], params: P) -> R:
        try:
            raw = await self.transport.call(spec.name, encode(params))
        except RpcFailure as failure:
            raise typed_error(failure, spec.domain) from None
        return spec.result.validate_python(raw)

    async def _stream(
        self, spec: MethodSpec[P, R], params: P, last_event_id: int | None
    ) -> AsyncGenerator[R, None]:
        events = self.transport.stream(spec.name, encode(params), last_event_id)
        try:
            async for event in events:
                yield spec.result.validate_python(event)
        except RpcFailure as failure:
            raise typed_error(failure, spec.domain) from None
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
