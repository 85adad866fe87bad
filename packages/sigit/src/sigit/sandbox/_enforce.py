"""What runs in the child between spawn and exec on Linux: namespaces, read-only bind mounts,
`no_new_privs`, Landlock; then `execvp` of the command.

Standard library only and no package imports, because the parent passes its compiled code in argv
to `python -I -S -c BOOT CODE PLAN... -- ARGV...` (support.launcher_argv): skipping `site` and
sigit's imports keeps the cost near 10 ms. A launcher rather than a `preexec_fn`: subprocess stays on
its vfork path (a `preexec_fn` forces fork(), 50-80 ms more once a model sits in memory; see
bench/results/sandbox.md) and nothing runs between fork and exec in a parent that has threads. The
parent imports this module too, for `landlock_abi()`.

Order matters: the user + mount (+ network) namespaces and the bind mounts come first, because a
Landlock-restricted process may no longer mount; `no_new_privs` before `landlock_restrict_self`, as
the kernel requires; Landlock last, so it also forbids undoing the mounts (a Landlock domain that
handles file-system access refuses mount and umount). Any failure ends the launcher with status 126
and one line on stderr: the command never runs with less confinement than planned.

With `--pidns` the command also gets a PID namespace of its own (docs/security.md, "Process
containment"): the launcher (P, the process siGit started and waits for) enters the namespaces and
forks an init (C, pid 1 there), which confines itself as above and forks the command (G). When C
exits the kernel kills everything left in the namespace, whatever its session, process group or
environment, so no `setsid`, double fork or `env -i` outlives C. C forwards SIGTERM, SIGINT, SIGHUP
and SIGQUIT to every process in the namespace and reaps orphans; P forwards the same signals to C and
exits with G's status (by the same signal when G was killed). C never leaves P's process group, so
`killpg` of the group siGit started reaches C after P is gone, and SIGKILL to C ends the namespace.
By default C exits as soon as G has (the namespace ends with the command), and P waits for that, so
the command's leftovers are gone when siGit sees it end; with `--linger` (background commands) P
exits with G and C stays until the namespace is empty or siGit kills the group (session end).
If siGit dies without ending them: P dies with its parent (a parent-death signal), and C with P,
unless lingering; a lingering C is tied to siGit by `--lifeline FD`, the read end of a pipe whose
write end only siGit holds: a watcher in the namespace blocks on it, and when siGit is gone (end of
file) the watcher exits and C with it.

Plan arguments (each option takes its values as separate words; paths are absolute):
    --userns              new user + mount namespace (the caller's uid/gid mapped to themselves)
    --netns               also a new network namespace (no interfaces but `lo`)
    --pidns               also a new PID namespace, with an init (see above); needs --userns
    --linger              with --pidns: the namespace outlives the command until it is empty
    --lifeline FD         with --linger: end the namespace when FD (a pipe's read end) reaches its end
    --lo                  bring `lo` up in that network namespace
    --pin PATH            bind PATH onto itself, so it cannot be renamed or removed (EBUSY)
    --ro PATH             bind PATH onto itself read-only
    --mask PATH           hide PATH: an empty read-only tmpfs over a directory, /dev/null over a file
    --fs MASK             Landlock file-system rights to handle (0: no file-system rules)
    --net MASK            Landlock network rights to handle (no port is allowed)
    --scope MASK          Landlock scopes (abstract unix sockets, signals)
    --allow MASK PATH     grant MASK beneath PATH
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # not `signal`: its enum import would add milliseconds to every start
import contextlib
import ctypes
import fcntl
import os
import struct
import sys

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs milliseconds here
if TYPE_CHECKING:
    from collections.abc import Sequence

# Landlock: include/uapi/linux/landlock.h. The three syscalls have the same numbers on every
# architecture that has them (they were added after the syscall tables were unified).
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1 << 0
LANDLOCK_RULE_PATH_BENEATH = 1

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

# Rights that apply to a file (a rule on a file may hold only these).
FS_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
EXIT_SANDBOX_FAILED = 126
# What an init passes on to the whole namespace (and the launcher to the init).
FORWARDED = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)


class _RulesetAttr(ctypes.Structure):
    _fields_ = (("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64))


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class SandboxSetupError(OSError):
    """A confinement step failed in the child; the message names the step."""


_libc: ctypes.CDLL | None = None


def _c() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _check(result: int, step: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise SandboxSetupError(err, f"{step}: {os.strerror(err)}")
    return result


def landlock_abi() -> int:
    """The Landlock ABI version the kernel offers, 0 when Landlock is missing or disabled."""
    try:
        result = int(_c().syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                                  ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION)))
    except (OSError, AttributeError):
        return 0
    return max(result, 0)


def restrict_self(fs: int, net: int, scope: int, rules: Sequence[tuple[int, str]]) -> None:
    """Create a ruleset handling `fs`/`net`/`scope`, grant each (mask, path) rule, enforce it.

    A rule whose path has vanished since the parent planned it is skipped: it would only have
    granted more.
    """
    attr = _RulesetAttr(fs, net, scope)
    ruleset = _check(int(_c().syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr),
                                      ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))),
                     "landlock_create_ruleset")
    try:
        for mask, path in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                if not os.path.isdir(path):
                    mask &= FS_FILE_RIGHTS
                beneath = _PathBeneathAttr(mask & fs, fd)
                _check(int(_c().syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset),
                                        ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(beneath),
                                        ctypes.c_uint32(0))), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        _check(int(_c().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(int(_c().syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter_namespaces(network: bool, pid: bool = False) -> None:
    """A new user and mount namespace (and network, PID namespace), with our own ids mapped to themselves.

    Mapping the caller's uid rather than 0 means the command keeps no capabilities after exec, so it
    cannot undo the bind mounts even where Landlock is missing. A new PID namespace holds the
    caller's next child, not the caller.
    """
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | (CLONE_NEWNET if network else 0) | (CLONE_NEWPID if pid else 0)
    try:
        _check(int(_c().unshare(flags)), "unshare (user namespaces)")
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except SandboxSetupError:
        raise
    except OSError as exc:
        raise SandboxSetupError(exc.errno, f"user namespace id maps: {exc.strerror}") from exc
    _mount(None, "/", MS_REC | MS_PRIVATE, "make / private")


def _mount(source: str | None, target: str, flags: int, step: str) -> None:
    src = source.encode() if source is not None else None
    _check(int(_c().mount(src, target.encode(), None, ctypes.c_ulong(flags), None)), f"{step} {target}")


def _locked_flags(path: str) -> int:
    """Flags a remount inside a user namespace must keep (the kernel refuses to clear them)."""
    found = os.statvfs(path).f_flag
    flags = 0
    for st, ms in ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
                   (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME)):
        if found & st:
            flags |= ms
    return flags


def pin(path: str) -> None:
    _mount(path, path, MS_BIND, "bind")


def bind_read_only(path: str) -> None:
    if not os.path.lexists(path):  # removed since the plan was made (a hard-linked file of a rebuilt .venv)
        return
    _mount(path, path, MS_BIND, "bind")
    _mount(None, path, MS_BIND | MS_REMOUNT | MS_RDONLY | _locked_flags(path), "remount read-only")


def mask(path: str) -> None:
    if not os.path.lexists(path):  # a socket that went away since the plan was made: nothing to hide
        return
    if os.path.isdir(path):
        _mount_fs("tmpfs", path, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=755")
    else:
        _mount("/dev/null", path, MS_BIND, "hide")


def _mount_fs(fstype: str, target: str, flags: int, data: str, step: str = "hide") -> None:
    _check(int(_c().mount(fstype.encode(), target.encode(), fstype.encode(), ctypes.c_ulong(flags),
                          data.encode())), f"{step} {target}")


def mount_proc() -> None:
    """A /proc that shows the new PID namespace (`ps`, `kill $(pgrep x)` see the command's own pids).

    Best effort: where the kernel refuses (a container that covers parts of its /proc), the old one
    stays; the namespace holds the processes all the same.
    """
    try:  # noqa: SIM105 - contextlib would cost every start its import
        _mount_fs("proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "", "mount")
    except SandboxSetupError:
        pass


def loopback_up() -> None:
    import _socket  # not `socket`: its enum import would add milliseconds to every start

    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH14x", b"lo", 0)
        current = struct.unpack("16sH14x", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, request))[1]
        try:
            fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", current | IFF_UP))
        except OSError as exc:
            raise SandboxSetupError(exc.errno, f"bring loopback up: {exc.strerror}") from exc
    finally:
        sock.close()


class Plan:
    """The parsed plan arguments (see the module docstring)."""

    def __init__(self) -> None:
        self.userns = self.netns = self.lo = self.pidns = self.linger = False
        self.pins: list[str] = []
        self.read_only: list[str] = []
        self.masks: list[str] = []
        self.fs = self.net = self.scope = 0
        self.rules: list[tuple[int, str]] = []
        self.argv: list[str] = []
        self.lifeline = -1
        self.tag = ""  # a secret the session knows: its setup-failure line cannot be printed by a command


def parse(args: Sequence[str]) -> Plan:
    plan = Plan()
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            plan.argv = list(args[i + 1:])
            break
        if word in ("--userns", "--netns", "--lo", "--pidns", "--linger"):
            setattr(plan, word[2:], True)
            i += 1
        elif word in ("--pin", "--ro", "--mask"):
            {"--pin": plan.pins, "--ro": plan.read_only, "--mask": plan.masks}[word].append(args[i + 1])
            i += 2
        elif word in ("--fs", "--net", "--scope", "--lifeline"):
            setattr(plan, word[2:], int(args[i + 1]))
            i += 2
        elif word == "--tag":
            plan.tag = args[i + 1]
            i += 2
        elif word == "--allow":
            plan.rules.append((int(args[i + 1]), args[i + 2]))
            i += 3
        else:
            raise ValueError(f"unknown plan argument {word!r}")
    if not plan.argv:
        raise ValueError("no command after --")
    if plan.pidns and not plan.userns:
        raise ValueError("--pidns needs --userns")
    return plan


def apply(plan: Plan) -> None:
    """Confine the current process as planned (it must be single-threaded for the namespaces)."""
    if plan.userns:
        enter_namespaces(plan.netns)
    confine(plan)


def confine(plan: Plan) -> None:
    """Everything after entering the namespaces: mounts, loopback, `no_new_privs`, Landlock."""
    if plan.userns:
        for path in plan.pins:
            pin(path)
        for path in plan.read_only:
            bind_read_only(path)
        for path in plan.masks:
            mask(path)
        if plan.netns and plan.lo:
            loopback_up()
    if plan.fs or plan.net or plan.scope:
        restrict_self(plan.fs, plan.net, plan.scope, plan.rules)
    else:
        _check(int(_c().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)), "prctl(PR_SET_NO_NEW_PRIVS)")


def _refused(plan: Plan, exc: OSError) -> int:
    tag = f" [{plan.tag}]" if plan.tag else ""
    print(f"sigit sandbox: could not confine the command{tag}: {exc.strerror or exc}", file=sys.stderr)
    return EXIT_SANDBOX_FAILED


def _exec(argv: list[str]) -> int:
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        print(f"sigit sandbox: {argv[0]}: {exc.strerror}", file=sys.stderr)
        return 127 if isinstance(exc, FileNotFoundError) else EXIT_SANDBOX_FAILED
    return EXIT_SANDBOX_FAILED  # not reached: execvp does not return


def main(args: Sequence[str]) -> int:
    try:
        plan = parse(args)
    except (ValueError, IndexError) as exc:
        print(f"sigit sandbox: bad launcher arguments: {exc}", file=sys.stderr)
        return EXIT_SANDBOX_FAILED
    if plan.pidns:
        return run_contained(plan)
    try:
        apply(plan)
    except OSError as exc:
        return _refused(plan, exc)
    return _exec(plan.argv)


# ---------------------------------------------------------------- the PID namespace (--pidns)


def run_contained(plan: Plan) -> int:
    """P: enter the namespaces, fork the init, pass on signals, exit as the command did."""
    try:
        if not plan.linger:  # siGit gone, its command goes too
            _check(int(_c().prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0)), "prctl(PR_SET_PDEATHSIG)")
        enter_namespaces(plan.netns, pid=True)
        read_end, write_end = os.pipe()
        init = os.fork()
    except OSError as exc:
        return _refused(plan, exc)
    if init == 0:
        os.close(read_end)
        code = EXIT_SANDBOX_FAILED
        try:
            code = _init(plan, write_end)
        except BaseException as exc:  # the init must never return into P's code
            print(f"sigit sandbox: the command's init failed: {exc!r}", file=sys.stderr)
        finally:
            os._exit(code)
    os.close(write_end)
    for sig in FORWARDED:
        _signal.signal(sig, lambda sig, _frame: _kill(init, sig))
    status = _read_status(read_end)
    if status is None:  # the init failed before the command ran (its line is on stderr) or was killed
        status = os.waitpid(init, 0)[1]
    elif not plan.linger:
        os.waitpid(init, 0)  # the namespace is empty once the init is gone
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP (the OOM killer's) keep their default
            _signal.signal(sig, _signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        return 128 + sig
    return os.waitstatus_to_exitcode(status)


def _init(plan: Plan, status_fd: int) -> int:
    """C, pid 1 of the namespace: confine, fork the command, reap, hand its status to P."""
    try:
        if not plan.linger:  # P lives exactly as long as the command: if P is killed, so is all of it
            _check(int(_c().prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0)), "prctl(PR_SET_PDEATHSIG)")
        mount_proc()
        confine(plan)
        null = os.open("/dev/null", os.O_RDWR)
    except OSError as exc:
        return _refused(plan, exc)
    try:
        watcher = _watch(plan.lifeline, status_fd, null) if plan.linger and plan.lifeline >= 0 else 0
    except OSError as exc:  # the descriptor was not passed on
        return _refused(plan, exc)
    for sig in FORWARDED:
        _signal.signal(sig, lambda sig, _frame: _kill(-1, sig))
    try:  # posix_spawn, not fork: no copy of this Python to fault in (milliseconds per command)
        command = os.posix_spawnp(plan.argv[0], plan.argv, os.environ,
                                  setsigdef=(*FORWARDED, _signal.SIGPIPE, _signal.SIGXFSZ))
    except OSError as exc:
        print(f"sigit sandbox: {plan.argv[0]}: {exc.strerror}", file=sys.stderr)
        return 127 if isinstance(exc, FileNotFoundError) else EXIT_SANDBOX_FAILED
    for fd in (0, 1, 2):  # the command's output pipe closes when the command's processes are done with it
        os.dup2(null, fd)
    os.close(null)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:  # nothing left in the namespace
            return 0
        if pid == watcher:
            return 0  # siGit is gone: exiting ends the namespace
        if pid == command:
            try:
                os.write(status_fd, status.to_bytes(4, "little"))
                os.close(status_fd)
            except OSError:
                pass  # P is gone: siGit ended the command
            if not plan.linger:
                return 0  # exiting kills what the command left


def _watch(lifeline: int, status_fd: int, null: int) -> int:
    """Fork the watcher that exits when `lifeline` ends (siGit is gone); its pid. The init and the
    command do not keep the descriptor; the watcher keeps nothing else (not the command's output pipe)."""
    os.fstat(lifeline)  # passed on (else the command is refused, as for any setup step that fails)
    watcher = os.fork()
    if watcher == 0:
        try:  # whatever happens here, the watcher only ever exits (and the namespace with it)
            for sig in FORWARDED:  # the init passes them on to everyone: the watcher stays until siGit goes
                _signal.signal(sig, _signal.SIG_IGN)
            os.close(status_fd)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.close(null)
            while os.read(lifeline, 64):
                pass
        finally:
            os._exit(0)
    os.close(lifeline)
    return watcher


def _kill(pid: int, sig: int) -> None:
    try:  # noqa: SIM105 - contextlib would cost every start its import
        os.kill(pid, sig)
    except OSError:
        pass


def _read_status(fd: int) -> int | None:
    data = b""
    while len(data) < 4:
        try:
            chunk = os.read(fd, 4 - len(data))
        except InterruptedError:
            continue
        if not chunk:
            return None
        data += chunk
    return int.from_bytes(data, "little")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
