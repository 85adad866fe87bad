# ruff: noqa: E501  (the peers' model outputs, copied whole as test data, are long lines)
"""vLLM's parser tests for Qwen's formats (vllm-project/vllm, tests/tool_parsers/): the Hermes parser
(Qwen 3's JSON calls), the qwen3coder and qwen3xml parsers (the XML form). Inputs copied as test data;
expectations are what each cited test asserts.

Long because: one table per vLLM test file, its inputs written out whole."""

from __future__ import annotations

from .case import ANY, PeerCase, case

H = "tests/tool_parsers/test_hermes_tool_parser.py::"
C = "tests/tool_parsers/test_qwen3coder_tool_parser.py::"
S = "tests/tool_parsers/test_qwen3_xml_coder_shared.py::"
X = "tests/tool_parsers/test_qwen3xml_tool_parser.py::TestQwen3xmlToolParser (common_tests.py)::"

DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
DALLAS_XML = (
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
    "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>"
)
RECTANGLE_XML = (
    "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
    '<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n<parameter=precision>\n2\n</parameter>\n'
    "</function>\n</tool_call>"
)
RECTANGLE = {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2}
CIRCLE_XML = (
    "Let me calculate that area for you.<tool_call>\n<function=calculate_area>\n<parameter=shape>\ncircle\n"
    '</parameter>\n<parameter=dimensions>\n{"radius": 15.5}\n</parameter>\n<parameter=precision>\n3\n</parameter>\n'
    "</function>\n</tool_call>"
)
CIRCLE = {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3}
ORLANDO_XML = DALLAS_XML.replace("Dallas", "Orlando").replace("TX", "FL")
MISSING_PARAMETER_CLOSE = (
    "Let me check the weather for you:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n"
    "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>"
)

HERMES: list[PeerCase] = [
    case(
        "vllm-hermes-forward-text",
        H + "test_hermes_parser_streaming_just_forward_text",
        "This is some prior text that has nothing to do with tool calling.",
        [],
        "This is some prior text that has nothing to do with tool calling.",
    ),
    case(
        "vllm-hermes-bug-19056",
        H + "test_hermes_parser_streaming_failure_case_bug_19056",
        '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>',
        [("final_answer", {"trigger": True})],
    ),
    case(
        "vllm-hermes-streaming",
        H + "test_hermes_parser_streaming",
        '<tool_call>{"name": "get_current_temperature","arguments": {"location":'
        '"San Francisco, California, United States", "unit": "celsius"}}</tool_call>',
        [("get_current_temperature", {"location": "San Francisco, California, United States", "unit": "celsius"})],
    ),
    case(
        "vllm-hermes-interval",
        H + "test_hermes_streaming_tool_call_with_stream_interval",
        '<tool_call>{"name": "get_current_temperature", "arguments": {"location": "San Francisco", "unit": "celsius"}}'
        "</tool_call>",
        [("get_current_temperature", {"location": "San Francisco", "unit": "celsius"})],
    ),
    case(
        "vllm-hermes-content-then-call",
        H + "test_hermes_streaming_content_then_tool_call_with_stream_interval",
        'Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>',
        [("get_weather", {"city": "NYC"})],
        "Sure, let me check the weather.",
    ),
    case(
        "vllm-hermes-two-calls",
        H + "test_hermes_streaming_multiple_tool_calls_with_stream_interval",
        '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
        '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>',
        [("search", {"q": "cats"}), ("search", {"q": "dogs"})],
    ),
    case(
        "vllm-hermes-forward-text-2",
        H + "test_hermes_streaming_just_forward_text_with_stream_interval",
        "This is plain text with no tool calling involved.",
        [],
        "This is plain text with no tool calling involved.",
    ),
    case("vllm-hermes-no-call", H + "test_hermes_parser_non_streaming_no_tool_call", "This is not a tool call.", []),
    case(
        "vllm-hermes-until-eos",
        H + "test_hermes_parser_non_streaming_tool_call_until_eos",
        '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}',
        [("final_answer", {"trigger": True})],
    ),
    case(
        "vllm-hermes-invalid-json",
        H + "test_hermes_parser_non_streaming_tool_call_invalid_json",
        '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}',
        [],
    ),
    case(
        "vllm-hermes-serialized-arguments",
        H + "test_hermes_parser_non_streaming_serialized_arguments",
        '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>',
        [("get_db_config", {"param": "max_connections"})],
    ),
    case(
        "vllm-hermes-bare-string-arguments",
        H + "test_hermes_parser_non_streaming_bare_string_arguments",
        '<tool_call>\n{"name": "do_thing", "arguments": "hello"}\n</tool_call>',
        [("do_thing", "hello")],
    ),  # type: ignore[list-item]  # the peer passes the string through
    case(
        "vllm-hermes-content-and-call-one-chunk",
        H + "test_hermes_streaming_content_and_tool_call_in_single_chunk",
        'Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',
        [("f", {"x": 1})],
        "Hi!",
        chunks=('Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',),
    ),
]

CODER: list[PeerCase] = [
    case(
        "vllm-coder-no-tools",
        C + "test_extract_tool_calls_no_tools",
        "This is a test response without any tool calls",
        [],
        "This is a test response without any tool calls",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-single",
        C + "test_extract_tool_calls[single_tool]",
        DALLAS_XML,
        [("get_current_weather", DALLAS)],
        "",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-single-with-content",
        C + "test_extract_tool_calls[single_tool_with_content]",
        "Sure! Let me check the weather for you." + DALLAS_XML,
        [("get_current_weather", DALLAS)],
        "Sure! Let me check the weather for you.",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-multiline-param",
        C + "test_extract_tool_calls[single_tool_multiline_param]",
        RECTANGLE_XML,
        [("calculate_area", RECTANGLE)],
        "",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-parallel",
        C + "test_extract_tool_calls[parallel_tools]",
        DALLAS_XML + "\n" + ORLANDO_XML,
        [("get_current_weather", DALLAS), ("get_current_weather", {**DALLAS, "city": "Orlando", "state": "FL"})],
        "",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-typed-params",
        C + "test_extract_tool_calls[tool_with_typed_params]",
        CIRCLE_XML,
        [("calculate_area", CIRCLE)],
        "Let me calculate that area for you.",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-streaming-parallel-celsius",
        C + "test_extract_tool_calls_streaming[parallel_tools]",
        DALLAS_XML + "\n" + ORLANDO_XML.replace("fahrenheit", "celsius"),
        [
            ("get_current_weather", DALLAS),
            ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "celsius"}),
        ],
        "",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-fallback-no-tags",
        C + "test_extract_tool_calls_fallback_no_tags",
        "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n"
        "</function>",
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-type-conversion",
        C + "test_extract_tool_calls_type_conversion",
        "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n<parameter=float_param>\n3.14\n"
        "</parameter>\n<parameter=bool_param>\ntrue\n</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n"
        '<parameter=obj_param>\n{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
        [
            (
                "test_types",
                {
                    "int_param": 42,
                    "float_param": 3.14,
                    "bool_param": True,
                    "str_param": "hello world",
                    "obj_param": {"key": "value"},
                },
            )
        ],
        tools="vllm_types",
    ),
    case(
        "vllm-coder-anyof-conversion",
        C + "test_extract_tool_calls_anyof_type_conversion",
        "<tool_call>\n<function=test_anyof>\n<parameter=anyof_int>\n5\n</parameter>\n<parameter=anyof_str>\nhello\n"
        '</parameter>\n<parameter=anyof_array>\n["a", "b", "c"]\n</parameter>\n<parameter=anyof_obj>\n{"key": "value"}\n'
        "</parameter>\n<parameter=type_as_array>\n42\n</parameter>\n<parameter=multi_non_null>\nsome text\n</parameter>\n"
        "</function>\n</tool_call>",
        [
            (
                "test_anyof",
                {
                    "anyof_int": 5,
                    "anyof_str": "hello",
                    "anyof_array": ["a", "b", "c"],
                    "anyof_obj": {"key": "value"},
                    "type_as_array": 42,
                    "multi_non_null": "some text",
                },
            )
        ],
        tools="vllm_anyof",
    ),
    case(
        "vllm-coder-anyof-streaming",
        C + "test_extract_tool_calls_anyof_type_conversion_streaming",
        "<tool_call>\n<function=search_web>\n<parameter=query>\nvllm tool parser\n</parameter>\n<parameter=count>\n10\n"
        "</parameter>\n<parameter=verbose>\ntrue\n</parameter>\n</function>\n</tool_call>",
        [("search_web", {"query": "vllm tool parser", "count": 10, "verbose": True})],
        tools="vllm_anyof",
    ),
    case(
        "vllm-coder-missing-parameter-close",
        C + "test_extract_tool_calls_missing_closing_parameter_tag",
        MISSING_PARAMETER_CLOSE,
        [("get_current_weather", DALLAS)],
        "Let me check the weather for you:",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-incremental",
        C + "test_extract_tool_calls_streaming_incremental",
        "I'll check the weather.<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
        "<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>",
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        "I'll check the weather.",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-missing-opening-tag",
        C + "test_extract_tool_calls_streaming_missing_opening_tag",
        "I'll check the weather for you.\n\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
        "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
        [("get_current_weather", DALLAS)],
        "I'll check the weather for you.",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-no-gt-delimiter",
        C + "test_malformed_xml_no_gt_delimiter",
        "<tool_call>\n<function=get_current_weather\n<parameter=city>Dallas</parameter>\n</function>\n</tool_call>",
        None,
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-none-calls-filtered",
        C + "test_none_tool_calls_filtered",
        "<tool_call>\n<function=bad_func_no_gt\n</function>\n</tool_call>\n<tool_call>\n<function=get_current_weather>\n"
        "<parameter=city>Dallas</parameter>\n<parameter=state>TX</parameter>\n</function>\n</tool_call>",
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        tools="vllm_weather_area",
    ),
    case(
        "vllm-coder-anyof-not-double-encoded",
        C + "test_anyof_parameter_not_double_encoded",
        '<tool_call>\n<function=update_record>\n<parameter=data>{"key": "value", "count": 42}</parameter>\n'
        "</function>\n</tool_call>",
        [("update_record", {"data": {"key": "value", "count": 42}})],
        tools="vllm_anyof",
    ),
    case(
        "vllm-coder-multi-param-one-chunk",
        C + "test_streaming_multi_param_single_chunk",
        DALLAS_XML,
        [("get_current_weather", DALLAS)],
        tools="vllm_weather_area",
        chunks=(
            "<tool_call>",
            "\n<function=get_current_weather>",
            "\n",
            "<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\n"
            "fahrenheit\n</parameter>",
            "\n</function>",
            "\n</tool_call>",
        ),
    ),
    case(
        "vllm-coder-string-not-double-serialized",
        C + "test_no_double_serialization_string_args",
        "<tool_call>\n<function=greet>\n<parameter=message>hello world</parameter>\n</function>\n</tool_call>",
        [("greet", {"message": "hello world"})],
        tools="vllm_anyof",
    ),
]


def _call(name: str, *params: tuple[str, str], gap: str = "\n") -> str:
    """A call as the shared tests write it: each value on its own lines (gap "\n") or inline (gap "")."""
    body = "".join(f"<parameter={key}>{gap}{value}{gap}</parameter>\n" for key, value in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


XML_TAGS_IN_CONTENT = 'char_deltas = [\n    "<tool_call>\\n",\n    "<parameter=query>\\n",\n    "\\n</parameter>\\n",\n    "</function>\\n",\n]\n'
PARAM_LIKE_LINES = (
    'TOOL_CALL_TEMPLATE = """\n</parameter>\n<parameter=new_string>\n#!/usr/bin/env python3\n</parameter>\n"""\n'
)
REAL_PARAM_LITERAL = 'doc = """\n<parameter=path>\nliteral/value\n</parameter>\n"""\n'
FULL_NESTED_CALL = (
    'doc = """\n<tool_call>\n<function=write_file>\n<parameter=path>\nliteral/value.txt\n</parameter>\n'
    '<parameter=content>\nhello\n</parameter>\n</function>\n</tool_call>\n"""\n'
)
OUT_OF_SCHEMA_NESTED = (
    'template = """\n<tool_call>\n<function=foo>\n<parameter=bar>baz</parameter>\n</function>\n</tool_call>\n"""\n'
)


def _write_file(path: str, content: str) -> str:
    return (
        f"<tool_call>\n<function=write_file>\n<parameter=path>\n{path}\n</parameter>\n"
        f"<parameter=content>\n{content}</parameter>\n</function>\n</tool_call>\n"
    )


TWO_WEATHER_CALLS = _call("get_weather", ("city", "Paris")) + "\n" + _call("get_weather", ("city", "London"))

SHARED: list[PeerCase] = [
    case(
        "vllm-shared-parallel-newline-content",
        S + "test_extract_tool_calls[parallel_tools]",
        DALLAS_XML + "\n" + ORLANDO_XML,
        [("get_current_weather", DALLAS), ("get_current_weather", {**DALLAS, "city": "Orlando", "state": "FL"})],
        "\n",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-shared-multiline-param-no-space",
        S + "test_extract_tool_calls[single_tool_multiline_param]",
        RECTANGLE_XML.replace("10, \n", "10,\n"),
        [("calculate_area", RECTANGLE)],
        "",
        tools="vllm_weather_area",
    ),
    case(
        "vllm-shared-object-single-quotes",
        S + "test_extract_tool_calls_complex_type_with_single_quote",
        "<tool_call>\n<function=test_types>\n<parameter=obj_param>\n{'key': 'value'}\n</parameter>\n</function>\n</tool_call>",
        [("test_types", {"obj_param": {"key": "value"}})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-speculative-decode-loss",
        S + "test_extract_tool_calls_streaming_speculative_decode_loss",
        "<tool_call>\n<function=test>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        [("test", {"city": "Paris"})],
        chunks=("<tool_call>\n<function=test>\n", "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"),
    ),
    case(
        "vllm-shared-string-null-kept",
        S + "test_string_null_value_preserved",
        _call("search", ("query", "null"), gap=""),
        [("search", {"query": "null"})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-anyof-string-null-keeps-42",
        S + "test_anyof_string_null_keeps_value_as_string",
        _call("set_code", ("code", "42"), gap=""),
        [("set_code", {"code": "42"})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-anyof-integer-null",
        S + "test_anyof_integer_null_parses_as_int",
        _call("set_count", ("count", "42"), gap=""),
        [("set_count", {"count": 42})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-anyof-object-streamed",
        S + "test_anyof_object_param_not_double_encoded_streaming",
        '<tool_call>\n<function=update_record>\n<parameter=data>{"key": "value", "count": 42}</parameter>\n</function>\n'
        "</tool_call>",
        [("update_record", {"data": {"key": "value", "count": 42}})],
        tools="vllm_shared",
        chunks=(
            "<tool_call>",
            "\n<function=update_record>",
            '\n<parameter=data>{"key": "value", "count": 42}</parameter>',
            "\n</function>",
            "\n</tool_call>",
        ),
    ),
    case(
        "vllm-shared-double-encoded-object",
        S + "test_double_encoded_object_param_nonstreaming",
        "<tool_call>\n<function=process>\n<parameter=name>\nhello\n</parameter>\n"
        "<parameter=data>\n\"{'key': 'value', 'n': 1}\"\n</parameter>\n</function>\n</tool_call>\n",
        [("process", {"name": "hello", "data": {"key": "value", "n": 1}})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-xml-tags-in-content",
        S + "test_content_with_xml_structural_tags_nonstreaming",
        _write_file("test.py", XML_TAGS_IN_CONTENT),
        [("write_file", {"path": "test.py", "content": XML_TAGS_IN_CONTENT.rstrip("\n")})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-param-like-lines",
        S + "test_content_with_param_like_lines_streaming",
        _write_file("test_template.py", PARAM_LIKE_LINES),
        [("write_file", {"path": "test_template.py", "content": PARAM_LIKE_LINES.rstrip("\n")})],
        tools="vllm_shared",
        chunks=(
            "<tool_call>\n",
            "<function=write_file>\n",
            "<parameter=path>\ntest_template.py\n</parameter>\n",
            '<parameter=content>\nTOOL_CALL_TEMPLATE = """\n',
            "</parameter>\n",
            "<parameter=new_string>\n",
            "#!/usr/bin/env python3\n",
            "</parameter>\n",
            '"""\n',
            "</parameter>\n",
            "</function>\n",
            "</tool_call>\n",
        ),
    ),
    case(
        "vllm-shared-array-json-bool",
        S + "test_array_with_json_bool",
        '<tool_call>\n<function=pick>\n<parameter=items>\n["a", "b", 1, true]\n</parameter>\n</function>\n</tool_call>',
        [("pick", {"items": ["a", "b", 1, True]})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-two-calls-one-chunk",
        S + "test_two_tool_calls_in_one_streaming_chunk",
        TWO_WEATHER_CALLS,
        [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
        tools="vllm_shared",
        chunks=(TWO_WEATHER_CALLS,),
    ),
    case(
        "vllm-shared-python-none-nullable-int",
        S + "test_python_none_value_for_nullable_int",
        _call("set_count", ("count", "None"), gap=""),
        [("set_count", {"count": None})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-two-calls-trailing-text",
        S + "test_streaming_two_tool_calls_plus_trailing_text_one_delta",
        TWO_WEATHER_CALLS + "\nAll done!",
        [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
        "All done!",
        tools="vllm_shared",
        chunks=(TWO_WEATHER_CALLS + "\nAll done!",),
    ),
    case(
        "vllm-shared-close-and-trailing-text",
        S + "test_streaming_trailing_text_with_final_close_in_same_delta",
        "<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</tool_call>\n"
        "I hope this helps!",
        [("get_weather", {"city": "Paris"})],
        "I hope this helps!",
        tools="vllm_shared",
        chunks=(
            "<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>",
            "\n</tool_call>\nI hope this helps!",
        ),
    ),
    case(
        "vllm-shared-real-param-name-literal",
        S + "test_content_with_real_param_name_literal_streaming",
        _write_file("fixture.py", REAL_PARAM_LITERAL).rstrip("\n"),
        [("write_file", {"path": "fixture.py", "content": REAL_PARAM_LITERAL.rstrip("\n")})],
        tools="vllm_shared",
        chunks=(
            "<tool_call>\n",
            "<function=write_file>\n",
            "<parameter=path>\nfixture.py\n</parameter>\n",
            '<parameter=content>\ndoc = """\n',
            "<parameter=path>\n",
            "literal/value\n",
            "</parameter>\n",
            '"""\n',
            "</parameter>\n",
            "</function>\n",
            "</tool_call>",
        ),
    ),
    case(
        "vllm-shared-full-nested-call",
        S + "test_content_with_full_nested_tool_call_nonstreaming",
        _write_file("fixture.py", FULL_NESTED_CALL).rstrip("\n"),
        [("write_file", {"path": "fixture.py", "content": FULL_NESTED_CALL.rstrip("\n")})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-out-of-schema-nested",
        S + "test_two_tools_second_with_out_of_schema_nested_literal_nonstreaming",
        "<tool_call>\n<function=foo>\n<parameter=bar>baz</parameter>\n</function>\n</tool_call>\n\n"
        + _write_file("fixture.py", OUT_OF_SCHEMA_NESTED).rstrip("\n"),
        [("foo", {"bar": "baz"}), ("write_file", {"path": "fixture.py", "content": OUT_OF_SCHEMA_NESTED.rstrip("\n")})],
        tools="write_file",
    ),
    case(
        "vllm-shared-jinja-phantom",
        S + "test_jinja_template_phantom_tool_call_is_rejected_nonstreaming",
        "<tool_call>\n<function={{ tc.name }}>\n<parameter={{ k }}>\n{{ v }}\n</parameter>\n</function>\n</tool_call>\n\n"
        "<tool_call>\n<function=write_file>\n<parameter=path>\nout.txt\n</parameter>\n<parameter=content>\nhello\n"
        "</parameter>\n</function>\n</tool_call>",
        [("write_file", {"path": "out.txt", "content": "hello"})],
        tools="write_file",
    ),
    case(
        "vllm-shared-inline-empty-call",
        S + "test_inline_empty_tool_call_preserves_content_before_real_call",
        "I'll show: <tool_call>example</tool_call>. Now real:\n<tool_call>\n<function=log>\n<parameter=msg>\nhi\n"
        "</parameter>\n</function>\n</tool_call>",
        [("log", {"msg": "hi"})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-anyof-string-null-literal-null",
        S + "test_anyof_string_null_with_null_literal_returns_none",
        _call("set_value", ("optional", "null"), gap=""),
        [("set_value", {"optional": None})],
        tools="vllm_shared",
    ),
    case(
        "vllm-shared-anyof-string-null-literal-none",
        S + "test_anyof_string_null_with_null_literal_returns_none",
        _call("set_value", ("optional", "None"), gap=""),
        [("set_value", {"optional": None})],
        tools="vllm_shared",
    ),
]

XML_COMMON: list[PeerCase] = [
    case(
        "vllm-xml-no-calls",
        X + "test_no_tool_calls",
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    case(
        "vllm-xml-single",
        X + "test_single_tool_call_simple_args",
        "<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n</function>\n</tool_call>",
        [("get_weather", {"city": "Tokyo"})],
        subset=True,
    ),
    case(
        "vllm-xml-parallel",
        X + "test_parallel_tool_calls",
        "<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n</function>\n</tool_call><tool_call>\n"
        "<function=get_time>\n<parameter=timezone>Asia/Tokyo</parameter>\n</function>\n</tool_call>",
        [("get_weather", {}), ("get_time", {})],
        subset=True,
    ),
    case(
        "vllm-xml-various-types",
        X + "test_various_data_types",
        "<tool_call>\n<function=test_function>\n<parameter=string_field>hello</parameter>\n"
        "<parameter=int_field>42</parameter>\n<parameter=float_field>3.14</parameter>\n"
        "<parameter=bool_field>true</parameter>\n<parameter=null_field>null</parameter>\n"
        '<parameter=array_field>["a", "b", "c"]</parameter>\n<parameter=object_field>{"nested": "value"}</parameter>\n'
        "</function>\n</tool_call>",
        [
            (
                "test_function",
                dict.fromkeys(
                    (
                        "string_field",
                        "int_field",
                        "float_field",
                        "bool_field",
                        "null_field",
                        "array_field",
                        "object_field",
                    ),
                    ANY,
                ),
            )
        ],
        subset=True,
    ),
    case(
        "vllm-xml-empty-arguments",
        X + "test_empty_arguments",
        "<tool_call>\n<function=refresh>\n</function>\n</tool_call>",
        [("refresh", {})],
    ),
    case(
        "vllm-xml-surrounding-text",
        X + "test_surrounding_text",
        "Let me check the weather for you.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n"
        "</function>\n</tool_call>\n\nI will get that information.",
        [("get_weather", {})],
        subset=True,
    ),
    case(
        "vllm-xml-escaped-strings",
        X + "test_escaped_strings",
        '<tool_call>\n<function=test_function>\n<parameter=quoted>He said "hello"</parameter>\n'
        "<parameter=path>C:\\Users\\file.txt</parameter>\n<parameter=newline>line1\nline2</parameter>\n"
        "</function>\n</tool_call>",
        [("test_function", {"quoted": ANY})],
        subset=True,
    ),
    case("vllm-xml-malformed-open-function", X + "test_malformed_input", "<tool_call><function=func>", None),
    case(
        "vllm-xml-malformed-empty-name",
        X + "test_malformed_input",
        "<tool_call><function=></function></tool_call>",
        None,
    ),
]
