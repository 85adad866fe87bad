# ruff: noqa: E501  (the peers' model outputs, copied whole as test data, are long lines)
"""SGLang's parser tests for Qwen's formats (sgl-project/sglang): the Qwen 2.5 / Qwen 3 detector (JSON in
`<tool_call>`) and the Qwen3-Coder detector (the XML form). Inputs copied as test data; expectations are
what each cited test asserts."""

from __future__ import annotations

from .case import PeerCase, case

Q = "test/registered/unit/function_call/test_qwen25_detector.py::TestQwen25Detector::"
K = "test/registered/unit/function_call/test_qwen3_coder_detector.py::TestQwen3CoderDetectorMalformedParameterEnd::"
R = "test/registered/function_call/test_qwen3_coder_detector/test_cases.py::"
P = "test/registered/unit/function_call/test_qwen3_coder_numeric_precision.py::TestQwen3CoderNumericPrecision::"

BEIJING = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Beijing"}}\n</tool_call>'


def _days_call(city_block: str) -> str:
    """SGLang's `_call`: a city value followed by `days`, the value's close written by the caller."""
    return (
        "<tool_call>\n<function=get_weather>\n"
        f"<parameter=city>\n{city_block}\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )


def _lookup(raw: str) -> str:
    return f"<tool_call><function=lookup><parameter=value>{raw}</parameter></function></tool_call>"


QWEN25: list[PeerCase] = [
    case(
        "sglang-qwen25-single",
        Q + "test_single_tool_call",
        BEIJING,
        [("get_weather", {"city": "Beijing"})],
        "",
        tools="sglang_weather",
    ),
    case(
        "sglang-qwen25-multiple",
        Q + "test_multiple_tool_calls",
        BEIJING + '\n<tool_call>\n{"name": "search", "arguments": {"query": "restaurants"}}\n</tool_call>',
        [("get_weather", {}), ("search", {})],
        subset=True,
        tools="sglang_weather",
    ),
    case(
        "sglang-qwen25-preceding-text",
        Q + "test_tool_call_with_preceding_text",
        'Let me check the weather.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Shanghai"}}\n</tool_call>',
        [("get_weather", {})],
        "Let me check the weather.",
        subset=True,
        tools="sglang_weather",
    ),
    case(
        "sglang-qwen25-no-call",
        Q + "test_no_tool_call",
        "Hello, how can I help you today?",
        [],
        "Hello, how can I help you today?",
        tools="sglang_weather",
    ),
    case(
        "sglang-qwen25-malformed-json",
        Q + "test_malformed_json",
        "<tool_call>\n{invalid json}\n</tool_call>",
        [],
        tools="sglang_weather",
    ),
    case(
        "sglang-qwen25-extra-whitespace",
        Q + "test_tool_call_with_extra_whitespace",
        '<tool_call>\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}}  \n</tool_call>',
        [("get_weather", {"city": "Tokyo"})],
        tools="sglang_weather",
    ),
    case(
        "sglang-qwen25-streaming",
        Q + "test_streaming_single_call",
        BEIJING,
        [("get_weather", {"city": "Beijing"})],
        tools="sglang_weather",
        chunks=("<tool_call>\n", '{"name": "get_weather",', ' "arguments": {"city": "Beijing"}}', "\n</tool_call>"),
    ),
    case(
        "sglang-qwen25-text-before-streaming",
        Q + "test_streaming_normal_text_before_call",
        "Hello there! ",
        [],
        "Hello there!",
        tools="sglang_weather",
    ),
]

CODER: list[PeerCase] = [
    *(
        case(
            f"sglang-coder-drifted-end-{marker.strip('<>/')}",
            K + f"test_non_streaming_strips_drifted_end_marker[{marker}]",
            _days_call(f"Shanghai\n{marker}"),
            [("get_weather", {"city": "Shanghai", "days": 3})],
            tools="sglang_weather",
        )
        for marker in ("</parameter1>", "</parameter_function>", "</parameter")
    ),
    case(
        "sglang-coder-well-formed",
        K + "test_well_formed_value_unchanged",
        _days_call("Shanghai\n</parameter>"),
        [("get_weather", {"city": "Shanghai", "days": 3})],
        tools="sglang_weather",
    ),
    case(
        "sglang-coder-angle-brackets-kept",
        K + "test_angle_brackets_inside_value_are_kept",
        _days_call("a <b>tag</b> city\n</parameter>"),
        [("get_weather", {"city": "a <b>tag</b> city"})],
        subset=True,
        tools="sglang_weather",
    ),
    *(
        case(
            f"sglang-coder-closed-value-like-marker-{index}",
            K + "test_closed_value_ending_like_a_marker_is_kept",
            _days_call(f"{value}\n</parameter>"),
            [("get_weather", {"city": value})],
            subset=True,
            tools="sglang_weather",
        )
        for index, value in enumerate(("<config>\n  <p>1</p>\n</parameters>", "x </parameterList>"))
    ),
    case(
        "sglang-coder-long-whitespace-unclosed",
        K + "test_long_whitespace_run_in_unclosed_value_parses_in_linear_time",
        _days_call("a" + " " * 100_000 + "b"),
        [("get_weather", {"city": "a" + " " * 100_000 + "b"})],
        subset=True,
        tools="sglang_weather",
        sizes=(4096,),
    ),  # streamed in small pieces, an XML call is re-read per piece
    case(
        "sglang-registry-plain-text",
        R + "test_plain_text",
        "This is plain text test",
        [],
        "This is plain text test",
        tools="sglang_coder",
    ),
    case(
        "sglang-registry-single",
        R + "test_single_tool_call",
        "<function=get_current_weather>\n<parameter=location>Boston</parameter>\n<parameter=unit>celsius</parameter>\n"
        "<parameter=days>3</parameter>\n</function>",
        [("get_current_weather", {"location": "Boston", "unit": "celsius", "days": 3})],
        "",
        tools="sglang_coder",
    ),
    case(
        "sglang-registry-single-with-text",
        R + "test_single_tool_call_with_text",
        "Text prefix + tool call test\n\n<function=get_current_weather>\n<parameter=location>Boston</parameter>\n"
        "<parameter=unit>celsius</parameter>\n<parameter=days>3</parameter>\n</function>",
        [("get_current_weather", {"location": "Boston", "unit": "celsius", "days": 3})],
        "Text prefix + tool call test",
        tools="sglang_coder",
    ),
    case(
        "sglang-registry-double",
        R + "test_double_tool_call",
        "Text prefix + double tool call test\n\n<function=get_current_weather>\n<parameter=location>New York</parameter>\n"
        "</function>\n<function=sql_interpreter>\n<parameter=query>SELECT * FROM users</parameter>\n"
        "<parameter=dry_run>True</parameter>\n</function>\n",
        [
            ("get_current_weather", {"location": "New York"}),
            ("sql_interpreter", {"query": "SELECT * FROM users", "dry_run": True}),
        ],
        "Text prefix + double tool call test",
        tools="sglang_coder",
    ),
    case(
        "sglang-registry-random-fragmentation",
        R + "test_random_fragmentation_stress_test",
        "Text prefix + random fragmentation stress test\n\n<function=get_current_weather>\n"
        "<parameter=location>San Francisco</parameter>\n</function>",
        [("get_current_weather", {"location": "San Francisco"})],
        "Text prefix + random fragmentation stress test",
        tools="sglang_coder",
    ),
    case(
        "sglang-registry-implicit-parameter-close",
        R + "test_implicit_parameter_close",
        "Text prefix + implicit parameter close test\n\n<function=get_current_weather>\n<parameter=location>Paris\n"
        "<parameter=unit>celsius\n<parameter=days>3\n</function>",
        [("get_current_weather", {"location": "Paris", "unit": "celsius", "days": 3})],
        "Text prefix + implicit parameter close test",
        tools="sglang_coder",
    ),
    case(
        "sglang-registry-complex-schema",
        R + "test_complex_schema_toolcall",
        "Text prefix + complex schema tool call test\n\n<function=TodoWrite>\n<parameter=todos>\n[\n"
        ' {"content": "Buy a new car", "status": \'pending\'},\n {"content": "Buy a new house", "status": "completed"}\n]\n'
        "</parameter>\n</function>\n\n",
        [
            (
                "TodoWrite",
                {
                    "todos": [
                        {"content": "Buy a new car", "status": "pending"},
                        {"content": "Buy a new house", "status": "completed"},
                    ]
                },
            )
        ],
        "Text prefix + complex schema tool call test",
        tools="sglang_coder",
    ),
]

_BIG = 9007199254740993
NUMERIC: list[PeerCase] = [
    *(
        case(
            f"sglang-number-big-{index}",
            P + "test_number_schema_preserves_large_integer_literals",
            _lookup(raw),
            [("lookup", {"value": value})],
            "",
            tools="sglang_lookup_number",
        )
        for index, (raw, value) in enumerate(
            [(str(v), v) for v in (_BIG, -_BIG, 18446744073709551615, 1790892345000000001)] + [(f" {_BIG} ", _BIG)]
        )
    ),
    case(
        "sglang-nullable-number-big",
        P + "test_nullable_number_schema_preserves_large_integer_literals",
        _lookup(str(_BIG)),
        [("lookup", {"value": _BIG})],
        "",
        tools="sglang_lookup_nullable_number",
    ),
    *(
        case(
            f"sglang-number-other-{raw}",
            P + "test_other_numeric_forms_are_unchanged",
            _lookup(raw),
            [("lookup", {"value": value})],
            "",
            tools="sglang_lookup_number",
        )
        for raw, value in (
            ("42", 42),
            ("-12.5", -12.5),
            ("1.25e3", 1250.0),
            ("not-a-number", "not-a-number"),
            ("null", None),
        )
    ),
    case(
        "sglang-integer-big",
        P + "test_integer_and_string_schemas_are_unchanged",
        _lookup(str(_BIG)),
        [("lookup", {"value": _BIG})],
        "",
        tools="sglang_lookup_integer",
    ),
    case(
        "sglang-string-big",
        P + "test_integer_and_string_schemas_are_unchanged",
        _lookup(str(_BIG)),
        [("lookup", {"value": str(_BIG)})],
        "",
        tools="sglang_lookup_string",
    ),
]
