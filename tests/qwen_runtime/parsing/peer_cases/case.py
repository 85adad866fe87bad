"""One peer test case as data, the tool sets the peers' tests offer, and how a case is scored.

A case holds the model's text and what the peer's own test asserts about it (the calls with their
arguments; the content text where the test looks at it). `outcome` reads the text with our parser, whole
and streamed in chunks of 1, 3 and 7 characters (and in the peer's own split where the test gives one),
and `agrees` compares each reading with the peer's expectation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qwen_runtime.parsing import ReplyParser, parse_reply
from qwen_runtime.types import Completion, Event, ToolSpec

Call = tuple[str, Any]  # name and arguments (an object, or whatever the peer passes through)
SIZES = (1, 3, 7)


@dataclass(frozen=True)
class Expect:
    """What a reply reads as. A field left None: the peer's test does not look at it (`calls` None: the
    test only asks that nothing crashes)."""

    calls: tuple[Call, ...] | None = ()
    content: str | None = None
    reasoning: str | None = None
    subset: bool = False  # the test checks only the names and the arguments it lists (ANY: present)


class _Any:
    """An argument the peer's test only asks to be present."""

    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()


@dataclass(frozen=True)
class PeerCase:
    """`id` is unique across peers; `source` is the peer's file and test; `tools` a key of TOOLSETS."""

    id: str
    source: str
    text: str
    expect: Expect
    tools: str = "none"
    truncated: bool = False
    chunks: tuple[str, ...] = ()  # the peer's own streamed split, where its test gives one
    sizes: tuple[int, ...] = SIZES  # the chunk sizes it is streamed in


def case(
    id: str,
    source: str,
    text: str,
    calls: list[Call] | None = None,
    content: str | None = None,
    *,
    reasoning: str | None = None,
    subset: bool = False,
    tools: str = "none",
    truncated: bool = False,
    chunks: tuple[str, ...] = (),
    sizes: tuple[int, ...] = SIZES,
) -> PeerCase:
    expect = Expect(None if calls is None else tuple(calls), content, reasoning, subset)
    return PeerCase(id, source, text, expect, tools, truncated, chunks, sizes)


def _tool(name: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> ToolSpec:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return ToolSpec(name, name, schema)


_S: dict[str, Any] = {"type": "string"}
_I: dict[str, Any] = {"type": "integer"}
_N: dict[str, Any] = {"type": "number"}
_B: dict[str, Any] = {"type": "boolean"}
_O: dict[str, Any] = {"type": "object"}
_A: dict[str, Any] = {"type": "array"}

# vLLM's qwen3coder / qwen3xml tests: get_current_weather and calculate_area.
_VLLM_WEATHER = _tool(
    "get_current_weather",
    {"city": _S, "state": _S, "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]}},
    ("city", "state"),
)
_VLLM_AREA = _tool("calculate_area", {"shape": _S, "dimensions": _O, "precision": _I})

_NULLABLE_STRING: dict[str, Any] = {"anyOf": [_S, {"type": "null"}]}
_WRITE_FILE = _tool("write_file", {"path": _S, "content": _S})

TOOLSETS: dict[str, tuple[ToolSpec, ...]] = {
    "none": (),
    "vllm_weather_area": (_VLLM_WEATHER, _VLLM_AREA),
    "vllm_types": (
        _tool(
            "test_types",
            {"int_param": _I, "float_param": {"type": "float"}, "bool_param": _B, "str_param": _S, "obj_param": _O},
        ),
    ),
    "vllm_anyof": (
        _tool(
            "test_anyof",
            {
                "anyof_int": {"anyOf": [_I, {"type": "null"}], "default": 5},
                "anyof_str": {"anyOf": [_S, {"type": "null"}]},
                "anyof_array": {"anyOf": [{"type": "array", "items": _S}, {"type": "null"}]},
                "anyof_obj": {"anyOf": [_O, {"type": "null"}]},
                "type_as_array": {"type": ["integer", "null"]},
                "multi_non_null": {"anyOf": [_S, _I, {"type": "null"}]},
            },
        ),
        _tool(
            "search_web",
            {
                "query": {"anyOf": [_S, {"type": "null"}]},
                "count": {"anyOf": [_I, {"type": "null"}], "default": 5},
                "verbose": {"anyOf": [_B, {"type": "null"}]},
            },
        ),
        _tool("update_record", {"data": {"anyOf": [_O, {"type": "null"}]}}),
        _tool("greet", {"message": _S}),
    ),
    # vLLM's test_qwen3_xml_coder_shared.py: one small tool per test, none sharing a name.
    "vllm_shared": (
        _tool(
            "test_types",
            {"int_param": _I, "float_param": {"type": "float"}, "bool_param": _B, "str_param": _S, "obj_param": _O},
        ),
        _tool("update_record", {"data": {"anyOf": [_O, {"type": "null"}]}}),
        _tool("process", {"name": _S, "data": _O}),
        _WRITE_FILE,
        _tool("pick", {"items": _A}),
        _tool("get_weather", {"city": _S}),
        _tool("search", {"query": _S}),
        _tool("set_code", {"code": _NULLABLE_STRING}),
        _tool("set_count", {"count": {"anyOf": [_I, {"type": "null"}]}}),
        _tool("set_value", {"optional": _NULLABLE_STRING}),
        _tool("log", {"msg": _S}),
    ),
    "write_file": (_WRITE_FILE,),
    # SGLang's test_qwen3_coder_detector/test_fixtures.py
    "sglang_coder": (
        _tool(
            "get_current_weather",
            {"location": _S, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "days": _I},
            ("location",),
        ),
        _tool("sql_interpreter", {"query": _S, "dry_run": _B}),
        _tool(
            "TodoWrite",
            {
                "todos": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"content": _S, "status": _S},
                        "required": ["content", "status"],
                    },
                }
            },
        ),
    ),
    # SGLang's test_qwen25_detector.py and unit/test_qwen3_coder_detector.py
    "sglang_weather": (
        _tool(
            "get_weather",
            {"city": _S, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "days": _I},
            ("city",),
        ),
        _tool("search", {"query": _S}, ("query",)),
    ),
    # SGLang's test_qwen3_coder_numeric_precision.py: one `lookup(value)` per schema
    "sglang_lookup_number": (_tool("lookup", {"value": _N}),),
    "sglang_lookup_nullable_number": (_tool("lookup", {"value": {"anyOf": [_N, {"type": "null"}]}}),),
    "sglang_lookup_integer": (_tool("lookup", {"value": _I}),),
    "sglang_lookup_string": (_tool("lookup", {"value": _S}),),
}


@dataclass
class Reading:
    """What our parser made of a reply: the calls, the errors returned to the model, text, reasoning."""

    calls: list[Call] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    content: str = ""
    reasoning: str = ""


def _reading(events: list[Event]) -> Reading:
    completion = Completion()
    for event in events:
        completion.add(event)
    return Reading(
        [(call.name, call.arguments) for call in completion.tool_calls],
        [error.message for error in completion.tool_call_errors],
        completion.text,
        completion.reasoning,
    )


def _ids() -> Any:
    return lambda: "id"


def _streamed(peer_case: PeerCase, pieces: list[str]) -> Reading:
    parser = ReplyParser(TOOLSETS[peer_case.tools], id_factory=_ids())
    events: list[Event] = []
    for piece in pieces:
        events += parser.feed(piece)
    return _reading(events + parser.finish(truncated=peer_case.truncated))


def readings(peer_case: PeerCase) -> dict[str, Reading]:
    """The reply read whole and in every split: 'whole', 'chunks of N', 'peer split'."""
    text = peer_case.text
    out = {
        "whole": _reading(
            parse_reply(text, TOOLSETS[peer_case.tools], id_factory=_ids(), truncated=peer_case.truncated)
        )
    }
    for size in peer_case.sizes:
        out[f"chunks of {size}"] = _streamed(peer_case, [text[i : i + size] for i in range(0, len(text), size)])
    if peer_case.chunks:
        out["peer split"] = _streamed(peer_case, list(peer_case.chunks))
    return out


def _call_matches(got: Call, wanted: Call, subset: bool) -> bool:
    (name, arguments), (wanted_name, wanted_arguments) = got, wanted
    if name != wanted_name:
        return False
    if not subset:
        return bool(arguments == wanted_arguments)
    return isinstance(arguments, dict) and all(
        key in arguments and (value is ANY or arguments[key] == value) for key, value in wanted_arguments.items()
    )


def matches(reading: Reading, expect: Expect) -> bool:
    """The peers' tests compare calls exactly (or only what they list) and content with its edges'
    whitespace ignored."""
    if expect.calls is not None and (
        len(reading.calls) != len(expect.calls)
        or not all(
            _call_matches(got, wanted, expect.subset) for got, wanted in zip(reading.calls, expect.calls, strict=True)
        )
    ):
        return False
    if expect.content is not None and reading.content.strip() != expect.content.strip():
        return False
    return expect.reasoning is None or reading.reasoning.strip() == expect.reasoning.strip()


def disagreements(peer_case: PeerCase, expect: Expect | None = None) -> dict[str, Reading]:
    """The readings that differ from `expect` (the peer's, unless given): empty when all agree."""
    wanted = expect or peer_case.expect
    return {how: reading for how, reading in readings(peer_case).items() if not matches(reading, wanted)}
