"""The error registries as exception classes: `ContractError` is the base of
all, each contract's errors share a base (`CleveragentsError`, `A2aError`)."""

from ._gen.errors import *  # noqa: F403
from ._gen.errors import __all__ as __all__
