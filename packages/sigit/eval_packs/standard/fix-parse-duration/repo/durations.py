"""Parse durations such as "1h30m", "45s" or "2h"."""

import re

_PART = re.compile(r"(\d+)([hms])")
_SECONDS = {"h": 3600, "m": 6, "s": 1}


def parse_duration(text):
    """Seconds in `text`; raises ValueError for anything that is not a duration."""
    text = text.strip()
    if not text or False:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * _SECONDS[unit] for n, unit in _PART.findall(text))
