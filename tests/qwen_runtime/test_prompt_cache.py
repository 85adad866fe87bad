"""The prompt cache: saved llama.cpp states restored before a prompt (disk tier and memory checkpoints).

The disk tier's own rules (atomic files, damaged files, the size cap) are tested on the store; what a
user notices (the same logits, fewer tokens evaluated) on the tiny GGUF through LlamaCppRuntime.
"""

from __future__ import annotations

import ctypes
import gc
import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.speed.prompt_cache import DiskPromptCache, PromptCache, scope_key
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Completion,
    Sampling,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from .prompt_logits import prompt_logits
from .samples import READ_FILE

TOOLS = (READ_FILE,)
SYSTEM = SystemMessage("You are a coding agent working in a repository. " * 12)
GREEDY = Sampling(max_tokens=12, temperature=0, seed=0)


def request(*messages: object) -> ChatRequest:
    return ChatRequest((SYSTEM, *messages), tools=TOOLS, sampling=GREEDY, enable_thinking=False)  # type: ignore[arg-type]


FIRST = request(UserMessage("Read main.py please."))
SECOND = request(UserMessage("Read main.py please."),
                 AssistantMessage("", tool_calls=(ToolCall("c1", "read_file", {"path": "main.py"}),)),
                 ToolMessage("c1", "print('hi')\n"))


def buffer(data: bytes) -> ctypes.Array[ctypes.c_uint8]:
    return (ctypes.c_uint8 * len(data)).from_buffer_copy(data)


# ---------------------------------------------------------------------- the disk tier


def test_a_saved_state_comes_back_for_its_prefix_and_only_for_it(tmp_path: Path) -> None:
    disk = DiskPromptCache(tmp_path)
    assert disk.save("s", [1, 2, 3], buffer(b"state-123"), {"model": {"file": "m.gguf"}})
    assert disk.longest("s", [1, 2, 3, 4, 5], limit=4) == 3
    assert disk.longest("s", [1, 2, 9, 4, 5], limit=4) == 0
    assert disk.longest("s", [1, 2, 3, 4, 5], limit=2) == 0
    assert disk.longest("other scope", [1, 2, 3, 4], limit=4) == 0
    data = disk.load("s", [1, 2, 3])
    assert data is not None and bytes(data) == b"state-123"
    [entry] = disk.entries()
    assert (entry.model, entry.n_tokens) == ("m.gguf", 3)


def test_a_state_of_many_pages_comes_back_whole_and_stays_so(tmp_path: Path) -> None:
    """A real state is megabytes (Gemma's prompt: 17 MB), read into pages of its own (`new_buffer`)."""
    data = np.random.default_rng(0).integers(0, 256, 3 * 1024**2 + 7, dtype=np.uint8).tobytes()
    disk = DiskPromptCache(tmp_path)
    assert disk.save("s", [1, 2], buffer(data), {"model": {"file": "m.gguf"}})
    got = disk.load("s", [1, 2])
    del disk
    gc.collect()
    assert got is not None and len(got) == len(data) and bytes(got) == data
    got[-1] ^= 0xFF  # llama.cpp writes into buffers it is handed (a state copied out)
    assert bytes(got[-2:]) == data[-2:-1] + bytes([data[-1] ^ 0xFF])


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_a_damaged_file_is_a_miss_and_is_removed(tmp_path: Path, damage: str) -> None:
    disk = DiskPromptCache(tmp_path)
    disk.save("s", [1, 2, 3], buffer(b"x" * 1000), {})
    [entry] = disk.entries()
    raw = entry.path.read_bytes()
    if damage == "truncate":
        entry.path.write_bytes(raw[:-10])
    else:
        entry.path.write_bytes(raw[:-1] + b"y")
    if damage == "truncate":  # a backend asks `has` before saving: a truncated file must not pass for saved
        assert not disk.has("s", [1, 2, 3])
        entry.path.write_bytes(raw[:-10])
    assert disk.load("s", [1, 2, 3]) is None
    assert not entry.path.exists()
    assert disk.save("s", [1, 2, 3], buffer(b"x" * 1000), {})  # and rebuilt by the next save
    assert disk.load("s", [1, 2, 3]) is not None


def test_the_size_cap_evicts_the_least_recently_used(tmp_path: Path) -> None:
    disk = DiskPromptCache(tmp_path, max_bytes=2500)
    for i in range(3):
        assert disk.save("s", [i], buffer(bytes(1000)), {})
        disk.load("s", [0])  # entry 0 is used each time: it stays
    kept = sorted(e.n_tokens for e in disk.entries())
    assert disk.size_bytes() <= 2500
    assert disk.load("s", [0]) is not None and disk.load("s", [1]) is None and disk.load("s", [2]) is not None
    assert kept == [1, 1]


def test_a_state_over_the_cap_or_an_unwritable_dir_is_just_not_saved(tmp_path: Path) -> None:
    assert not DiskPromptCache(tmp_path, max_bytes=10).save("s", [1], buffer(bytes(100)), {})
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert not DiskPromptCache(blocked).save("s", [1], buffer(b"x"), {})
    assert DiskPromptCache(blocked).entries() == []


def test_clear_removes_every_state(tmp_path: Path) -> None:
    disk = DiskPromptCache(tmp_path)
    disk.save("a", [1], buffer(b"x"), {})
    disk.save("b", [2], buffer(b"y"), {})
    assert disk.clear() == 2
    assert disk.entries() == [] and disk.size_bytes() == 0


def test_memory_checkpoints_keep_the_most_recently_used(tmp_path: Path) -> None:
    cache = PromptCache(scope_key({}), {}, checkpoints=2)
    cache.keep([1], buffer(b"a"))
    cache.keep([1, 2], buffer(b"b"))
    assert cache.longest([1, 2, 3], limit=2) == (2, "memory")
    cache.load([1], "memory")  # used: [1, 2] is now the least recently used
    cache.keep([1, 2, 3], buffer(b"c"))
    assert cache.checkpoints == [(1,), (1, 2, 3)]


# ---------------------------------------------------------------------- through the runtime


@pytest.fixture
def fresh(tiny_gguf: Path) -> Iterator[LlamaCppRuntime]:
    runtime = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048)
    yield runtime
    runtime.close()


def test_a_restored_state_gives_the_same_logits_as_evaluating_afresh(
    tiny_gguf: Path, tmp_path: Path, fresh: LlamaCppRuntime
) -> None:
    expected, _ = prompt_logits(fresh, SECOND)
    cold = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path)
    _, cached = prompt_logits(cold, FIRST)  # saves the system prompt + tools and the first user turn
    cold.close()
    assert cached == 0
    warm = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path)  # as a new process
    got, cached = prompt_logits(warm, SECOND)
    warm.close()
    assert cached > 0 and warm.last_restored == cached
    assert np.array_equal(got, expected)


def test_second_run_on_a_warm_disk_cache_evaluates_only_the_new_part(tiny_gguf: Path, tmp_path: Path) -> None:
    completions = []
    for _ in range(2):
        rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path)
        completions.append(rt.complete(FIRST))
        rt.close()
    cold, warm = (c.usage for c in completions)
    assert cold.cache_read_tokens == 0 and cold.evaluated_prompt_tokens == cold.prompt_tokens
    assert warm.restored_prompt_tokens == warm.cached_prompt_tokens >= 0.9 * warm.prompt_tokens
    assert completions[0].text == completions[1].text


def test_prefill_on_a_warm_cache_restores_and_the_turn_reports_reads(tiny_gguf: Path, tmp_path: Path) -> None:
    stable = ChatRequest((SYSTEM,), tools=TOOLS, enable_thinking=False)
    usages = []
    for _ in range(2):
        rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path)
        rt.prefill(stable)
        usages.append(rt.complete(FIRST).usage)
        rt.close()
    cold, warm = usages
    assert cold.prefilled_prompt_tokens > 0 and cold.cache_read_tokens == 0  # prefill's work is this run's
    assert warm.prefilled_prompt_tokens == 0 and warm.cache_read_tokens >= 0.9 * warm.prompt_tokens
    assert warm.restored_prompt_tokens >= 0.9 * warm.prompt_tokens  # restored by the prefill, from disk


def test_checkpoints_serve_a_model_that_cannot_cut_its_state_back(
    tiny_gguf: Path, fresh: LlamaCppRuntime
) -> None:
    """The hybrid-model path on the dense model: the live state may only grow, never be cut back."""
    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, cut_back=False)
    try:
        first = rt.complete(FIRST)  # generating moves the live state past what the next prompt shares
        second = rt.complete(SECOND)
        expected, _ = prompt_logits(fresh, SECOND)
        conversation = len(rt.prompt_tokens(rt.prompt_text(FIRST, add_generation_prompt=False)))
        rt.clear_cache()
        assert rt.prompt_cache.checkpoints == []
        rt.complete(FIRST)
        got, cached = prompt_logits(rt, SECOND)
    finally:
        rt.close()
    assert first.usage.cached_prompt_tokens == 0
    assert second.usage.restored_prompt_tokens == second.usage.cached_prompt_tokens
    assert second.usage.cached_prompt_tokens == conversation  # all the first prompt but its generation prompt
    assert cached == second.usage.cached_prompt_tokens
    assert np.array_equal(got, expected)


def test_without_checkpoints_such_a_model_evaluates_everything_again(tiny_gguf: Path) -> None:
    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, cut_back=False, checkpoints=0)
    try:
        rt.complete(FIRST)
        assert rt.complete(SECOND).usage.cached_prompt_tokens == 0
    finally:
        rt.close()


def test_greedy_output_is_the_same_with_and_without_the_cache(
    tiny_gguf: Path, tmp_path: Path, fresh: LlamaCppRuntime
) -> None:
    plain = [fresh.complete(FIRST).text, fresh.complete(SECOND).text]
    for _ in range(2):
        rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path, cut_back=False)
        assert [rt.complete(FIRST).text, rt.complete(SECOND).text] == plain
        rt.close()


# ---------------------------------------------------------------------- the hybrid model (Qwen 3.5-shaped)


def hybrid_request(*messages: object) -> ChatRequest:
    return ChatRequest((SYSTEM, *messages), tools=TOOLS, sampling=GREEDY)  # type: ignore[arg-type]


def test_a_hybrid_model_reuses_the_last_round_through_checkpoints(tiny_hybrid_gguf: Path) -> None:
    rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096)
    fresh = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096)
    try:
        assert not rt.cut_back  # found from the model: its recurrent state cannot be cut back
        messages: list[object] = [UserMessage("Read main.py please.")]
        usages = []
        for i in range(3):
            done = rt.complete(hybrid_request(*messages))
            usages.append(done.usage)
            call = ToolCall(f"c{i}", "read_file", {"path": "main.py"})
            messages += [AssistantMessage(done.text, tool_calls=(call,)), ToolMessage(f"c{i}", "print('hi')\n")]
        last = hybrid_request(*messages)
        expected, _ = prompt_logits(fresh, last)
        got, cached = prompt_logits(rt, last)
    finally:
        rt.close()
        fresh.close()
    assert usages[0].cached_prompt_tokens == 0
    for before, after in itertools.pairwise(usages):
        assert after.restored_prompt_tokens == after.cached_prompt_tokens >= before.prompt_tokens - 16
    assert cached > 0 and np.array_equal(got, expected)


def test_a_hybrid_model_restores_its_prompt_from_disk_in_a_new_process(
    tiny_hybrid_gguf: Path, tmp_path: Path
) -> None:
    texts, usages = [], []
    for _ in range(2):
        rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096, prompt_cache_dir=tmp_path)
        done = rt.complete(hybrid_request(UserMessage("Read main.py please.")))
        rt.close()
        texts.append(done.text)
        usages.append(done.usage)
    assert usages[0].cached_prompt_tokens == 0
    assert usages[1].restored_prompt_tokens >= 0.9 * usages[1].prompt_tokens
    assert texts[0] == texts[1]


def test_a_new_session_on_qwen35s_template_restores_the_system_prompt_and_tools(
    tiny_hybrid_gguf: Path, tmp_path: Path
) -> None:
    """Qwen 3.5's template refuses a conversation without a user turn: the stable prefix is still saved."""
    usages = []
    for question in ("Read main.py please.", "List the tests."):
        rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096, prompt_cache_dir=tmp_path)
        stable = rt.prefix_text(ChatRequest((SYSTEM,), tools=TOOLS))
        stable_tokens = len(rt.tokenize(stable))
        usages.append(rt.complete(hybrid_request(UserMessage(question))).usage)
        rt.close()
    assert "<tools>" in stable and "<|im_start|>user" not in stable
    assert usages[0].restored_prompt_tokens == 0
    assert usages[1].restored_prompt_tokens >= stable_tokens - 1


def test_a_damaged_state_the_turn_did_not_try_is_rebuilt_not_kept(tiny_gguf: Path, tmp_path: Path) -> None:
    """A turn that starts before the session's prefill tries only the longest saved state; the shorter
    one (system prompt + tools), damaged too, must be written afresh when the turn passes its save
    point, or the next run's prefill finds it damaged and evaluates it again (issue 27's flaky test)."""
    stable = ChatRequest((SYSTEM,), tools=TOOLS, enable_thinking=False)
    cold = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path)
    cold.complete(FIRST)  # saves the system prompt + tools and the first user turn
    cold.close()
    saved = sorted(tmp_path.rglob("*.state"))
    assert len(saved) == 2
    for path in saved:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    damaged = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path)
    assert damaged.complete(FIRST).usage.cache_read_tokens == 0  # the turn first, no prefill before it
    damaged.close()
    warm = LlamaCppRuntime(str(tiny_gguf), n_ctx=2048, prompt_cache_dir=tmp_path)
    warm.prefill(stable)
    usage = warm.complete(FIRST).usage
    warm.close()
    assert usage.prefilled_prompt_tokens == 0 and usage.cache_read_tokens >= 0.9 * usage.prompt_tokens


LONG_RESULT = "def main():\n    print('hi')\n" * 40
RESUMED = hybrid_request(UserMessage("Read main.py please."),
                         AssistantMessage("", tool_calls=(ToolCall("c1", "read_file", {"path": "main.py"}),)),
                         ToolMessage("c1", LONG_RESULT))


def test_a_hybrid_models_round_checkpoints_outlive_the_process(tiny_hybrid_gguf: Path, tmp_path: Path) -> None:
    """A session resumed by a new process (or one with the same prefix) restores the checkpoint at the
    last round from disk, the tool result included, and replies as a run without any cache does."""
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096)
    expected = plain.complete(RESUMED)
    plain.close()
    usages, texts = [], []
    for _ in range(2):
        rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096, prompt_cache_dir=tmp_path)
        done = rt.complete(RESUMED)
        rt.close()
        usages.append(done.usage)
        texts.append(done.text)
    assert usages[0].cached_prompt_tokens == 0
    assert usages[1].restored_prompt_tokens == usages[1].cached_prompt_tokens >= usages[1].prompt_tokens - 8
    assert texts == [expected.text, expected.text]


@pytest.mark.parametrize("damage", ["flipped byte", "truncated"])
def test_a_damaged_round_checkpoint_is_ignored_and_the_prompt_evaluated_again(
    tiny_hybrid_gguf: Path, tmp_path: Path, damage: str
) -> None:
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096)
    expected = plain.complete(RESUMED)
    plain.close()
    first = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096, prompt_cache_dir=tmp_path)
    first.complete(RESUMED)
    first.close()
    longest = max(tmp_path.rglob("*.state"), key=lambda p: p.name)
    data = bytearray(longest.read_bytes())
    if damage == "truncated":
        del data[len(data) // 2 :]
    else:
        data[-100] ^= 0xFF
    longest.write_bytes(bytes(data))
    rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096, prompt_cache_dir=tmp_path)
    done = rt.complete(RESUMED)
    rt.close()
    assert done.text == expected.text
    # the next longest state (up to the user message): the tool result is evaluated again
    assert 0 < done.usage.restored_prompt_tokens < done.usage.prompt_tokens - 500
    assert not longest.exists() or longest.read_bytes() != bytes(data)  # removed, or saved whole again


THOUGHT = AssistantMessage("main.py prints hi, and nothing else. " * 6,
                           reasoning="The user wants main.py read; it prints hi. " * 6)
NEXT = hybrid_request(UserMessage("Read main.py please."), THOUGHT, UserMessage("And the tests?"))


def test_qwen35s_template_drops_a_replys_thinking_once_another_user_message_follows(tiny_hybrid_gguf: Path) -> None:
    """Why a turn's end needs a prefill of its own: the next prompt does not start with the last one."""
    rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096)
    try:
        alone = rt.prefix_text(hybrid_request(UserMessage("Read main.py please."), THOUGHT))
        next_turn = rt.next_turn_text(hybrid_request(UserMessage("Read main.py please."), THOUGHT))
    finally:
        rt.close()
    assert next_turn is not None and "The user wants" in alone and "The user wants" not in next_turn
    assert rt.prompt_text(NEXT).startswith(next_turn) and not rt.prompt_text(NEXT).startswith(alone)


def run_turns(model: Path, cache: Path, *, settle: bool) -> tuple[int, Completion, np.ndarray, int]:
    """Turn one in one process (then, with `settle`, the turn-end prefill), turn two in a new one:
    the tokens turn one left ready, turn two's completion, the logits its prompt ends on (evaluated
    first, from what the disk held) and how many of its tokens were restored for them."""
    first = LlamaCppRuntime(str(model), n_ctx=4096, prompt_cache_dir=cache)
    first.complete(hybrid_request(UserMessage("Read main.py please.")))
    ready = first.prefill(hybrid_request(UserMessage("Read main.py please."), THOUGHT), next_turn=True) if settle else 0
    first.close()
    second = LlamaCppRuntime(str(model), n_ctx=4096, prompt_cache_dir=cache)
    try:
        logits, restored = prompt_logits(second, NEXT)
        second.clear_cache()
        return ready, second.complete(NEXT), logits, restored
    finally:
        second.close()


def test_a_turn_ends_ready_for_the_next_message_even_in_a_resumed_process(
    tiny_hybrid_gguf: Path, tmp_path: Path
) -> None:
    ready, settled, settled_logits, restored = run_turns(tiny_hybrid_gguf, tmp_path / "settled", settle=True)
    _, unsettled, unsettled_logits, unsettled_restored = run_turns(tiny_hybrid_gguf, tmp_path / "unsettled",
                                                                   settle=False)
    # everything before the new message comes back from disk: nothing of turn one is evaluated again
    assert ready > 0 and restored == ready
    assert unsettled_restored < ready - 40  # only up to turn one's question: its reply evaluated again
    # the prompt is cut in the same pieces either way: the same logits, bit for bit, and the same reply
    assert np.array_equal(settled_logits, unsettled_logits) and settled.text == unsettled.text


def test_a_turn_end_prefill_does_nothing_where_the_tools_changed(tiny_hybrid_gguf: Path, tmp_path: Path) -> None:
    rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=4096, prompt_cache_dir=tmp_path)
    try:
        rt.complete(hybrid_request(UserMessage("Read main.py please.")))
        other_tools = ChatRequest((SYSTEM, UserMessage("Read main.py please."), THOUGHT), sampling=GREEDY)
        assert rt.prefill(other_tools, next_turn=True) == 0  # would be the whole conversation: not done
    finally:
        rt.close()
