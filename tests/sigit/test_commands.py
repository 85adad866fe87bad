"""Every built-in slash command offered by both frontends, run through the TUI (Pilot) and through ACP (`sigit
acp`'s server, in this process: acp/conftest.running_agent): both run `sigit.commands`, so they must leave the
same state (mode, history length, files) and show the same text, formatting aside."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.commands import builtins, model_names
from sigit.frontends.tui.app import SigitApp, create_app
from sigit.frontends.tui.chat import NoticeLine
from sigit.frontends.tui.reply import AssistantMessage
from sigit.frontends.tui.screens import LOCAL_FILE, ModelPicker, PermissionScreen
from textual.pilot import Pilot
from textual.widgets import OptionList, TabbedContent

from .acp.conftest import RecordingClient, running_agent, write_scenario
from .tui.helpers import SIZE, idle, ready, send

TURNS: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "edit_file", "arguments": {
        "path": "f.txt", "old_text": "original", "new_text": "changed"}}]},
    {"text": "edited"},
    {"tool_calls": [{"name": "create_file", "arguments": {"path": "AGENTS.md", "content": "# Agents\n"}}]},
    {"text": "Wrote AGENTS.md."},
    {"text": "SUMMARY"},
]
STEPS = [
    "/help", "/plan", "/plan off", "/permissions accept-edits", "/permissions default", "/thinking off",
    "/sandbox read-only", "/sandbox",
    "/tools", "/mcp", "/skills", "/agents", "/commands", "/status", "/models", "/undo", "/init", "/compact",
    "/clear", "/nope",
]


@dataclass
class Observed:
    command: str
    shown: set[str]
    mode: str
    messages: int
    files: dict[str, str]


def lines(text: str, cwd: Path) -> set[str]:
    """The text's lines without Markdown marks, bullets or this run's directory."""
    out = set()
    for line in text.replace(str(cwd), "<cwd>").splitlines():
        line = re.sub(r"[`*]", "", line).strip().removeprefix("- ").removeprefix("• ").strip()
        if line:
            out.add(line)
    return out


def files(cwd: Path) -> dict[str, str]:
    return {name: (cwd / name).read_text() for name in ("f.txt", "AGENTS.md") if (cwd / name).exists()}


def make_project(root: Path) -> Path:
    root.mkdir()
    (root / "f.txt").write_text("original\n")
    skill = root / ".sigit" / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\ndescription: Read PDF files\n---\nUse pdftotext.\n")
    (root / ".sigit" / "agents").mkdir()
    (root / ".sigit" / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews diffs\n---\nReview.\n")
    (root / ".sigit" / "commands").mkdir()
    (root / ".sigit" / "commands" / "greet.md").write_text(
        "---\ndescription: Say hi\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS.\n")
    return root


async def settle(app: SigitApp, pilot: Pilot[int], before: set[NoticeLine], command: str) -> None:
    """Until the command has shown something (its notice, its tab, its picker) and no turn runs."""
    for _ in range(500):
        await pilot.pause(0.01)
        if isinstance(app.screen, PermissionScreen):
            raise AssertionError(f"{command} asked for permission")
        shown = (set(app.query(NoticeLine)) - before or isinstance(app.screen, ModelPicker)
                 or app.query_one(TabbedContent).active == "status" or command == "/init")
        if shown and not app.turn_running:
            await pilot.pause()
            return
    raise AssertionError(f"{command} showed nothing")


async def run_tui(work: Path, config: Path) -> list[Observed]:
    app = create_app(work, runtime=ScriptedRuntime(TURNS), config_dir=config, allow_tools=("edit_file",))
    observed = []
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "change it")
        await idle(app, pilot)
        for command in STEPS:
            before = set(app.query(NoticeLine))
            await send(app, pilot, command)
            await settle(app, pilot, before, command)
            shown = "\n".join(n.message for n in app.query(NoticeLine) if n not in before)
            if command == "/status":
                assert app.query_one(TabbedContent).active == "status"
                shown = app.require_session().id
                app.show_tab("session")
            elif command == "/models":
                options = app.screen.query_one(OptionList)
                shown = "\n".join(str(options.get_option_at_index(i).id) for i in range(options.option_count))
                await pilot.press("escape")
            elif command == "/init":
                await idle(app, pilot)
                shown = app.query(AssistantMessage).last().content_text
            await pilot.pause()
            status = app.require_session().status()
            observed.append(Observed(command, lines(shown, work), status.mode, status.messages, files(work)))
    return observed


async def run_acp(work: Path, config: Path, scenario: Path) -> list[Observed]:
    client = RecordingClient("reject_once")  # a request to ask would be refused: /init must not ask

    def text_since(start: int) -> str:
        return "".join(u.content.text for _, u in client.updates[start:]
                       if u.session_update == "agent_message_chunk")

    observed = []
    async with running_agent(client, scenario, config, "--allow-tool", "edit_file") as conn:
        sid = (await conn.new_session(cwd=str(work))).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("change it")])
        for command in STEPS:
            start = len(client.updates)
            await conn.prompt(session_id=sid, prompt=[text_block(command)])
            shown = text_since(start)
            probe = len(client.updates)
            await conn.prompt(session_id=sid, prompt=[text_block("/status")])
            status = text_since(probe)
            mode = re.search(r"Mode: \*\*(\S+)\*\*", status)
            messages = re.search(r"Messages: (\d+)", status)
            assert mode is not None and messages is not None, status
            if command == "/status":
                shown = re.search(r"Session: `(\S+)`", shown).group(1)  # type: ignore[union-attr]
            observed.append(Observed(command, lines(shown, work), mode.group(1), int(messages.group(1)),
                                     files(work)))
    assert client.permissions == []
    return observed


@pytest.mark.slow
async def test_each_builtin_command_does_the_same_in_the_tui_and_over_acp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGIT_CONFIG_DIR", str(tmp_path / "tui-config"))
    monkeypatch.delenv("SIGIT_PERMISSION_DEFAULT", raising=False)
    assert {c.name for c in builtins("acp")} == {s.split()[0][1:] for s in STEPS if s != "/nope"}
    tui = await run_tui(make_project(tmp_path / "tui"), tmp_path / "tui-config")
    acp_config = tmp_path / "acp-config"
    acp_config.mkdir()
    acp = await run_acp(make_project(tmp_path / "acp"), acp_config, write_scenario(tmp_path / "s.json", TURNS))

    for in_tui, over_acp in zip(tui, acp, strict=True):
        command = in_tui.command
        assert (in_tui.mode, in_tui.messages, in_tui.files) == (over_acp.mode, over_acp.messages, over_acp.files), (
            command)
        if command == "/status":  # the TUI shows the Status tab of the same session
            assert len(in_tui.shown) == 1 and len(over_acp.shown) == 1
        elif command == "/models":  # the TUI's picker offers what ACP lists, and a local file
            models = in_tui.shown - {LOCAL_FILE}
            assert LOCAL_FILE in in_tui.shown
            assert models == set(model_names("qwen3-4b"))  # a known model: the list is the registry's
            assert all(any(key in line for line in over_acp.shown) for key in models)
        else:  # the same text; the TUI may add its own (keys in /help, tabs, expanded tool calls)
            assert over_acp.shown and over_acp.shown <= in_tui.shown, (command, over_acp.shown - in_tui.shown)
    by_command = {o.command: o for o in acp}
    assert by_command["/plan"].mode == "plan" and by_command["/plan off"].mode == "default"
    assert by_command["/permissions accept-edits"].mode == "accept-edits"
    assert "Sandbox: read-only, network off. Change it for this session with /sandbox "\
           "read-only|workspace-write|off." in by_command["/sandbox"].shown
    assert by_command["/undo"].files["f.txt"] == "original\n"
    assert by_command["/init"].files["AGENTS.md"] == "# Agents\n"
    assert by_command["/compact"].messages < by_command["/init"].messages
    assert by_command["/clear"].messages == 0


def test_only_command_shaped_text_is_a_command() -> None:
    from sigit.commands import parse

    assert parse("/plan off") == ("plan", "off")
    assert parse("  /git:commit fix the bug") == ("git:commit", "fix the bug")
    assert parse("/etc/hosts has a bad entry") is None  # a path: a prompt for the model
    assert parse("what does /plan do?") is None
