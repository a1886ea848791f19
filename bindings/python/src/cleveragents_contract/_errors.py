"""The common base of the typed errors, and the errors of the transports."""

from __future__ import annotations

from pydantic import JsonValue

__all__ = [
    "ContractError",
    "RpcFailure",
    "TransportError",
    "registered",
    "registered_code",
    "typed_error",
]

# The ErrorInfo detail's type URL, as google.rpc defines it.
_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


class ContractError(Exception):
    """An error answer of the agent: a JSON-RPC error of the contract's registry.

    ``code`` is the JSON-RPC code, ``reason`` and ``domain`` the ErrorInfo that
    identifies the error, ``message`` the agent's text and ``data`` the error's
    ``data`` member as sent (its ErrorInfo details among them).
    """

    code: int = 0
    reason: str = ""
    domain: str = ""
    default_message: str = ""
    http_status: int = 500
    grpc_status: str = "UNKNOWN"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # Every registry error class, wherever generated, is known to the
        # decoder once its module is imported (a downstream extension's too).
        # The first class of a (domain, reason) keeps it: a downstream's copy
        # of this package's registries does not displace the classes callers
        # catch.
        if cls.reason:
            _REGISTRY.setdefault((cls.domain, cls.reason), cls)
            _BY_CODE.setdefault((cls.domain, cls.code), cls)

    def __init__(
        self,
        message: str | None = None,
        data: JsonValue = None,
        *,
        code: int | None = None,
        reason: str | None = None,
        domain: str | None = None,
    ) -> None:
        self.message = self.default_message if message is None else message
        self.data = data
        if code is not None:
            self.code = code
        if reason is not None:
            self.reason = reason
        if domain is not None:
            self.domain = domain
        super().__init__(self.message)

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(code={self.code}, reason={self.reason!r}, message={self.message!r})"


_REGISTRY: dict[tuple[str, str], type[ContractError]] = {}
_BY_CODE: dict[tuple[str, int], type[ContractError]] = {}


def registered(domain: str, reason: str) -> type[ContractError] | None:
    """The error class of an ErrorInfo domain and reason."""
    return _REGISTRY.get((domain, reason))


def registered_code(domain: str, code: int) -> type[ContractError] | None:
    """The error class a code stands for in a contract's registry (its domain)."""
    return _BY_CODE.get((domain, code))


class TransportError(Exception):
    """The agent could not be reached or answered with something that is not
    a JSON-RPC answer (a closed connection, a timeout, an exited process)."""


class RpcFailure(Exception):
    """A JSON-RPC error as a transport reads it, before it is typed."""

    def __init__(self, code: int, message: str, data: JsonValue) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def typed_error(failure: RpcFailure, domain: str) -> ContractError:
    """The registry's exception for an error answer: found by the ErrorInfo's
    domain and reason when the error carries one, else by its code in the
    calling method's contract (`domain`)."""
    details = failure.data if isinstance(failure.data, list) else [failure.data]
    for detail in details:
        if isinstance(detail, dict) and detail.get("@type") == _ERROR_INFO:
            error_domain, reason = str(detail.get("domain", "")), str(detail.get("reason", ""))
            known = registered(error_domain, reason)
            if known is not None:
                return known(failure.message, failure.data)
            return ContractError(
                failure.message, failure.data, code=failure.code, reason=reason, domain=error_domain
            )
    found = registered_code(domain, failure.code)
    if found is not None:
        return found(failure.message, failure.data)
    return ContractError(failure.message, failure.data, code=failure.code)
