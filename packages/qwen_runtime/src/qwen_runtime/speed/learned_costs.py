"""What drafting costs on this machine, as the last process measured it, for the next one to start from.

The draft controller learns a batch's cost in one-token steps (and, on a hybrid, what rollback snapshots
add to a step) from the requests it runs: until then a new process drafts to measure, and a hybrid keeps
its snapshots (5-12% of every step) for its first request or two, however little drafting pays there.
Every `sigit -p` is a new process. So what was measured is kept beside the vocabulary tables, keyed by
the model file, the machine and everything that changes a batch's cost (threads, batch sizes, KV cache
type, GPU layers, llama.cpp's version), and a load without costs given or tuned (`qwen-runtime tune`)
starts from it: as priors, which the controller's own measurements outweigh as they come.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic_file import write_atomic

log = logging.getLogger(__name__)

_FORMAT = 1


@dataclass(frozen=True)
class LearnedCosts:
    verify_costs: dict[int, float]
    """Batch size (> 1) -> its cost in one-token steps, as measured."""
    rollback_overhead: float | None = None
    """A hybrid's step with rollback snapshots against one without (None: not measured)."""

    def close_to(self, other: LearnedCosts | None, tolerance: float = 0.05) -> bool:
        """Nothing worth writing again: the same sizes, each cost within `tolerance`."""
        if other is None or self.verify_costs.keys() != other.verify_costs.keys():
            return False
        pairs = [(a, other.verify_costs[n]) for n, a in self.verify_costs.items()]
        pairs.append((self.rollback_overhead or 1.0, other.rollback_overhead or 1.0))
        return all(abs(a - b) <= tolerance * b for a, b in pairs)


def learned_path(folder: Path, model_path: Path, setup: Mapping[str, Any]) -> Path:
    """The file for `model_path` run with `setup` (threads, batch sizes, ...) on this machine."""
    from .tuning import MachineId

    stat = model_path.stat()
    text = json.dumps({"format": _FORMAT, "model": [str(model_path.resolve()), stat.st_size, stat.st_mtime_ns],
                       "machine": MachineId.here().to_dict(), "setup": dict(setup)}, sort_keys=True, default=str)
    return folder / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.costs.json"


def read_learned(path: Path) -> LearnedCosts | None:
    """The costs saved at `path`; None when there are none or they do not read as costs (then the
    controller measures as if none had been saved)."""
    try:
        data = json.loads(path.read_bytes())
        costs = {int(n): float(c) for n, c in data["verify_costs"].items()}
        overhead = data.get("rollback_overhead")
        if not costs or any(n < 2 or not math.isfinite(c) or not 0.5 <= c <= n for n, c in costs.items()):
            raise ValueError(f"not batch costs: {costs}")
        if overhead is not None and not (isinstance(overhead, int | float) and 1.0 <= overhead <= 1.5):
            raise ValueError(f"not a rollback overhead: {overhead!r}")
        return LearnedCosts(costs, None if overhead is None else float(overhead))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.debug("learned draft costs at %s unreadable (%s); measuring afresh", path, exc)
        return None


def write_learned(path: Path, costs: LearnedCosts) -> None:
    """A folder that cannot be written costs the next process its measuring, nothing else."""
    data = {"verify_costs": {str(n): round(c, 4) for n, c in sorted(costs.verify_costs.items())},
            "rollback_overhead": costs.rollback_overhead}
    try:
        write_atomic(path, json.dumps(data).encode(), prefix=".costs-")
    except OSError as exc:
        log.debug("cannot save learned draft costs to %s: %s", path, exc)


__all__ = ["LearnedCosts", "learned_path", "read_learned", "write_learned"]
