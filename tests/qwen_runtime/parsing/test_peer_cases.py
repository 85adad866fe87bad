"""The peers' own parser tests for Qwen's tool-call formats (vLLM, SGLang, Ollama), re-scored on our
parser (issue 51): every case, read whole and streamed, agrees with what the peer's test asserts or is
a deliberate difference listed with its reason in peer_cases/differences.py."""

from __future__ import annotations

import pytest

from .peer_cases.case import Expect, PeerCase, disagreements, readings
from .peer_cases.cases import PEERS
from .peer_cases.differences import DIFFERENCES

CASES = [peer_case for cases in PEERS.values() for peer_case in cases]
AGREED = [pytest.param(c, id=c.id) for c in CASES if c.id not in DIFFERENCES]
DIFFERING = [pytest.param(c, id=c.id) for c in CASES if c.id in DIFFERENCES]


def test_case_ids_are_unique_and_every_difference_names_a_case() -> None:
    ids = [peer_case.id for peer_case in CASES]
    assert len(ids) == len(set(ids))
    assert set(DIFFERENCES) <= set(ids)


@pytest.mark.parametrize("peer_case", AGREED)
def test_the_peers_case_reads_as_the_peer_expects_whole_and_streamed(peer_case: PeerCase) -> None:
    assert disagreements(peer_case) == {}, peer_case.source


@pytest.mark.parametrize("peer_case", DIFFERING)
def test_a_deliberate_difference_still_differs_and_reads_as_pinned(peer_case: PeerCase) -> None:
    """Each listed case reads as we decided (its reason is in peer_cases/differences.py: an error the
    model can act on instead of a guessed or wrong-typed call, a string taken as written, ...) in every
    split, and still differs from the peer: if it came to agree, the list must lose it."""
    difference = DIFFERENCES[peer_case.id]
    ours = Expect(difference.calls, difference.content if difference.content is not None else peer_case.expect.content)
    assert disagreements(peer_case, ours) == {}, difference.why
    assert all(len(reading.errors) == difference.errors for reading in readings(peer_case).values())
    assert disagreements(peer_case) != {}, "agrees with the peer now: remove it from DIFFERENCES"
