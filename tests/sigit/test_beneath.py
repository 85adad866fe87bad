"""Issue 49 family 1: `sigit.beneath.locate` walks a path from its root without following a link out of
it; links that stay inside are followed by the walk itself. Run with and without openat2, which must
give the same answers (the walk is what a kernel without it, and macOS, use)."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sigit import beneath
from sigit.beneath import LeavesRootError, locate


@pytest.fixture(params=["openat2", "walk"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "walk":
        monkeypatch.setattr(beneath, "_openat2_works", False)
    yield request.param


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("a\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("secret\n")
    (root / "inner").symlink_to("src/pkg")  # stays inside
    (root / "absolute").symlink_to(root / "src")  # absolute, inside
    (root / "out").symlink_to(tmp_path / "outside")  # leaves
    (root / "up").symlink_to("../outside")  # leaves through '..'
    (root / "file_out").symlink_to(tmp_path / "outside" / "secret")
    (root / "loop").symlink_to("loop")
    return root


def real(root: Path, relative: str, **options: bool) -> Path:
    with locate(root, root / relative, **options) as located:
        return located.real_path()


def test_links_that_stay_inside_are_followed(tree: Path, way: str) -> None:
    pkg = (tree / "src" / "pkg").resolve()
    assert real(tree, "inner/a.py") == pkg / "a.py"
    assert real(tree, "absolute/pkg/a.py") == pkg / "a.py"
    assert real(tree, "inner") == pkg  # a link in the last place is followed too
    assert real(tree, "src/new.txt") == tree.resolve() / "src" / "new.txt"  # a name that does not exist yet
    assert real(tree, ".") == tree.resolve()


@pytest.mark.parametrize("relative", ["out/secret", "up/secret", "file_out", "out"])
def test_a_link_that_leaves_the_root_is_refused(tree: Path, way: str, relative: str) -> None:
    with pytest.raises(LeavesRootError) as caught:
        locate(tree, tree / relative)
    assert "leads outside" in str(caught.value) and str(tree) in str(caught.value)


def test_a_link_in_the_last_place_is_kept_when_asked(tree: Path, way: str) -> None:
    with locate(tree, tree / "file_out", follow_last=False) as located:
        assert located.name == "file_out" and located.real_path() == tree.resolve() / "file_out"


def test_a_loop_is_an_error_not_a_hang(tree: Path, way: str) -> None:
    with pytest.raises(OSError) as caught:
        locate(tree, tree / "loop" / "x")
    assert caught.value.errno == errno.ELOOP


def test_missing_folders_are_made_after_the_check_says_yes(tree: Path, way: str) -> None:
    seen: list[Path] = []
    with locate(tree, tree / "inner" / "new" / "deeper" / "f.txt", make_parents=True,
                before_create=seen.append) as located:
        assert located.name == "f.txt"
    pkg = (tree / "src" / "pkg").resolve()
    assert seen == [pkg / "new", pkg / "new" / "deeper"] and (pkg / "new" / "deeper").is_dir()

    def refuse(path: Path) -> None:
        raise PermissionError(errno.EACCES, "no", str(path))

    with pytest.raises(PermissionError):
        locate(tree, tree / "other" / "f.txt", make_parents=True, before_create=refuse)
    assert not (tree / "other").exists()
    with pytest.raises(LeavesRootError):  # never made through a link that leaves
        locate(tree, tree / "out" / "made" / "f.txt", make_parents=True)
    assert not (tree.parent / "outside" / "made").exists()


def test_the_descriptor_is_what_the_checks_judge(tree: Path, way: str) -> None:
    """Once located, renaming the folder moves the descriptor with it: the real path is where it is now."""
    with locate(tree, tree / "src" / "pkg" / "a.py") as located:
        os.rename(tree / "src", tree / "moved")
        assert located.real_path() == tree.resolve() / "moved" / "pkg" / "a.py"
