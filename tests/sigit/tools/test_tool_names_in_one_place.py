"""Every tool is declared under sigit/tools (the task and skill tools too), and code elsewhere names a
tool through its declaration, never by a string of its own: a renamed tool cannot leave a stale copy."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import sigit
from sigit.agent.subagent import make_task_tool
from sigit.extensions.skill_tool import make_skill_tool
from sigit.extensions.skills import SkillSet
from sigit.tools import Tool, all_tools, default_registry
from sigit.tools.claude import from_claude

SOURCE = Path(sigit.__file__).parent
NOT_TOOL_NAMES = {
    ("permissions/shell_patterns.py", "task"),  # a subcommand word (`gradle task`), not our tool
    ("eval/report.py", "task"),  # an eval task (a column, a record type), not our tool
    ("eval/results.py", "task"),
}


def session_tools() -> list[Tool[Any]]:
    registry = default_registry()
    return [*registry, make_task_tool(lambda: None, None, registry), make_skill_tool(SkillSet([], []))]  # type: ignore[arg-type, return-value]


def test_the_task_and_skill_tools_are_declared_under_sigit_tools() -> None:
    tools = session_tools()
    task, skill = tools[-2], tools[-1]
    assert (task.name, task.aliases, task.read_only, task.subagent_ok) == ("task", ("Task",), True, False)
    assert (skill.name, skill.aliases, skill.read_only) == ("skill", ("Skill",), True)
    assert task.params.__module__ == "sigit.tools.task" and skill.params.__module__ == "sigit.tools.skill"
    assert from_claude("Task", {"description": "d", "prompt": "p"}, tools) == ("task", {"description": "d",
                                                                                       "prompt": "p"})


def test_no_tool_name_is_spelt_outside_sigit_tools() -> None:
    names = {name for tool in [*all_tools(), *session_tools()] for name in (tool.name, *tool.aliases)}
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        if relative.startswith("tools/"):
            continue
        tree = ast.parse(path.read_text())
        exempt = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)}
        exempt |= {id(item) for node in ast.walk(tree) if isinstance(node, ast.Assign)  # __all__: Python names
                       and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                       for item in ast.walk(node.value)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in exempt:
                spelt = node.value.split("(", 1)[0]
                if spelt in names and (relative, spelt) not in NOT_TOOL_NAMES:
                    found.append(f"{relative}:{node.lineno}: {node.value!r}")
    assert found == []
