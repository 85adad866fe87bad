"""Each tool declares its Claude Code names and argument keys; the Claude CLI reads only those."""

from __future__ import annotations

from sigit.tools import all_tools
from sigit.tools.claude import claude_name, from_claude, our_name, rules_from_claude, to_claude

BUILTIN = all_tools()


def test_every_claude_name_a_tool_declares_leads_back_to_it() -> None:
    for tool in BUILTIN:
        for alias in tool.aliases:
            assert our_name(alias, BUILTIN) == tool.name, alias
        if tool.aliases:
            assert claude_name(tool.name, BUILTIN) == tool.aliases[0]
            assert to_claude(tool.name, {}, BUILTIN)[0] == tool.aliases[0]


def test_kill_bash_names_kill_command_as_its_alias_says() -> None:
    assert from_claude("KillBash", {"shell_id": "t1"}, BUILTIN) == ("kill_command", {"task_id": "t1"})
    assert from_claude("KillShell", {"shell_id": "t1"}, BUILTIN) == ("kill_command", {"task_id": "t1"})
    assert to_claude("kill_command", {"task_id": "t1"}, BUILTIN) == ("KillShell", {"shell_id": "t1"})
    assert rules_from_claude("KillBash", BUILTIN) == ["kill_command"]


def test_a_session_s_own_tools_are_translated_by_their_declarations() -> None:
    """Tools the built-in list does not have (task, skill, MCP) are found among the tools passed."""
    from sigit.extensions.skill_tool import make_skill_tool
    from sigit.extensions.skills import SkillSet

    skill = make_skill_tool(SkillSet([], []))
    assert from_claude("Skill", {"skill": "pdf"}, [skill]) == ("skill", {"name": "pdf"})
    assert from_claude("Skill", {"skill": "pdf"}, BUILTIN) == ("Skill", {"skill": "pdf"})  # not a built-in
    assert to_claude("mcp__github__search", {"q": 1}, [skill]) == ("mcp__github__search", {"q": 1})
