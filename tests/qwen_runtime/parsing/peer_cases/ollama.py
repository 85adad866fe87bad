# ruff: noqa: E501  (the peers' model outputs, copied whole as test data, are long lines)
"""Ollama's parser tests for the XML form (ollama/ollama, model/parsers/qwen3coder_test.go): how the reply
is split into content and calls while it streams, how a call's body is read, and how each value is
converted for its declared type. Inputs copied as test data; expectations are what each test asserts."""

from __future__ import annotations

from typing import Any

from qwen_runtime.types import ToolSpec

from .case import TOOLSETS, PeerCase, case

F = "model/parsers/qwen3coder_test.go::"
NBSP, IDEOGRAPHIC = "\u00a0", "\u3000"
WEATHER_BODY = (
    "<function=get_current_temperature>\n<parameter=location>\nSan Francisco\n</parameter>\n<parameter=unit>\n"
    "celsius\n</parameter>\n</function>"
)


def _wrapped(body: str) -> str:
    """A call body as the model writes it, inside its `<tool_call>` (Ollama's test reads the body alone)."""
    return f"<tool_call>\n{body}\n</tool_call>"


def _split(text: str, *pieces: str) -> tuple[str, ...]:
    assert "".join(pieces) == text
    return pieces


# The streaming splitter's cases: `<tool_call>abc</tool_call>` there is a raw body handed to the call
# reader later, not a call; what these tests assert is the content around it, so only that is compared.
STREAMING: list[PeerCase] = [
    case(
        "ollama-stream-word-by-word",
        F + "TestQwenParserStreaming/simple message streamed word by word",
        "hi there",
        [],
        "hi there",
        chunks=("hi", " there"),
    ),
    case(
        "ollama-stream-content-before-call",
        F + "TestQwenParserStreaming/multiple tool calls in one message",
        "before1" + _wrapped(WEATHER_BODY) + "after1" + _wrapped(WEATHER_BODY) + "after2",
        [("get_current_temperature", {}), ("get_current_temperature", {})],
        "before1after1after2",
        subset=True,
    ),
    case(
        "ollama-stream-split-tags",
        F + "TestQwenParserStreaming/tool calls with split tags",
        "before<tool_call>" + WEATHER_BODY + "</tool_call>after",
        [("get_current_temperature", {})],
        "beforeafter",
        subset=True,
        chunks=("before<tool", "_call>" + WEATHER_BODY + "</tool", "_call>af", "ter"),
    ),
    case(
        "ollama-stream-whitespace-before-call",
        F + "TestQwenParserStreaming/trailing whitespace between content and tool call",
        "abc\n<tool_call>" + WEATHER_BODY + "</tool_call>",
        [("get_current_temperature", {})],
        "abc",
        subset=True,
    ),
    case(
        "ollama-stream-whitespace-after-call",
        F + "TestQwenParserStreaming/trailing whitespace between tool call and content",
        "<tool_call>" + WEATHER_BODY + "</tool_call>\ndef",
        [("get_current_temperature", {})],
        "def",
        subset=True,
    ),
    case(
        "ollama-stream-partial-open-fakeout",
        F + "TestQwenParserStreaming/partial tool open tag fakeout",
        "abc\n<tool_call fakeout",
        [],
        "abc\n<tool_call fakeout",
        chunks=("abc\n<tool_call", " fakeout"),
    ),
    case(
        "ollama-stream-token-whitespace",
        F + "TestQwenParserStreaming/token-by-token whitespace handling",
        "a\nb",
        [],
        "a\nb",
        chunks=("a", "\n", "b"),
    ),
    case(
        "ollama-stream-unicode",
        F + "TestQwenParserStreaming/unicode content",
        "你好 🌍<tool_call>" + WEATHER_BODY + "</tool_call>مرحبا",
        [("get_current_temperature", {})],
        "你好 🌍مرحبا",
        subset=True,
    ),
    case(
        "ollama-stream-emoji-after-call",
        F + "TestQwenParserStreaming/emoji after tool call",
        "<tool_call>" + WEATHER_BODY + "</tool_call>完成 ✅",
        [("get_current_temperature", {})],
        "完成 ✅",
        subset=True,
    ),
    case(
        "ollama-stream-unicode-whitespace",
        F + "TestQwenParserStreaming/unicode streaming with whitespace handling",
        "مرحبا \n世界",
        [],
        "مرحبا \n世界",
        chunks=("مرحبا", " \n", "世界"),
    ),
    case(
        "ollama-stream-nbsp-withheld",
        F + "TestQwenParserStreaming/non-breaking space withheld across chunks",
        f"Hello{NBSP}world",
        [],
        f"Hello{NBSP}world",
        chunks=(f"Hello{NBSP}", "world"),
    ),
    case(
        "ollama-stream-ideographic-space-call",
        F + "TestQwenParserStreaming/ideographic space before partial tool",
        f"Hello{IDEOGRAPHIC}<tool_call>{WEATHER_BODY}</tool_call>def",
        [("get_current_temperature", {})],
        "Hellodef",
        subset=True,
        chunks=(f"Hello{IDEOGRAPHIC}<tool", f"_call>{WEATHER_BODY}", "</tool_call>def"),
    ),
    case(
        "ollama-stream-ideographic-fakeout",
        F + "TestQwenParserStreaming/ideographic space before partial tool fakeout",
        f"Hello{IDEOGRAPHIC}<toolfakeout>abc",
        [],
        f"Hello{IDEOGRAPHIC}<toolfakeout>abc",
        chunks=(f"Hello{IDEOGRAPHIC}<tool", "fakeout>abc"),
    ),
]


def _tool(name: str, properties: dict[str, Any]) -> ToolSpec:
    return ToolSpec(name, name, {"type": "object", "properties": properties})


TOOLSETS["ollama_calculate"] = (
    _tool(
        "calculate",
        {"x": {"type": "number"}, "y": {"type": "integer"}, "enabled": {"type": "boolean"}, "items": {"type": "array"}},
    ),
)

CALL_BODIES: list[PeerCase] = [
    case(
        "ollama-body-simple",
        F + "TestQwenToolParser/simple tool call",
        _wrapped(WEATHER_BODY),
        [("get_current_temperature", {"location": "San Francisco", "unit": "celsius"})],
    ),
    case(
        "ollama-body-names-with-spaces",
        F + "TestQwenToolParser/names with spaces",
        _wrapped(
            "<function=get current temperature>\n<parameter=location with spaces>\nSan Francisco\n</parameter>\n"
            "<parameter=unit with spaces>\ncelsius\n</parameter>\n</function>"
        ),
        [("get current temperature", {"location with spaces": "San Francisco", "unit with spaces": "celsius"})],
    ),
    case(
        "ollama-body-names-with-quotes",
        F + "TestQwenToolParser/names with quotes",
        _wrapped(
            '<function="get current temperature">\n<parameter="location with spaces">\nSan Francisco\n'
            '</parameter>\n<parameter="unit with spaces">\n"celsius"\n</parameter>\n</function>'
        ),
        [('"get current temperature"', {'"location with spaces"': "San Francisco", '"unit with spaces"': '"celsius"'})],
    ),
    case(
        "ollama-body-typed",
        F + "TestQwenToolParser/tool call with typed parameters",
        _wrapped(
            "<function=calculate>\n<parameter=x>\n3.14\n</parameter>\n<parameter=y>\n42\n</parameter>\n"
            '<parameter=enabled>\ntrue\n</parameter>\n<parameter=items>\n["a", "b", "c"]\n</parameter>\n</function>'
        ),
        [("calculate", {"x": 3.14, "y": 42, "enabled": True, "items": ["a", "b", "c"]})],
        tools="ollama_calculate",
    ),
    case(
        "ollama-body-ampersands",
        F + "TestQwenToolParser/ampersands in parameter values",
        _wrapped('<function=exec>\n<parameter=command>\nls && echo "done"\n</parameter>\n</function>'),
        [("exec", {"command": 'ls && echo "done"'})],
    ),
    case(
        "ollama-body-angle-brackets",
        F + "TestQwenToolParser/angle brackets in parameter values",
        _wrapped('<function=exec>\n<parameter=command>\nls && echo "a > b and a < b"\n</parameter>\n</function>'),
        [("exec", {"command": 'ls && echo "a > b and a < b"'})],
    ),
    case(
        "ollama-body-unicode",
        F + "TestQwenToolParser/unicode in function names and parameters",
        _wrapped(
            "<function=获取天气>\n<parameter=城市>\n北京\n</parameter>\n<parameter=message>\nHello! 你好! 🌟 مرحبا\n"
            "</parameter>\n</function>"
        ),
        [("获取天气", {"城市": "北京", "message": "Hello! 你好! 🌟 مرحبا"})],
    ),
]

_TASKS = '[{"content": "task 1", "status": "pending", "priority": "high", "id": "1"}, {"content": "task 2", "status": "completed", "priority": "low", "id": "2"}]'
# (test name, declared types, the value's raw text, what the test expects)
_VALUES: list[tuple[str, tuple[str, ...], str, Any]] = [
    ("default string value (no type specified)", (), "some-string", "some-string"),
    ("trim a single leading and trailing newline", (), "\nsome-string\n", "some-string"),
    ("trim at most one leading and trailing newline", (), "\n\nsome-string\n\n", "\nsome-string\n"),
    ("newline really has to be the first character to be trimmed", (), " \nsome-string\n ", " \nsome-string\n "),
    ("numeric type", ("number",), "123", 123),
    ("integer type", ("integer",), "42", 42),
    ("negative integer", ("integer",), "-100", -100),
    ("zero integer", ("integer",), "0", 0),
    ("integer with leading zeros", ("integer",), "007", 7),
    ("large integer", ("integer",), "2147483648", 2147483648),
    ("float type", ("number",), "3.14", 3.14),
    ("negative float", ("number",), "-273.15", -273.15),
    ("float without decimal part", ("number",), "100.0", 100),
    ("scientific notation positive", ("number",), "1.23e5", 123000),
    ("scientific notation negative", ("number",), "1.5e-3", 0.0015),
    ("very small float", ("number",), "0.00000001", 0.00000001),
    ("explicit string type", ("string",), "hello world", "hello world"),
    (
        "string with special characters",
        ("string",),
        "/usr/local/bin/test-file_v2.0.sh",
        "/usr/local/bin/test-file_v2.0.sh",
    ),
    ("string with quotes", ("string",), 'He said "hello" to me', 'He said "hello" to me'),
    ("multiline string", ("string",), "line one\nline two\nline three", "line one\nline two\nline three"),
    ("empty string", ("string",), "", ""),
    ("string that looks like a number", ("string",), "12345", "12345"),
    ("boolean true", ("boolean",), "true", True),
    ("boolean false", ("boolean",), "false", False),
    ("boolean case insensitive true", ("boolean",), "True", True),
    ("boolean case insensitive false", ("boolean",), "FALSE", False),
    ("null value lowercase", ("string",), "null", None),
    ("null value case insensitive", ("integer",), "NULL", None),
    ("array of strings", ("array",), '["foo", "bar", "baz"]', ["foo", "bar", "baz"]),
    ("array of numbers", ("array",), "[1, 2.5, 3]", [1, 2.5, 3]),
    ("array of mixed types", ("array",), '["string", 123, true, null]', ["string", 123, True, None]),
    ("empty array", ("array",), "[]", []),
    ("simple object", ("object",), '{"key": "value", "number": 42}', {"key": "value", "number": 42}),
    ("nested object", ("object",), '{"outer": {"inner": "value"}}', {"outer": {"inner": "value"}}),
    ("empty object", ("object",), "{}", {}),
    ("invalid integer falls back to string", ("integer",), "not-a-number", "not-a-number"),
    ("invalid float falls back to string", ("number",), "3.14.159", "3.14.159"),
    ("invalid boolean falls back to false", ("boolean",), "yes", False),
    ("invalid JSON array falls back to string", ("array",), "[1, 2, unclosed", "[1, 2, unclosed"),
    ("invalid JSON object falls back to string", ("object",), '{"key": unclosed', '{"key": unclosed'),
    ("integer overflow should use int64", ("integer",), "2147483648", 2147483648),
    ("float with many decimal places", ("number",), "3.141592653589793", 3.141592653589793),
    (
        "string with JSON-like content",
        ("string",),
        '{"this": "is", "just": "a string"}',
        '{"this": "is", "just": "a string"}',
    ),
    ("whitespace-only string", ("string",), "   ", "   "),
    ("parameter not in tool definition defaults to string", (), "some value", "some value"),
    ("string or number union - valid number", ("string", "number"), "42.5", 42.5),
    ("string or number union - non-numeric string", ("string", "number"), "hello", "hello"),
    ("number or string union - valid number (order shouldn't matter)", ("number", "string"), "42.5", 42.5),
    ("integer or null union - valid integer", ("integer", "null"), "123", 123),
    ("integer or null union - null value", ("integer", "null"), "null", None),
    ("null or integer union - null value (order shouldn't matter)", ("null", "integer"), "null", None),
    ("boolean or string union - valid boolean", ("boolean", "string"), "true", True),
    ("boolean or string union - non-boolean becomes string", ("boolean", "string"), "yes", "yes"),
    ("string or boolean union - valid boolean (precedence test)", ("string", "boolean"), "false", False),
    ("integer or number union - integer value", ("integer", "number"), "42", 42),
    ("integer or number union - float value", ("integer", "number"), "42.5", 42.5),
    ("number or integer union - integer value (precedence test)", ("number", "integer"), "42", 42),
    ("array or object union - valid array", ("array", "object"), "[1, 2, 3]", [1, 2, 3]),
    ("array or object union - valid object", ("array", "object"), '{"key": "value"}', {"key": "value"}),
    ("object or array union - valid array (precedence test)", ("object", "array"), "[1, 2, 3]", [1, 2, 3]),
    ("complex multi-type union - null", ("string", "number", "boolean", "null"), "null", None),
    ("complex multi-type union - boolean", ("string", "number", "boolean", "null"), "true", True),
    ("complex multi-type union - number", ("string", "number", "boolean", "null"), "3.14", 3.14),
    ("complex multi-type union - string", ("string", "number", "boolean", "null"), "hello", "hello"),
    ("integer string union - integer string becomes integer", ("integer", "string"), "123", 123),
    ("string integer union - integer string becomes integer (precedence)", ("string", "integer"), "123", 123),
    (
        "anyOf array or string - with array of objects",
        ("array", "string"),
        _TASKS,
        [
            {"content": "task 1", "status": "pending", "priority": "high", "id": "1"},
            {"content": "task 2", "status": "completed", "priority": "low", "id": "2"},
        ],
    ),
    (
        "anyOf array or string - with plain string",
        ("array", "string"),
        "Error: could not load data",
        "Error: could not load data",
    ),
]


def _value_case(index: int, name: str, types: tuple[str, ...], raw: str, want: Any) -> PeerCase:
    """One value test as a whole call `f(v=raw)`: the tool declares `v` with the test's types (no type: a
    tool the call does not know the parameter of; "parameter not in tool definition": no tool at all)."""
    key = f"ollama_value_{index}"
    schema: dict[str, Any] = {} if not types else {"type": types[0] if len(types) == 1 else list(types)}
    TOOLSETS[key] = () if "not in tool definition" in name else (_tool("f", {"v": schema}),)
    text = f"<tool_call>\n<function=f>\n<parameter=v>{raw}</parameter>\n</function>\n</tool_call>"
    return case(
        f"ollama-value-{index}", F + f"TestQwenToolCallValueParsing/{name}", text, [("f", {"v": want})], "", tools=key
    )


VALUES: list[PeerCase] = [_value_case(index, *row) for index, row in enumerate(_VALUES)]
