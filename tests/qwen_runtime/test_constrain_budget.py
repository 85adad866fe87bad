"""The budget-aware tool-call constraint: under `required`, a model that runs away inside a value still
ends its reply in a complete, schema-valid call within `max_tokens`, in both call formats, and the
call says which value was cut to fit.

Driven by hand with the tiny model's tokenizer (a uniform random walk over the allowed tokens is the
model that runs away most: a string closes when it happens to pick `"`), then through llama.cpp on the
tiny random-weight models, whose replies ran to `max_tokens` inside a string before."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llguidance import LLTokenizer
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.calls.toolformat import ToolCallFormat
from qwen_runtime.grammar.budget import CLOSE_MARGIN, CallScanner, closing_plan
from qwen_runtime.grammar.constrain import ToolCallConstraint
from qwen_runtime.parsing import parse_reply
from qwen_runtime.testing.testmodel import build_test_tokenizer
from qwen_runtime.types import ChatRequest, Completion, Sampling, ToolSpec, UserMessage

JSON, XML = ToolCallFormat.JSON, ToolCallFormat.XML
WRITE = ToolSpec(
    "write_file",
    "Write a file",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "meta": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["path", "content"],
    },
)


@pytest.fixture(scope="module")
def tok() -> LLTokenizer:
    return LLTokenizer(build_test_tokenizer().to_str())


def ids(tok: LLTokenizer, text: str) -> list[int]:
    return list(tok.tokenize_str(text, parse_special=True))


Pick = Callable[[np.ndarray, list[int]], int]
"""A model: the next token from the allowed ones, given the tokens so far."""


def run_away(tok: LLTokenizer, c: ToolCallConstraint, budget: int, pick: Pick) -> tuple[list[int], bool]:
    """A model that writes until the constraint ends it or the budget is spent, as `Generation` drives it.

    Returns the tokens and whether the turn ended (the end-of-turn token was the one allowed)."""
    c.set_budget(budget)
    out: list[int] = []
    while len(out) < budget:
        mask = c.allowed_mask()
        assert mask is not None
        token = c.settle(pick(np.flatnonzero(mask), out))
        if token == tok.eos_token:
            return out, True
        out.append(token)
        c.consume(token)
        for forced in c.forced_tokens()[: budget - len(out)]:
            out.append(forced)
            c.consume(forced)
    return out, False


def uniform(rng: random.Random, eos: int) -> Pick:
    """Uniform over the allowed tokens, never the end of turn while anything else is allowed."""

    def pick(allowed: np.ndarray, _out: list[int]) -> int:
        choices = [int(t) for t in allowed if t != eos] or [eos]
        return rng.choice(choices)

    return pick


def parsed(text: str, tools: tuple[ToolSpec, ...]) -> Completion:
    completion = Completion()
    for event in parse_reply(text, tools):
        completion.add(event)
    return completion


def shortest_call(tok: LLTokenizer, tools: tuple[ToolSpec, ...], form: ToolCallFormat) -> int:
    """Tokens of the shortest reply the `required` grammar allows (a budget below it cannot be met)."""
    c = ToolCallConstraint(tok, tools, "required", call_format=form)
    assert c._matcher is not None
    plan = closing_plan(c._matcher, CallScanner(form is XML), tok)
    assert plan is not None
    return len(plan)


# ---------------------------------------------------------------- generated schemas

_STRING = st.just({"type": "string"})
_VALUES: st.SearchStrategy[dict[str, Any]] = st.deferred(
    lambda: st.one_of(
        _STRING,
        st.just({"type": "string", "minLength": 3}),
        st.just({"type": "array", "items": {"type": "string"}}),
        st.just({"type": "array", "items": {"type": "integer"}, "minItems": 1}),
        st.just({"type": "object", "additionalProperties": {"type": "string"}}),
        st.just({"type": "object"}),
        st.just({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        st.just({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "integer"}]}),
        st.just({"$ref": "#/$defs/Item"}),
        st.just({"type": "array", "items": {"$ref": "#/$defs/Item"}}),
        st.just({"type": "integer", "minimum": 100}),
        st.just({"enum": ["fast", "slow"]}),
    )
)
_ITEM = {"type": "object", "properties": {"name": {"type": "string"}, "note": {"type": "string"}}, "required": ["name"]}


@st.composite
def tools(draw: st.DrawFn) -> ToolSpec:
    names = draw(
        st.lists(
            st.sampled_from(["path", "content", "items", "meta", "mode", "n"]), min_size=1, max_size=3, unique=True
        )
    )
    properties = {name: draw(_VALUES) for name in names}
    properties[names[0]] = {"type": "string"}  # at least one value that may run on forever
    required = [n for n in names if draw(st.booleans())] or [names[0]]
    schema = {"type": "object", "properties": properties, "required": required, "$defs": {"Item": _ITEM}}
    return ToolSpec("make", "A tool", schema)


@settings(max_examples=30, deadline=None)
@given(tool=tools(), form=st.sampled_from([JSON, XML]), extra=st.integers(0, 120), seed=st.integers(0, 10**6))
def test_under_required_a_runaway_model_still_ends_in_a_complete_valid_call(
    tok: LLTokenizer, tool: ToolSpec, form: ToolCallFormat, extra: int, seed: int
) -> None:
    offered = (tool,)
    budget = shortest_call(tok, offered, form) + CLOSE_MARGIN + extra
    c = ToolCallConstraint(tok, offered, "required", call_format=form, stop_tokens=[tok.eos_token])
    out, ended = run_away(tok, c, budget, uniform(random.Random(seed), tok.eos_token))
    text = tok.decode_str(out)
    assert ended and len(out) < budget and not c.errors, text
    completion = parsed(text, offered)
    assert len(completion.tool_calls) >= 1 and not completion.tool_call_errors, text
    for call in completion.tool_calls:
        jsonschema.validate(call.arguments, tool.parameters)


def scripted(tok: LLTokenizer, text: str) -> Pick:
    """A model that writes `text` and then ends its turn (where the constraint allows; else it takes the
    first token allowed, as the budget's closing does)."""
    script = text.encode()

    def pick(allowed: np.ndarray, out: list[int]) -> int:
        done = tok.decode_bytes(out)
        rest = script[len(done) :] if script.startswith(done) else b""
        want = tok.tokenize_bytes(rest[:48])[0] if rest else tok.eos_token
        return want if want in allowed else int(allowed[0])

    return pick


CALLS = {
    JSON: '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": "print(1)\\nprint(2)\\n"}}'
    "\n</tool_call>",
    XML: "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\n"
    'print("}")\nprint(2)\n\n</parameter>\n</function>\n</tool_call>',
}


@pytest.mark.parametrize("form", [JSON, XML])
def test_a_call_that_fits_its_budget_is_the_one_the_model_wrote(tok: LLTokenizer, form: ToolCallFormat) -> None:
    call = ids(tok, CALLS[form])
    for budget in (len(call) + CLOSE_MARGIN + 24, 4096):
        c = ToolCallConstraint(tok, (WRITE,), "required", call_format=form, stop_tokens=[tok.eos_token])
        out, ended = run_away(tok, c, budget, scripted(tok, CALLS[form]))
        assert ended and tok.decode_str(out) == CALLS[form] and not c.cuts


@pytest.mark.parametrize("form", [JSON, XML])
def test_the_cut_names_the_value_that_was_running_on(tok: LLTokenizer, form: ToolCallFormat) -> None:
    """A model that writes `content` forever: the call closes there, keeps what was written, says so."""
    opening = (
        '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": "x = 1'
        if form is JSON
        else "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\nx = 1"
    )
    c = ToolCallConstraint(tok, (WRITE,), "required", call_format=form, stop_tokens=[tok.eos_token])
    out, ended = run_away(tok, c, 160, scripted(tok, opening + "id" * 400))
    text = tok.decode_str(out)
    assert ended, text
    [call] = parsed(text, (WRITE,)).tool_calls
    assert call.arguments["path"] == "a.py" and call.arguments["content"].startswith("x = 1idid")
    assert [cut.note() for cut in c.cuts] == ["the value of `content` was cut to fit the token limit"]


def test_no_second_call_is_started_that_the_budget_cannot_end(tok: LLTokenizer) -> None:
    """After a complete call, `required` lets the model open another; near the limit the turn ends instead."""
    call = '<tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "b"}}\n</tool_call>'
    c = ToolCallConstraint(tok, (WRITE,), "required", stop_tokens=[tok.eos_token])
    out, ended = run_away(tok, c, len(ids(tok, call)) + 30, scripted(tok, call + "\n<tool_call>\n{"))
    assert ended and tok.decode_str(out) == call and not c.cuts


# ---------------------------------------------------------------- where the call stands


def chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("size", [1, 3, 7, 1000])
def test_the_scanner_follows_strings_and_arguments_in_any_chunking(size: int) -> None:
    text = '<tool_call>\n{"name": "w", "arguments": {"path": "a\\"}", "content": "say \\\\"'
    json_scanner = CallScanner(xml=False)
    for piece in chunks(text.encode(), size):
        json_scanner.feed(piece)
    assert json_scanner.argument == "content" and not json_scanner.in_string
    json_scanner.feed(b'"q')
    assert json_scanner.in_string
    raw = "<tool_call>\n<function=w>\n<parameter=path>\na\n</parameter>\n<parameter=content>\n<parameter=path>\nx"
    xml_scanner = CallScanner(xml=True)
    for piece in chunks(raw.encode(), size):
        xml_scanner.feed(piece)
    assert xml_scanner.argument == "content"  # a tag inside a raw value is the value's text
    xml_scanner.feed(b"\n</parameter>\n")
    assert xml_scanner.argument is None


def test_a_forced_closing_is_what_a_draft_may_take_and_nothing_else(tok: LLTokenizer) -> None:
    prefix = ids(tok, '<tool_call>\n{"name": "write_file", "arguments": {"path": "')
    probe = ToolCallConstraint(tok, (WRITE,), "required", stop_tokens=[tok.eos_token])
    for token in prefix:
        probe.consume(token)
    assert probe._matcher is not None
    scanner = CallScanner(xml=False)
    scanner.feed(tok.decode_bytes(prefix))
    closing = closing_plan(probe._matcher, scanner, tok)
    assert closing is not None and tok.decode_str(closing[:-1]) == '", "content": ""}}\n</tool_call>'
    c = ToolCallConstraint(tok, (WRITE,), "required", stop_tokens=[tok.eos_token])
    c.set_budget(len(prefix) + len(closing) + 2)
    for token in prefix:
        c.consume(token)
    mask = c.allowed_mask()
    assert mask is not None and mask.sum() == 1  # due already: only the plan's next token is allowed
    first = int(np.flatnonzero(mask)[0])
    assert c.draft_prefix(closing[:-1]) == len(closing) - 1
    assert c.draft_prefix([first, *ids(tok, "zz")]) == 1
    c.consume(first)
    # the rest is forced; the end of turn is left to be sampled (the backend stops there)
    assert [first, *c.forced_tokens()] == closing[:-1]


# ---------------------------------------------------------------- through llama.cpp


@pytest.mark.parametrize("template", ["qwen3", "qwen3.5"])
def test_the_tiny_models_end_every_required_call_within_max_tokens(
    template: str, tiny_gguf: Path, xml_template_gguf: Callable[[str], Path]
) -> None:
    path = tiny_gguf if template == "qwen3" else xml_template_gguf(template)
    runtime = LlamaCppRuntime(str(path), n_ctx=1024)
    try:
        cut = 0
        for seed, max_tokens in ((0, 110), (1, 140), (2, 200)):
            done = runtime.complete(
                ChatRequest(
                    (UserMessage("write it"),),
                    tools=(WRITE,),
                    tool_choice="required",
                    sampling=Sampling(max_tokens=max_tokens, seed=seed),
                    enable_thinking=False,
                )
            )
            assert done.finish_reason == "tool_calls", json.dumps(done.to_dict())[-400:]
            assert done.usage.completion_tokens <= max_tokens and not done.tool_call_errors
            [call] = done.tool_calls
            jsonschema.validate(call.arguments, WRITE.parameters)
            cut += bool(call.notes)
            assert all(note.endswith("was cut to fit the token limit") for note in call.notes)
        assert cut  # the random model ran away at least once: the budget closed it
    finally:
        runtime.close()
