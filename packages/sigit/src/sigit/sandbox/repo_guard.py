"""After every command and file write, no git repository in the workspace keeps what makes git run code.

A command can `git init sub && git -C sub config core.fsmonitor '…'`, add a hook, a filter driver or
an alias (a `!` one, or one that passes `--upload-pack=cmd`, `-c core.pager=cmd`, or overrides the
user's own alias: `alias_danger`): nothing runs then, but the user's own `git status` in `sub`
afterwards runs it, outside any sandbox. So after each step the agent calls `RepositoryGuard.check`:
it finds every repository under the workspace roots (nested ones, bare ones, linked worktrees' and
submodules' git dirs, the common dir a `commondir` names, the files
`include.path`/`includeIf.*.path` pull in when they lie inside the roots), and for each config key
that runs a program and each executable hook that was not there, with that value or content, when
the session started, it copies the file to `<git dir>/sigit-quarantine/<time>/`, removes the key
(`git config --file`, never the repository's own git) or moves the hook there, and returns a
sentence saying what and how to restore it.

What existed when the guard was made (the session's start) is the user's and is approved: it is
never changed, even in nested repositories. A `.git` file naming a git dir outside the roots is
reported, not followed. Everything is read without running the repository's git: `git config
--file X --no-includes`, with git's own environment variables dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sigit.fileio import read_regular
from sigit.git import git_executable

from .git_aliases import alias_danger, git_env, user_aliases

# Keys whose value git runs (or whose value names a program), whatever the value.
_RUNS_CODE = re.compile(
    r"^(core\.(fsmonitor|hookspath|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|(diff|merge)tool\..+\.(cmd|path)"
    r"|merge\..+\.driver|filter\..+\.(clean|smudge|process)|include\.path|includeif\..+\.path"
    r"|credential\.(.+\.)?helper|gpg\.(.+\.)?(program|defaultkeycommand)|pager\..+|interactive\.difffilter"
    r"|trailer\..+\.(cmd|command)|remote\..+\.(uploadpack|receivepack)|uploadpack\.packobjectshook"
    r"|protocol\.(.+\.)?allow|sendemail\.(.+\.)?(smtpserver|tocmd|cccmd|sendmailcmd|headercmd)"
    r"|(browser|man)\..+\.(cmd|path)|hook\..+\.command"
    r"|guitool\..+\.cmd|web\.browser)$",
    re.IGNORECASE,
)
# Keys that run a shell command only when the value starts with `!`.
_BANG = re.compile(r"^submodule\..+\.update$", re.IGNORECASE)
_ALIAS = re.compile(r"^alias\.(.+)$", re.IGNORECASE)
_BOOLEANS = {"", "true", "false", "yes", "no", "on", "off", "1", "0"}
QUARANTINE = "sigit-quarantine"
SCAN_LIMIT = 100_000  # directory entries looked at per root, per check
_INCLUDE_DEPTH = 10  # git's own limit
_GIT_TIMEOUT_S = 5.0


def runs_code(key: str, value: str, user_aliases: Collection[str] = ()) -> bool:
    """Whether config `key = value` in a repository makes git run a program (`user_aliases`: the
    names of the user's own aliases, which a repository's alias of the same name overrides)."""
    lowered = key.lower()
    alias = _ALIAS.match(lowered)
    if alias is not None:
        return alias_danger(alias.group(1), value, user_aliases) is not None
    if _BANG.match(lowered):
        return value.lstrip().startswith("!")
    if not _RUNS_CODE.match(lowered):
        return False
    if lowered == "core.fsmonitor" or lowered.startswith("pager."):
        return value.strip().lower() not in _BOOLEANS  # `true` is git's own daemon, `false` none
    if lowered.startswith("protocol."):
        return value.strip().lower() in ("always", "user")  # lets `ext::` transports run commands
    return True


@dataclass(frozen=True)
class _Config:
    """One config file git reads for a repository, and the git dir whose quarantine backs it up."""

    path: Path
    git_dir: Path


@dataclass
class _Survey:
    git_dirs: list[Path] = field(default_factory=list)
    configs: list[_Config] = field(default_factory=list)
    outside: dict[Path, Path] = field(default_factory=dict)  # a `.git` -> the git dir it names elsewhere
    complete: bool = True


class RepositoryGuard:
    """The repositories under `roots` as they were at the session's start, and the check after each step."""

    def __init__(self, roots: Iterable[Path], reachable: Iterable[Path] = ()) -> None:
        """`roots` are walked; a git dir a `.git` file names in `reachable` (the other places sandboxed
        commands may write: build caches, the private temp dir) is checked as if it were inside."""
        self.roots = tuple(dict.fromkeys(Path(os.path.realpath(r)) for r in roots if os.path.isdir(r)))
        self.reachable = tuple(dict.fromkeys(Path(os.path.realpath(r)) for r in reachable if os.path.isdir(r)))
        self._parsed: dict[Path, tuple[tuple[int, ...], list[tuple[str, str]] | None]] = {}
        self.user_aliases = user_aliases()
        """The user's own alias names (global config): a repository's alias of the same name would win."""
        survey = self._survey()
        self._approved: set[tuple[Path, str, str]] = set()
        self._approved_odd: dict[Path, str] = {}  # config that is not a regular file, or git cannot read
        self._approved_hooks: dict[Path, str] = {}
        for config in survey.configs:
            odd = self._odd(config.path)
            if odd is not None:
                self._approved_odd[config.path] = odd
                continue
            for key, value in self._entries(config.path) or []:
                if runs_code(key, value, self.user_aliases):
                    self._approved.add((config.path, key, value))
        for git_dir in survey.git_dirs:
            self._approved_hooks.update(_hooks(git_dir))
        self._reported: set[Path] = set(survey.outside)
        self.warnings: list[str] = []
        if not survey.complete:
            self.warnings.append(
                f"git config guard: the workspace holds more than {SCAN_LIMIT} entries; "
                "repositories past them are not checked after commands"
            )

    def check(self) -> list[str]:
        """Neutralise what runs code and was not approved; a sentence for each repository changed or
        left as it was (blocking: stats, reads and `git config`; run it off the event loop)."""
        survey = self._survey()
        stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{time.time_ns() % 1_000_000_000:09d}"
        sentences: list[str] = []
        for config in survey.configs:
            sentence = self._neutralise_config(config, stamp)
            if sentence:
                sentences.append(sentence)
        for git_dir in survey.git_dirs:
            sentence = self._neutralise_hooks(git_dir, stamp)
            if sentence:
                sentences.append(sentence)
        for dot_git, target in survey.outside.items():
            if dot_git not in self._reported:
                self._reported.add(dot_git)
                armed = [k for k, v in _read_config(target / "config", self.roots) or []
                         if runs_code(k, v, self.user_aliases)]
                armed += [f"hooks/{hook.name}" for hook in _hooks(target)]
                what = f" (it sets {', '.join(dict.fromkeys(armed))}, which git would run)" if armed else ""
                sentences.append(
                    f"{self._shown(dot_git)} points git at {target}, outside the workspace{what}: siGit "
                    "neither checks nor changes it; inspect its config and hooks before running "
                    f"git in {self._shown(dot_git.parent)}"
                )
        return sentences

    # ---------------------------------------------------------------- finding repositories

    def _survey(self) -> _Survey:
        survey = _Survey()
        for root in self.roots:
            self._walk(root, survey)
        seen: set[Path] = set()
        for git_dir in survey.git_dirs:
            for name in ("config", "config.worktree"):
                self._add_config(Path(git_dir / name), git_dir, survey, seen, 0)
        return survey

    def _walk(self, root: Path, survey: _Survey) -> None:
        """Every directory under `root` (links not followed), by name only: no stat but for `.git`."""
        stack, seen = [str(root)], 0
        while stack:
            directory = stack.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            seen += len(entries)
            if seen > SCAN_LIMIT:
                survey.complete = False
                return
            names = {entry.name for entry in entries}
            if (
                "HEAD" in names
                and (("objects" in names and "refs" in names) or "commondir" in names)
                and _is_git_dir(Path(directory))
            ):  # a bare repository, or a git dir a `.git` file names
                self._add_git_dir(Path(directory), survey)
                continue
            for entry in entries:
                try:
                    if entry.name == ".git":
                        self._dot_git(Path(entry.path), survey)
                    elif entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                except OSError:
                    continue

    def _dot_git(self, dot_git: Path, survey: _Survey) -> None:
        """A `.git` entry: a git dir, a link to one, or a `gitdir:` file (worktree, submodule)."""
        if dot_git.is_dir() and not dot_git.is_symlink():
            self._add_git_dir(dot_git, survey)
            return
        if dot_git.is_symlink():
            target = Path(os.path.realpath(dot_git))
        else:
            try:
                text = read_regular(dot_git, 4096).decode("utf-8", errors="replace")
            except OSError:
                return
            if not text.startswith("gitdir:"):
                return
            named = text.splitlines()[0][len("gitdir:") :].strip()
            target = Path(os.path.realpath(dot_git.parent / os.path.expanduser(named)))
        if self._inside(target):
            if _is_git_dir(target):
                self._add_git_dir(target, survey)
        elif target.exists():
            survey.outside[dot_git] = target

    def _add_git_dir(self, git_dir: Path, survey: _Survey) -> None:
        git_dir = Path(os.path.realpath(git_dir))
        if git_dir in survey.git_dirs or not self._inside(git_dir):
            return
        survey.git_dirs.append(git_dir)
        with contextlib.suppress(OSError):
            named = read_regular(git_dir / "commondir", 4096).decode("utf-8", errors="replace").strip()
            if named:
                common = Path(os.path.realpath(git_dir / named))
                if _is_git_dir(common):
                    self._add_git_dir(common, survey)
        for sub in ("worktrees", "modules"):
            base = git_dir / sub
            if not base.is_dir() or base.is_symlink():
                continue
            for dirpath, dirnames, _ in os.walk(base):
                here = Path(dirpath)
                if here != base and _is_git_dir(here):
                    self._add_git_dir(here, survey)
                    dirnames[:] = []

    def _add_config(self, path: Path, git_dir: Path, survey: _Survey, seen: set[Path], depth: int) -> None:
        if path in seen or depth > _INCLUDE_DEPTH or not os.path.lexists(path):
            return
        seen.add(path)
        survey.configs.append(_Config(path, git_dir))
        if self._odd(path) is not None:
            return
        for key, value in self._entries(path) or []:
            lowered = key.lower()
            if lowered == "include.path" or (lowered.startswith("includeif.") and lowered.endswith(".path")):
                target = Path(os.path.realpath(path.parent / os.path.expanduser(value)))
                if self._inside(target):
                    self._add_config(target, git_dir, survey, seen, depth + 1)

    # ---------------------------------------------------------------- neutralising

    def _neutralise_config(self, config: _Config, stamp: str) -> str | None:
        path = config.path
        odd = self._odd(path)
        if odd is not None:
            if self._approved_odd.get(path) == odd:
                return None
            backup = self._move_aside(path, config.git_dir, stamp)
            if backup is None:
                return (
                    f"{self._shown(path)} is {odd}, which git would read, and siGit could not move it "
                    f"aside: inspect it before running git in {self._shown(config.git_dir)}"
                )
            return (
                f"siGit moved {self._shown(path)} ({odd}) to {self._shown(backup)}: git would read it; "
                f"restore it with `mv {backup} {path}` if you trust it"
            )
        entries = self._entries(path) or []
        planted = [
            (k, v) for k, v in entries if runs_code(k, v, self.user_aliases) and (path, k, v) not in self._approved
        ]
        if not planted:
            return None
        keys = list(dict.fromkeys(k for k, _ in planted))
        why = {k: alias_danger(k.split(".", 1)[1], v, self.user_aliases) for k, v in planted if _ALIAS.match(k)}
        backup = self._backup_dir(config.git_dir, stamp)
        copied = backup / _backup_name(path, config.git_dir) if backup is not None else None
        try:
            if copied is None:
                raise OSError("no quarantine folder")
            shutil.copy2(path, copied)
        except OSError as exc:
            return (
                f"{self._shown(path)} sets {', '.join(keys)}, which make git run programs, and siGit could "
                f"not back it up ({exc}); it was left as it is: inspect it before running git there"
            )
        failed = [
            key
            for key in keys
            if not _unset(path, key, [v for (p, k, v) in self._approved if p == path and k == key], self.roots)
        ]
        self._parsed.pop(path, None)
        done = [f"{key} ({why[key]})" if why.get(key) else key for key in keys if key not in failed]
        sentence = (
            (
                f"siGit removed {', '.join(done)} from {self._shown(path)} (they make git run programs; "
                f"a command set them): the file as it was is {self._shown(copied)}; restore it with "
                f"`cp {copied} {path}` if you trust it"
            )
            if done
            else ""
        )
        if failed:
            sentence += ("; " if sentence else "") + (
                f"siGit could not remove {', '.join(failed)} from "
                f"{self._shown(path)}: inspect it before running git there"
            )
        return sentence

    def _neutralise_hooks(self, git_dir: Path, stamp: str) -> str | None:
        planted = [p for p, digest in _hooks(git_dir).items() if self._approved_hooks.get(p) != digest]
        if not planted:
            return None
        moved: list[str] = []
        kept: list[str] = []
        backup = self._backup_dir(git_dir, stamp)
        for hook in planted:
            target = backup / "hooks" / hook.name if backup is not None else None
            try:
                if target is None:
                    raise OSError("no quarantine folder")
                target.parent.mkdir(exist_ok=True)
                os.replace(hook, target)
                moved.append(hook.name)
            except OSError:
                kept.append(hook.name)
        sentence = ""
        if moved:
            where = self._shown(backup / "hooks") if backup is not None else "?"
            sentence = (
                f"siGit moved the hooks {', '.join(moved)} that a command added to {self._shown(git_dir)} "
                f"into {where} (git would run them); move them back if you trust them"
            )
        if kept:
            sentence += ("; " if sentence else "") + (
                f"siGit could not move the hooks {', '.join(kept)} out of "
                f"{self._shown(git_dir)}: inspect them before running git there"
            )
        return sentence

    def _move_aside(self, path: Path, git_dir: Path, stamp: str) -> Path | None:
        backup = self._backup_dir(git_dir, stamp)
        if backup is None:
            return None
        target = backup / _backup_name(path, git_dir)
        try:
            os.replace(path, target)
        except OSError:
            return None
        self._parsed.pop(path, None)
        return target

    def _backup_dir(self, git_dir: Path, stamp: str) -> Path | None:
        folder = git_dir / QUARANTINE / stamp
        try:
            quarantine = git_dir / QUARANTINE
            if quarantine.is_symlink() or (quarantine.exists() and not quarantine.is_dir()):
                os.replace(quarantine, git_dir / f"{QUARANTINE}-moved-{stamp}")  # a command's, not ours
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        return folder

    # ---------------------------------------------------------------- reading

    def _entries(self, path: Path) -> list[tuple[str, str]] | None:
        """The (key, value) pairs of a regular config file, or None when git cannot parse it."""
        try:
            info = os.lstat(path)
        except OSError:
            return None
        signature = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        cached = self._parsed.get(path)
        if cached is not None and cached[0] == signature:
            return cached[1]
        entries = _read_config(path, self.roots)
        self._parsed[path] = (signature, entries)
        return entries

    def _odd(self, path: Path) -> str | None:
        """Why git's reading of `path` is not a plain config file's (a link, a FIFO, unparseable), or None."""
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            return f"a link to {os.readlink(path)}"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if self._entries(path) is None:
            return f"a file git cannot parse ({_digest(path)[:12]})"
        return None

    def _inside(self, path: Path) -> bool:
        return any(path == root or root in path.parents for root in (*self.roots, *self.reachable))

    def _shown(self, path: Path) -> str:
        for root in self.roots:
            if path.is_relative_to(root):
                return str(path.relative_to(root)) or "."
        return str(path)


def _is_git_dir(path: Path) -> bool:
    """Shaped like a git directory as git checks it: HEAD, and objects and refs (or a `commondir`)."""
    try:
        if not (path / "HEAD").is_file():
            return False
        return ((path / "objects").is_dir() and (path / "refs").is_dir()) or (path / "commondir").is_file()
    except OSError:
        return False


def _hooks(git_dir: Path) -> dict[Path, str]:
    """The hooks git would run from `git_dir/hooks` (executable, not `.sample`), each with a digest."""
    hooks_dir = git_dir / "hooks"
    if hooks_dir.is_symlink():
        return {hooks_dir: f"link:{os.readlink(hooks_dir)}"}
    found: dict[Path, str] = {}
    try:
        entries = list(os.scandir(hooks_dir))
    except OSError:
        return found
    for entry in entries:
        if entry.name.endswith(".sample"):
            continue
        path = Path(entry.path)
        try:
            if entry.is_symlink():
                found[path] = f"link:{os.readlink(path)}"
            elif entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mode & 0o111:
                found[path] = _digest(path)
        except OSError:
            continue
    return found


def _digest(path: Path) -> str:
    hasher = hashlib.sha256()
    try:
        with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NONBLOCK | os.O_NOFOLLOW)) as handle:
            for block in iter(lambda: handle.read(1 << 16), b""):
                hasher.update(block)
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    return hasher.hexdigest()


def _read_config(path: Path, roots: tuple[Path, ...]) -> list[tuple[str, str]] | None:
    try:
        done = subprocess.run(
            [git_executable(roots), "config", "--file", str(path), "--no-includes", "--list", "-z"],
            capture_output=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
            env=git_env(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    entries: list[tuple[str, str]] = []
    for record in done.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
        if record:
            key, _, value = record.partition("\n")
            entries.append((key, value))
    return entries


def _unset(path: Path, key: str, approved: list[str], roots: tuple[Path, ...]) -> bool:
    """Remove every value of `key` from the config file, then put back the approved ones."""

    def git(*args: str) -> int:
        try:
            return subprocess.run(
                [git_executable(roots), "config", "--file", str(path), *args],
                capture_output=True,
                timeout=_GIT_TIMEOUT_S,
                check=False,
                stdin=subprocess.DEVNULL,
                env=git_env(),
            ).returncode
        except (OSError, subprocess.TimeoutExpired):
            return -1

    if git("--unset-all", key) not in (0, 5):  # 5: already absent
        return False
    return all(git("--add", key, value) == 0 for value in approved)


def _backup_name(path: Path, git_dir: Path) -> str:
    """The backup's file name: `config`, `config.worktree`, or an included file's name with its place."""
    if path.parent == git_dir:
        return path.name
    return "included-" + re.sub(r"[^A-Za-z0-9._-]", "_", str(path).lstrip("/"))[-120:]
