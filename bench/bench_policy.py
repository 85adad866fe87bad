"""Permission policy benchmark: what `PermissionPolicy.decide` costs per tool call, on realistic calls.

Writes bench/results/policy.md. Target (issue 12): under 1 ms per call. Command lines are timed with the
parse cache cleared (the first time a line is seen, the worst case) and warm (the same line again, as
when a call is decided and then its "always allow" rule is checked).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_shell_grammar import per_call  # the same timing loop (bench/ is this script's sys.path[0])

RESULTS = Path(__file__).resolve().parent / "results" / "policy.md"

ALLOW = [
    *(f"run_command({rule})" for rule in (
        "git status*", "git log:*", "git diff*", "ls*", "cat*", "grep*", "make test*", "make lint*",
        "npm test*", "python3 -m pytest*", "echo*", "cd*", "pwd", "wc*", "head*", "tail*")),
    "edit_file(src/**)", "create_file(tests/**)", "read_website(domain:docs.python.org)",
]
DENY = ["run_command(rm -rf*)", "run_command(git push --force*)", "read_file(.env)", "edit_file(secrets/**)",
        "run_command(curl*)"]

CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("read a file inside", "read_file", {"path": "src/app/main.py"}),
    ("read a file outside (asks)", "read_file", {"path": "~/.ssh/id_rsa"}),
    ("read a denied file", "read_file", {"path": "./sub/../.env"}),
    ("edit a file a rule allows", "edit_file", {"path": "src/app/main.py", "old_text": "a", "new_text": "b"}),
    ("edit a denied path", "edit_file", {"path": "secrets/key.pem", "old_text": "a", "new_text": "b"}),
    ("create a file", "create_file", {"path": "tests/test_new.py", "content": "x"}),
    ("fetch a page", "read_website", {"url": "https://docs.python.org/3/library/os.html"}),
    ("one command", "run_command", {"command": "git status"}),
    ("three commands", "run_command", {"command": "cd src && make test 2>&1 | tail -n 20"}),
    ("six with substitutions", "run_command",
     {"command": 'git log -n 5 && echo "at $(date)" && ls src | grep py | wc -l || echo `whoami` failed'}),
    ("denied inside a list", "run_command", {"command": "make lint && git push --force origin main"}),
    ("script (10 lines)", "run_command", {"command": "\n".join(
        f"if [ -f file{i} ]; then cat file{i} | grep -c x; else echo missing {i}; fi" for i in range(10))}),
]


def main() -> int:
    from sigit.config.settings import PermissionSettings, Settings
    from sigit.permissions.policy import PermissionPolicy
    from sigit.permissions.shell_grammar import parse_line
    from sigit.tools import ToolContext, default_registry
    from sigit.tools.base import PreparedCall

    registry = default_registry()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp) / "project"
        for folder in ("src/app", "tests", "secrets", "sub"):
            (cwd / folder).mkdir(parents=True)
        (cwd / "src/app/main.py").write_text("a\n")
        (cwd / ".env").write_text("KEY=1\n")
        perms = PermissionSettings(default="ask", allow=ALLOW, deny=DENY)
        policy = PermissionPolicy(Settings(permissions=perms), cwd, None, env={})
        ctx = ToolContext(cwd=cwd)
        rows = []
        worst = 0.0
        for label, name, args in CALLS:
            tool = registry.get(name)
            assert tool is not None, name
            call = tool.prepare(args, ctx)
            assert isinstance(call, PreparedCall), call
            kind = policy.decide(call).kind

            def cold(call: PreparedCall = call) -> None:
                parse_line.cache_clear()
                policy.decide(call)

            def warm(call: PreparedCall = call) -> None:
                policy.decide(call)

            cold_s, warm_s = per_call(cold, 200), per_call(warm, 1000)
            worst = max(worst, cold_s)
            rows.append(f"| {label} | {name} | {kind} | {cold_s * 1e6:.0f} µs | {warm_s * 1e6:.0f} µs |")
    lines = [
        "# permission policy benchmarks",
        "",
        f"Machine: {os.cpu_count()} cores. `python bench/bench_policy.py`. `PermissionPolicy.decide` on a prepared "
        f"call, with {len(ALLOW)} allow and {len(DENY)} deny rules; paths are resolved on a real directory "
        "(symlinks followed). Cold: the shell parse cache cleared before each call. Target: under 1 ms per call.",
        "",
        "| call | tool | decision | cold | warm |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"Worst case: {worst * 1e3:.3f} ms per call ({'within' if worst < 1e-3 else 'OVER'} the 1 ms target).",
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if worst < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
