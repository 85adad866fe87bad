"""After a turn, the conversation is evaluated as the next message will find it, while the user reads:
the next message, here in a session resumed by another process (another host and runtime on the same
prompt cache), restores all of it instead of evaluating the last turn again. On Qwen 3.5's template the
turn's own cache does not serve: its reply's thinking is dropped once another user message follows."""

from __future__ import annotations

from pathlib import Path

from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from sigit.app import SessionHost
from sigit.events import TurnFinished, Usage
from sigit.options import HostOptions


async def turn(host: SessionHost, workdir: Path, text: str, resume: str | None = None) -> tuple[str, Usage, int]:
    """One turn in a (resumed) session: its id, its usage, and what the turn-end prefill left ready."""
    session = await host.open(workdir, session=host.store.load(resume) if resume else None)
    session.set_sampling(temperature=0, seed=0)  # both runs write the same first reply
    finished = None
    async for event in session.prompt(text):
        if isinstance(event, TurnFinished):
            finished = event
    assert finished is not None and finished.error is None, finished
    ready = await session.next_turn_ready()
    await session.close()
    return session.id, finished.usage, ready


async def two_processes(model: Path, tmp_path: Path, workdir: Path, *, prefill: bool) -> tuple[Usage, int]:
    """Turn one in one host, turn two resumed in another (each its own runtime, one prompt cache)."""
    cache = tmp_path / f"cache-{prefill}"
    ids = []
    for text in ("Read main.py please.", "And the tests?"):
        runtime = LlamaCppRuntime(str(model), n_ctx=8192, prompt_cache_dir=cache, draft="none")
        host = SessionHost(HostOptions(config_dir=tmp_path / f"config-{prefill}", max_tokens=24, prefill=prefill),
                           runtime=runtime)
        session_id, usage, ready = await turn(host, workdir, text, ids[0] if ids else None)
        ids.append(session_id)
        runtime.close()
        if len(ids) == 1:
            first_ready = ready
    return usage, first_ready


async def test_a_resumed_session_restores_the_whole_last_turn(
    workdir: Path, tmp_path: Path, tiny_hybrid_gguf: Path
) -> None:
    settled, ready = await two_processes(tiny_hybrid_gguf, tmp_path, workdir, prefill=True)
    plain, not_ready = await two_processes(tiny_hybrid_gguf, tmp_path, workdir, prefill=False)
    assert ready > 0 and not_ready == 0
    assert settled.prompt_tokens == plain.prompt_tokens
    new_message = settled.prompt_tokens - ready  # the new question and the reply's opening: all it evaluates
    assert settled.cache_read_tokens == ready and new_message < 30
    assert plain.cache_read_tokens < ready - 10  # without it: turn one's reply evaluated again
