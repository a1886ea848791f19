"""The stdio binding: the agent as a child process (``cleveragents-agent
--stdio``) speaking newline-delimited JSON-RPC on its stdin and stdout.

A session opens with ``initialize`` (the counterpart of the HTTP headers:
protocol version, extensions and their minor version). Answers are matched to
requests by id, so calls may overlap; a stream's events arrive as
``stream/event`` notifications naming the request, and the stream ends with
the ordinary response to it. Leaving a stream early sends ``stream/cancel``;
a stream resumed after an event is called through ``stream/resume``."""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata

from pydantic import JsonValue, ValidationError

from ._errors import RpcFailure, TransportError, typed_error
from ._gen import methods, models
from ._jsonrpc import Ids, outcome, request
from ._model import encode

__all__ = ["AsyncStdioTransport", "StdioTransport"]

# Answers can be large (a session export): one line may be this long.
_LINE_LIMIT = 256 * 1024 * 1024
# How long closing waits for the agent to exit after its stdin closes.
_GRACE = 5.0


@dataclass(frozen=True)
class _Event:
    """One ``stream/event`` of a stream."""

    params: models.StdioStreamEventParams


@dataclass(frozen=True)
class _Answer:
    """The response to a request (for a stream: its end)."""

    message: dict[str, JsonValue]


@dataclass(frozen=True)
class _Closed:
    """The agent exited: no answer will come."""


_Item = _Event | _Answer | _Closed


def _initialize_params(
    extensions: Sequence[str] | None, extension_version: str | None
) -> dict[str, JsonValue]:
    try:
        version = metadata.version("cleveragents-contract")
    except metadata.PackageNotFoundError:
        version = "0"
    params = models.StdioInitializeParams(
        protocol_version=methods.PROTOCOL_VERSION,
        extensions=[
            models.StdioExtensionRequest(uri=uri, version=extension_version)
            for uri in extensions or methods.EXTENSION_URIS
        ],
        client_info=models.StdioImplementationInfo(name="cleveragents-contract", version=version),
    )
    return encode(params)


def _route(line: bytes) -> tuple[int, _Item] | None:
    """The request id a line of the agent's stdout belongs to, and what it is."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None  # stdout carries protocol only; a broken line is skipped
    if not isinstance(message, dict):
        return None
    target: object
    if message.get("method") == methods.STDIO_STREAM_EVENT.name:
        try:
            params = methods.STDIO_STREAM_EVENT.params.model_validate(message.get("params"))
        except ValidationError:
            return None
        target = params.request_id
    elif "method" in message:
        return None  # no other request or notification from the agent is defined
    else:
        target = message.get("id")
        params = None
    if isinstance(target, str) and target.isdigit():
        target = int(target)
    if not isinstance(target, int) or isinstance(target, bool):
        return None
    return target, (_Event(params) if params is not None else _Answer(message))


def _resume(
    method: str, params: dict[str, JsonValue], last_event_id: int | None
) -> tuple[str, dict[str, JsonValue]]:
    """The request a stream opens with: the method itself, or ``stream/resume``
    of it after the last event seen."""
    if last_event_id is None:
        return method, params
    resume = methods.STDIO_STREAM_RESUME.params(
        method=method, params=params, last_event_id=last_event_id
    )
    return methods.STDIO_STREAM_RESUME.name, encode(resume)


def _cancel(request_id: int) -> dict[str, JsonValue]:
    return encode(methods.STDIO_STREAM_CANCEL.params(request_id=request_id))


class StdioTransport:
    """Blocking stdio binding to an agent it starts; a reader thread routes
    the agent's lines to the requests waiting for them."""

    def __init__(
        self,
        program: str,
        args: Sequence[str] = ("--stdio",),
        *,
        extensions: Sequence[str] | None = None,
        extension_version: str | None = None,
        timeout: float | None = 30.0,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.timeout = timeout
        try:
            self._process = subprocess.Popen(
                [program, *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=None if env is None else dict(env),
            )
        except OSError as error:
            raise TransportError(f"cannot start agent {program!r}: {error}") from error
        self._ids = Ids()
        self._write_lock = threading.Lock()
        self._pending: dict[int, queue.Queue[_Item]] = {}
        self._pending_lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="cleveragents-stdio", daemon=True)
        self._reader.start()
        try:
            answer = self.call(
                methods.STDIO_INITIALIZE.name, _initialize_params(extensions, extension_version)
            )
            self.session = methods.STDIO_INITIALIZE.result.validate_python(answer)
        except RpcFailure as failure:
            self.close()
            raise typed_error(failure, methods.STDIO_INITIALIZE.domain) from None
        except BaseException:
            self.close()
            raise

    def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        for line in stdout:
            routed = _route(line)
            if routed is None:
                continue
            with self._pending_lock:
                waiter = self._pending.get(routed[0])
            if waiter is not None:
                waiter.put(routed[1])
        with self._pending_lock:
            self._closed = True
            waiters = list(self._pending.values())
        for waiter in waiters:
            waiter.put(_Closed())

    def _send(self, method: str, params: dict[str, JsonValue]) -> tuple[int, queue.Queue[_Item]]:
        id = self._ids.next()
        waiter: queue.Queue[_Item] = queue.Queue()
        with self._pending_lock:
            if self._closed:
                raise TransportError("the agent has exited")
            self._pending[id] = waiter
        self._write(request(id, method, params))
        return id, waiter

    def _write(self, message: dict[str, JsonValue]) -> None:
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        stdin = self._process.stdin
        try:
            with self._write_lock:
                assert stdin is not None
                stdin.write(line)
                stdin.flush()
        except (OSError, ValueError) as error:
            raise TransportError(f"writing to the agent: {error}") from error

    def _forget(self, id: int) -> None:
        with self._pending_lock:
            self._pending.pop(id, None)

    def _next(self, method: str, waiter: queue.Queue[_Item]) -> _Item:
        try:
            return waiter.get(timeout=self.timeout)
        except queue.Empty:
            raise TransportError(f"{method}: no answer within {self.timeout} s") from None

    def call(self, method: str, params: dict[str, JsonValue]) -> JsonValue:
        id, waiter = self._send(method, params)
        try:
            while True:
                item = self._next(method, waiter)
                if isinstance(item, _Answer):
                    return outcome(item.message)
                if isinstance(item, _Closed):
                    raise TransportError(f"{method}: the agent exited before answering")
        finally:
            self._forget(id)

    def stream(
        self, method: str, params: dict[str, JsonValue], last_event_id: int | None
    ) -> Iterator[JsonValue]:
        opened, body = _resume(method, params, last_event_id)
        id, waiter = self._send(opened, body)
        finished = False
        try:
            while True:
                item = self._next(method, waiter)
                if isinstance(item, _Event):
                    yield item.params.event
                elif isinstance(item, _Answer):
                    finished = True
                    outcome(item.message)
                    return
                else:
                    finished = True
                    raise TransportError(f"{method}: the agent exited during the stream")
        finally:
            self._forget(id)
            if not finished and not self._closed:
                # Best effort: the cancel's own answer is not awaited.
                try:
                    self._write(
                        request(self._ids.next(), methods.STDIO_STREAM_CANCEL.name, _cancel(id))
                    )
                except TransportError:
                    pass

    def close(self) -> None:
        """Closes the agent's stdin (the binding's clean shutdown), waits for it
        to exit, then kills it if it has not."""
        stdin = self._process.stdin
        if stdin is not None and not stdin.closed:
            with self._write_lock:
                try:
                    stdin.close()
                except OSError:
                    pass
        try:
            self._process.wait(timeout=_GRACE)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._reader.join(timeout=_GRACE)
        if self._process.stdout is not None:
            self._process.stdout.close()


class AsyncStdioTransport:
    """Asyncio stdio binding to an agent it starts (see `start`); a reader task
    routes the agent's lines to the requests waiting for them."""

    def __init__(self, process: asyncio.subprocess.Process, timeout: float | None) -> None:
        self.timeout = timeout
        self._process = process
        self._ids = Ids()
        self._write_lock = asyncio.Lock()
        self._pending: dict[int, asyncio.Queue[_Item]] = {}
        self._closed = False
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.session: models.StdioInitializeResult | None = None

    @classmethod
    async def start(
        cls,
        program: str,
        args: Sequence[str] = ("--stdio",),
        *,
        extensions: Sequence[str] | None = None,
        extension_version: str | None = None,
        timeout: float | None = 30.0,
        env: Mapping[str, str] | None = None,
    ) -> AsyncStdioTransport:
        """Starts the agent and performs the ``initialize`` handshake."""
        try:
            process = await asyncio.create_subprocess_exec(
                program,
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                env=None if env is None else dict(env),
                limit=_LINE_LIMIT,
            )
        except OSError as error:
            raise TransportError(f"cannot start agent {program!r}: {error}") from error
        transport = cls(process, timeout)
        try:
            answer = await transport.call(
                methods.STDIO_INITIALIZE.name, _initialize_params(extensions, extension_version)
            )
            transport.session = methods.STDIO_INITIALIZE.result.validate_python(answer)
        except RpcFailure as failure:
            await transport.close()
            raise typed_error(failure, methods.STDIO_INITIALIZE.domain) from None
        except BaseException:
            await transport.close()
            raise
        return transport

    async def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, OSError):
                break
            if not line:
                break
            routed = _route(line)
            if routed is not None and routed[0] in self._pending:
                self._pending[routed[0]].put_nowait(routed[1])
        self._closed = True
        for waiter in self._pending.values():
            waiter.put_nowait(_Closed())

    async def _send(
        self, method: str, params: dict[str, JsonValue]
    ) -> tuple[int, asyncio.Queue[_Item]]:
        if self._closed:
            raise TransportError("the agent has exited")
        id = self._ids.next()
        waiter: asyncio.Queue[_Item] = asyncio.Queue()
        self._pending[id] = waiter
        await self._write(request(id, method, params))
        return id, waiter

    async def _write(self, message: dict[str, JsonValue]) -> None:
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        stdin = self._process.stdin
        try:
            async with self._write_lock:
                assert stdin is not None
                stdin.write(line)
                await stdin.drain()
        except (OSError, RuntimeError) as error:
            raise TransportError(f"writing to the agent: {error}") from error

    async def _next(self, method: str, waiter: asyncio.Queue[_Item]) -> _Item:
        try:
            return await asyncio.wait_for(waiter.get(), self.timeout)
        except asyncio.TimeoutError:
            raise TransportError(f"{method}: no answer within {self.timeout} s") from None

    async def call(self, method: str, params: dict[str, JsonValue]) -> JsonValue:
        id, waiter = await self._send(method, params)
        try:
            while True:
                item = await self._next(method, waiter)
                if isinstance(item, _Answer):
                    return outcome(item.message)
                if isinstance(item, _Closed):
                    raise TransportError(f"{method}: the agent exited before answering")
        finally:
            self._pending.pop(id, None)

    async def stream(
        self, method: str, params: dict[str, JsonValue], last_event_id: int | None
    ) -> AsyncIterator[JsonValue]:
        opened, body = _resume(method, params, last_event_id)
        id, waiter = await self._send(opened, body)
        finished = False
        try:
            while True:
                item = await self._next(method, waiter)
                if isinstance(item, _Event):
                    yield item.params.event
                elif isinstance(item, _Answer):
                    finished = True
                    outcome(item.message)
                    return
                else:
                    finished = True
                    raise TransportError(f"{method}: the agent exited during the stream")
        finally:
            self._pending.pop(id, None)
            if not finished and not self._closed:
                try:
                    await self._write(
                        request(self._ids.next(), methods.STDIO_STREAM_CANCEL.name, _cancel(id))
                    )
                except TransportError:
                    pass

    async def close(self) -> None:
        """Closes the agent's stdin, waits for it to exit, then kills it if it
        has not."""
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        try:
            await asyncio.wait_for(self._process.wait(), _GRACE)
        except asyncio.TimeoutError:
            self._process.kill()
            await self._process.wait()
        try:
            await asyncio.wait_for(self._reader, _GRACE)
        except asyncio.TimeoutError:
            self._reader.cancel()
