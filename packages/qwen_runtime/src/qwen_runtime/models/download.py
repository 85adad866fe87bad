"""Find or fetch GGUF files in the shared Hugging Face hub cache.

The cache is the one every HF tool uses (blobs + snapshots), so a model pulled by another app is
found here and vice versa. huggingface_hub reads HF_ENDPOINT and HF_HUB_OFFLINE once, at import;
we read them on every call, so setting them later (tests, a config file) still works.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ModelNotFoundError, QwenRuntimeError
from ..home import expand_home

DEFAULT_ENDPOINT = "https://huggingface.co"
_TRUE = {"1", "on", "yes", "true"}


def hub_cache_dir() -> Path:
    """HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub (XDG_CACHE_HOME respected)."""
    if cache := os.environ.get("HF_HUB_CACHE"):
        return expand_home(os.path.expandvars(cache))
    if home := os.environ.get("HF_HOME"):
        return expand_home(os.path.expandvars(home)) / "hub"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return expand_home(base) / "huggingface" / "hub"


def hub_endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def is_offline() -> bool:
    flag = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return flag.strip().lower() in _TRUE


def cached_path(repo_id: str, filename: str) -> Path | None:
    """The cached file for `main`, else the newest cached snapshot holding it; None when not cached."""
    from huggingface_hub import try_to_load_from_cache

    cache = hub_cache_dir()
    found = try_to_load_from_cache(repo_id, filename, cache_dir=cache)
    if isinstance(found, str):
        return Path(found)
    # a file fetched at a pinned commit has no refs/main; it is still the same file
    snapshots = cache / f"models--{repo_id.replace('/', '--')}" / "snapshots"
    candidates = [p for p in snapshots.glob(f"*/{filename}") if p.is_file()]
    if not candidates:
        return None
    return max(candidates, key=lambda p: p.stat().st_mtime)


ProgressCallback = Callable[[int, "int | None"], None]
"""Called with (bytes downloaded, total bytes or None) as a download advances, from its thread."""


def download_model(repo_id: str, filename: str, *, progress: bool | ProgressCallback = True) -> Path:
    """The local path of `repo_id/filename`, downloading it into the hub cache when needed.

    `progress`: True draws a progress bar on stderr, False nothing, a callable receives the byte
    counts (a UI shows them its own way).

    A cached file is returned without any network request (the hub would otherwise be asked on
    every start whether `main` moved).
    """
    if (found := cached_path(repo_id, filename)) is not None:
        return found
    cache = hub_cache_dir()
    if is_offline():
        raise ModelNotFoundError(
            f"{repo_id}/{filename} is not in the Hugging Face cache ({cache}) and HF_HUB_OFFLINE is set, "
            "so it cannot be downloaded; unset HF_HUB_OFFLINE to download it, or pass the path of a local "
            ".gguf file instead (a local path always works)"
        )

    from huggingface_hub import constants, hf_hub_download

    from ..network import reach

    # huggingface_hub froze HF_HUB_OFFLINE when first imported; the environment now says online
    constants.HF_HUB_OFFLINE = False
    endpoint = hub_endpoint()
    # huggingface_hub retries a DNS failure or a refused connection for 24 s: ask once ourselves first
    probe = reach(f"{endpoint}/{repo_id}/resolve/main/{filename}", endpoint=endpoint)
    if not probe.reachable:
        raise ModelNotFoundError(
            f"could not download {repo_id}/{filename}: {endpoint} is not reachable ({probe.detail}), and the "
            f"file is not in the Hugging Face cache ({cache}); check the network or HF_ENDPOINT; pass the path "
            "of a local .gguf file instead (a local path always works)"
        )
    try:
        path = hf_hub_download(
            repo_id,
            filename,
            cache_dir=cache,
            endpoint=endpoint,
            tqdm_class=_callback_tqdm(progress) if callable(progress) else None if progress else _silent_tqdm(),
        )
    except Exception as exc:
        raise _translate(exc, repo_id, filename, endpoint, cache) from exc
    return Path(str(path))


def _silent_tqdm() -> type[Any]:
    from tqdm import tqdm  # type: ignore[import-untyped]

    class SilentTqdm(tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    return SilentTqdm


def _callback_tqdm(callback: ProgressCallback) -> type[Any]:
    from tqdm import tqdm

    class CallbackTqdm(tqdm):  # type: ignore[misc]
        """A silent bar that reports its counts to `callback` (huggingface_hub drives it)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = False
            kwargs["file"] = _NullFile()
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            shown: bool | None = super().update(n)
            callback(int(self.n), int(self.total) if self.total else None)
            return shown

    return CallbackTqdm


class _NullFile:
    def write(self, _text: str) -> int:
        return 0

    def flush(self) -> None:
        pass


def _http_status(exc: BaseException) -> int | None:
    """The HTTP status in an error or its causes (huggingface_hub wraps a 404 in a cache miss)."""
    seen: BaseException | None = exc
    while seen is not None:
        response = getattr(seen, "response", None)
        status = getattr(response, "status_code", None)
        if isinstance(status, int):
            return status
        seen = seen.__cause__ or seen.__context__
    return None


def _translate(exc: Exception, repo_id: str, filename: str, endpoint: str, cache: Path) -> QwenRuntimeError:
    from huggingface_hub.errors import (
        GatedRepoError,
        RemoteEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    what = f"{repo_id}/{filename}"
    hint = "; pass the path of a local .gguf file instead (a local path always works)"
    status = _http_status(exc)
    if isinstance(exc, GatedRepoError) or status in (401, 403):
        return ModelNotFoundError(
            f"{endpoint} refused access to {what} (HTTP {status}): the repository may be gated or private; "
            f"log in with `hf auth login` or set HF_TOKEN{hint}"
        )
    if isinstance(exc, RepositoryNotFoundError):
        return ModelNotFoundError(f"{endpoint} has no repository {repo_id} (HTTP {status}){hint}")
    if isinstance(exc, RemoteEntryNotFoundError | RevisionNotFoundError) or status == 404:
        return ModelNotFoundError(
            f"{endpoint} has no file {filename} in {repo_id} (HTTP {status or 404}){hint}"
        )
    if status is not None:
        return QwenRuntimeError(f"downloading {what} from {endpoint} failed with HTTP {status}: {exc}")
    cause = exc.__cause__ or exc
    return ModelNotFoundError(
        f"could not download {what} from {endpoint} ({type(cause).__name__}: {cause}) and it is not in "
        f"the Hugging Face cache ({cache}); check the network or HF_ENDPOINT{hint}"
    )
