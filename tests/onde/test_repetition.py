"""The loop guard: a reply that repeats one block over and over is stopped and trimmed to one copy;
ordinary prose and code are never mistaken for a loop."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from onde import ChatEngine, Done, GuardNotice, TextDelta
from onde.repetition import RepetitionGuard, find_loop
from qwen_runtime.backends.scripted import ScriptedRuntime

PROSE = (
    "The agent reads the file, finds the function, and edits the return value. Then it runs the tests; "
    "two fail because the fixture expects the old value, so it updates the fixture too.\n"
    "def total(items):\n    return sum(item.price * item.count for item in items)\n"
)


@given(block=st.text(min_size=1, max_size=60).filter(lambda b: not b.isspace()), repeats=st.integers(12, 40))
@settings(max_examples=200)
def test_any_repeated_block_is_caught_whatever_the_chunking(block: str, repeats: int) -> None:
    text = "Sure, here it is: " + block * max(repeats, 160 // len(block) + 4)
    guard = RepetitionGuard()
    found = None
    for start in range(0, len(text), 7):
        found = found or guard.feed(text[start : start + 7])
    if found is None:
        found = find_loop(text)
    assert found is not None and len(block) % found.period == 0


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
@settings(max_examples=200)
def test_random_text_never_raises(text: str) -> None:
    guard = RepetitionGuard()
    for start in range(0, len(text), 5):
        guard.feed(text[start : start + 5])


def test_prose_and_code_are_not_loops() -> None:
    guard = RepetitionGuard()
    assert all(guard.feed(PROSE[i : i + 9]) is None for i in range(0, len(PROSE), 9))
    assert find_loop("| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n" * 2) is None
    assert find_loop("x = 1\n" + " " * 300) is None  # whitespace runs are left to max_tokens


def test_engine_stops_a_looping_reply_and_keeps_one_copy() -> None:
    loop = "I will check the file again. "
    runtime = ScriptedRuntime([loop * 200], chunk_size=8)
    engine = ChatEngine(runtime)
    events = list(engine.stream_message("go"))
    notices = [e.message for e in events if isinstance(e, GuardNotice)]
    assert notices and "repeating itself" in notices[0]
    last = events[-1]
    assert isinstance(last, Done)
    result = last.result
    assert result.finish_reason == "length"
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert result.text == streamed and len(streamed) < len(loop * 200)  # stopped early, result = what was seen
    kept = engine.history()[-1].content
    assert 1 <= kept.count("I will check the file again.") <= 2  # the history does not learn the loop
    assert result.usage.prompt_tokens > 0  # stopped early, the prompt still counts (usage is not lost)


def test_thinking_that_loops_is_cut_and_the_model_answers_without_it() -> None:
    runtime = ScriptedRuntime([{"reasoning": "Wait, let me reconsider. " * 100, "text": "never"}, "the answer"])
    engine = ChatEngine(runtime)
    result = engine.send_message("q")
    assert result.text == "the answer" and result.thinking_truncated
    assert runtime.requests[1].enable_thinking is False
