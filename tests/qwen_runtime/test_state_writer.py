"""The disk tier's writes run beside the model: a save point hands the state over and the turn goes on;
what reads the cache still sees it, and a process that ends right after a turn leaves it on disk."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from qwen_runtime.speed.prompt_cache import DiskPromptCache, PromptCache, new_buffer


class HeldDisk(DiskPromptCache):
    """A disk tier whose writes wait until the test lets them go (a slow disk, made deterministic)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.go = threading.Event()
        self.went_before_release: list[bool] = []

    def save(self, scope: str, tokens: Sequence[int], data: Any, describe: Mapping[str, Any]) -> bool:
        self.went_before_release.append(not self.go.wait(timeout=30))
        return super().save(scope, tokens, data, describe)


def state(size: int, fill: int) -> Any:
    data = new_buffer(size)
    ctypes.memset(data, fill, size)
    return data


def test_a_save_returns_before_its_write_and_lookups_see_it(tmp_path: Path) -> None:
    disk = HeldDisk(tmp_path)
    cache = PromptCache("s", {"model": "m.gguf"}, disk=disk)
    assert cache.save([1, 2, 3], state(4096, 7))  # returns while the write is held
    assert cache.on_disk([1, 2, 3])  # handed over: a second save of the same prefix is not needed
    assert not cache.on_disk([1, 2])
    disk.go.set()
    assert cache.longest([1, 2, 3, 4], limit=4) == (3, "disk")  # waits for the write it follows
    loaded = cache.load([1, 2, 3], "disk")
    assert loaded is not None and bytes(loaded) == bytes([7]) * 4096
    assert disk.went_before_release == [False]


def test_states_are_written_in_order_and_none_is_dropped_when_many_wait(tmp_path: Path) -> None:
    disk = HeldDisk(tmp_path)
    cache = PromptCache("s", {}, disk=disk)
    disk.go.set()
    for n in range(1, 9):  # more than may wait at once: a save waits for room rather than dropping one
        cache.save(list(range(n)), state(1024, n))
    cache.flush()
    for n in range(1, 9):
        loaded = disk.load("s", list(range(n)))
        assert loaded is not None and bytes(loaded)[:1] == bytes([n])


def test_a_failed_write_is_a_miss_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    cache = PromptCache("s", {}, disk=DiskPromptCache(blocker))
    assert cache.save([1, 2], state(64, 1))
    assert cache.longest([1, 2, 3], limit=3) == (0, "")


def run_and_exit(tmp_path: Path, exit_how: str) -> None:
    script = textwrap.dedent(f"""
        import atexit, os
        from pathlib import Path
        from qwen_runtime.speed.prompt_cache import DiskPromptCache, PromptCache, new_buffer
        cache = PromptCache("s", {{}}, disk=DiskPromptCache(Path({str(tmp_path)!r})))
        data = new_buffer(32 * 2**20)
        cache.save([5, 6, 7], data)
        {exit_how}
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


def test_a_process_that_ends_right_after_a_turn_leaves_its_state_on_disk(tmp_path: Path) -> None:
    run_and_exit(tmp_path / "plain", "pass")
    run_and_exit(tmp_path / "fast", "atexit._run_exitfuncs(); os._exit(0)")  # sigit's own fast exit
    for folder in ("plain", "fast"):
        assert DiskPromptCache(tmp_path / folder).longest("s", [5, 6, 7, 8], limit=4) == 3
