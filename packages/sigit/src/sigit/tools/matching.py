"""Find where an edit's old_text is in a file: exactly first, then tolerant matchers that small models need.

A tolerant match is used only when it is unique; an ambiguous one is refused. When nothing matches,
the error quotes the closest lines of the file with their numbers. Texts use "\\n" line endings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

TAB_WIDTH = 4


class MatchError(ValueError):
    """old_text was not found, or found more than once; the message tells the model what to do."""


@dataclass(frozen=True)
class Replacement:
    start: int
    end: int
    text: str
    line: int  # 1-based line where the replaced text starts


@dataclass(frozen=True)
class EditPlan:
    replacements: tuple[Replacement, ...]
    strategy: str  # "exact" or the tolerant matcher that found it

    def apply(self, content: str) -> str:
        out, pos = [], 0
        for rep in self.replacements:
            out += [content[pos : rep.start], rep.text]
            pos = rep.end
        out.append(content[pos:])
        return "".join(out)


def line_of(content: str, offset: int) -> int:
    return content.count("\n", 0, offset) + 1


def _lines_list(lines: list[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:10])
    return shown + (", ..." if len(lines) > 10 else "")


def plan_edit(content: str, old_text: str, new_text: str, replace_all: bool = False) -> EditPlan:
    if old_text == "":
        raise MatchError("old_text is empty. Give the exact text to replace (use create_file for new files).")
    if old_text == new_text:
        raise MatchError("old_text and new_text are identical; there is nothing to change.")
    starts = _find_all(content, old_text)
    if len(starts) == 1 or (starts and replace_all):
        reps = tuple(Replacement(s, s + len(old_text), new_text, line_of(content, s)) for s in starts)
        return EditPlan(reps, "exact")
    if starts:
        lines = [line_of(content, s) for s in starts]
        raise MatchError(
            f"old_text matches {len(starts)} times (at lines {_lines_list(lines)}). Include more surrounding "
            "lines to make it unique, or set replace_all to true to change every occurrence."
        )
    for name, matcher in _MATCHERS:
        found = matcher(content, old_text, new_text)
        if len(found) == 1:
            return EditPlan((found[0],), name)
        if len(found) > 1:
            raise MatchError(
                f"old_text does not match exactly, and ignoring {name} it matches {len(found)} places "
                f"(lines {_lines_list([r.line for r in found])}), so the edit was not applied. Copy the "
                "exact text from the file and include more surrounding lines."
            )
    raise MatchError(not_found_message(content, old_text))


def _find_all(content: str, needle: str) -> list[int]:
    out, pos = [], content.find(needle)
    while pos != -1:
        out.append(pos)
        pos = content.find(needle, pos + len(needle))
    return out


# ---------------------------------------------------------------- line-window matchers


@dataclass(frozen=True)
class _Lines:
    """The file split into lines with the offset where each starts."""

    lines: list[str]
    starts: list[int]

    @classmethod
    def of(cls, content: str) -> _Lines:
        lines = content.split("\n")
        starts, pos = [], 0
        for line in lines:
            starts.append(pos)
            pos += len(line) + 1
        return cls(lines, starts)

    def span(self, first: int, count: int) -> tuple[int, int]:
        last = first + count - 1
        return self.starts[first], self.starts[last] + len(self.lines[last])


def _core(old_text: str, new_text: str) -> tuple[list[str], str, bool]:
    """Old lines without the final newline, the new text to match, and whether a newline was dropped."""
    trailing = old_text.endswith("\n")
    old_core = old_text[:-1] if trailing else old_text
    new_core = new_text[:-1] if trailing and new_text.endswith("\n") else new_text
    return old_core.split("\n"), new_core, trailing and not new_text.endswith("\n")


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _width(ws: str) -> int:
    return len(ws.expandtabs(TAB_WIDTH))


Rewrite = Callable[[list[str], list[str], str], str | None]
"""(file block, old block, new text) -> new text adapted to the file, or None if this window does not fit."""


def _window_matcher(
    key: Callable[[str], str], rewrite: Rewrite
) -> Callable[[str, str, str], list[Replacement]]:
    def match(content: str, old_text: str, new_text: str) -> list[Replacement]:
        old_lines, new_core, eat_newline = _core(old_text, new_text)
        file = _Lines.of(content)
        want = [key(line) for line in old_lines]
        keys = [key(line) for line in file.lines]
        n = len(want)
        found = []
        for i in range(len(keys) - n + 1):
            if keys[i] != want[0] or keys[i : i + n] != want:
                continue
            text = rewrite(file.lines[i : i + n], old_lines, new_core)
            if text is None:
                continue
            start, end = file.span(i, n)
            if eat_newline and end < len(content):
                end += 1
            found.append(Replacement(start, end, text, i + 1))
        return found

    return match


def _keep(_file: list[str], _old: list[str], new: str) -> str:
    return new


def _common_indent(lines: list[str]) -> str:
    indents = [_leading(line) for line in lines if line.strip()]
    if not indents:
        return ""
    common = indents[0]
    for ind in indents[1:]:
        while not ind.startswith(common):
            common = common[:-1]
    return common


def _shift_indent(file_block: list[str], old_block: list[str], new: str) -> str | None:
    """Same text, indented differently as a block: re-indent new_text by the same delta."""
    f_common, o_common = _common_indent(file_block), _common_indent(old_block)
    for f_line, o_line in zip(file_block, old_block, strict=True):
        if f_line.strip() and f_line[len(f_common) :].rstrip() != o_line[len(o_common) :].rstrip():
            return None
    if f_common == o_common:
        return None
    out = []
    for line in new.split("\n"):
        if not line.strip():
            out.append(line)
        elif line.startswith(o_common):
            out.append(f_common + line[len(o_common) :])
        else:  # less indented than the old block: keep its offset relative to the file's indent
            missing = len(o_common) - len(_leading(line))
            out.append(f_common[: max(0, len(f_common) - missing)] + line.lstrip(" \t"))
    return "\n".join(out)


def _retab(file_block: list[str], old_block: list[str], new: str) -> str | None:
    """Tabs in the file, spaces in old_text (or the reverse): compare by columns, write the file's style."""
    deltas = {
        _width(_leading(f)) - _width(_leading(o))
        for f, o in zip(file_block, old_block, strict=True)
        if f.strip()
    }
    if len(deltas) != 1:
        return None
    delta = deltas.pop()
    tabs = any("\t" in _leading(line) for line in file_block if line.strip())
    out = []
    for line in new.split("\n"):
        if not line.strip():
            out.append(line)
            continue
        width = max(0, _width(_leading(line)) + delta)
        indent = "\t" * (width // TAB_WIDTH) + " " * (width % TAB_WIDTH) if tabs else " " * width
        out.append(indent + line.lstrip(" \t"))
    return "\n".join(out)


_ESCAPE = re.compile(r"\\([nt\"'\\])")
_UNESCAPED = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _UNESCAPED[m.group(1)], text)


def _escaped(content: str, old_text: str, new_text: str) -> list[Replacement]:
    """The model wrote \\n, \\t or \\" literally where the file has a newline, tab or quote."""
    old = _unescape(old_text)
    if old == old_text or not old:
        return []
    new = _unescape(new_text)
    return [Replacement(s, s + len(old), new, line_of(content, s)) for s in _find_all(content, old)]


def _blank_line_drift(content: str, old_text: str, new_text: str) -> list[Replacement]:
    """Same non-blank lines, but with more or fewer blank lines between them."""
    old_lines, new_core, _ = _core(old_text, new_text)
    want = [line.rstrip() for line in old_lines if line.strip()]
    if not want:
        return []
    lead = next(i for i, line in enumerate(old_lines) if line.strip())
    new_lines = new_core.split("\n")
    while lead and new_lines and not new_lines[0].strip():
        new_lines.pop(0)
        lead -= 1
    trail = len(old_lines) - 1 - max(i for i, line in enumerate(old_lines) if line.strip())
    while trail and new_lines and not new_lines[-1].strip():
        new_lines.pop()
        trail -= 1
    file = _Lines.of(content)
    nonblank = [i for i, line in enumerate(file.lines) if line.strip()]
    keys = [file.lines[i].rstrip() for i in nonblank]
    n = len(want)
    found = []
    for j in range(len(keys) - n + 1):
        if keys[j : j + n] == want:
            first, last = nonblank[j], nonblank[j + n - 1]
            start, end = file.span(first, last - first + 1)
            found.append(Replacement(start, end, "\n".join(new_lines), first + 1))
    return found


_MATCHERS: tuple[tuple[str, Callable[[str, str, str], list[Replacement]]], ...] = (
    ("trailing whitespace", _window_matcher(str.rstrip, _keep)),
    ("indentation", _window_matcher(str.strip, _shift_indent)),
    ("tabs vs spaces", _window_matcher(str.strip, _retab)),
    ("escaped quotes/newlines", _escaped),
    ("blank lines", _blank_line_drift),
)


# ---------------------------------------------------------------- the hint when nothing matches


def closest_lines(content: str, old_text: str) -> tuple[int, list[str], float] | None:
    """The window of file lines most like old_text: (first line number, lines, similarity 0-1)."""
    lines = content.split("\n")
    old_lines = [line.strip() for line in old_text.strip("\n").split("\n")]
    n = max(1, len(old_lines))
    target = "\n".join(old_lines)
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    stripped = [line.strip() for line in lines]
    scored = []
    for i in range(max(1, len(lines) - n + 1)):
        matcher.set_seq1("\n".join(stripped[i : i + n]))
        scored.append((matcher.quick_ratio(), i))
    scored.sort(reverse=True)
    best: tuple[float, int] | None = None
    for _, i in scored[:12]:
        matcher.set_seq1("\n".join(stripped[i : i + n]))
        ratio = matcher.ratio()
        if best is None or ratio > best[0]:
            best = (ratio, i)
    if best is None or best[0] < 0.3:
        return None
    ratio, i = best
    return i + 1, lines[i : i + n], ratio


def not_found_message(content: str, old_text: str) -> str:
    base = "old_text was not found in the file (not even ignoring whitespace, indentation or blank lines)."
    close = closest_lines(content, old_text)
    if close is None:
        return base + " Nothing in the file looks similar; read the file again before editing."
    first, lines, ratio = close
    numbered = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines[:30], start=first))
    last = first + len(lines) - 1
    return (
        f"{base} The closest text is at lines {first}-{last} ({ratio:.0%} similar):\n{numbered}\n"
        "Copy the exact lines from the file into old_text (without the line numbers) and retry."
    )
