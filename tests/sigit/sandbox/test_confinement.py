"""Real commands under the real sandbox: what they can and cannot write, and the network."""

from __future__ import annotations

import dataclasses
import gc
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sigit.sandbox import Sandbox, SandboxPolicy, SandboxSupport, open_sandbox

MakeSandbox = Callable[..., Sandbox]
Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener of the test's own on 127.0.0.1 (outside any sandbox)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock


def connect_script(port: int) -> str:
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')"
    return f'$PYTHON -c "{code}"'


def test_workspace_write_allows_the_workspace_and_refuses_outside(
    make_sandbox: MakeSandbox, run: Run, workspace: Path, outside: Path
) -> None:
    target = outside / "notes.txt"
    target.write_text("original\n")
    sandbox = make_sandbox()

    inside = run(sandbox, "echo built > out.txt && mkdir -p sub/dir && mv out.txt sub/dir/ && cat sub/dir/out.txt",
                 workspace)
    assert inside.returncode == 0, inside.stdout
    assert (workspace / "sub/dir/out.txt").read_text() == "built\n"

    refused = run(sandbox, f"echo changed > {target}", workspace)
    assert refused.returncode != 0
    assert target.read_text() == "original\n"
    assert sandbox.explain(refused.returncode, refused.stdout) == (
        f"blocked by the sandbox: write to {target} outside the workspace")

    for command in (f"rm -f {target}", f"mv {target} {workspace}/stolen", f"touch {outside}/new"):
        result = run(sandbox, command, workspace)
        assert result.returncode != 0, command
    assert target.read_text() == "original\n"
    assert sorted(os.listdir(outside)) == ["notes.txt"]


def test_network_off_refuses_connect_and_network_on_allows_it(
    make_sandbox: MakeSandbox, run: Run, workspace: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    off = make_sandbox(network=False)
    refused = run(off, connect_script(port), workspace)
    assert refused.returncode != 0 and "connected" not in refused.stdout
    assert off.explain(refused.returncode, refused.stdout) is not None
    assert "network access is off" in (off.explain(refused.returncode, refused.stdout) or "")

    on = make_sandbox(network=True)
    allowed = run(on, connect_script(port), workspace)
    assert allowed.returncode == 0, allowed.stdout
    assert "connected" in allowed.stdout


def test_network_off_with_loopback_reaches_only_servers_the_command_starts(
    make_sandbox: MakeSandbox, run: Run, workspace: Path, listener: socket.socket
) -> None:
    sandbox = make_sandbox(network=False, loopback=True)
    own_server = (
        "$PYTHON -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); "
        "c = socket.create_connection(s.getsockname(), timeout=5); print('own server reached')\""
    )
    mine = run(sandbox, own_server, workspace)
    assert mine.returncode == 0, mine.stdout
    hosts = run(sandbox, connect_script(listener.getsockname()[1]), workspace)
    assert hosts.returncode != 0 and "connected" not in hosts.stdout


def test_network_off_also_stops_udp(make_sandbox: MakeSandbox, run: Run, workspace: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        receiver.settimeout(0.5)
        port = receiver.getsockname()[1]
        code = f"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', ('127.0.0.1', {port}))"
        sender = f'$PYTHON -c "{code}"'
        run(make_sandbox(network=False), sender, workspace)
        with pytest.raises(TimeoutError):
            receiver.recv(16)


def git(*args: str) -> str:
    return "git -c user.name=Sandbox -c user.email=sandbox@example.invalid -c commit.gpgsign=false " + " ".join(args)


def test_git_commits_work_but_hooks_and_config_stay_read_only(
    make_sandbox: MakeSandbox, run: Run, workspace: Path
) -> None:
    sandbox = make_sandbox()
    first = run(sandbox, f"git init -q && echo one > a.txt && git add a.txt && {git('commit -q -m first')}", workspace)
    assert first.returncode == 0, first.stdout

    hook = workspace / ".git/hooks/pre-commit"
    planted = run(sandbox, f"printf '#!/bin/sh\\necho pwned\\n' > {hook} && chmod +x {hook}", workspace)
    assert planted.returncode != 0
    assert not hook.exists()
    assert sandbox.explain(planted.returncode, planted.stdout) == (
        f"blocked by the sandbox: write to {hook} (git hooks and git config stay read-only inside the sandbox)")

    config_before = (workspace / ".git/config").read_text()
    for command in (git("config core.hooksPath /tmp/evil"), "echo '[core]' >> .git/config",
                    "mv .git .git-old && git init -q", "rm -rf .git/hooks"):
        result = run(sandbox, command, workspace)
        assert result.returncode != 0, command
    assert (workspace / ".git/config").read_text() == config_before
    assert (workspace / ".git/HEAD").exists()

    second = run(sandbox, f"echo two >> a.txt && {git('commit -q -am second')} && git log --oneline", workspace)
    assert second.returncode == 0, second.stdout
    assert len(second.stdout.strip().splitlines()) == 2


def test_a_forked_or_detached_child_is_confined_too(
    make_sandbox: MakeSandbox, run: Run, workspace: Path, outside: Path
) -> None:
    sandbox = make_sandbox()
    forked = (
        f"$PYTHON -c \"import os; pid = os.fork()\n"
        f"if pid == 0:\n    open('{outside}/child.txt', 'w').write('x')\nelse:\n    os.waitpid(pid, 0)\" ; "
        f"(setsid sh -c 'echo x > {outside}/detached.txt' &) ; sleep 0.3; "
        f"sh -c 'echo x > {workspace}/grandchild.txt'"
    )
    result = run(sandbox, forked, workspace)
    assert (workspace / "grandchild.txt").exists(), result.stdout
    assert os.listdir(outside) == []


def test_read_only_refuses_writes_to_the_workspace(make_sandbox: MakeSandbox, run: Run, workspace: Path) -> None:
    (workspace / "keep.txt").write_text("kept\n")
    sandbox = make_sandbox(mode="read-only")
    result = run(sandbox, "cat keep.txt && echo x > new.txt", workspace)
    assert result.returncode != 0
    assert "kept" in result.stdout
    assert not (workspace / "new.txt").exists()
    note = sandbox.explain(result.returncode, result.stdout)
    assert note is not None and note.startswith(f"blocked by the sandbox: write to {workspace}/new.txt")
    scratch = run(sandbox, 'echo scratch > "$TMPDIR/s.txt" && cat "$TMPDIR/s.txt"', workspace)
    assert scratch.returncode == 0 and "scratch" in scratch.stdout


def test_tmpdir_is_private_and_the_rest_of_tmp_is_not_writable(
    make_sandbox: MakeSandbox, run: Run, workspace: Path
) -> None:
    sandbox = make_sandbox()
    temp = sandbox.policy.temp_dir
    assert temp is not None and temp.is_dir()
    result = run(sandbox, 'echo "$TMPDIR" && mktemp && echo ok > "$TMPDIR/f"', workspace)
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines()[0] == str(temp)
    assert result.stdout.splitlines()[1].startswith(f"{temp}/")
    stray = Path("/tmp") / f"sigit-sandbox-test-{os.getpid()}"
    refused = run(sandbox, f"echo x > {stray}", workspace)
    assert refused.returncode != 0 and not stray.exists()
    sandbox.close()
    assert not temp.exists()


def test_a_sandbox_nobody_closed_leaves_no_temp_dir_behind(workspace: Path) -> None:
    # a frontend that forgets close() (or exits on an error) must not litter /tmp, one dir a session
    sandbox = open_sandbox(SandboxPolicy.from_settings(None, workspace=workspace))
    temp = sandbox.policy.temp_dir
    assert temp is not None and temp.is_dir()
    del sandbox
    gc.collect()
    assert not temp.exists()


def test_devices_and_pipes_still_work(make_sandbox: MakeSandbox, run: Run, workspace: Path) -> None:
    command = "echo hidden > /dev/null && echo shown | cat > /dev/stdout && head -c 4 /dev/zero | wc -c"
    result = run(make_sandbox(), command, workspace)
    assert result.returncode == 0, result.stdout
    assert result.stdout.split() == ["shown", "4"]


def test_the_command_cannot_signal_processes_outside(make_sandbox: MakeSandbox, run: Run, workspace: Path) -> None:
    result = run(make_sandbox(), f"kill -0 {os.getpid()}", workspace)
    assert result.returncode != 0


def test_off_behaves_like_a_plain_subprocess(
    make_sandbox: MakeSandbox, run: Run, workspace: Path, outside: Path
) -> None:
    sandbox = make_sandbox(mode="off")
    assert not sandbox.active and sandbox.mode == "off" and sandbox.warnings == ()
    wrapped = sandbox.wrap(["sh", "-c", "true"], {"A": "1"})
    assert wrapped.argv == ["sh", "-c", "true"] and wrapped.env == {"A": "1"}
    result = run(sandbox, f"echo x > {outside}/free.txt", workspace)
    assert result.returncode == 0 and (outside / "free.txt").exists()
    assert sandbox.explain(1, "sh: 1: cannot create /etc/hosts: Permission denied") is None


def test_a_launcher_that_cannot_confine_never_runs_the_command(
    make_sandbox: MakeSandbox, workspace: Path, outside: Path
) -> None:
    sandbox = make_sandbox()
    wrapped = sandbox.wrap(["sh", "-c", f"echo ran > {outside}/ran.txt"], dict(os.environ))
    missing = str(workspace / "no-such-dir")
    argv = wrapped.argv
    cut = argv.index("--")
    argv = [*argv[:cut], "--pin", missing, *argv[cut:]]  # a bind mount that must fail (a vanished --ro is skipped)
    done = subprocess.run(argv, env=wrapped.env, capture_output=True, text=True, check=False)
    assert done.returncode == 126
    assert "sigit sandbox: could not confine the command" in done.stderr
    note = sandbox.explain(done.returncode, done.stderr)
    assert note is not None and note.startswith("not run: the sandbox could not be set up (bind ")
    assert not (outside / "ran.txt").exists()


def test_files_in_the_workspace_cannot_hijack_the_launcher(
    make_sandbox: MakeSandbox, run: Run, workspace: Path, outside: Path
) -> None:
    """The launcher runs unconfined for a moment: nothing the command could write may run then."""
    for name in ("ctypes", "fcntl", "struct", "os", "binascii", "sitecustomize", "_enforce"):
        (workspace / f"{name}.py").write_text(f"open({str(outside / name)!r}, 'w').write('ran')\n")
    result = run(make_sandbox(), "echo fine", workspace, PYTHONPATH=str(workspace), PYTHONSTARTUP=str(workspace))
    assert result.stdout == "fine\n"
    assert os.listdir(outside) == []


@pytest.mark.parametrize("hide", ["dir", "socket"])
def test_service_sockets_are_hidden(
    make_sandbox: MakeSandbox, run: Run, workspace: Path, outside: Path, hide: str
) -> None:
    """A unix socket reached by path (a session bus, docker.sock) would run code outside the sandbox."""
    service = outside / "run"
    service.mkdir()
    path = service / "bus.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen(4)
        code = f"import socket; socket.socket(socket.AF_UNIX).connect({str(path)!r}); print('connected')"
        connect = f'$PYTHON -c "{code}"'
        open_door = run(make_sandbox(network=True, masked=()), connect, workspace)
        assert "connected" in open_door.stdout  # without the mask, Landlock alone lets it through
        masked = (str(service) if hide == "dir" else str(path),)
        for network in (False, True):
            hidden = run(make_sandbox(network=network, masked=masked), connect, workspace)
            assert hidden.returncode != 0 and "connected" not in hidden.stdout, hidden.stdout


def test_an_abi_2_kernel_says_that_files_outside_can_be_truncated(
    support: SandboxSupport, workspace: Path
) -> None:
    old_kernel = dataclasses.replace(support, landlock_abi=2)
    with open_sandbox(SandboxPolicy(workspace=workspace, cache_dirs=()), old_kernel) as sandbox:
        assert sandbox.active
        assert any("cannot refuse truncation" in w for w in sandbox.warnings), sandbox.warnings


def test_a_crashed_run_leaves_no_temp_dir_for_long(workspace: Path, tmp_path: Path) -> None:
    """Issue 28: a siGit killed or crashed (no finalizer runs) left an empty /tmp/sigit-sandbox-*; the next
    sandbox opened removes it, and never one of a live process."""
    script = ("import os, sys\nfrom pathlib import Path\nfrom sigit.sandbox import SandboxPolicy, open_sandbox\n"
              "s = open_sandbox(SandboxPolicy.from_settings(None, workspace=Path(sys.argv[1])))\n"
              "print(s.policy.temp_dir, flush=True)\nos._exit(3)\n")
    done = subprocess.run([sys.executable, "-c", script, str(workspace)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 3, done.stderr
    left = Path(done.stdout.strip())
    assert left.is_dir() and left.name.startswith("sigit-sandbox-")
    live = Path(tempfile.mkdtemp(prefix=f"sigit-sandbox-{os.getppid()}-"))
    try:
        sandbox = open_sandbox(SandboxPolicy.from_settings(None, workspace=workspace))
        assert not left.exists()
        assert live.exists()  # the parent process of this test is alive
        sandbox.close()
    finally:
        shutil.rmtree(live, ignore_errors=True)


def test_a_command_cannot_fake_the_sandbox_setup_failure(make_sandbox: MakeSandbox, run: Run, workspace: Path) -> None:
    """Issue 28 (LOW): a command printing the launcher's failure line got the "run without the sandbox"
    offer; the real line carries a secret tag the command never sees."""
    sandbox = make_sandbox()
    fake = run(sandbox, "echo 'sigit sandbox: could not confine the command: Operation not permitted' >&2; "
                        "exit 126", workspace)
    assert fake.returncode == 126 and "could not confine" in fake.stdout
    assert sandbox.explain(fake.returncode, fake.stdout) is None
    assert sandbox.policy.tag is not None and sandbox.policy.tag not in run(sandbox, "cat /proc/self/cmdline; env",
                                                                            workspace).stdout
