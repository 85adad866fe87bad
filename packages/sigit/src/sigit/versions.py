"""What is installed: siGit and the packages under it, for `sigit --version`, `sigit doctor` and bug reports.

Read from the installed distributions' metadata, so nothing heavy (llama.cpp's library) is loaded.
"""

from __future__ import annotations

from importlib import metadata

from . import __version__

DISTRIBUTION = "sigit-agent"
"""sigit's name on the package index (`pip install sigit-agent`; the import and the command stay `sigit`)."""
STACK = (("onde-sdk", "onde-sdk"), ("qwen-runtime", "qwen-runtime"),
         ("llama-cpp-python", "llama.cpp (llama-cpp-python)"))
"""(distribution, how to show it) for each package under sigit, top down: the names `pip install` takes."""


def installed_version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    """sigit's version and each package's under it (None: not installed)."""
    return {DISTRIBUTION: __version__, **{dist: installed_version(dist) for dist, _ in STACK}}


def version_text() -> str:
    lines = [f"{DISTRIBUTION} {__version__}"]
    for dist, shown in STACK:
        lines.append(f"{shown} {installed_version(dist) or 'not installed'}")
    return "\n".join(lines)
