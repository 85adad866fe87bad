"""Properties of the reply parser: chunking never matters, well-formed calls always survive, no input
ever raises."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.types import Completion, Event, ToolSpec

from .reading import counter, merged

TOOLS = tuple(ToolSpec(name, "", {"type": "object"}) for name in ("read_file", "run_command", "edit_file"))
TAG_BITS = ["<think>", "</think>", "<tool_call>", "</tool_call>", "<too", "</thi", "<", "</", "<tool_call"]

strings_with_tags = st.lists(st.text(max_size=4) | st.sampled_from(TAG_BITS), max_size=4).map("".join)
json_leaves = st.none() | st.booleans() | st.integers() | strings_with_tags
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
# Prose that cannot complete a tag or open JSON: '<' and partial tags, but no '>', '{' or quotes.
prose = st.lists(
    st.text(st.characters(codec="utf-8", exclude_characters="<>{}\"'"), max_size=15)
    | st.sampled_from(["<too", "</thi", "<", "< tool_call", "<think", "\n", "  "]),
    max_size=4,
).map("".join)


def feed_in_pieces(text: str, cuts: list[int], **kwargs: Any) -> list[Event]:
    parser = ReplyParser(TOOLS, id_factory=counter(), **kwargs)
    events: list[Event] = []
    bounds = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    for start, end in itertools.pairwise(bounds):
        events += parser.feed(text[start:end])
    return events + parser.finish()


@st.composite
def replies(draw: st.DrawFn) -> tuple[str, list[tuple[int, bool, tuple[str, dict[str, Any]]]]]:
    """A reply of think blocks, prose and tool calls, with the calls it holds: (where, whether written
    inside <think>, the call)."""
    parts: list[str] = []
    made: list[tuple[int, bool, tuple[str, dict[str, Any]]]] = []
    if draw(st.booleans()):
        parts.append(f"<think>{draw(prose)}</think>\n")
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["prose", "call", "call_in_think"]))
        if kind == "prose":
            parts.append(draw(prose))
            continue
        name, args = draw(st.sampled_from([t.name for t in TOOLS])), draw(arguments)
        body = json.dumps({"name": name, "arguments": args}, ensure_ascii=draw(st.booleans()))
        body = body.replace("</think>", "<\\/think>")  # (the same JSON; the first real </think> is findable)
        call = f"<tool_call>\n{body}\n</tool_call>"
        parts.append(f"\n{call}\n" if kind == "call" else f"<think>{draw(prose)}\n{call}\n{draw(prose)}</think>")
        made.append((len("".join(parts[:-1])), kind == "call_in_think", (name, args)))  # (where it starts)
    return "".join(parts), made


@settings(max_examples=100, deadline=None)
@given(replies(), st.lists(st.integers(0, 10_000), max_size=12), st.booleans())
def test_structured_replies_any_chunking_same_events_and_every_call_recovered(
    reply: tuple[str, list[tuple[int, bool, tuple[str, dict[str, Any]]]]], cuts: list[int], starts_in_think: bool
) -> None:
    text, made = reply
    # (a reply that starts inside <think> has its calls before the first </think> in the reasoning)
    think_end = (text.find("</think>") % (len(text) + 1)) if starts_in_think else -1
    drafted = [inside or where < think_end for where, inside, _ in made]
    # a call drafted inside <think> runs only when no real call comes after it
    expected = [call for index, (_, _, call) in enumerate(made) if not drafted[index] or all(drafted[index + 1 :])]
    whole = parse_reply(text, TOOLS, starts_in_think=starts_in_think, id_factory=counter())
    assert merged(feed_in_pieces(text, cuts, starts_in_think=starts_in_think)) == merged(whole)
    completion = Completion()
    for event in whole:
        completion.add(event)
    assert completion.tool_call_errors == []
    assert [(call.name, call.arguments) for call in completion.tool_calls] == expected


fragments = st.one_of(
    st.text(max_size=10),
    st.sampled_from([*TAG_BITS, "{", "}", '"', "'", "\\", "\n", '{"name": "read_file", "arguments": {', "]", "```"]),
    st.builds(lambda v: json.dumps(v), json_values),
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(fragments, max_size=12).map("".join),
    st.lists(st.integers(0, 10_000), max_size=12),
    st.booleans(),
)
def test_chaotic_text_any_chunking_same_events(text: str, cuts: list[int], starts_in_think: bool) -> None:
    parser = ReplyParser(TOOLS, starts_in_think=starts_in_think, id_factory=counter())
    whole = parser.feed(text) + parser.finish()
    assert merged(feed_in_pieces(text, cuts, starts_in_think=starts_in_think)) == merged(whole)
    if not parser.saw_stray_think_close:
        assert merged(parse_reply(text, TOOLS, starts_in_think=starts_in_think, id_factory=counter())) == merged(whole)


@settings(max_examples=100, deadline=None)
@given(st.text())
def test_never_raises_on_arbitrary_text(text: str) -> None:
    parse_reply(text, TOOLS)
    parser = ReplyParser()
    for char in text:
        parser.feed(char)
    parser.finish()


@settings(max_examples=50, deadline=None)
@given(st.sampled_from([t.name for t in TOOLS]), arguments)
def test_a_bare_json_reply_calling_an_offered_tool_is_a_call(name: str, args: dict[str, Any]) -> None:
    events = parse_reply(json.dumps({"name": name, "arguments": args}), TOOLS, id_factory=counter())
    completion = Completion()
    for event in events:
        completion.add(event)
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [(name, args)]
    assert completion.text == ""
