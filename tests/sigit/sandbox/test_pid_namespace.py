"""Each sandboxed command in a PID namespace of its own (issue 49 family 2): the kernel, not a sweep
by siGit, ends what the command left, whatever it did to its session, process group or environment.

Started here with plain subprocess calls (no reaper): what is checked is the launcher's own work.
Processes are found by a token on their command line (their pids are their namespace's).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sigit.sandbox import Sandbox

from ..proc_table import alive_with, token

MakeSandbox = Callable[..., Sandbox]


def _start(sandbox: Sandbox, command: str, cwd: Path, *, background: bool = False) -> subprocess.Popen[str]:
    wrapped = sandbox.wrap(["sh", "-c", command], dict(os.environ), background=background)
    return subprocess.Popen(wrapped.argv, env=wrapped.env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True, pass_fds=wrapped.pass_fds)


def _wait_for(check: Callable[[], bool]) -> None:
    """Until `check()` holds (on the event; the deadline only keeps a broken run from hanging)."""
    deadline = time.monotonic() + 30
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.01)


def test_what_a_command_leaves_ends_with_it_whatever_it_did(make_sandbox: MakeSandbox, workspace: Path) -> None:
    sandbox = make_sandbox()
    assert sandbox.enforcement.processes
    t = token()
    left = (f"env -i setsid sh -c 'trap \"\" TERM HUP; : > r1; sleep {t}' > /dev/null 2>&1 & "
            f"(setsid nohup sh -c ': > r2; sleep {t}' > /dev/null 2>&1 &); ")
    proc = _start(sandbox, left + "until [ -e r1 ] && [ -e r2 ]; do :; done; exit 3", workspace)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 3, out  # the command's own status
    assert alive_with(t) == []  # gone when the launcher returned: nobody swept for them


def test_a_command_sees_only_its_own_processes(make_sandbox: MakeSandbox, workspace: Path) -> None:
    proc = _start(make_sandbox(), "echo $$; ls /proc | grep -c '^[0-9]'", workspace)
    out, _ = proc.communicate(timeout=60)
    own_pid, count = out.split()
    assert int(own_pid) < 10 and int(count) < 10, out  # its init, itself and `ls`: not the host's


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])  # SIGKILL: what the OOM killer sends
def test_a_command_killed_by_a_signal_is_reported_so(make_sandbox: MakeSandbox, workspace: Path, sig: int) -> None:
    proc = _start(make_sandbox(), f"kill -{signal.Signals(sig).name[3:]} $$", workspace)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -sig and "Traceback" not in str(err)


def test_a_term_to_the_launcher_reaches_the_command(make_sandbox: MakeSandbox, workspace: Path) -> None:
    """An editor's `kill_terminal` signals the process it started, not its group."""
    t = token()
    proc = _start(make_sandbox(), f"trap 'echo bye > got-term; exit 0' TERM; sleep {t} & : > ready; wait", workspace)
    _wait_for((workspace / "ready").exists)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert (workspace / "got-term").read_text() == "bye\n"
    assert proc.returncode == 0 and alive_with(t) == []


def test_a_background_commands_leftovers_last_until_its_group_is_killed(
    make_sandbox: MakeSandbox, workspace: Path
) -> None:
    t = token()
    proc = _start(make_sandbox(), f"env -i setsid sleep {t} > /dev/null 2>&1 & echo started", workspace,
                  background=True)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out == "started\n"
    # a server started in the background keeps serving (found once it runs: env and setsid exec on the way)
    _wait_for(lambda: alive_with(t, "sleep") != [])
    os.killpg(proc.pid, signal.SIGKILL)  # session end: the init stayed in the group siGit started
    _wait_for(lambda: alive_with(t) == [])


def test_a_background_commands_leftovers_end_when_sigit_is_gone(make_sandbox: MakeSandbox, workspace: Path) -> None:
    """siGit killed before it could end the session: the end of its lifeline pipe ends the namespace."""
    sandbox = make_sandbox()
    t = token()
    wrapped = sandbox.wrap(["sh", "-c", f"setsid sleep {t} > /dev/null 2>&1 & echo started"], dict(os.environ),
                           background=True)
    assert wrapped.pass_fds and "--lifeline" in wrapped.argv  # siGit's own, held until it exits
    read_end, write_end = os.pipe()  # this test's, standing for siGit's
    argv = [str(read_end) if word == str(wrapped.pass_fds[0]) else word for word in wrapped.argv]
    proc = subprocess.Popen(argv, env=wrapped.env, cwd=workspace, stdout=subprocess.PIPE, text=True,
                            start_new_session=True, pass_fds=(read_end,))
    os.close(read_end)
    out, _ = proc.communicate(timeout=60)
    assert out == "started\n"  # the watcher does not hold the output open
    _wait_for(lambda: alive_with(t, "sleep") != [])
    os.close(write_end)  # siGit is gone
    _wait_for(lambda: alive_with(t) == [])


def test_a_foreground_command_ends_when_sigit_is_gone(make_sandbox: MakeSandbox, workspace: Path) -> None:
    t = token()
    wrapped = make_sandbox().wrap(["sh", "-c", f"sleep {t} & : > ready; wait"], dict(os.environ))
    standin = subprocess.Popen(  # stands for siGit: starts the command, then is killed
        [sys.executable, "-c", "import subprocess, sys, time; subprocess.Popen(sys.argv[1:]); time.sleep(600)",
         *wrapped.argv], env=wrapped.env, cwd=workspace, start_new_session=True)
    _wait_for((workspace / "ready").exists)
    standin.kill()
    standin.wait()
    _wait_for(lambda: alive_with(t) == [])


def test_a_missing_program_is_reported_as_the_shell_would(make_sandbox: MakeSandbox, workspace: Path) -> None:
    wrapped = make_sandbox().wrap(["sigit-no-such-program"], dict(os.environ))
    done = subprocess.run(wrapped.argv, env=wrapped.env, cwd=workspace, capture_output=True, text=True, check=False,
                          timeout=60)
    assert done.returncode == 127 and "sigit-no-such-program: No such file or directory" in done.stderr
