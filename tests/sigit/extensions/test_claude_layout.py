"""A `.claude/` folder written for Claude Code works unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from onde import ChatEngine
from qwen_runtime.backends.scripted import ScriptedRuntime
from sigit.agent.subagent import make_task_tool
from sigit.extensions import discover_agent_types, discover_commands, discover_skills
from sigit.extensions.skill_tool import make_skill_tool
from sigit.tools import ToolContext, default_registry

if TYPE_CHECKING:
    from conftest import Layout  # the fixture's type; conftest is not importable at run time

SKILL = """\
---
name: pdf-processing
description: Extract text and tables from PDF files. Use when the user mentions PDFs, forms, or extraction.
allowed-tools: Read, Grep, Glob
---
# PDF Processing

Run `python scripts/extract.py FILE` and read [the reference](REFERENCE.md).
"""

COMMAND = """\
---
allowed-tools: Bash(git diff:*), Bash(git status:*)
argument-hint: [pr-number] [priority] [assignee]
description: Review pull request
model: claude-3-5-haiku-20241022
---
Review PR #$1 with priority $2 and assign to $3.
"""

AGENT = """\
---
name: code-explorer
description: Use this agent when you need to understand code. Examples: <example>Context: the user \
asks "how does auth work?" assistant: "I'll use the code-explorer agent"</example>
tools: Glob, Grep, LS, Read, NotebookRead, WebFetch, TodoWrite, WebSearch, BashOutput
model: sonnet
color: yellow
---
You are an expert code analyst. Trace how features are implemented.
"""


async def test_claude_code_folder_works_unchanged(layout: Layout) -> None:
    claude = layout.repo / ".claude"
    layout.write(claude / "skills" / "pdf" / "SKILL.md", SKILL)
    layout.write(claude / "skills" / "pdf" / "REFERENCE.md", "ref")
    layout.write(claude / "commands" / "review.md", COMMAND)
    layout.write(claude / "agents" / "explorer.md", AGENT)

    skills = discover_skills(layout.cwd, layout.config)
    assert skills.warnings == [] and skills.names() == ["pdf-processing"]
    out = await make_skill_tool(skills).invoke({"name": "pdf-processing"}, ToolContext(cwd=layout.cwd))
    assert "scripts/extract.py" in out.text and "REFERENCE.md" in out.text

    commands = discover_commands(layout.cwd, layout.config)
    review = commands.get("review")
    assert commands.warnings == [] and review is not None
    assert review.description == "Review pull request"
    assert review.argument_hint == "[pr-number] [priority] [assignee]"
    assert review.expand("456 high alice") == "Review PR #456 with priority high and assign to alice.\n"

    agents = discover_agent_types(layout.cwd, layout.config)
    explorer = agents.get("code-explorer")
    assert explorer is not None and explorer.description.startswith("Use this agent when you need")
    assert explorer.tools == ("glob", "search_files", "list_directory", "read_file", "read_website",
                              "command_output")
    # Claude Code tools siGit lacks, or that are not for subagents, are named in warnings
    assert {w.message.split("'")[1] for w in agents.warnings} == {"NotebookRead", "TodoWrite", "WebSearch"}

    runtime = ScriptedRuntime(["Auth lives in auth.py."])
    task = make_task_tool(lambda: ChatEngine(runtime), agents, default_registry())
    result = await task.invoke(
        {"description": "trace auth", "prompt": "How does auth work?", "subagent_type": "code-explorer"},
        ToolContext(cwd=layout.cwd),
    )
    assert result.text == "Auth lives in auth.py."
    assert runtime.requests[0].messages[0].content.startswith("You are an expert code analyst.")
