"""The models of every extension definition, and the A2A types they use
(the official SDK's protobuf messages)."""

from ._gen.models import *  # noqa: F403
from ._gen.models import __all__ as __all__
