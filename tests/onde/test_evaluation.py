"""`onde.evaluate`: an engine configuration scored on prompt-and-check cases, from Python."""

from __future__ import annotations

from onde import ChatEngine, EvalCase, SamplingConfig, evaluate
from qwen_runtime.backends.scripted import ScriptedRuntime
from qwen_runtime.types import ChatRequest


def test_cases_are_asked_fresh_and_scored_with_pass_at_k() -> None:
    seen: list[tuple[int, int | None]] = []

    def respond(request: ChatRequest) -> str:
        seen.append((len(request.messages), request.sampling.seed))
        prompt = request.messages[-1].content
        return "4" if "2 + 2" in str(prompt) else "I do not know."

    engine = ChatEngine(ScriptedRuntime(respond), sampling=SamplingConfig(seed=7, max_tokens=16))
    engine.send_message("keep this conversation")
    before = engine.history_messages()
    cases = [
        EvalCase("sum", "What is 2 + 2?", lambda text: text.strip() == "4"),
        EvalCase("capital", "Capital of Peru?", lambda text: "Lima" in text),
        EvalCase("broken", "Anything", lambda text: 1 / 0 > 0),
    ]
    report = evaluate(engine, cases, repeat=2)
    assert [(r.case_id, r.attempt, r.passed) for r in report.results] == [
        ("sum", 0, True),
        ("capital", 0, False),
        ("broken", 0, False),
        ("sum", 1, True),
        ("capital", 1, False),
        ("broken", 1, False),
    ]
    assert report.results[2].error == "check raised ZeroDivisionError: division by zero"
    assert report.pass_at_1.value == 2 / 6 and report.pass_at(2) == 1 / 3
    assert [n for n, _ in seen[1:]] == [1] * 6  # every attempt on an empty conversation (no system prompt)
    assert [seed for _, seed in seen[1:]] == [7, 7, 7, 8, 8, 8]  # attempt i samples with seed + i
    assert engine.history_messages() == before and engine.sampling.seed == 7
