"""User and project extensions: skills, custom slash commands and agent types for `task`.

All are markdown files with YAML frontmatter, found in `.sigit/` and `.claude/` folders from the
cwd up to the repo root, then in the user config dir and `~/.claude`. Discovery never fails: a bad
file becomes a warning naming it.
"""

from sigit.extensions.agent_types import AgentType, AgentTypeSet, discover_agent_types, subagent_tools
from sigit.extensions.commands import CommandSet, CustomCommand, discover_commands, split_arguments
from sigit.extensions.frontmatter import (
    Document,
    ExtensionWarning,
    FrontmatterError,
    parse_frontmatter,
    read_document,
)
from sigit.extensions.locations import SearchRoot, search_roots
from sigit.extensions.skills import Skill, SkillSet, discover_skills

__all__ = [
    "AgentType",
    "AgentTypeSet",
    "CommandSet",
    "CustomCommand",
    "Document",
    "ExtensionWarning",
    "FrontmatterError",
    "SearchRoot",
    "Skill",
    "SkillSet",
    "discover_agent_types",
    "discover_commands",
    "discover_skills",
    "parse_frontmatter",
    "read_document",
    "search_roots",
    "split_arguments",
    "subagent_tools",
]
