"""Whether a tool call may run: rules, modes and grants."""

from sigit.config.rules import Rule, RuleSyntaxError, parse_rule
from sigit.permissions.policy import Decision, DecisionKind, PermissionPolicy, parse_mode

__all__ = [
    "Decision",
    "DecisionKind",
    "PermissionPolicy",
    "Rule",
    "RuleSyntaxError",
    "parse_mode",
    "parse_rule",
]
