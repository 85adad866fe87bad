"""Keep-alive times as people write them ("5m", "90s", "1h", "0", "2.5"), read in one place."""

from __future__ import annotations

import math
import re

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_keep_alive(value: str | float | int) -> float:
    """Seconds from a duration: a number (seconds) or a number with ms, s, m or h; 0 means no host.
    Raises ValueError, naming the forms it takes, for anything else (negative, infinite, a typo)."""
    if isinstance(value, bool):
        raise ValueError(f"a keep-alive time is a duration such as \"5m\", \"90s\" or 0, not {value!r}")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION.match(value)
        if match is None:
            raise ValueError(f"a keep-alive time is a duration such as \"5m\", \"90s\", \"1h\" or 0, not {value!r}")
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"a keep-alive time is 0 or more seconds, not {value!r}")
    return seconds
