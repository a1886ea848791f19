"""The shape of an entry of the generated method table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, TypeAdapter

from ._errors import ContractError

__all__ = ["MethodSpec"]

P = TypeVar("P", bound=BaseModel)
R = TypeVar("R")


@dataclass(frozen=True)
class MethodSpec(Generic[P, R]):
    """One method of the contract: its wire name, params and result types
    (for a streaming method, the type of one event) and the errors it may raise."""

    name: str
    params: type[P]
    result: TypeAdapter[R]
    streaming: bool
    errors: tuple[type[ContractError], ...]
    # ErrorInfo domain of the method's contract: an error answer without
    # ErrorInfo is looked up by its code there.
    domain: str
    since: str | None
    binding: str | None
    notification: bool
