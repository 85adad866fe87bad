"""Onde quick start: load a GGUF model, chat, stream a reply, and save the conversation.

    python examples/onde_quickstart.py [MODEL.gguf]

The model is the first argument, else $ONDE_MODEL, else Qwen 3 1.7B (downloaded once into the
Hugging Face cache, ~1.3 GB). $ONDE_MAX_TOKENS caps each reply (default 512).
"""

from __future__ import annotations

import os
import sys

from onde import ChatEngine, Done, GgufModelConfig, SamplingConfig, TextDelta


def main() -> None:
    model_path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ONDE_MODEL")
    config = GgufModelConfig.from_path(model_path) if model_path else GgufModelConfig.qwen3_1_7b()
    max_tokens = int(os.environ.get("ONDE_MAX_TOKENS", "512"))

    engine = ChatEngine()
    seconds = engine.load_gguf_model(
        config,
        system_prompt="You are a concise assistant.",
        sampling=SamplingConfig.qwen3_non_thinking(max_tokens=max_tokens, seed=0),
    )
    info = engine.info()
    print(
        f"loaded {info.model_name} in {seconds:.1f}s ({info.approx_memory_display}, {info.context_size} ctx)"
    )

    # one whole reply
    result = engine.send_message("Name three prime numbers.")
    print(f"assistant ({result.duration_display}, {result.finish_reason}): {result.text}")

    # the next reply, streamed as it is generated
    print("assistant (streaming): ", end="", flush=True)
    for event in engine.stream_message("And their sum?"):
        if isinstance(event, TextDelta):
            print(event.text, end="", flush=True)
        elif isinstance(event, Done):
            print(f"\n[{event.finish_reason}, {event.usage.completion_tokens} tokens]")

    # the history is typed and saves to JSON; a new engine continues from it
    saved = engine.history_to_json()
    print(f"history: {len(engine.history())} messages, {len(saved)} bytes of JSON")
    engine.clear_history()
    engine.history_from_json(saved)
    engine.unload_model()


if __name__ == "__main__":
    main()
