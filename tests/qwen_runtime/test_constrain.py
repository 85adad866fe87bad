"""ToolCallConstraint driven by hand, with the tiny model's tokenizer (no model, no llama.cpp)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llguidance import LLTokenizer
from qwen_runtime.calls.toolschema import tool_schema
from qwen_runtime.grammar.constrain import ConstraintError, Phase, ToolCallConstraint, call_schema
from qwen_runtime.testing.testmodel import build_test_tokenizer
from qwen_runtime.types import ToolSpec

WEATHER = ToolSpec(
    "get_weather",
    "Weather forecast",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 12},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
)
READ = ToolSpec(
    "read_file",
    "Read a file",
    {
        "type": "object",
        "properties": {"path": {"type": "string", "maxLength": 16}, "lines": {"enum": [10, 100]}},
        "required": ["path", "lines"],
        "additionalProperties": False,
    },
)
TOOLS = (WEATHER, READ)
CALL = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.S)


@pytest.fixture(scope="module")
def tok() -> LLTokenizer:
    return LLTokenizer(build_test_tokenizer().to_str())


def ids(tok: LLTokenizer, text: str) -> list[int]:
    return list(tok.tokenize_str(text, parse_special=True))


def phase(c: ToolCallConstraint) -> Phase:
    return c.phase  # read through a call: mypy would keep an earlier narrowing


def feed(c: ToolCallConstraint, tokens: list[int]) -> None:
    for t in tokens:
        c.consume(t)


def allowed_text(tok: LLTokenizer, c: ToolCallConstraint) -> set[bytes]:
    mask = c.allowed_mask()
    assert mask is not None
    return {tok.decode_bytes([int(i)]) for i in np.flatnonzero(mask)}


def walk(tok: LLTokenizer, c: ToolCallConstraint, rng: random.Random, steps: int = 400) -> list[int]:
    """A 'model' that picks uniformly among the allowed tokens, stopping at the end of turn.

    Also stops after two complete calls (a uniform walk chains calls far longer than a model would).
    """
    close = ids(tok, "</tool_call>")[0]
    out: list[int] = []
    for _ in range(steps):
        if out.count(close) >= 2:
            break
        mask = c.allowed_mask()
        if mask is None:
            break
        choices = np.flatnonzero(mask)
        token = int(rng.choice(list(choices)))
        if token == tok.eos_token:
            break
        out.append(token)
        c.consume(token)
        for forced in c.forced_tokens():
            out.append(forced)
            c.consume(forced)
    return out


def calls_in(text: str) -> list[dict[str, Any]]:
    return [json.loads(body) for body in CALL.findall(text)]


def test_free_text_is_not_constrained_until_the_tool_call_tag(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, TOOLS, "auto")
    feed(c, ids(tok, "Let me check the weather first."))
    assert c.allowed_mask() is None and not c.active
    logits = np.zeros(tok.vocab_size, dtype=np.float32)
    c.apply(logits)
    assert not np.isinf(logits).any()
    c.consume(ids(tok, "<tool_call>")[0])
    assert c.active and c.phase is Phase.CALL
    assert all(t.startswith(b"\n") for t in allowed_text(tok, c))


def test_one_tool_forces_its_name_and_the_call_closes_back_to_free_text(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (WEATHER,), "auto")
    feed(c, ids(tok, "ok <tool_call>"))
    forced = c.forced_tokens()
    assert tok.decode_str(forced).startswith('\n{"name": "get_weather", "arguments": {"')
    feed(c, ids(tok, '\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'))
    assert not c.errors and not c.active and c.phase is Phase.FREE
    c.consume(ids(tok, "<tool_call>")[0])  # a second call is constrained again
    assert c.active and c.calls_opened == 2


def test_apply_masks_exactly_the_disallowed_tokens(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (WEATHER,), "auto")
    feed(c, ids(tok, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa'))
    mask = c.allowed_mask()
    assert mask is not None
    logits = np.arange(tok.vocab_size, dtype=np.float32)
    c.apply(logits)
    assert np.array_equal(np.isfinite(logits), mask)
    assert np.array_equal(logits[mask], np.flatnonzero(mask).astype(np.float32))


def test_a_tag_spelled_in_pieces_switches_the_constraint_on(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (WEATHER,), "auto")
    feed(c, [*tok.tokenize_str("<tool"), *tok.tokenize_str("_call>")])
    assert c.active
    assert tok.decode_str(c.forced_tokens()).startswith('\n{"name": "get_weather"')


def test_bytes_a_token_carries_past_the_tag_are_fed_to_the_grammar(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (WEATHER,), "auto")
    feed(c, [*tok.tokenize_str("<tool_call"), *tok.tokenize_str('>\n{"')])
    assert c.active and not c.errors
    assert tok.decode_str(c.forced_tokens()).startswith('name": "get_weather"')


def test_required_opens_with_a_call_and_then_allows_only_calls_or_the_end(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, TOOLS, "required")
    assert c.phase is Phase.OPEN
    first = allowed_text(tok, c)
    assert b"<tool_call>" in first and all(t.strip(b"\n") in (b"", b"<tool_call>") for t in first)
    feed(c, ids(tok, '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py", "lines": 10}}'))
    feed(c, ids(tok, "\n</tool_call>"))
    after = allowed_text(tok, c)
    assert tok.decode_bytes([tok.eos_token]) in after and b"<tool_call>" in after
    assert b"Hello" not in after


def test_required_with_thinking_forces_think_then_leaves_it_free(tok: LLTokenizer) -> None:
    end = ids(tok, "<|im_end|>")[0]
    c = ToolCallConstraint(tok, TOOLS, "required", thinking=True, stop_tokens=[end])
    assert allowed_text(tok, c) == {b"<think>"}
    feed(c, ids(tok, "<think>\nI should read the file."))
    assert c.phase is Phase.THINK
    mask = c.allowed_mask()
    call_open = ids(tok, "<tool_call>")[0]
    # only the end and a call opened before `</think>` (it would be settled only there: a think block the
    # budget never closes would lose it) are banned
    assert mask is not None and not mask[end] and not mask[call_open] and mask.sum() == tok.vocab_size - 2
    feed(c, ids(tok, "\n</think>\n\n"))
    assert phase(c) is Phase.OPEN and b"<tool_call>" in allowed_text(tok, c)


def test_prompt_that_opened_think_starts_in_thinking(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, TOOLS, "get_weather", thinking=True, starts_in_think=True)
    assert c.phase is Phase.THINK
    allowed = allowed_text(tok, c)
    assert b"</think>" in allowed and b"<tool_call>" not in allowed and len(allowed) > tok.vocab_size // 2


def test_under_auto_a_call_may_open_while_thinking(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, TOOLS, "auto", thinking=True, starts_in_think=True)
    assert c.phase is Phase.THINK and c.allowed_mask() is None


def test_a_rejected_token_turns_the_constraint_off_without_raising(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (WEATHER,), "auto")
    feed(c, ids(tok, "<tool_call>"))
    c.consume(ids(tok, "Hello")[0])
    assert c.errors and "rejected" in c.errors[0]
    assert not c.active and c.allowed_mask() is None


def test_nothing_to_constrain_is_a_clear_error(tok: LLTokenizer) -> None:
    with pytest.raises(ConstraintError, match="none"):
        ToolCallConstraint(tok, TOOLS, "none")
    with pytest.raises(ConstraintError, match="no tools"):
        ToolCallConstraint(tok, (), "auto")


def test_a_keyword_llguidance_cannot_enforce_is_dropped_from_the_grammar_not_the_whole_constraint(
    tok: LLTokenizer,
) -> None:
    lookbehind = {"type": "string", "pattern": "(?<=a)b"}  # llguidance has no look-around
    odd = ToolSpec("odd", "", {"type": "object", "properties": {"x": lookbehind}})
    c = ToolCallConstraint(tok, (odd, WEATHER), "required")
    feed(c, ids(tok, '<tool_call>\n{"name": "odd", "arguments": {"x": "anything"}}\n</tool_call>'))
    assert not c.errors
    c = ToolCallConstraint(tok, (odd, WEATHER), "required")
    feed(c, ids(tok, '<tool_call>\n{"name": "odd", "arguments": {"y": "anything"}}\n</tool_call>'))
    assert c.errors  # the rest of its schema still holds


def test_call_schema_is_name_plus_arguments_without_flexible_whitespace() -> None:
    schema = call_schema((WEATHER,))
    assert schema["properties"]["name"] == {"const": "get_weather"}
    assert schema["properties"]["arguments"] == tool_schema(WEATHER).grammar
    assert schema["x-guidance"]["whitespace_flexible"] is False
    assert len(call_schema(TOOLS)["anyOf"]) == 2


@settings(max_examples=40, deadline=None)
@given(rng=st.randoms(use_true_random=False), thinking=st.booleans())
def test_any_token_choice_under_required_gives_schema_valid_calls(
    tok: LLTokenizer, rng: random.Random, thinking: bool
) -> None:
    c = ToolCallConstraint(tok, TOOLS, "required", thinking=thinking)
    out = walk(tok, c, rng, steps=60) if thinking else []
    if thinking and c.phase is Phase.THINK:  # leave the think block as a thinking budget does (unless the
        feed(c, ids(tok, "\n</think>\n\n"))  # walk closed it itself)
        out += ids(tok, "\n</think>\n\n")
    out += walk(tok, c, rng)
    text = tok.decode_str(out)
    reply = text.split("</think>")[-1]
    calls = calls_in(reply)
    assert calls and not c.errors
    # nothing but calls after thinking (the walk may stop inside a last, unfinished one)
    assert re.fullmatch(r"\s*(<tool_call>.*)?", CALL.sub("", reply), re.S)
    schemas = {t.name: t.parameters for t in TOOLS}
    for call in calls:
        assert list(call) == ["name", "arguments"]
        jsonschema.validate(call["arguments"], schemas[call["name"]])


def test_a_call_written_while_thinking_is_constrained_and_thinking_resumes(tok: LLTokenizer) -> None:
    c = ToolCallConstraint(tok, (WEATHER,), "auto", thinking=True, starts_in_think=True)
    feed(c, ids(tok, "hmm <tool_call>"))
    assert c.active
    feed(c, ids(tok, '\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'))
    assert c.phase is Phase.THINK and not c.errors


@settings(max_examples=60, deadline=None)
@given(
    density=st.sampled_from([0.0005, 0.01, 0.2, 0.5, 0.95]),
    seed=st.integers(0, 2**16),
    extra=st.integers(0, 40),
)
def test_mask_write_keeps_exactly_the_allowed_logits(density: float, seed: int, extra: int) -> None:
    """The fast mask writer (sparse path and byte-table path) agrees with a plain np.where, including
    logits past the grammar's vocabulary (always disallowed) and the single-allowed-token shortcut."""
    c = ToolCallConstraint(LLTokenizer(build_test_tokenizer().to_str()), (WEATHER,), "auto")
    rng = np.random.default_rng(seed)
    vocab = c._mask.size * 32
    allowed = rng.random(vocab) < density
    if not allowed.any():
        allowed[rng.integers(vocab)] = True
    c._mask[:] = np.packbits(allowed, bitorder="little").view(np.int32)
    logits = rng.standard_normal(vocab + extra).astype(np.float32)
    expected = np.where(np.concatenate([allowed, np.zeros(extra, dtype=bool)]), logits, -np.inf)
    c._write_mask(logits)
    np.testing.assert_array_equal(logits, expected)
    assert c.only_token == (int(np.flatnonzero(allowed)[0]) if allowed.sum() == 1 else None)
