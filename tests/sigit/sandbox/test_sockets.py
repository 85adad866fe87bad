"""Unix sockets reached by path: the services that would run a command outside the sandbox are hidden."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sigit.sandbox import Sandbox

from .conftest import Run


@pytest.fixture
def tmux_server(tmp_path: Path) -> Iterator[str]:
    """A tmux server of this user's, on its default socket directory (/tmp/tmux-UID): its -L name."""
    tmux = shutil.which("tmux")
    assert tmux is not None, "these tests need tmux installed"
    name = f"sigit-test-{os.getpid()}-{tmp_path.name}"
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_TMPDIR")}
    subprocess.run([tmux, "-L", name, "new-session", "-d", "sleep 60"], check=True, env=env)
    yield name
    subprocess.run([tmux, "-L", name, "kill-server"], check=False, env=env)


def test_a_tmux_server_cannot_run_a_command_for_the_sandbox(
    make_sandbox: Callable[..., Sandbox], run: Run, workspace: Path, outside: Path, tmux_server: str
) -> None:
    marker = outside / "PWNED"
    window = f"touch {marker}; tmux -L {tmux_server} wait-for -S sigit-done"
    command = f"tmux -L {tmux_server} new-window -d '{window}' && tmux -L {tmux_server} wait-for sigit-done"
    for network in (False, True):
        done = run(make_sandbox(network=network), command, workspace)
        assert done.returncode != 0, done.stdout
        assert not marker.exists()


def test_sockets_named_in_the_environment_are_not_passed_on(make_sandbox: Callable[..., Sandbox]) -> None:
    names = ("TMUX", "STY", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK")
    wrapped = make_sandbox().wrap(["env"], {**{n: "/tmp/some.sock" for n in names}, "PATH": "/usr/bin"})
    assert not set(names) & set(wrapped.env) and wrapped.env["PATH"] == "/usr/bin"
