"""`sigit -p` holds cyclic garbage collection off while it starts and collects as usual after; `main`
run inside another program leaves that program's collector alone."""

from __future__ import annotations

import argparse
import gc
from collections.abc import Iterator

import pytest
from sigit import cli, startup_gc


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()


def test_collection_is_held_off_inside_and_on_again_after() -> None:
    with startup_gc.held_off():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_resuming_freezes_the_starts_objects_instead_of_scanning_them() -> None:
    frozen = gc.get_freeze_count()
    with startup_gc.held_off():
        startup_gc.resume()
        assert gc.isenabled() and gc.get_freeze_count() > frozen
        startup_gc.resume()  # once only
    assert gc.isenabled()


def test_a_program_that_turned_collection_off_keeps_it_off() -> None:
    gc.disable()
    with startup_gc.held_off():
        startup_gc.resume()
    assert not gc.isenabled()


@pytest.mark.parametrize(("process_ends", "held"), [(True, True), (False, False)])
def test_only_the_sigit_command_holds_collection_off_for_a_one_shot_run(
    monkeypatch: pytest.MonkeyPatch, process_ends: bool, held: bool
) -> None:
    seen: list[bool] = []

    def headless(args: argparse.Namespace) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(cli, "_headless", headless)
    assert cli.main(["-p", "hi"], process_ends=process_ends) == 0
    assert seen == [not held] and gc.isenabled()
