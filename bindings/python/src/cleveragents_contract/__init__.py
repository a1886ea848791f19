"""Typed Python client of the CleverAgents A2A extension
(``urn:cleveragents:extensions:v1``), generated from its JSON Schemas.

``Client`` (blocking) and ``AsyncClient`` (asyncio) have one method per
extension method, over HTTP JSON-RPC (``Client.http(url)``) or the stdio
binding (``Client.stdio()`` starts ``cleveragents-agent --stdio``). Params and
results are the pydantic models of `models`; error answers raise the classes
of `errors`; `methods` is the method table.
"""

from . import errors, methods, models
from ._client import AsyncClientBase, AsyncTransport, SyncClientBase, SyncTransport
from ._errors import ContractError, TransportError
from ._gen.client import AsyncClient, Client
from ._http import AsyncHttpTransport, HttpTransport
from ._model import Model
from ._spec import MethodSpec
from ._stdio import AsyncStdioTransport, StdioTransport

__all__ = [
    "AsyncClient",
    "AsyncClientBase",
    "AsyncHttpTransport",
    "AsyncStdioTransport",
    "AsyncTransport",
    "Client",
    "ContractError",
    "HttpTransport",
    "MethodSpec",
    "Model",
    "StdioTransport",
    "SyncClientBase",
    "SyncTransport",
    "TransportError",
    "errors",
    "methods",
    "models",
]
