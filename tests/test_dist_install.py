"""The three packages as a user installs them: wheels built by `uv build`, installed into a fresh
virtual environment in a temp dir (no workspace, no editable installs), then run from there.

The dependencies come from the local uv cache at the versions uv.lock pins (from the package index
when that cache has no index pages for them), and llama-cpp-python as the wheel uv built from its
sdist when the workspace was set up (it compiles llama.cpp, ~15 min, so the test never builds it again).
torch is not installed: it is an extra.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def uv() -> list[str]:
    found = shutil.which("uv") or (str(Path.home() / ".local/bin/uv") if (Path.home() / ".local/bin/uv").is_file()
                                   else None)
    return [found] if found else ["python3", "-m", "uv"]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the workspace's venv in it, so nothing leaks in from there."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT)))
    return {**env, **extra}


def run(args: list[str], cwd: Path, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=clean_env(**env), capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def cached_llama_wheel() -> Path:
    version = metadata.version("llama-cpp-python")
    cache = Path(run([*uv(), "cache", "dir"], ROOT).stdout.strip())
    wheels = sorted(cache.glob(f"sdists-*/*/llama-cpp-python/{version}/*/llama_cpp_python-{version}-*.whl"),
                    key=lambda p: p.stat().st_mtime)
    if not wheels:
        pytest.fail(f"no built llama-cpp-python {version} wheel in the uv cache ({cache}); run `make setup` first")
    return wheels[-1]


def readme_install_line() -> list[str]:
    """README's install line (`uv tool install ./packages/sigit --with ...`, run in a clone), as words."""
    for line in (ROOT / "README.md").read_text().splitlines():
        command = line.split("#")[0].split()
        if command[:3] == ["uv", "tool", "install"]:
            return command
    raise AssertionError("README.md has no `uv tool install` line")


def built_distributions() -> set[str]:
    """The distribution names `make dist` builds: one per workspace package (`uv build --all-packages`)."""
    import tomllib

    return {tomllib.loads(path.read_text())["project"]["name"] for path in ROOT.glob("packages/*/pyproject.toml")}


def test_readme_installs_the_packages_of_this_clone() -> None:
    """README's install line names the three packages' folders in this clone (the package index has
    none of them yet, so a name there would fail), and no name the index gives another project
    (`sigit`, `onde` and `sigit-code` belong to others)."""
    assert built_distributions() == {"sigit-agent", "onde-sdk", "qwen-runtime"}
    words = readme_install_line()
    folders = [w for w in words[3:] if not w.startswith("-")]
    assert sorted(folders) == ["./packages/onde", "./packages/qwen_runtime", "./packages/sigit"]
    assert all((ROOT / folder / "pyproject.toml").is_file() for folder in folders)
    readme = (ROOT / "README.md").read_text()
    for taken in ("uv tool install sigit ", "pipx install sigit\n", "pip install sigit\n", "pip install onde\n"):
        assert taken not in readme + "\n", taken


def test_wheels_install_into_a_fresh_venv_and_run(tmp_path: Path, tiny_gguf: Path) -> None:
    """README's install line, run in this clone as README says (llama.cpp's wheel and the locked
    versions from the uv cache), installs the `sigit` command; everything below runs from that
    install. `make dist`'s wheels and sdists are built too."""
    dist = tmp_path / "dist"
    run([*uv(), "build", "--all-packages", "--offline", "--out-dir", str(dist)], ROOT)
    wheels = sorted(dist.glob("*.whl"))
    assert sorted(w.name.split("-")[0] for w in wheels) == ["onde_sdk", "qwen_runtime", "sigit_agent"]
    assert len(list(dist.glob("*.tar.gz"))) == 3  # and an sdist of each
    shutil.copy(cached_llama_wheel(), dist)  # llama.cpp compiled once, at `make setup`

    constraints = tmp_path / "constraints.txt"  # the locked versions: what the uv cache holds
    run([*uv(), "export", "--frozen", "--no-hashes", "--no-emit-workspace", "--all-packages", "--no-dev",
         "--no-header", "--no-annotate", "--format", "requirements.txt", "-o", str(constraints), "-q"], ROOT)
    tools, bin_dir = tmp_path / "tools", tmp_path / "bin"
    words = readme_install_line()
    install = [*uv(), *words[1:], "-q", "--python", sys.executable, "--find-links", str(dist), "-c", str(constraints)]
    # a clone's own folders: the install runs from the repository root, as README's `cd sigit` leaves it
    where_to = {"UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir)}
    offline = subprocess.run([*install, "--offline"], cwd=ROOT, env=clean_env(**where_to), capture_output=True,
                             text=True, timeout=300)
    if offline.returncode != 0:  # a uv cache filled by `uv sync` from the lock file has no index pages:
        run(install, ROOT, **where_to)  # resolve the same locked versions on the package index
    venv = tools / "sigit-agent"
    python = venv / "bin" / "python"
    assert (bin_dir / "sigit").is_file()  # the command keeps its name

    where = run([str(python), "-c", "import sigit, onde, qwen_runtime; "
                 "print(sigit.__file__, onde.__file__, qwen_runtime.__file__)"], tmp_path).stdout.split()
    assert all(path.startswith(str(venv)) for path in where), where  # installed, not the workspace's sources
    # `sigit eval`'s task packs are data beside src/ in the checkout (packages/sigit/eval_packs), shipped
    # inside the package as sigit/eval/packs: every file, dotfiles (.github/, .delete) included
    packs = Path(where[0]).parent / "eval" / "packs"
    source_packs = ROOT / "packages" / "sigit" / "eval_packs"
    shipped = sorted(p.relative_to(packs) for p in packs.rglob("*") if p.is_file() and p.suffix != ".pyc")
    assert shipped == sorted(p.relative_to(source_packs) for p in source_packs.rglob("*")
                             if p.is_file() and "__pycache__" not in p.parts)
    found = run([str(python), "-c", "from sigit.eval import builtin_pack_names, packs_root; "
                 "print(packs_root()); print(*builtin_pack_names())"], tmp_path).stdout.splitlines()
    assert found == [str(packs.resolve()), "smoke standard"]  # the installed copy, by name
    missing = run([str(python), "-c", "import importlib.util as u; print(u.find_spec('torch') is None)"], tmp_path)
    assert missing.stdout.strip() == "True"

    version = run([str(bin_dir / "sigit"), "--version"], tmp_path).stdout.splitlines()
    assert version == [
        f"sigit-agent {metadata.version('sigit-agent')}",
        f"onde-sdk {metadata.version('onde-sdk')}",
        f"qwen-runtime {metadata.version('qwen-runtime')}",
        f"llama.cpp (llama-cpp-python) {metadata.version('llama-cpp-python')}",
    ]
    models = run([str(venv / "bin" / "qwen-runtime"), "models"], tmp_path, HF_HUB_CACHE=str(tmp_path / "hub"))
    assert "qwen3-8b" in models.stdout and "not cached" in models.stdout

    work = tmp_path / "work"
    work.mkdir()
    turn = subprocess.run(
        [str(bin_dir / "sigit"), "-p", "say hi", "--model", str(tiny_gguf), "--max-turns", "1",
         "--output-format", "json"],
        cwd=work, capture_output=True, text=True, timeout=240,
        env=clean_env(SIGIT_CONFIG_DIR=str(tmp_path / "config"), SIGIT_STATE_DIR=str(tmp_path / "state"),
                      HF_HUB_OFFLINE="1"),
    )
    assert turn.returncode in (0, 1), turn.stderr  # the tiny model's random words may end either way
    result = json.loads(turn.stdout.splitlines()[-1])
    assert result["type"] == "result" and result["session_id"]
    assert "Traceback" not in turn.stderr and "llama_" not in turn.stderr
