"""The score: how many of each peer's cases our parser agrees with. Run with the test PYTHONPATH:
`python -m tests.qwen_runtime.parsing.peer_cases.score` from the repository root (-v: each disagreement)."""

from __future__ import annotations

import sys

from .case import disagreements
from .cases import PEERS


def main(verbose: bool) -> None:
    total = agreed = 0
    for peer, cases in PEERS.items():
        bad = [(c, disagreements(c)) for c in cases]
        bad = [(c, d) for c, d in bad if d]
        total, agreed = total + len(cases), agreed + len(cases) - len(bad)
        print(f"{peer}: {len(cases) - len(bad)} of {len(cases)} agree")
        for peer_case, differing in bad if verbose else []:
            how, reading = next(iter(differing.items()))
            print(f"  {peer_case.id} ({', '.join(differing)}): {peer_case.source}")
            print(f"    peer: {peer_case.expect}")
            print(f"    ours ({how}): {reading}")
    print(f"all: {agreed} of {total} agree")


if __name__ == "__main__":
    main("-v" in sys.argv)
