"""The scripted OpenAI-compatible server, seen from a plain HTTP client (what any client would see)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from qwen_runtime.scenario import ScriptedCall, ScriptedTurn
from qwen_runtime.testing import ScriptedServer

pytestmark = pytest.mark.timeout(10)


def post(server: ScriptedServer, body: dict[str, Any], **options: Any) -> requests.Response:
    return requests.post(f"{server.base_url}/chat/completions", json=body, timeout=5, **options)


def sse_chunks(response: requests.Response) -> list[Any]:
    out: list[Any] = []
    for line in response.iter_lines():
        if line.startswith(b"data: "):
            payload = line[6:].decode()
            out.append(payload if payload == "[DONE]" else json.loads(payload))
    return out


def test_models_lists_the_scripted_model_with_its_context() -> None:
    with ScriptedServer([], model="qwen-test", context_size=4096) as server:
        data = requests.get(f"{server.base_url}/models", timeout=5).json()
    assert data["data"][0]["id"] == "qwen-test"
    assert data["data"][0]["meta"]["n_ctx_train"] == 4096


def test_stream_sends_reasoning_text_and_tool_calls_split_by_index_then_usage_and_done() -> None:
    turn = ScriptedTurn(
        reasoning="think",
        text="hello",
        tool_calls=(ScriptedCall("a", {"x": "long value"}, id="id1"), ScriptedCall("b", {"y": 2}, id="id2")),
    )
    with ScriptedServer([turn], chunk_size=4) as server:
        chunks = sse_chunks(
            post(server, {"stream": True, "stream_options": {"include_usage": True}}, stream=True)
        )
    assert chunks[-1] == "[DONE]"
    usage = chunks[-2]
    assert usage["choices"] == [] and usage["usage"]["completion_tokens"] > 0
    deltas = [c["choices"][0]["delta"] for c in chunks[:-2]]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "think"
    assert "".join(d.get("content", "") for d in deltas) == "hello"
    pieces = [p for d in deltas for p in d.get("tool_calls", [])]
    starts = [p for p in pieces if "id" in p]
    assert [(p["index"], p["id"], p["function"]["name"]) for p in starts] == [
        (0, "id1", "a"),
        (1, "id2", "b"),
    ]
    args = {i: "".join(p["function"]["arguments"] for p in pieces if p["index"] == i) for i in (0, 1)}
    assert json.loads(args[0]) == {"x": "long value"} and json.loads(args[1]) == {"y": 2}
    assert sum(1 for p in pieces if p["index"] == 0) > 2  # the arguments came in several pieces
    assert chunks[-3]["choices"][0]["finish_reason"] == "tool_calls"


def test_usage_is_sent_only_when_asked_for() -> None:
    with ScriptedServer(["hi"]) as server:
        chunks = sse_chunks(post(server, {"stream": True}, stream=True))
    assert all(isinstance(c, str) or c["choices"] for c in chunks)


def test_non_streaming_reply_is_one_chat_completion() -> None:
    turn = ScriptedTurn(text="done", reasoning="r", tool_calls=(ScriptedCall("a", {"k": 1}, id="c1"),))
    with ScriptedServer([turn]) as server:
        data = post(server, {"messages": [{"role": "user", "content": "x"}]}).json()
    message = data["choices"][0]["message"]
    assert (message["content"], message["reasoning_content"]) == ("done", "r")
    assert message["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"k": 1}'}}
    ]
    assert data["choices"][0]["finish_reason"] == "tool_calls" and data["usage"]["prompt_tokens"] > 0


def test_raw_turn_is_sent_as_content_verbatim() -> None:
    raw = '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>'
    with ScriptedServer([ScriptedTurn(raw=raw)], chunk_size=5) as server:
        chunks = sse_chunks(post(server, {"stream": True}, stream=True))
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks[:-1]) == raw


def test_error_fault_repeats_then_the_turn_is_served() -> None:
    with ScriptedServer([ScriptedTurn(text="finally", error=503, repeat=2)]) as server:
        first, second, third = (post(server, {}) for _ in range(3))
    assert [first.status_code, second.status_code, third.status_code] == [503, 503, 200]
    assert first.json()["error"]["message"] == "scripted fault: HTTP 503"
    assert third.json()["choices"][0]["message"]["content"] == "finally"


def test_429_carries_retry_after_when_configured() -> None:
    with ScriptedServer([ScriptedTurn(error=429)], retry_after=2) as server:
        assert post(server, {}).headers["Retry-After"] == "2"


def test_exhausted_script_answers_500_saying_so() -> None:
    with ScriptedServer(["only one"]) as server:
        post(server, {})
        reply = post(server, {})
    assert reply.status_code == 500
    assert "script exhausted (request 2 but the scenario has 1 turns)" in reply.json()["error"]["message"]


def test_drop_after_cuts_the_connection_mid_stream() -> None:
    with ScriptedServer([ScriptedTurn(text="x" * 100, drop_after=2)], chunk_size=5) as server:
        response = post(server, {"stream": True}, stream=True)
        received = []
        with pytest.raises(requests.exceptions.ChunkedEncodingError):
            for line in response.iter_lines():
                received.append(line)
        assert len([line for line in received if line.startswith(b"data:")]) == 2
        assert post(server, {}).json()["choices"][0]["message"]["content"] == "x" * 100  # then served


def test_delay_holds_the_first_byte() -> None:
    with ScriptedServer([ScriptedTurn(text="slow", delay=0.3)]) as server:
        started = time.monotonic()
        assert post(server, {}).status_code == 200
    assert time.monotonic() - started >= 0.3


def test_close_does_not_wait_for_a_delayed_reply() -> None:
    server = ScriptedServer([ScriptedTurn(text="slow", delay=30)])
    with pytest.raises(requests.RequestException):
        requests.post(f"{server.base_url}/chat/completions", json={}, timeout=0.2)
    started = time.monotonic()
    server.close()
    assert time.monotonic() - started < 1


def test_every_request_body_is_recorded_in_memory_and_in_the_record_file(tmp_path: Path) -> None:
    record = tmp_path / "requests.jsonl"
    with ScriptedServer(["a", "b"], record=record) as server:
        post(server, {"messages": [{"role": "user", "content": "one"}]})
        post(server, {"messages": [{"role": "user", "content": "two"}], "temperature": 0.1})
        assert [r["messages"][0]["content"] for r in server.requests] == ["one", "two"]
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines == server.requests


def test_bad_requests_get_clear_errors() -> None:
    with ScriptedServer(["a"]) as server:
        bad_json = requests.post(f"{server.base_url}/chat/completions", data=b"{nope", timeout=5)
        unknown = requests.get(f"{server.base_url}/nothing", timeout=5)
    assert bad_json.status_code == 400 and "not JSON" in bad_json.json()["error"]["message"]
    assert unknown.status_code == 404 and "/v1/nothing" in unknown.json()["error"]["message"]


def test_loads_a_scenario_file(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [{"text": "from file", "error": 500}]}))
    with ScriptedServer(scenario) as server:
        assert post(server, {}).status_code == 500
        assert post(server, {}).json()["choices"][0]["message"]["content"] == "from file"


def test_command_line_prints_its_url_and_serves_until_killed(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"turns": [{"text": "from the cli"}]}))
    record = tmp_path / "rec.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "qwen_runtime.testing.server", str(scenario), "--record", str(record)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        reply = requests.post(f"{url}/chat/completions", json={"messages": []}, timeout=5).json()
        assert reply["choices"][0]["message"]["content"] == "from the cli"
        assert json.loads(record.read_text()) == {"messages": []}
    finally:
        proc.terminate()
        proc.wait(timeout=5)
