"""Issue 28 findings 4, 5 and 8 under a real sandbox: nested repositories get the top one's protection
and a new one is reported with the config keys that would run code; hard-linked files stay read-only;
uv's archive is not writable; agent and service sockets are hidden."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sigit.git import UnsafeRepositoryError, run_git
from sigit.sandbox import Sandbox, SandboxPolicy

from .conftest import Run


def _git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


@pytest.mark.parametrize("nested", ["vendor/lib", "a/b/c"])
def test_a_nested_repository_has_config_hooks_and_info_read_only(
    make_sandbox: Callable[..., Sandbox], run: Run, workspace: Path, nested: str
) -> None:
    _git_init(workspace)
    _git_init(workspace / nested)
    sandbox = make_sandbox()
    for command in (f"git -C {nested} config core.fsmonitor 'touch PWNED'",
                    f"echo 'touch PWNED' > {nested}/.git/hooks/pre-commit",
                    f"echo '* filter=x' > {nested}/.git/info/attributes",
                    f"mv {nested}/.git {nested}/old.git"):
        done = run(sandbox, command, workspace)
        assert done.returncode != 0, (command, done.stdout)
    assert "fsmonitor" not in (workspace / nested / ".git" / "config").read_text()
    assert run(sandbox, f"echo x > {nested}/file && git -C {nested} add file", workspace).returncode == 0


def test_a_repository_created_by_a_command_is_reported_and_protected(
    make_sandbox: Callable[..., Sandbox], run: Run, workspace: Path
) -> None:
    """Finding 5 as written: `git init evil && git -C evil config core.fsmonitor ...`."""
    _git_init(workspace)
    sandbox = make_sandbox()
    done = run(sandbox, "git init -q evil && git -C evil config core.fsmonitor 'touch ../PWNED' && "
                        "git -C evil config alias.st '!touch ../PWNED'", workspace)
    assert done.returncode == 0, done.stdout
    note = sandbox.after_command()
    assert note is not None and "created a git repository at evil" in note
    assert "core.fsmonitor" in note and "alias.st" in note
    repo = (workspace / "evil").resolve()
    assert sandbox.unsafe_repositories[repo] == ["core.fsmonitor", "alias.st"]
    with pytest.raises(UnsafeRepositoryError, match=r"core\.fsmonitor"):
        run_git(workspace / "evil", "status", sandbox=sandbox)
    assert not (workspace / "PWNED").exists()
    # from the next command on, its config is read-only like the top one's
    assert run(sandbox, "git -C evil config core.pager 'touch PWNED'", workspace).returncode != 0
    assert sandbox.after_command() is None  # reported once


def test_a_repository_with_harmless_config_is_reported_without_a_warning(
    make_sandbox: Callable[..., Sandbox], run: Run, workspace: Path
) -> None:
    sandbox = make_sandbox()
    assert run(sandbox, "mkdir -p deps && git init -q deps/lib", workspace).returncode == 0
    note = sandbox.after_command()
    assert note == "the command created a git repository at deps/lib"
    assert sandbox.unsafe_repositories == {}


def test_an_existing_nested_repository_with_dangerous_config_is_a_warning(
    make_sandbox: Callable[..., Sandbox], workspace: Path
) -> None:
    _git_init(workspace / "sub")
    subprocess.run(["git", "-C", str(workspace / "sub"), "config", "core.hooksPath", "/tmp/x"], check=True)
    sandbox = make_sandbox()
    assert any("core.hookspath" in w and "sub" in w for w in sandbox.warnings), sandbox.warnings


def test_hard_linked_files_in_the_workspace_stay_read_only(
    make_sandbox: Callable[..., Sandbox], run: Run, workspace: Path, outside: Path
) -> None:
    """Finding 4 as written: `.venv` files are hard links into uv's cache, shared with other projects."""
    cache = outside / "uv-cache"
    cache.mkdir()
    (cache / "mod.py").write_text("x = 1\n")
    (workspace / ".venv" / "lib").mkdir(parents=True)
    os.link(cache / "mod.py", workspace / ".venv" / "lib" / "mod.py")
    (workspace / "own.py").write_text("mine\n")
    sandbox = make_sandbox()
    for command in ("echo 'import os' >> .venv/lib/mod.py", "printf evil > .venv/lib/mod.py",
                    "$PYTHON -c \"open('.venv/lib/mod.py', 'r+').write('evil')\""):
        run(sandbox, command, workspace)
        assert (cache / "mod.py").read_text() == "x = 1\n", command
    assert run(sandbox, "echo more >> own.py", workspace).returncode == 0


def test_uv_archive_is_not_a_default_writable_cache(workspace: Path, make_sandbox: Callable[..., Sandbox]) -> None:
    assert "~/.cache/uv" not in SandboxPolicy(workspace=workspace).cache_dirs
    env = make_sandbox().wrap(["true"], {"PATH": "/usr/bin"}).env
    assert env["UV_CACHE_DIR"].startswith(env["TMPDIR"])


@pytest.fixture
def listening() -> Iterator[Callable[[Path], Path]]:
    servers: list[socket.socket] = []

    def listen(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.listen(1)
        servers.append(server)
        return path

    yield listen
    for server in servers:
        server.close()


@pytest.mark.parametrize("where", ["/tmp/ssh-sigitTEST{pid}/agent.{pid}", "/tmp/sigit-svc-{pid}/x.sock",
                                   "/tmp/sigit-{pid}.sock", "/tmp/gpg-sigit{pid}/S.gpg-agent",
                                   "/tmp/dbus-sigit{pid}"])
def test_agent_and_service_sockets_are_hidden(
    make_sandbox: Callable[..., Sandbox], run: Run, workspace: Path, listening: Callable[[Path], Path],
    where: str
) -> None:
    """Finding 8 as written: an ssh-agent socket under /tmp/ssh-*/agent.* was reachable by path."""
    path = listening(Path(where.format(pid=os.getpid())))
    try:
        connect = f"$PYTHON -c \"import socket; socket.socket(socket.AF_UNIX).connect('{path}')\""
        sandbox = make_sandbox(network=True)
        done = run(sandbox, connect, workspace)
        assert done.returncode != 0, done.stdout
        assert subprocess.run(["sh", "-c", connect.replace("$PYTHON", os.environ.get("PYTHON", "python3"))],
                              check=False).returncode == 0  # reachable outside the sandbox
    finally:
        path.unlink(missing_ok=True)
        if path.parent != Path("/tmp"):
            os.rmdir(path.parent)


def test_a_submodule_gitlink_gets_the_same_protection(
    make_sandbox: Callable[..., Sandbox], run: Run, workspace: Path, outside: Path
) -> None:
    """A nested repository behind a `.git` file (a submodule): its git dir's config and hooks are read-only."""
    lib = outside / "lib"
    _git_init(lib)
    subprocess.run(["git", "-C", str(lib), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    _git_init(workspace)
    subprocess.run(["git", "-C", str(workspace), "-c", "protocol.file.allow=always", "submodule", "add", "-q",
                    str(lib), "vendor/lib"], check=True, capture_output=True)
    assert (workspace / "vendor" / "lib" / ".git").is_file()
    sandbox = make_sandbox()
    for command in ("git -C vendor/lib config core.fsmonitor 'touch PWNED'",
                    "echo 'gitdir: /tmp' > vendor/lib/.git"):
        assert run(sandbox, command, workspace).returncode != 0, command
    assert "fsmonitor" not in (workspace / ".git" / "modules" / "vendor" / "lib" / "config").read_text()


def test_a_linked_venv_is_one_read_only_mount_and_stray_links_are_files(workspace: Path, outside: Path) -> None:
    """A uv-built `.venv` (mostly links) costs one mount, not one per file; a lone link elsewhere is itself."""
    from sigit.sandbox.gitdirs import scan_tree

    cache = outside / "cache"
    cache.mkdir()
    venv = workspace / ".venv" / "lib" / "site-packages"
    for package in ("a", "b"):
        (venv / package).mkdir(parents=True)
        for name in ("x.py", "y.py"):
            (cache / f"{package}{name}").write_text("")
            os.link(cache / f"{package}{name}", venv / package / name)
    (venv / "a.pth").write_text("")  # uv's own file: the directory is still mostly links
    (workspace / "src").mkdir()
    (workspace / "src" / "own.py").write_text("")
    (workspace / "src" / "other.py").write_text("")
    os.link(cache / "ax.py", workspace / "src" / "linked.py")
    found = scan_tree(workspace)
    assert sorted(found.linked) == sorted([workspace / ".venv", workspace / "src" / "linked.py"])
