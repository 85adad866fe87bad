"""Onde tool calling: the model calls a tool, we run it, send the result back, and it answers.

    python examples/onde_tool_call.py [MODEL.gguf]

The model is the first argument, else $ONDE_MODEL, else Qwen 3 1.7B (downloaded once into the
Hugging Face cache). Only Qwen 3 models call tools. $ONDE_MAX_TOKENS caps each reply (default 1024).
"""

from __future__ import annotations

import os
import sys
from datetime import date

from onde import ChatEngine, GgufModelConfig, SamplingConfig, ToolCallRequest, ToolDefinition, ToolResult

TOOLS = [
    ToolDefinition(
        name="days_until",
        description="Days from today until a date",
        parameters_schema=(
            '{"type": "object", "properties": {"date": {"type": "string", "maxLength": 10, '
            '"description": "YYYY-MM-DD"}}, "required": ["date"], "additionalProperties": false}'
        ),
    )
]
MAX_ROUNDS = 3


def run_tool(call: ToolCallRequest) -> str:
    """Execute one call; errors go back to the model as text, so it can correct itself."""
    try:
        if call.name != "days_until":
            return f"error: unknown tool {call.name}"
        target = date.fromisoformat(call.parsed_arguments["date"])
        return f"{(target - date.today()).days} days"
    except (ValueError, KeyError) as exc:
        return f"error: {exc}"


def main() -> None:
    model_path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ONDE_MODEL")
    config = GgufModelConfig.from_path(model_path) if model_path else GgufModelConfig.qwen3_1_7b()
    max_tokens = int(os.environ.get("ONDE_MAX_TOKENS", "1024"))

    engine = ChatEngine()
    engine.load_gguf_model(
        config,
        system_prompt="You answer questions about dates. Use the tools.",
        sampling=SamplingConfig.qwen3_non_thinking(max_tokens=max_tokens, seed=0),
    )
    # "required" makes the first reply a tool call (any model, even a tiny test one, then shows the
    # whole round trip); agents leave tool_choice at "auto" and let the model decide
    result = engine.send_message_with_tools("How many days until 2030-01-01?", TOOLS, tool_choice="required")
    rounds = 0
    while result.tool_calls and rounds < MAX_ROUNDS:
        rounds += 1
        results = []
        for call in result.tool_calls:
            output = run_tool(call)
            print(f"-> {call.name}({call.arguments}) = {output}")
            results.append(ToolResult(call.id, output))
        # the last round offers no tools, so the model must answer in text
        result = engine.send_tool_results(results, TOOLS if rounds < MAX_ROUNDS else None)
    if result.is_empty:
        print(f"(no answer: {result.empty_reason})")
    else:
        print(f"assistant: {result.text}")
    print(f"history: {[m.role.value for m in engine.history()]}")


if __name__ == "__main__":
    main()
