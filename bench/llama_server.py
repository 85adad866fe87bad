"""llama.cpp's own `llama-server`, built once from the llama.cpp vendored in the locked llama-cpp-python,
and driven over HTTP for bench_llama_server.py.

uv builds llama-cpp-python from its sdist, so `~/.cache/uv/sdists-*/pypi/llama-cpp-python/<version>/*/src/
vendor/llama.cpp` holds the exact C++ the runtime's binary came from. The server is built from it with
`cmake -DLLAMA_CURL=OFF -DGGML_NATIVE=ON --target llama-server` into `~/.cache/sigit-bench/llama-server-
<version>/` (about 25 minutes on 2 busy cores, once); where that cannot be done the bench says why and
skips the comparison.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sigit-bench"
BUILD_JOBS = os.environ.get("BENCH_BUILD_JOBS", "2")


def vendored_source(version: str) -> Path | None:
    """The llama.cpp source inside uv's unpacked llama-cpp-python sdist of `version` (None: not there)."""
    uv_cache = Path(os.environ.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")
    pattern = str(uv_cache / "sdists-*" / "pypi" / "llama-cpp-python" / version / "*" / "src" / "vendor" / "llama.cpp")
    found = sorted(p for p in glob.glob(pattern) if (Path(p) / "tools" / "server").is_dir())
    return Path(found[0]) if found else None


def llama_server(version: str) -> tuple[Path | None, str]:
    """The built `llama-server` for llama-cpp-python `version` (built now if needed), or None and why not."""
    folder = CACHE / f"llama-server-{version}"
    binary = folder / "build" / "bin" / "llama-server"
    if binary.is_file():
        return binary, f"cached build in {folder}"
    source = vendored_source(version)
    if source is None:
        return None, (f"no vendored llama.cpp of llama-cpp-python {version} in uv's sdist cache (`make setup` "
                      "builds llama-cpp-python from its sdist and leaves it there)")
    if shutil.which("cmake") is None:
        return None, "cmake is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "build.log"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    steps = [
        ["cmake", "-S", str(source), "-B", str(folder / "build"), *generator, "-DCMAKE_BUILD_TYPE=Release",
         "-DLLAMA_CURL=OFF", "-DGGML_NATIVE=ON", "-DLLAMA_BUILD_TESTS=OFF"],
        ["cmake", "--build", str(folder / "build"), "--target", "llama-server", "-j", BUILD_JOBS],
    ]
    print(f"building llama-server from {source} (once; log in {log})", flush=True)
    with log.open("a") as out:
        for step in steps:
            if subprocess.call(["nice", "-n", "10", *step], stdout=out, stderr=subprocess.STDOUT) != 0:
                return None, f"the llama-server build failed (see {log})"
    return (binary, f"built in {folder}") if binary.is_file() else (None, f"no {binary} after the build")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A running llama-server on 127.0.0.1 with one slot."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.url = f"http://127.0.0.1:{port}"

    def post(self, path: str, body: dict[str, Any], timeout: float = 600) -> dict[str, Any]:
        request = urllib.request.Request(self.url + path, json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return dict(json.load(response))

    def first_chunk_seconds(self, body: dict[str, Any], timeout: float = 600) -> tuple[float, dict[str, Any]]:
        """Seconds from sending a streamed completion to its first chunk, and its last chunk (the timings)."""
        request = urllib.request.Request(self.url + "/completion", json.dumps({**body, "stream": True}).encode(),
                                         {"Content-Type": "application/json"})
        started = time.perf_counter()
        first = float("nan")
        last: dict[str, Any] = {}
        with urllib.request.urlopen(request, timeout=timeout) as response:
            for line in response:
                if line.startswith(b"data:"):
                    if not last:
                        first = time.perf_counter() - started
                    last = json.loads(line[5:]) or {"empty": True}
        return first, last

    def peak_rss_kib(self) -> int:
        """The server process's peak resident memory (VmHWM)."""
        return peak_rss_kib(self.process.pid)


def peak_rss_kib(pid: int | str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


@contextmanager
def serve(binary: Path, model: Path, *, n_ctx: int, threads: int, batch_threads: int,
          extra_args: tuple[str, ...] = ()) -> Iterator[Server]:
    """llama-server with `model`, its own defaults otherwise (flash attention auto, ...), one slot."""
    port = _free_port()
    command = [str(binary), "-m", str(model), "-c", str(n_ctx), "-t", str(threads), "-tb", str(batch_threads),
               "-np", "1", "--host", "127.0.0.1", "--port", str(port), "--no-webui", *extra_args]
    log = (CACHE / "llama-server.log").open("w")
    env = dict(os.environ)
    if spin := os.environ.get("BENCH_LLAMA_SERVER_GOMP_SPINCOUNT"):
        env["GOMP_SPINCOUNT"] = spin  # as qwen_runtime bounds its own (llama-server's default: libgomp's)
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    server = Server(process, port)
    try:
        deadline = time.monotonic() + 300
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama-server exited ({process.returncode}); see {log.name}")
            try:
                with urllib.request.urlopen(server.url + "/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama-server did not become ready in 300 s")
            time.sleep(0.5)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
