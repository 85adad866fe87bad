"""The edit matchers: exact first, tolerant ones only when unique, and a useful hint when nothing matches."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sigit.tools.matching import MatchError, plan_edit


def edit(content: str, old: str, new: str, replace_all: bool = False) -> tuple[str, str]:
    plan = plan_edit(content, old, new, replace_all)
    return plan.apply(content), plan.strategy


def test_exact_match_replaces_once() -> None:
    assert edit("a = 1\nb = 2\n", "b = 2", "b = 3") == ("a = 1\nb = 3\n", "exact")


def test_exact_match_more_than_once_is_refused_with_line_numbers() -> None:
    with pytest.raises(MatchError) as err:
        edit("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 9")
    assert "2 times" in str(err.value) and "lines 1, 3" in str(err.value) and "replace_all" in str(err.value)


def test_replace_all_changes_every_exact_occurrence() -> None:
    assert edit("x\ny\nx\n", "x", "z", replace_all=True)[0] == "z\ny\nz\n"


def test_trailing_whitespace_is_tolerated() -> None:
    content = "def f():   \n    return 1  \n"
    out, how = edit(content, "def f():\n    return 1\n", "def f():\n    return 2\n")
    assert out == "def f():\n    return 2\n"
    assert how == "trailing whitespace"


def test_indentation_shift_reindents_new_text() -> None:
    content = "class A:\n    def f(self):\n        return 1\n"
    out, how = edit(content, "def f(self):\n    return 1", "def f(self):\n    x = 2\n    return x")
    assert out == "class A:\n    def f(self):\n        x = 2\n        return x\n"
    assert how == "indentation"


def test_indentation_shift_the_other_way() -> None:
    content = "if x:\n  y()\n"
    out, how = edit(content, "    if x:\n      y()", "    if x:\n      z()")
    assert out == "if x:\n  z()\n" and how == "indentation"


def test_tabs_versus_spaces_keeps_the_files_tabs() -> None:
    content = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n"
    out, how = edit(
        content, "    if ok {\n        run()\n    }", "    if ok {\n        run()\n        log()\n    }"
    )
    assert out == "func main() {\n\tif ok {\n\t\trun()\n\t\tlog()\n\t}\n}\n"
    assert how == "tabs vs spaces"


def test_escaped_quotes_and_newlines_written_literally() -> None:
    content = 'msg = "hi"\nprint(msg)\n'
    out, how = edit(content, 'msg = \\"hi\\"\\nprint(msg)', 'msg = \\"bye\\"\\nprint(msg)')
    assert out == 'msg = "bye"\nprint(msg)\n'
    assert how == "escaped quotes/newlines"


def test_blank_line_drift() -> None:
    content = "import os\n\n\ndef f():\n    pass\n"
    out, how = edit(content, "import os\n\ndef f():", "import sys\n\ndef f():")
    assert out == "import sys\n\ndef f():\n    pass\n"
    assert how == "blank lines"


def test_an_ambiguous_fuzzy_match_is_refused() -> None:
    content = "class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n"
    with pytest.raises(MatchError) as err:
        edit(content, "def f(self):\n    pass", "def f(self):\n    return 1")
    message = str(err.value)
    assert "2 places" in message and "lines 2, 5" in message and "not applied" in message


def test_not_found_quotes_the_closest_lines_with_numbers() -> None:
    content = "".join(f"line {i}\n" for i in range(1, 20)) + "def compute(a, b):\n    return a + b\n"
    with pytest.raises(MatchError) as err:
        edit(content, "def compute(a, c):\n    return a + c", "x")
    message = str(err.value)
    assert "lines 20-21" in message
    assert "    20\tdef compute(a, b):" in message and "    21\t    return a + b" in message


def test_not_found_with_nothing_similar_says_so() -> None:
    with pytest.raises(MatchError) as err:
        edit("alpha\nbeta\n", "zzzzqqqq", "x")
    assert "Nothing in the file looks similar" in str(err.value)


def test_empty_and_identical_edits_are_refused() -> None:
    with pytest.raises(MatchError, match="empty"):
        edit("a", "", "b")
    with pytest.raises(MatchError, match="identical"):
        edit("a", "a", "a")


_line = st.text(alphabet="abc xyz_()=:", min_size=1, max_size=12)


@given(st.lists(_line, min_size=1, max_size=12), st.data())
def test_an_exact_unique_edit_changes_only_that_text(lines: list[str], data: st.DataObject) -> None:
    content = "\n".join(lines) + "\n"
    i = data.draw(st.integers(0, len(lines) - 1))
    old = lines[i]
    if content.count(old) != 1:
        return
    out, how = edit(content, old, "<NEW>")
    assert how == "exact"
    assert out == content.replace(old, "<NEW>")
