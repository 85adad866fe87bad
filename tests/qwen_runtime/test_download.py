"""Downloads go through the real huggingface_hub client against a fake hub on localhost."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from qwen_runtime.errors import ModelNotFoundError, QwenRuntimeError
from qwen_runtime.models.download import cached_path, download_model, hub_cache_dir

REPO = "someone/Tiny-GGUF"
FILE = "tiny-Q4_K_M.gguf"
CONTENT = b"GGUF" + bytes(range(256)) * 40


def test_cache_dir_follows_hf_env_vars(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert hub_cache_dir() == tmp_path / "hf" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "elsewhere"))
    assert hub_cache_dir() == tmp_path / "elsewhere"
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.delenv("HF_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert hub_cache_dir() == tmp_path / "home" / ".cache" / "huggingface" / "hub"


def test_download_lands_in_hf_cache_layout(fake_hub: Any, hub_cache: Path) -> None:
    fake_hub.add(REPO, FILE, CONTENT)
    path = download_model(REPO, FILE, progress=False)
    assert path.read_bytes() == CONTENT
    repo_dir = hub_cache / "models--someone--Tiny-GGUF"
    assert path.parent.parent == repo_dir / "snapshots"
    assert path.is_symlink() and Path(os.path.realpath(path)).parent == (repo_dir / "blobs").resolve()
    assert (repo_dir / "refs" / "main").read_text() == path.parent.name
    assert ("GET", f"/{REPO}/resolve/main/{FILE}") in fake_hub.requests
    assert cached_path(REPO, FILE) == path


def test_second_download_is_served_from_cache_without_network(fake_hub: Any) -> None:
    fake_hub.add(REPO, FILE, CONTENT)
    first = download_model(REPO, FILE, progress=False)
    seen = len(fake_hub.requests)
    assert download_model(REPO, FILE, progress=False) == first
    assert len(fake_hub.requests) == seen


def test_offline_with_cached_file_works(fake_hub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_hub.add(REPO, FILE, CONTENT)
    first = download_model(REPO, FILE, progress=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    seen = len(fake_hub.requests)
    assert download_model(REPO, FILE, progress=False) == first
    assert len(fake_hub.requests) == seen


def test_offline_without_cache_says_what_is_missing_and_where_it_looked(
    fake_hub: Any, hub_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_hub.add(REPO, FILE, CONTENT)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFoundError) as info:
        download_model(REPO, FILE, progress=False)
    message = str(info.value)
    assert f"{REPO}/{FILE}" in message
    assert str(hub_cache) in message
    assert "HF_HUB_OFFLINE" in message and "local .gguf" in message
    assert fake_hub.requests == []


def test_missing_file_gives_a_clear_404(fake_hub: Any) -> None:
    fake_hub.add(REPO, FILE, CONTENT)
    expected = r"has no file nope\.gguf in someone/Tiny-GGUF \(HTTP 404\)"
    with pytest.raises(ModelNotFoundError, match=expected) as info:
        download_model(REPO, "nope.gguf", progress=False)
    assert fake_hub.url in str(info.value)


def test_missing_repo_gives_a_clear_error(fake_hub: Any) -> None:
    with pytest.raises(ModelNotFoundError, match="has no repository nobody/Nothing-GGUF") as info:
        download_model("nobody/Nothing-GGUF", FILE, progress=False)
    assert fake_hub.url in str(info.value)


def test_unreachable_endpoint_names_it(hub_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    waits: list[float] = []
    monkeypatch.setattr("time.sleep", lambda _s: None)  # huggingface_hub would back off ~23 s before giving up
    monkeypatch.setattr("qwen_runtime.network.sleep", waits.append)
    with pytest.raises(QwenRuntimeError) as info:
        download_model(REPO, FILE, progress=False)
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and str(hub_cache) in message and "local .gguf" in message
    assert "connection refused" in message
    assert waits == [], "a refused connection fails at once: no retry can fix it"


def test_dns_failure_fails_at_once(hub_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://no-such-host.invalid")  # .invalid never resolves (RFC 2606)
    waits: list[float] = []
    monkeypatch.setattr("time.sleep", lambda _s: None)
    monkeypatch.setattr("qwen_runtime.network.sleep", waits.append)
    with pytest.raises(ModelNotFoundError, match="DNS lookup failed"):
        download_model(REPO, FILE, progress=False)
    assert waits == []


def test_5xx_answers_are_retried_then_the_download_goes_on(fake_hub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_hub.add(REPO, FILE, CONTENT)
    fake_hub.fail_next = [503, 502]
    waits: list[float] = []
    monkeypatch.setattr("qwen_runtime.network.sleep", waits.append)
    assert download_model(REPO, FILE, progress=False).read_bytes() == CONTENT
    assert waits == [1.0, 2.0]
    assert fake_hub.requests[:3] == [("HEAD", f"/{REPO}/resolve/main/{FILE}")] * 3


def test_5xx_every_time_gives_up_after_three_tries(fake_hub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_hub.add(REPO, FILE, CONTENT)
    fake_hub.fail_next = [503] * 10
    monkeypatch.setattr("qwen_runtime.network.sleep", lambda _s: None)
    with pytest.raises(ModelNotFoundError, match=r"HTTP 503 \(tried 3 times\)"):
        download_model(REPO, FILE, progress=False)
    assert len(fake_hub.requests) == 3


def test_offline_frozen_at_import_does_not_block_a_later_online_call(
    fake_hub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)  # as if HF_HUB_OFFLINE=1 when first imported
    fake_hub.add(REPO, FILE, CONTENT)
    assert download_model(REPO, FILE, progress=False).read_bytes() == CONTENT


def test_progress_callback_receives_the_byte_counts(fake_hub: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A UI passes a callback instead of a bar: it sees the download advance to the full size."""
    content = bytes(range(256)) * 4096  # 1 MiB, several chunks
    fake_hub.add(REPO, FILE, content)
    seen: list[tuple[int, int | None]] = []
    path = download_model(REPO, FILE, progress=lambda done, total: seen.append((done, total)))
    assert path.read_bytes() == content
    assert seen and seen[-1] == (len(content), len(content))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert capsys.readouterr().err == ""  # no bar drawn on stderr
