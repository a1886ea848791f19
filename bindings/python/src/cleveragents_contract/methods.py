"""The method table (`METHODS`, one `MethodSpec` per method, bound to a
constant each) and the contract's wire facts (header names, versions)."""

from ._gen.methods import *  # noqa: F403
from ._gen.methods import __all__ as __all__
