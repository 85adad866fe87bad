"""README is the start page and docs/ the manual: every link README gives leads somewhere, README
stays a start page, the commands the manual shows name flags the commands have, and the blocks it marks
offline run as written. (The manual's own links and anchors are checked by its strict build, `mkdocs
build --strict`, in `make lint`.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """The ids mkdocs (Python-Markdown's toc) gives the page's headings."""
    out, fence = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and (m := re.match(r"^#{1,6} (.*)$", line)):
            title = re.sub(r"[`*]", "", m.group(1)).lower()
            out.add(re.sub(r"[\s]+", "-", re.sub(r"[^\w\- ]", "", title).strip()))
    return out


def test_every_link_in_readme_leads_to_a_file_or_heading_that_exists() -> None:
    broken = []
    for target in LINK.findall(README.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        page = ROOT / path if path else README
        if not page.exists() or (anchor and anchor not in _anchors(page)):
            broken.append(target)
    assert broken == []


def test_readme_is_a_start_page_not_the_manual() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for start in ("## Install", "## The first five minutes", "## Four ways to run it", "## Where to read more"):
        assert start in text
    assert all((ROOT / "docs" / page).is_file() for page in re.findall(r"\(docs/([\w-]+\.md)", text))


def _flags_shown(command: str) -> set[tuple[str, str]]:
    """(subcommand, --flag) pairs that docs' shell blocks use with `command`."""
    shown = set()
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```(?:sh|bash|shell)\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                words = line.split("#")[0].split()
                if command not in words:
                    continue
                args = words[words.index(command) + 1 :]
                sub = args[0] if args and re.fullmatch(r"[a-z][a-z-]*", args[0]) else ""
                shown |= {(sub, w.split("=")[0]) for w in args if w.startswith("--")}
    return shown


@pytest.mark.parametrize("command", ["sigit", "qwen-runtime"])
def test_flags_the_docs_show_are_flags_the_command_takes(command: str) -> None:
    shown = _flags_shown(command)
    assert shown, f"no {command} command in the docs' shell blocks"
    helps: dict[str, str] = {}
    missing = []
    for sub, flag in sorted(shown):
        if sub not in helps:
            argv = [sys.executable, "-m", "sigit.cli" if command == "sigit" else "qwen_runtime.cli"]
            done = subprocess.run([*argv, *([sub] if sub else []), "--help"], capture_output=True, text=True,
                                  timeout=60)
            helps[sub] = done.stdout + done.stderr
            if sub and done.returncode != 0:  # a word that is not a subcommand: the command's own flags
                top = subprocess.run([*argv, "--help"], capture_output=True, text=True, timeout=60)
                helps[sub] = top.stdout + top.stderr
        if flag not in helps[sub]:
            missing.append(f"{command} {sub} {flag}".replace("  ", " "))
    assert missing == []


def test_the_tool_table_in_the_docs_is_the_tools_as_declared() -> None:
    """docs/agent.md lists each built-in tool with its arguments as the model must write them; a tool
    or argument added, renamed or made optional shows here or this fails."""
    from sigit.tools import all_tools

    text = (ROOT / "docs" / "agent.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| (.*) \| (?:yes|no) \|$", text, re.M))
    expected = {}
    for tool in all_tools():
        schema = tool.parameters_schema()
        required = set(schema.get("required", []))
        expected[tool.name] = ", ".join(
            f"`{name}`" if name in required else f"`{name}`?" for name in schema.get("properties", {})
        )
    assert rows == expected


OFFLINE_BLOCK = re.compile(r"<!-- offline:[^>]*-->\n```(?:bash|sh)\n(.*?)```", re.S)


def _offline_blocks() -> list[tuple[str, str]]:
    return [(page.name, block) for page in [README, *sorted((ROOT / "docs").glob("*.md"))]
            for block in OFFLINE_BLOCK.findall(page.read_text(encoding="utf-8"))]


@pytest.mark.slow
@pytest.mark.parametrize(("page", "block"), _offline_blocks(), ids=lambda v: v if v.endswith(".md") else "")
def test_a_block_the_docs_mark_offline_runs_as_written(page: str, block: str, tmp_path: Path) -> None:
    """What a reader copies from a block marked `<!-- offline: ... -->` works on a fresh machine with no
    network and no model: run by bash, line by line, in an empty folder with its own HOME."""
    bin_dir = str(Path(sys.executable).parent)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "LANG": "C.UTF-8",
           "SIGIT_KEEP_ALIVE": "0"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=240)
    shown = f"{page}:\n{block}\n--- stdout\n{done.stdout[-2000:]}\n--- stderr\n{done.stderr[-2000:]}"
    assert done.returncode == 0, shown


def test_some_blocks_are_marked_offline() -> None:
    assert {page for page, _ in _offline_blocks()} >= {"models.md"}
