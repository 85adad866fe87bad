"""A model loading in one thread does not silence the process: llama-cpp-python's `verbose=False`
pointed stdout and stderr at /dev/null for the whole load, so whatever another thread printed meanwhile
was lost (a `sigit -p` answer whose model loads beside its start; an editor's ACP messages)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCRIPT = """
import sys, threading
from qwen_runtime import load_runtime

done = threading.Event()

def load():
    runtime = load_runtime(sys.argv[1], n_ctx=512)
    done.set()
    runtime.close()

thread = threading.Thread(target=load)
thread.start()
n = 0
while not done.is_set():
    print(f"out {n}", flush=True)
    print(f"err {n}", file=sys.stderr, flush=True)
    n += 1
thread.join()
print(f"lines {n}", flush=True)
"""


def test_lines_printed_while_a_model_loads_all_arrive(tiny_gguf: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tiny_gguf)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout.splitlines()
    n = int(out[-1].split()[1])
    assert n > 0  # the loop ran while the model loaded
    assert out[:-1] == [f"out {i}" for i in range(n)]
    err = [line for line in proc.stderr.splitlines() if line.startswith("err ")]
    assert err == [f"err {i}" for i in range(n)]
