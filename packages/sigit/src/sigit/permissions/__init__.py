"""Whether a tool call may run: rules, modes and grants."""

from typing import Any

from sigit.permissions.rules import Rule, RuleSyntaxError, parse_rule

__all__ = [
    "Decision",
    "DecisionKind",
    "PermissionPolicy",
    "Rule",
    "RuleSyntaxError",
    "parse_mode",
    "parse_rule",
]


def __getattr__(name: str) -> Any:
    # policy imports config.settings, which imports rules from here: load policy lazily.
    if name in ("Decision", "DecisionKind", "PermissionPolicy", "parse_mode"):
        from sigit.permissions import policy

        return getattr(policy, name)
    raise AttributeError(f"module 'sigit.permissions' has no attribute {name!r}")
