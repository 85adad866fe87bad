"""The parts of a repository's git directory that must stay read-only inside a writable workspace.

Git runs `.git/hooks/*` (or the `core.hooksPath` directory) and whatever `.git/config` names
(filters, aliases, `core.fsmonitor`) from later, unsandboxed git commands: a command that could write
them could run code outside the sandbox. So those are bound read-only, as are `commondir` and
`config.worktree` (either would point git at hooks and config the command wrote), and the git
directory itself is pinned (bound onto itself) so that it cannot be renamed away and replaced by a
fresh one. Objects, refs and the index stay writable: commits work.

Everything here is resolved once, when the sandbox opens (`protect`): the files it reads (`.git`,
`commondir`, `gitdir`) are writable by the commands, so re-reading them per command would let a
command choose what the next one may write. A `.git` file (linked worktree, submodule) is followed
only to a git directory shaped like one (`<X>/worktrees/<n>` whose `gitdir` points back, or
`<X>/modules/...` whose `core.worktree` points back), never to `/`, the home directory or an ancestor
of the workspace; that directory (and the common one) becomes writable so commits work there too,
with the same read-only parts. Files are read with `read_regular` (regular files, 4 KiB at most): a
FIFO or /dev/zero in their place means "no git dirs", with a warning.

A workspace that is a folder inside a repository does not get the repository's git directory: its
working tree reaches beyond the workspace, and refs or an index written there would let a later
checkout outside the sandbox write anywhere in it; commits from such a folder fail with a sandbox
denial. A repository that a command creates (`git init` in a folder that had none) is protected from
the next command on (`protect_new`: a real `.git` directory inside the root, nothing made writable),
not during the command that made it. For a repository without `commondir` or `config.worktree`, a
command could still create them: `remove_redirects` deletes them after each command.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sigit.fileio import read_regular
from sigit.git import dangerous_config, git_executable

# Besides the policy's names: files that send git elsewhere for its hooks and config.
EXTRA_CONTROL = ("config.worktree", "commondir")
REDIRECTS = ("commondir", "config.worktree")
_LIMIT = 4096
_GIT_TIMEOUT_S = 5
SCAN_LIMIT = 100_000  # directory entries looked at per writable root, per scan
LINKED_LIMIT = 4096  # read-only mounts for hard-linked files (a directory of them counts once), at most


@dataclass
class GitProtection:
    """Paths to pin, to bind read-only (in that order), and git directories to make writable.

    `watched` are the `commondir`/`config.worktree` paths that did not exist when the sandbox
    opened (removed if a command creates them); `roots` are the writable roots that had a `.git` then.
    """

    pins: list[Path] = field(default_factory=list)
    read_only: list[Path] = field(default_factory=list)
    writable: list[Path] = field(default_factory=list)
    watched: list[Path] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    nested: list[Path] = field(default_factory=list)  # nested repositories' `.git` (dirs and gitlink files)
    unsafe: dict[Path, list[str]] = field(default_factory=dict)  # repository -> config keys that run programs

    def add_read_only(self, path: Path) -> None:
        if path.exists() and path not in self.read_only:
            self.read_only.append(path)

    def merged(self, other: GitProtection) -> GitProtection:
        """This protection plus `other`'s (for repositories created after the sandbox opened)."""
        if not (other.pins or other.read_only or other.watched or other.nested or other.unsafe):
            return self
        return GitProtection([*self.pins, *other.pins], [*self.read_only, *other.read_only],
                             list(self.writable), [*self.watched, *other.watched], list(self.roots),
                             list(self.warnings), [*self.nested, *other.nested], {**self.unsafe, **other.unsafe})


def protect(roots: Iterable[Path], protected: Iterable[str]) -> GitProtection:
    """What to protect under each writable root, for the `protected` names (`.git/hooks`, ...)."""
    result = GitProtection()
    names = tuple(protected)
    git_names = [n[len(".git/"):] for n in names if n.startswith(".git/")]
    for root in (Path(os.path.realpath(r)) for r in roots):
        dot_git = _find_dot_git(root)
        if git_names and dot_git is not None:
            result.roots.append(root)
            if dot_git.is_file():
                result.add_read_only(dot_git)  # a rewritten `gitdir:` line would send git elsewhere
            elif dot_git not in result.pins:
                result.pins.append(dot_git)
            git_dirs = _git_dirs(dot_git, root, result.warnings)
            for git_dir in git_dirs:
                if not _inside(git_dir, root) and git_dir not in result.writable:
                    result.writable.append(git_dir)
                _protect_git_dir(git_dir, git_names, result)
            if git_dirs:
                _protect_hooks_path(root, git_dirs[0], result)
        for name in names:
            if not name.startswith(".git/"):
                result.add_read_only(root / name)
        scan = scan_tree(root)
        if git_names:
            for nested in scan.nested_git:
                protect_nested(nested, git_names, result)
        linked = scan.linked[:LINKED_LIMIT]
        known = set(result.read_only)
        result.read_only.extend(path for path in linked if path not in known)
        if len(scan.linked) > LINKED_LIMIT or not scan.complete:
            result.warnings.append(
                f"sandbox: {root} holds more files than the sandbox checks ({SCAN_LIMIT} entries, "
                f"{LINKED_LIMIT} hard-linked files): some nested repositories or hard-linked files stay writable")
    return result


@dataclass
class TreeScan:
    """What a walk of a writable root found: nested repositories and files with several hard links."""

    nested_git: list[Path] = field(default_factory=list)
    linked: list[Path] = field(default_factory=list)
    complete: bool = True


def scan_tree(root: Path, limit: int = SCAN_LIMIT, *, linked: bool = True) -> TreeScan:
    """Walk `root` (links not followed, no `.git` directory entered): every nested `.git` (a directory,
    or a gitlink file of a submodule or worktree) and, with `linked`, what holds files with more than
    one hard link (another name may be outside the workspace: uv builds `.venv` from links into its
    cache): the highest directories whose every file is such a link (one read-only mount for a whole
    package), and the linked files elsewhere. Without `linked` no file is stat'ed."""
    result = TreeScan()
    files: dict[Path, tuple[int, int]] = {}  # directory -> (regular files, linked ones) directly in it
    linked_files: dict[Path, list[Path]] = {}
    children: dict[Path, list[Path]] = {}
    stack = [root]
    seen = 0
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        regular = links = 0
        for entry in entries:
            seen += 1
            if seen > limit:
                result.complete = False
                stack.clear()
                break
            try:
                if entry.name == ".git":
                    if directory != root and not entry.is_symlink():
                        result.nested_git.append(Path(entry.path))
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                    children.setdefault(directory, []).append(Path(entry.path))
                elif linked and entry.is_file(follow_symlinks=False):
                    regular += 1
                    if entry.stat(follow_symlinks=False).st_nlink > 1:
                        links += 1
                        linked_files.setdefault(directory, []).append(Path(entry.path))
            except OSError:
                continue
        files[directory] = (regular, links)
    if linked:
        result.linked = _linked_cover(root, files, linked_files, children, result.complete)
    return result


def _linked_cover(root: Path, files: dict[Path, tuple[int, int]], linked_files: dict[Path, list[Path]],
                  children: dict[Path, list[Path]], complete: bool) -> list[Path]:
    """Few paths that cover every linked file: the highest directories (below `root`) where at least
    half the files of the subtree are links (a package in a `.venv`, `site-packages` itself: its few
    own files become read-only with it), else the linked files themselves."""
    totals: dict[Path, tuple[int, int]] = {}
    order: list[Path] = []
    pending = [root]
    while pending:
        current = pending.pop()
        order.append(current)
        pending.extend(children.get(current, ()))
    for current in reversed(order):  # post-order: children first
        regular, links = files.get(current, (0, 0))
        for child in children.get(current, ()):
            child_regular, child_links = totals[child]
            regular, links = regular + child_regular, links + child_links
        totals[current] = (regular, links)
    cover: list[Path] = []
    pending = [root]
    while pending:
        directory = pending.pop()
        regular, links = totals.get(directory, (0, 0))
        if not links:
            continue
        if directory != root and complete and 2 * links >= regular:
            cover.append(directory)
            continue
        cover.extend(linked_files.get(directory, ()))
        pending.extend(children.get(directory, ()))
    return cover


def protect_nested(dot_git: Path, names: list[str], result: GitProtection) -> None:
    """A nested repository's `.git` gets what the top one gets: pinned, its config, hooks and info
    read-only (a gitlink file read-only, and the git dir it names when it lies in the same root); its
    config is checked for keys that make git run programs."""
    if dot_git in result.nested:
        return
    result.nested.append(dot_git)
    repo = dot_git.parent
    if dot_git.is_dir():
        result.pins.append(dot_git)
        _protect_git_dir(dot_git, names, result)
        git_dirs = [dot_git]
    else:
        result.add_read_only(dot_git)
        git_dirs = _git_dirs(dot_git, repo, result.warnings)
        for git_dir in git_dirs:
            _protect_one(git_dir, names, result)
    keys = [key for git_dir in git_dirs for key in dangerous_config(git_dir)]
    if keys:
        result.unsafe[repo] = list(dict.fromkeys(keys))


def protect_new(roots: Iterable[Path], protected: Iterable[str], known: GitProtection) -> GitProtection:
    """Protection for repositories created under `roots` since `known` was made: read-only parts only.

    Only a real `.git` directory inside the root counts (a symlink or a `.git` file is not followed:
    a command wrote it), and nothing becomes writable.
    """
    names = [n[len(".git/"):] for n in protected if n.startswith(".git/")]
    result = GitProtection()
    if not names:
        return result
    for root in roots:
        if root in known.roots:
            continue
        dot_git = root / ".git"
        try:
            if not dot_git.is_dir() or dot_git.is_symlink():
                continue
        except OSError:
            continue
        result.pins.append(dot_git)
        _protect_git_dir(dot_git, names, result)
    return result


def remove_redirects(watched: Iterable[Path]) -> list[Path]:
    """Delete each watched `commondir`/`config.worktree` that a command created; what was removed."""
    removed: list[Path] = []
    for path in watched:
        if not os.path.lexists(path):
            continue
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        if not os.path.lexists(path):
            removed.append(path)
    return removed


def _protect_git_dir(git_dir: Path, names: list[str], result: GitProtection) -> None:
    worktree = (git_dir / "commondir").exists()  # a linked worktree's own dir: hooks live in the common one
    for made in ("hooks", "info"):
        if made in names and not worktree and not (git_dir / made).exists() and (git_dir / "HEAD").exists():
            # Git would run hooks from a directory a command creates; make it now, empty, to bind it.
            with contextlib.suppress(OSError):
                (git_dir / made).mkdir()
    _protect_one(git_dir, names, result)
    modules = git_dir / "modules"
    if modules.is_dir():  # submodules' git directories: .git/modules/<name>[/modules/...]
        for dirpath, dirnames, filenames in os.walk(modules):
            if "HEAD" in filenames:
                _protect_one(Path(dirpath), names, result)
                dirnames[:] = [d for d in dirnames if d == "modules"]


def _protect_one(git_dir: Path, names: list[str], result: GitProtection) -> None:
    for name in (*names, *EXTRA_CONTROL):
        result.add_read_only(git_dir / name)
    for name in REDIRECTS:
        path = git_dir / name
        if not os.path.lexists(path) and path not in result.watched:
            result.watched.append(path)


def _protect_hooks_path(root: Path, git_dir: Path, result: GitProtection) -> None:
    """Bind the `core.hooksPath` directory read-only (made first if missing, as `hooks` is).

    Git is pointed at the git dir found above (no discovery, no `.git` file read again); `git config`
    runs no hooks, and `core.fsmonitor=false` keeps it from starting a monitor.
    """
    try:
        done = subprocess.run(
            [git_executable((root,)), f"--git-dir={git_dir}", f"--work-tree={root}", "-c", "core.fsmonitor=false",
             "config", "--get", "core.hooksPath"],
            cwd=root, capture_output=True, text=True, timeout=_GIT_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")})
    except (OSError, subprocess.TimeoutExpired):
        return
    value = done.stdout.strip()
    if done.returncode != 0 or not value:
        return
    path = Path(os.path.realpath(root / os.path.expanduser(value)))
    if _inside(path, root) and not path.exists():
        with contextlib.suppress(OSError):
            path.mkdir(parents=True)
    result.add_read_only(path)


def _find_dot_git(root: Path) -> Path | None:
    dot_git = root / ".git"
    return dot_git if dot_git.is_dir() or dot_git.is_file() else None


def _read(path: Path, warnings: list[str]) -> str | None:
    """A small regular file's text, or None (with a warning when it is something else or too big)."""
    try:
        data = read_regular(path, _LIMIT)
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.append(f"sandbox: {path} is not a regular file ({exc.strerror or exc}); its git dirs "
                        "are not made writable")
        return None
    if len(data) > _LIMIT:
        warnings.append(f"sandbox: {path} is larger than {_LIMIT} bytes; its git dirs are not made writable")
        return None
    return data.decode("utf-8", errors="replace")


def _git_dirs(dot_git: Path, root: Path, warnings: list[str]) -> list[Path]:
    """The git directory `.git` stands for and, for a linked worktree, the common one."""
    if dot_git.is_dir():
        if dot_git.is_symlink():  # `ln -s / .git`: follow only to a real repository beside nothing
            real = Path(os.path.realpath(dot_git))
            return [real] if _acceptable(real, root) and (real / "HEAD").is_file() else []
        return [dot_git.resolve()]
    text = _read(dot_git, warnings)
    if text is None or not text.startswith("gitdir:"):
        return []
    git_dir = Path(os.path.realpath(dot_git.parent / text.splitlines()[0][len("gitdir:"):].strip()))
    if not _acceptable(git_dir, root) or not (git_dir / "HEAD").is_file():
        return []
    if git_dir.parent.name == "worktrees":
        back = _read(git_dir / "gitdir", warnings)
        if back is None or Path(os.path.realpath(back.strip())) != Path(os.path.realpath(dot_git)):
            return []
        common = git_dir.parent.parent
        named = _read(git_dir / "commondir", warnings)  # git reads it too (hooksPath below): regular only
        if named is None or Path(os.path.realpath(git_dir / named.strip())) != common:
            return []
        if not _acceptable(common, root) or not (common / "HEAD").is_file():
            return []
        return [git_dir, common]
    if "modules" in git_dir.parts[:-1]:
        config = _read(git_dir / "config", warnings) or ""
        match = re.search(r"^\s*worktree\s*=\s*(.+?)\s*$", config, re.MULTILINE)
        if match is None or Path(os.path.realpath(git_dir / match.group(1))) != Path(os.path.realpath(root)):
            return []
        return [git_dir]
    return []


def _acceptable(git_dir: Path, root: Path) -> bool:
    """Not `/`, not the home directory, not the workspace or one of its ancestors."""
    home = Path(os.path.realpath(os.path.expanduser("~")))
    real_root = Path(os.path.realpath(root))
    return git_dir.is_dir() and git_dir != Path("/") and git_dir != home and not _inside(real_root, git_dir)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
