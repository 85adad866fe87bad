"""The vocabulary tables a llama.cpp runtime derives once per model file and keeps next to the prompt
cache: a second process reads them instead of walking the vocabulary, and gets the same tokenizer; a
second load in the same process takes them from memory."""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import pytest
from qwen_runtime import ChatRequest, Sampling, ToolSpec, UserMessage
from qwen_runtime.backends.llamacpp import vocab as llamacpp_vocab
from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime
from qwen_runtime.backends.llamacpp.vocab import LlamaVocab

UNITS = ToolSpec(
    "set_unit",
    "Set the temperature unit",
    {"type": "object", "properties": {"unit": {"enum": ["c", "f"]}}, "required": ["unit"],
     "additionalProperties": False},
)


def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a fresh process starts with: no tables in memory."""
    monkeypatch.setattr(llamacpp_vocab, "_REMEMBERED", OrderedDict())


REQUEST = ChatRequest((UserMessage("Use Fahrenheit."),), tools=(UNITS,), tool_choice="required",
                      enable_thinking=False, sampling=Sampling(temperature=0, max_tokens=40))


def test_a_second_runtime_reads_the_vocabulary_tables_instead_of_walking_the_vocabulary(
    tiny_hybrid_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_process(monkeypatch)
    first = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, prompt_cache_dir=tmp_path, draft="none")
    want = first.complete(REQUEST)
    stops, pieces = first._stop_ids, [first.piece(t) for t in range(first._n_vocab)]
    first.close()
    saved = list((tmp_path / "vocab").glob("*.bin"))
    assert len(saved) == 1

    def no_walk(self: LlamaVocab, pieces: bool = False) -> None:
        raise AssertionError("walked the vocabulary although its tables were saved")

    monkeypatch.setattr(LlamaVocab, "scan", no_walk)
    new_process(monkeypatch)
    second = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, prompt_cache_dir=tmp_path, draft="none")
    got = second.complete(REQUEST)
    assert second._stop_ids == stops and [second.piece(t) for t in range(second._n_vocab)] == pieces
    assert got.text == want.text and got.tool_call_errors == want.tool_call_errors
    assert [(c.name, c.arguments) for c in got.tool_calls] == [(c.name, c.arguments) for c in want.tool_calls]
    second.close()


def test_damaged_tables_are_rebuilt_and_a_model_without_a_cache_dir_writes_none(
    tiny_hybrid_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=256, prompt_cache_dir=tmp_path, draft="none").close()
    (saved,) = (tmp_path / "vocab").glob("*.bin")
    good = saved.read_bytes()
    saved.write_bytes(good[: len(good) // 2])
    new_process(monkeypatch)
    rt = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=256, prompt_cache_dir=tmp_path, draft="none")
    assert len(rt._stop_ids) > 0
    rt.close()
    assert saved.read_bytes() == good
    plain = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=256, draft="none")
    assert plain._stop_ids == rt._stop_ids
    plain.close()


def test_a_second_load_in_the_same_process_takes_the_tables_from_memory(
    tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No cache dir at all (the SDK's default): the first load walks the vocabulary, the next ones do not."""
    new_process(monkeypatch)
    first = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none")
    first.lltokenizer()
    stops = first._stop_ids
    first.close()

    def no_walk(self: LlamaVocab, pieces: bool = False) -> None:
        raise AssertionError("walked the vocabulary again in the same process")

    monkeypatch.setattr(LlamaVocab, "scan", no_walk)
    again = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none")
    assert again._stop_ids == stops and again.lltokenizer() is not None
    again.close()


def test_two_loads_of_one_file_walk_its_vocabulary_for_llguidance_once(
    tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both loaded before either offers tools (a draft pair, two sessions): the second takes the first's
    tables when it builds llguidance's tokenizer."""
    new_process(monkeypatch)
    walks: list[bool] = []
    scan = LlamaVocab.scan

    def counted(self: LlamaVocab, pieces: bool = False) -> tuple[frozenset[int], frozenset[int]]:
        walks.append(pieces)
        return scan(self, pieces)

    monkeypatch.setattr(LlamaVocab, "scan", counted)
    one = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none")
    two = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none")
    one.lltokenizer()
    two.lltokenizer()
    assert walks.count(True) == 1
    one.close()
    two.close()


# ---------------------------------------------------------------------- llguidance's view, built during the load

SAMPLES = ("hello <tool_call> world", '{"name": "set_unit", "arguments": {"unit": "f"}}', "ünïcode ✓ 日本")


def tokenizations(rt: LlamaCppRuntime) -> list[list[int]]:
    view = rt.lltokenizer()
    return [view.tokenize_str(s, parse_special=special) for s in SAMPLES for special in (False, True)]


def the_ordinary_build_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object) -> None:
        raise AssertionError("built llguidance's view after the load although it was built during it")

    monkeypatch.setattr(llamacpp_vocab, "build_view", fail)


def test_a_second_process_builds_llguidances_view_while_the_model_loads(
    tiny_hybrid_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_process(monkeypatch)
    monkeypatch.setattr(llamacpp_vocab, "spare_core", lambda: True)  # as on an idle machine
    first = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, prompt_cache_dir=tmp_path, draft="none")
    want, want_tokens = first.complete(REQUEST), tokenizations(first)
    first.close()
    assert len(list((tmp_path / "vocab").glob("*.llguidance.json"))) == 1
    new_process(monkeypatch)
    the_ordinary_build_fails(monkeypatch)
    second = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, prompt_cache_dir=tmp_path, draft="none")
    got, got_tokens = second.complete(REQUEST), tokenizations(second)
    second.close()
    assert got_tokens == want_tokens
    assert [(c.name, c.arguments) for c in got.tool_calls] == [(c.name, c.arguments) for c in want.tool_calls]
    assert got.text == want.text and got.tool_call_errors == want.tool_call_errors


@pytest.mark.parametrize("edit", ["wrong answer", "wrong eos", "not json", "empty"])
def test_an_edited_build_record_is_not_trusted_and_is_written_again(
    tiny_hybrid_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    new_process(monkeypatch)
    monkeypatch.setattr(llamacpp_vocab, "spare_core", lambda: True)
    first = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, prompt_cache_dir=tmp_path, draft="none")
    want, want_tokens = first.complete(REQUEST), tokenizations(first)
    first.close()
    (record,) = (tmp_path / "vocab").glob("*.llguidance.json")
    good = record.read_text()
    raw = json.loads(good)
    if edit == "wrong answer":
        for call in raw["calls"]:
            call["tokens"] = [(t + 1) % raw["n_vocab"] for t in call["tokens"]] or [0]
        record.write_text(json.dumps(raw))
    elif edit == "wrong eos":
        raw["eos_token"] = (raw["eos_token"] + 1) % raw["n_vocab"]
        record.write_text(json.dumps(raw))
    else:
        record.write_text("{not json" if edit == "not json" else "")
    new_process(monkeypatch)
    second = LlamaCppRuntime(str(tiny_hybrid_gguf), n_ctx=1024, prompt_cache_dir=tmp_path, draft="none")
    got, got_tokens = second.complete(REQUEST), tokenizations(second)
    second.close()
    assert got_tokens == want_tokens
    assert [(c.name, c.arguments) for c in got.tool_calls] == [(c.name, c.arguments) for c in want.tool_calls]
    assert got.text == want.text
    assert json.loads(record.read_text()) == json.loads(good)


def test_llguidances_view_of_a_closed_model_tokenizes_nothing_instead_of_reading_freed_memory(
    tiny_gguf: Path,
) -> None:
    """A constraint's grammar cache may keep the view after its model is closed."""
    rt = LlamaCppRuntime(str(tiny_gguf), n_ctx=256, draft="none")
    view = rt.lltokenizer()
    assert view.tokenize_bytes(b"hello world")
    rt.close()
    assert view.tokenize_bytes(b"hello again") == []


def fake_proc(root: Path, procs_running: int, own_states: str) -> Path:
    """A /proc with `procs_running` runnable threads machine-wide and this process's threads in the
    states `own_states` (one letter each, as /proc/self/task/*/stat gives them)."""
    root.mkdir()
    (root / "stat").write_text(f"cpu  1 2 3 4\nctxt 99\nprocs_running {procs_running}\nprocs_blocked 0\n")
    for i, state in enumerate(own_states):
        task = root / "self" / "task" / str(100 + i)
        task.mkdir(parents=True)
        (task / "stat").write_text(f"{100 + i} (python3 (a) b) {state} 1 2 3 4\n")  # a name with ") " in it
    return root


def test_what_other_processes_run_now_is_the_machine_count_less_this_processes_running_threads(tmp_path: Path) -> None:
    assert llamacpp_vocab.others_running(fake_proc(tmp_path / "a", 3, "RRS")) == 1
    assert llamacpp_vocab.others_running(fake_proc(tmp_path / "b", 1, "RSS")) == 0
    assert llamacpp_vocab.others_running(tmp_path / "no-proc") is None


@pytest.mark.parametrize(("cpus", "others", "load_average", "spare"), [
    (2, 0, 1.9, True),  # idle now, though a cold start ran a minute ago (the load average still counts it)
    (2, 1, 0.0, False),  # another process runs now: no core beside the load
    (4, 2, 9.0, True),
    (2, None, 0.5, True),  # no /proc: the load average decides
    (2, None, 1.5, False),
])
def test_a_core_is_spare_for_the_early_view_by_what_runs_now(
    monkeypatch: pytest.MonkeyPatch, cpus: int, others: int | None, load_average: float, spare: bool
) -> None:
    monkeypatch.setattr(llamacpp_vocab.os, "sched_getaffinity", lambda pid: set(range(cpus)))
    monkeypatch.setattr(llamacpp_vocab.os, "getloadavg", lambda: (load_average, load_average, load_average))
    monkeypatch.setattr(llamacpp_vocab, "others_running", lambda: others)
    assert llamacpp_vocab.spare_core() is spare
