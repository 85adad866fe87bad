"""The house rules a reader relies on: modules short enough to read in one sitting (or saying why
not), qwen_runtime's top folder small, every folder saying what lives in it, old import paths of
moved modules still working. Import circles are import-linter's (`acyclic_siblings` in pyproject.toml,
run by `make lint`)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import qwen_runtime
from qwen_runtime._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "packages" / name / "src" / name for name in ("qwen_runtime", "onde", "sigit")]
MAX_LINES = 600
REASON = "Long because:"
MAX_TOP_MODULES = 15


def _modules() -> list[Path]:
    return sorted(p for src in SOURCES for p in src.rglob("*.py"))


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def long_without_reason(paths: list[Path]) -> list[str]:
    """Modules over MAX_LINES lines whose docstring gives no `Long because:` line."""
    out = []
    for path in paths:
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_LINES and REASON not in _docstring(path):
            out.append(f"{path}: {lines} lines")
    return out


def test_no_module_over_600_lines_without_a_reason_at_its_top() -> None:
    assert long_without_reason(_modules()) == []


def test_the_line_check_finds_a_long_module_and_accepts_a_stated_reason(tmp_path: Path) -> None:
    body = "x = 1\n" * (MAX_LINES + 1)
    bare = tmp_path / "bare.py"
    bare.write_text('"""A module."""\n' + body)
    reasoned = tmp_path / "reasoned.py"
    reasoned.write_text(f'"""A module.\n\n{REASON} one state machine.\n"""\n' + body)
    short = tmp_path / "short.py"
    short.write_text('"""A module."""\n' + "x = 1\n" * 10)
    flagged = [p.name for p in (bare, reasoned, short) if long_without_reason([p])]
    assert flagged == ["bare.py"]


def test_qwen_runtime_top_folder_holds_at_most_15_modules() -> None:
    top = sorted(p.name for p in SOURCES[0].glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top


def test_every_package_folder_says_what_lives_in_it() -> None:
    silent = [
        str(init.relative_to(ROOT))
        for src in SOURCES
        for init in src.rglob("__init__.py")
        if not _docstring(init)
    ]
    assert silent == []


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_import_path_gives_the_moved_module_with_a_deprecation_warning(old: str) -> None:
    new_name = f"qwen_runtime.{MOVED[old]}"
    assert importlib.util.find_spec(new_name) is not None, f"{old} points at a module that is not there"
    if old.startswith("backends.llama") or old in ("calibration", "backends.drafting", "backends.save_points"):
        return  # these import llama.cpp or heavy siblings: the subprocess test below covers the mechanism
    sys.modules.pop(f"qwen_runtime.{old}", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(f"qwen_runtime.{old}")
    assert module is importlib.import_module(new_name)
    assert module.__spec__ is not None and module.__spec__.name == new_name
    assert any(issubclass(w.category, DeprecationWarning) and new_name in str(w.message) for w in caught)


def test_old_import_paths_work_in_a_fresh_process_as_a_user_writes_them() -> None:
    # a program written against 0.1: from-imports of names, an attribute of the old llamacpp module
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "from qwen_runtime.backends.llamacpp import LlamaCppRuntime\n"
        "from qwen_runtime.backends.llamacpp.runtime import LlamaCppRuntime as new\n"
        "assert LlamaCppRuntime is new\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        "from qwen_runtime.toolschema import tool_schema\n"
        "from qwen_runtime.backends.llamacpp_vocab import LlamaVocab\n"
        "from qwen_runtime.parsing.tags import CALL_OPEN\n"
        "import qwen_runtime.calls.toolschema as t, qwen_runtime.backends.llamacpp.vocab as v\n"
        "assert tool_schema is t.tool_schema and LlamaVocab is v.LlamaVocab and CALL_OPEN == '<tool_call>'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_public_api_is_unchanged_by_the_regrouping() -> None:
    # what 0.1's qwen_runtime/__init__.py exported, by name
    assert {"tool_schema", "ToolSchema", "SchemaError", "ToolCallFormat", "choose_context", "cpu_budget",
            "DiskPromptCache", "load_runtime", "read_gguf_info", "inspect_gguf", "tuned_settings",
            "load_template", "parse_reply", "repair_json"} <= set(qwen_runtime.__all__)
    for name in qwen_runtime.__all__:
        assert getattr(qwen_runtime, name) is not None
