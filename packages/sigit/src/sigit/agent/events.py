"""The agent's events now live in `sigit.events` (below the agent and the frontends); this name stays."""

from sigit.events import *  # noqa: F403
from sigit.events import __all__ as __all__
