"""Claude Code's tool vocabulary: each tool declares its own (`Tool.aliases`, `Tool.claude`, in
`sigit/tools/`); this module splits Claude Code's rule lists and re-exports the translations."""

from __future__ import annotations

from collections.abc import Iterable

from ...tools.claude import claude_name, from_claude, our_name, rule_to_claude, rules_from_claude, to_claude

__all__ = ["claude_name", "from_claude", "our_name", "rule_to_claude", "rules_from_claude", "split_rules",
           "to_claude"]


def split_rules(values: Iterable[str]) -> list[str]:
    """`--allowedTools "Read,Bash(git log:*)" Edit` as Claude Code splits it: on commas and spaces
    outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, list[str]()
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(depth - 1, 0)
            if depth == 0 and char in ", \t\n":
                if current:
                    rules.append("".join(current))
                current = []
                continue
            current.append(char)
        if current:
            rules.append("".join(current))
    return rules
