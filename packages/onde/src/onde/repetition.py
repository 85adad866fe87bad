"""Stop a reply that loops: small models can repeat one phrase until max_tokens runs out.

The guard watches the tail of the text as it streams and fires when it is one block repeated many
times over (a block of 1 to 150 characters, at least 4 times and 160 characters in all); the
caller stops generating and keeps one copy of the block.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_SPAN = 160
MIN_REPEATS = 4
MAX_PERIOD = 150
CHECK_EVERY = 32


@dataclass(frozen=True)
class Loop:
    period: int
    repeats: int

    @property
    def surplus(self) -> int:
        """Characters to drop so that one copy of the repeated block stays."""
        return self.period * (self.repeats - 1)


class RepetitionGuard:
    def __init__(self) -> None:
        self._tail = ""
        self._since_check = 0

    def feed(self, text: str) -> Loop | None:
        self._tail = (self._tail + text)[-(MAX_PERIOD * MIN_REPEATS + MIN_SPAN) :]
        self._since_check += len(text)
        if self._since_check < CHECK_EVERY:
            return None
        self._since_check = 0
        return find_loop(self._tail)


def find_loop(tail: str) -> Loop | None:
    """The shortest block that the end of `tail` repeats often enough to count as a loop."""
    for period in range(1, min(MAX_PERIOD, len(tail) // MIN_REPEATS) + 1):
        needed = max(MIN_REPEATS, -(-MIN_SPAN // period))
        if period * needed > len(tail):
            continue
        block = tail[-period:]
        if block.isspace():
            continue  # runs of blank lines or indentation are left to max_tokens
        if tail.endswith(block * needed):
            repeats = needed
            while tail.endswith(block * (repeats + 1)):
                repeats += 1
            return Loop(period, repeats)
    return None
