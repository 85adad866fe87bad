"""OpenAICompatRuntime against a real HTTP server on 127.0.0.1 (the scripted server), faults included."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from qwen_runtime.backends.openai_compat import OpenAICompatRuntime
from qwen_runtime.errors import QwenRuntimeError, ServerError
from qwen_runtime.runtime import CancelToken
from qwen_runtime.scenario import ScriptedCall, ScriptedTurn
from qwen_runtime.testing import ScriptedServer
from qwen_runtime.types import (
    AssistantMessage,
    ChatRequest,
    Completion,
    Finished,
    Sampling,
    TextDelta,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

pytestmark = pytest.mark.timeout(10)

READ = ToolSpec(
    "read_file",
    "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
GREP = ToolSpec(
    "grep",
    "Search",
    {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}},
)


def ask(text: str = "hi", **options: object) -> ChatRequest:
    return ChatRequest(messages=(UserMessage(text),), tools=(READ, GREP), **options)  # type: ignore[arg-type]


def runtime(server: ScriptedServer, **options: object) -> OpenAICompatRuntime:
    settings: dict[str, object] = {"backoff": 0.01, "max_retries": 3, "connect_timeout": 2, "read_timeout": 5}
    settings.update(options)
    return OpenAICompatRuntime(server.base_url, **settings)  # type: ignore[arg-type]


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    yield port


# ---------------------------------------------------------------- replies


def test_text_reasoning_and_several_tool_calls_reassemble_exactly() -> None:
    turn = ScriptedTurn(
        reasoning="I should look at both files first.",
        text="Let me read them.",
        tool_calls=(
            ScriptedCall("read_file", {"path": "src/app.py"}, id="call_a"),
            ScriptedCall("grep", {"pattern": "def main\\(", "path": "ünï/cödé"}, id="call_b"),
        ),
    )
    with ScriptedServer([turn], chunk_size=3) as server:
        done = runtime(server).complete(ask())
    assert done.reasoning == turn.reasoning
    assert done.text == turn.text
    assert done.tool_calls == [
        ToolCall("call_a", "read_file", {"path": "src/app.py"}),
        ToolCall("call_b", "grep", {"pattern": "def main\\(", "path": "ünï/cödé"}),
    ]
    assert done.finish_reason == "tool_calls"


def test_events_stream_in_pieces_and_end_with_usage_and_finished() -> None:
    with ScriptedServer([ScriptedTurn(text="one two three four five")], chunk_size=4) as server:
        events = list(runtime(server).stream(ask()))
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(texts) > 3 and "".join(texts) == "one two three four five"
    assert isinstance(events[-1], Finished) and events[-1].reason == "stop"
    usage = events[-2]
    assert usage.type == "usage" and usage.prompt_tokens > 0 and usage.completion_tokens > 0


def test_missing_tool_call_ids_are_filled_with_distinct_ids() -> None:
    turn = ScriptedTurn(
        tool_calls=(ScriptedCall("read_file", {"path": "a"}), ScriptedCall("read_file", {"path": "b"}))
    )
    with ScriptedServer([turn], tool_call_ids=False) as server:
        done = runtime(server).complete(ask())
    ids = [c.id for c in done.tool_calls]
    assert [c.arguments["path"] for c in done.tool_calls] == ["a", "b"]
    assert all(i.startswith("call_") for i in ids) and len(set(ids)) == 2


def test_raw_tool_call_in_content_is_recovered_as_a_tool_call() -> None:
    raw = 'Checking.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>'
    with ScriptedServer([ScriptedTurn(raw=raw)], chunk_size=5) as server:
        done = runtime(server).complete(ask())
    assert done.text.strip() == "Checking."
    assert [(c.name, c.arguments) for c in done.tool_calls] == [("read_file", {"path": "README.md"})]
    assert done.finish_reason == "tool_calls"


def test_inline_think_in_content_becomes_reasoning() -> None:
    raw = "<think>\nThe user greets me.\n</think>\n\nHello there!"
    with ScriptedServer([ScriptedTurn(raw=raw)], chunk_size=3) as server:
        done = runtime(server).complete(ask())
    assert done.reasoning.strip() == "The user greets me."
    assert done.text.strip() == "Hello there!"


def test_bad_tool_arguments_become_a_tool_call_error_not_an_exception() -> None:
    turn = ScriptedTurn(tool_calls=(ScriptedCall("read_file", {"wrong": 1}),))
    with ScriptedServer([turn]) as server:
        done = runtime(server).complete(ask())
    assert done.tool_calls == []
    [error] = done.tool_call_errors
    assert error.name == "read_file" and "path" in error.message


def test_request_body_carries_sampling_thinking_tools_and_history() -> None:
    sampling = Sampling(
        temperature=0.6,
        top_p=0.9,
        top_k=20,
        min_p=0.05,
        presence_penalty=1.5,
        frequency_penalty=0.1,
        repeat_penalty=1.1,
        max_tokens=321,
        seed=7,
        stop=("###",),
    )
    history = (
        UserMessage("read a"),
        AssistantMessage(
            "ok", reasoning="secret thoughts", tool_calls=(ToolCall("c1", "read_file", {"path": "a"}),)
        ),
        ToolMessage("c1", "contents of a"),
        UserMessage("thanks"),
    )
    request = ChatRequest(
        history, tools=(READ, GREP), sampling=sampling, enable_thinking=False, tool_choice="grep"
    )
    with ScriptedServer(["fine"]) as server:
        rt = runtime(server)
        rt.complete(request)
        [body] = server.requests
    assert body["model"] == "scripted-qwen"  # the first id from GET /v1/models
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    expected = {
        "temperature": 0.6,
        "top_p": 0.9,
        "top_k": 20,
        "min_p": 0.05,
        "presence_penalty": 1.5,
        "frequency_penalty": 0.1,
        "repeat_penalty": 1.1,
        "max_tokens": 321,
        "seed": 7,
        "stop": ["###"],
    }
    assert {k: body[k] for k in expected} == expected
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "grep"]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "grep"}}
    assistant = body["messages"][1]
    assert "reasoning_content" not in assistant
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"path": "a"}'  # a JSON string
    assert body["messages"][2] == {"role": "tool", "tool_call_id": "c1", "content": "contents of a"}


def test_api_key_comes_from_the_environment_and_extra_body_is_merged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    with ScriptedServer(["fine"]) as server:
        rt = OpenAICompatRuntime(server.base_url, "my-model", extra_body={"chat_template_kwargs": {"x": 1}})
        assert rt.api_key == "sk-from-env"
        rt.complete(ask())
        body = server.requests[0]
    assert body["model"] == "my-model"
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "x": 1}


def test_usage_reports_cached_prompt_tokens_and_server_timings() -> None:
    with ScriptedServer(["first", "second"]) as server:
        rt = runtime(server)
        first = rt.complete(ask("hello"))
        second = rt.complete(
            ChatRequest((UserMessage("hello"), AssistantMessage("first"), UserMessage("more")))
        )
    assert first.usage.cached_prompt_tokens == 0
    assert 0 < second.usage.cached_prompt_tokens < second.usage.prompt_tokens
    assert second.usage.prompt_ms == 1.5 and second.usage.generation_ms == 10.0
    assert second.usage.context_size == 32768  # from the models list's metadata


def test_context_size_argument_wins_over_server_metadata() -> None:
    with ScriptedServer([], context_size=4096) as server:
        assert runtime(server).context_size == 4096
        assert runtime(server, n_ctx=2048).context_size == 2048


def test_tool_choice_naming_an_unoffered_tool_is_a_clear_error() -> None:
    with ScriptedServer([]) as server, pytest.raises(QwenRuntimeError, match=r"'nope'.*read_file"):
        list(runtime(server).stream(ask(tool_choice="nope")))


# ---------------------------------------------------------------- faults


def test_500_then_success_is_retried_once() -> None:
    with ScriptedServer([ScriptedTurn(text="recovered", error=500)]) as server:
        done = runtime(server).complete(ask())
        assert len(server.requests) == 2
    assert done.text == "recovered"


def test_429_honours_retry_after() -> None:
    with ScriptedServer([ScriptedTurn(text="ok", error=429)], retry_after=0.4) as server:
        started = time.monotonic()
        done = runtime(server, backoff=0.001).complete(ask())
        elapsed = time.monotonic() - started
    assert done.text == "ok" and elapsed >= 0.4


def test_500_forever_gives_a_clear_error_naming_the_endpoint() -> None:
    with ScriptedServer([ScriptedTurn(text="never", error=500, repeat=100)]) as server:
        with pytest.raises(ServerError) as caught:
            runtime(server, max_retries=2).complete(ask())
        assert len(server.requests) == 3
    message = str(caught.value)
    assert f"{server.base_url}/chat/completions" in message
    assert "scripted fault: HTTP 500" in message and "3 attempts" in message
    assert caught.value.status == 500


def test_client_errors_are_not_retried_and_carry_the_server_message() -> None:
    with ScriptedServer([ScriptedTurn(text="never", error=400, repeat=5)]) as server:
        with pytest.raises(ServerError, match="HTTP 400: scripted fault") as caught:
            runtime(server).complete(ask())
        assert len(server.requests) == 1
    assert caught.value.status == 400


def test_exhausted_script_surfaces_the_servers_message() -> None:
    with ScriptedServer([], model="m") as server, pytest.raises(ServerError, match="script exhausted"):
        runtime(server, max_retries=0).complete(ask())


def test_stream_dropped_before_any_data_is_retried() -> None:
    with ScriptedServer([ScriptedTurn(text="whole reply", drop_after=0, repeat=2)]) as server:
        done = runtime(server).complete(ask())
        assert len(server.requests) == 3
    assert done.text == "whole reply"


def test_stream_dropped_after_the_role_chunk_is_still_retried() -> None:
    # the first chunk carries no text: nothing reached the caller, so asking again repeats nothing
    with ScriptedServer([ScriptedTurn(text="whole reply", drop_after=1)]) as server:
        assert runtime(server).complete(ask()).text == "whole reply"


def test_stream_dropped_mid_reply_is_a_clear_error_without_duplicated_text() -> None:
    turn = ScriptedTurn(text="a long reply that will be cut", drop_after=3)
    seen: list[str] = []
    with ScriptedServer([turn], chunk_size=4) as server:
        with pytest.raises(ServerError, match=r"broke mid-stream.*not retried") as caught:
            for event in runtime(server).stream(ask()):
                if isinstance(event, TextDelta):
                    seen.append(event.text)
        assert len(server.requests) == 1
    assert "".join(seen) == "a long r"
    assert server.base_url in str(caught.value)


def test_slow_server_past_the_read_timeout_is_a_clear_error() -> None:
    late = ScriptedServer([ScriptedTurn(text="late", delay=30)])  # an answer, were it waited for
    with late as server, pytest.raises(ServerError, match="read timeout"):
        runtime(server, read_timeout=0.3).complete(ask())


def test_dead_port_is_a_fast_clear_error_naming_the_endpoint(dead_port: int) -> None:
    rt = OpenAICompatRuntime(f"http://127.0.0.1:{dead_port}/v1", "m", backoff=0.01, max_retries=2)
    with pytest.raises(ServerError, match=r"cannot connect .*; gave up after 3 attempts") as caught:
        rt.complete(ask())
    assert f"127.0.0.1:{dead_port}/v1/chat/completions" in str(caught.value)


def test_dead_port_without_a_model_name_names_the_models_endpoint(dead_port: int) -> None:
    rt = OpenAICompatRuntime(f"http://127.0.0.1:{dead_port}", backoff=0.01, max_retries=1)
    with pytest.raises(ServerError, match=rf"127\.0\.0\.1:{dead_port}/v1/models: cannot connect"):
        rt.complete(ask())


def test_a_bad_url_is_rejected_at_once() -> None:
    with pytest.raises(QwenRuntimeError, match="http://host:port/v1"):
        OpenAICompatRuntime("localhost:8080")


# ---------------------------------------------------------------- cancel and async


def test_cancel_while_waiting_for_a_slow_server_returns_within_a_second() -> None:
    with ScriptedServer([ScriptedTurn(text="late", delay=30)]) as server:  # "late" ends it, uncancelled
        token = CancelToken()
        threading.Timer(0.2, token.cancel).start()
        events = list(runtime(server).stream(ask(), token))
    assert events[-1] == Finished("cancelled", "generation cancelled")


def test_cancel_mid_stream_stops_the_stream() -> None:
    with ScriptedServer([ScriptedTurn(text="x" * 400)], chunk_size=2, chunk_delay=0.05) as server:
        token = CancelToken()
        events = []
        for event in runtime(server).stream(ask(), token):
            events.append(event)
            if len(events) == 3:
                token.cancel()
    assert events[-1].type == "finished" and events[-1].reason == "cancelled"
    assert len(events) < 10


async def test_async_stream_works() -> None:
    turn = ScriptedTurn(
        reasoning="hmm", text="async hello", tool_calls=(ScriptedCall("read_file", {"path": "x"}),)
    )
    with ScriptedServer([turn]) as server:
        done = Completion()
        async for event in runtime(server).astream(ask()):
            done.add(event)
    assert (done.reasoning, done.text, done.tool_calls[0].arguments) == ("hmm", "async hello", {"path": "x"})


# ---------------------------------------------------------------- Ollama


def test_ollama_is_driven_through_its_native_api_with_num_ctx_set() -> None:
    turn = ScriptedTurn(reasoning="think", text="hi", tool_calls=(ScriptedCall("read_file", {"path": "a"}),))
    with ScriptedServer([turn], ollama=True, context_size=131072) as server:
        rt = OpenAICompatRuntime(server.base_url, "qwen3:8b", backoff=0.01)
        done = rt.complete(ask(enable_thinking=False))
        [body] = server.requests
    assert rt.is_ollama
    assert body["options"]["num_ctx"] == 32768  # the trained 131072, capped
    assert body["think"] is False and body["options"]["num_predict"] == 4096
    assert (done.reasoning, done.text) == ("think", "hi")
    assert [(c.name, c.arguments) for c in done.tool_calls] == [("read_file", {"path": "a"})]
    assert done.usage.completion_tokens > 0 and done.usage.context_size == 32768


def test_ollama_uses_the_given_context_size() -> None:
    with ScriptedServer(["ok"], ollama=True) as server:
        rt = OpenAICompatRuntime(server.base_url, "qwen3:8b", n_ctx=16384)
        assert rt.complete(ask()).text == "ok"
        assert server.requests[0]["options"]["num_ctx"] == 16384
