"""The peers' cases we read differently on purpose, each with our reading and the reason (issue 51).

Every other peer case must agree (tests/qwen_runtime/parsing/test_peer_cases.py); a case listed here
must still differ from the peer and read exactly as pinned, so a change either way shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from .case import Call

WHOLE_VALUES_RUN = (
    "A JSON call whose values all closed and whose reply simply ended with its last braces missing runs, "
    "as an XML call whose last </parameter> came runs: the model stopped, nothing it wrote is lost. vLLM "
    "drops it. Cut off at max_tokens, or left open before a whole value, it is an error (never a call)."
)
OBJECT_ARGUMENTS = (
    'Arguments are an object. A bare string ("hello") is an error returned to the model, which can retry; '
    "vLLM passes the string on and a tool receives arguments it cannot read."
)
OFFERED_TOOLS_ONLY = (
    "A call to a tool that was not offered is an error returned to the model naming the tools there are, "
    "never a call; vLLM surfaces `foo` and leaves the client to fail on it."
)
SCHEMA_TYPES = (
    'A value that is not of its declared type ("not-a-number" or "null" for a number, "yes" or '
    '"FALSE" for a boolean, "007", "NULL", unclosed JSON for an array or object) is an error returned '
    "to the model naming the parameter, not passed on as a string nor guessed into a value the model did "
    'not write (Ollama turns "yes" into false).'
)
STRING_AS_WRITTEN = (
    'Where the schema allows a string, the text is the string the model wrote: "123" for a '
    'string-or-integer stays "123", "null" for a string stays "null" (vLLM\'s own tests assert both; '
    "Ollama converts to a number, boolean, array or null first). Converting would change a value that "
    "was valid as written."
)
SPACE_KEPT = (
    "Whitespace between text and a call stays when text follows the call, so the two pieces do not run "
    'together ("Hello def", not "Hellodef"); Ollama drops it.'
)


@dataclass(frozen=True)
class Difference:
    """Our reading of a case: the calls, how many errors go back to the model, the content (None: as
    the peer's case says)."""

    why: str
    calls: tuple[Call, ...]
    errors: int = 0
    content: str | None = None


def _errors(*ids: str) -> dict[str, Difference]:
    return {case_id: Difference(SCHEMA_TYPES, (), 1) for case_id in ids}


def _as_written(**values: str) -> dict[str, Difference]:
    return {
        f"ollama-value-{key[1:]}": Difference(STRING_AS_WRITTEN, (("f", {"v": value}),))
        for key, value in values.items()
    }


_TASKS = (
    '[{"content": "task 1", "status": "pending", "priority": "high", "id": "1"}, '
    '{"content": "task 2", "status": "completed", "priority": "low", "id": "2"}]'
)
_NESTED = 'template = """\n<tool_call>\n<function=foo>\n<parameter=bar>baz</parameter>\n</function>\n</tool_call>\n"""'

DIFFERENCES: dict[str, Difference] = {
    "vllm-hermes-invalid-json": Difference(WHOLE_VALUES_RUN, (("final_answer", {"trigger": True}),)),
    "vllm-hermes-bare-string-arguments": Difference(OBJECT_ARGUMENTS, (), 1),
    "vllm-shared-out-of-schema-nested": Difference(
        OFFERED_TOOLS_ONLY, (("write_file", {"path": "fixture.py", "content": _NESTED}),), 1
    ),
    **_errors("sglang-number-other-not-a-number", "sglang-number-other-null"),
    **_errors(*(f"ollama-value-{index}" for index in (8, 25, 27, 35, 36, 37, 38, 39))),
    "ollama-value-26": Difference(STRING_AS_WRITTEN, (("f", {"v": "null"}),)),
    **_as_written(
        v45="42.5", v47="42.5", v51="true", v53="false", v61="true", v62="3.14", v64="123", v65="123", v66=_TASKS
    ),
    "ollama-stream-ideographic-space-call": Difference(
        SPACE_KEPT,
        (("get_current_temperature", {"location": "San Francisco", "unit": "celsius"}),),
        0,
        "Hello\u3000def",
    ),
}
