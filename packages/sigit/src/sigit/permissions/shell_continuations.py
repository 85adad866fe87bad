"""Line continuations removed the way bash removes them, before the grammar reads a line.

bash drops every backslash-newline pair while it reads input, so `r\\<newline>m -rf x` runs `rm`;
tree-sitter's grammar instead splits that word in two (`r`, `m`), and a deny rule for `rm` would
not see it. `join_continuations` gives the text bash's lexer sees: pairs are kept only where bash
keeps them: inside single quotes and `$'...'`, in comments, and in the bodies of quoted here-docs
(`<<'EOF'`, `<<"EOF"`, `<<\\EOF`). Quoting is followed through `"..."`, `$(...)`, `${...}` and
backquotes, so a quote inside a substitution inside double quotes is read as bash reads it.
Imports nothing from sigit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["join_continuations"]

_WORD_END = frozenset(" \t\n;&|()<>")


@dataclass
class _Heredoc:
    delimiter: str
    quoted: bool
    strip_tabs: bool


@dataclass
class _Joiner:
    text: str
    out: list[str] = field(default_factory=list)
    # open constructs, innermost last: '"' (double quotes), '(' ($( or a paren inside one), '{' (${),
    # '`' (backquotes); plain top-level text is the empty stack
    stack: list[str] = field(default_factory=list)
    pending: list[_Heredoc] = field(default_factory=list)
    i: int = 0

    def peek(self, offset: int = 0) -> str:
        at = self.i + offset
        return self.text[at] if at < len(self.text) else ""

    def run(self) -> str:
        while self.i < len(self.text):
            if self.stack and self.stack[-1] == '"':
                self.double_quoted()
            else:
                self.plain()
        return "".join(self.out)

    def emit(self, chunk: str) -> None:
        self.out.append(chunk)
        self.i += len(chunk)

    def escape(self) -> bool:
        """A backslash pair at the cursor: a continuation is dropped, any other pair kept whole."""
        if self.peek() != "\\":
            return False
        if self.peek(1) == "\n":
            self.i += 2
        else:
            self.emit(self.text[self.i : self.i + 2])
        return True

    def plain(self) -> None:
        char = self.peek()
        if self.escape():
            return
        top = self.stack[-1] if self.stack else ""
        if char == "'":
            self.quoted_until_quote(1)
        elif char == "$" and self.peek(1) == "'":
            self.quoted_until_quote(2, escapes=True)
        elif char == "$" and self.peek(1) in ('"', "(", "{"):
            self.stack.append({'"': '"', "(": "(", "{": "{"}[self.peek(1)])
            self.emit(self.text[self.i : self.i + 2])
        elif char == '"':
            self.stack.append('"')
            self.emit(char)
        elif char == "(" and top == "(":
            self.stack.append("(")
            self.emit(char)
        elif (char == ")" and top == "(") or (char == "}" and top == "{") or (char == "`" and top == "`"):
            self.stack.pop()
            self.emit(char)
        elif char == "`":
            self.stack.append("`")
            self.emit(char)
        elif char == "#" and self.at_word_start():
            end = self.text.find("\n", self.i)
            self.emit(self.text[self.i : end if end >= 0 else len(self.text)])
        elif char == "<" and self.peek(1) == "<":
            if self.peek(2) == "<":  # a here-string
                self.emit("<<<")
            else:
                self.heredoc_operator()
        elif char == "\n":
            self.emit(char)
            self.heredoc_bodies()
        else:
            self.emit(char)

    def double_quoted(self) -> None:
        char = self.peek()
        if self.escape():
            return
        if char == '"':
            self.stack.pop()
            self.emit(char)
        elif char == "$" and self.peek(1) in ("(", "{"):
            self.stack.append(self.peek(1))
            self.emit(self.text[self.i : self.i + 2])
        elif char == "`":
            self.stack.append("`")
            self.emit(char)
        else:
            self.emit(char)

    def quoted_until_quote(self, opening: int, *, escapes: bool = False) -> None:
        """`'...'` (no escapes) or `$'...'` (backslash escapes, continuations kept): copied as is."""
        j = self.i + opening
        while j < len(self.text) and self.text[j] != "'":
            j += 2 if escapes and self.text[j] == "\\" else 1
        self.emit(self.text[self.i : min(j + 1, len(self.text))])

    def at_word_start(self) -> bool:
        previous = "".join(self.out[-1:])[-1:]
        return previous == "" or previous in _WORD_END

    def heredoc_operator(self) -> None:
        """`<<WORD` or `<<-WORD`: note the here-doc; its body starts after the end of this line."""
        start = self.i
        j = self.i + 2
        strip_tabs = j < len(self.text) and self.text[j] == "-"
        j += strip_tabs
        while j < len(self.text) and self.text[j] in " \t":
            j += 1
        delimiter: list[str] = []
        quoted = False
        while j < len(self.text) and self.text[j] not in _WORD_END:
            char = self.text[j]
            if char in "'\"":
                quoted = True
                close = self.text.find(char, j + 1)
                close = len(self.text) if close < 0 else close
                delimiter.append(self.text[j + 1 : close])
                j = close + 1
            elif char == "\\":
                quoted = True
                delimiter.append(self.text[j + 1 : j + 2])
                j += 2
            else:
                delimiter.append(char)
                j += 1
        if delimiter or quoted:
            self.pending.append(_Heredoc("".join(delimiter), quoted, strip_tabs))
        self.emit(self.text[start:j])

    def heredoc_bodies(self) -> None:
        """After a newline: the bodies of the here-docs opened on the line just ended, in order."""
        while self.pending:
            doc = self.pending.pop(0)
            while self.i < len(self.text):
                line = self.body_line(joined=not doc.quoted)
                check = line.rstrip("\n")
                if (check.lstrip("\t") if doc.strip_tabs else check) == doc.delimiter:
                    break

    def body_line(self, *, joined: bool) -> str:
        """One line of a here-doc body, emitted; in an unquoted one continuations join lines (as in bash,
        where `a\\<newline>EOF` is the line `aEOF`, not the delimiter)."""
        parts: list[str] = []
        while self.i < len(self.text):
            char = self.peek()
            if joined and char == "\\":
                if self.peek(1) == "\n":
                    self.i += 2
                    continue
                pair = self.text[self.i : self.i + 2]
                parts.append(pair)
                self.emit(pair)
                continue
            parts.append(char)
            self.emit(char)
            if char == "\n":
                break
        return "".join(parts)


def join_continuations(text: str) -> str:
    """`text` with the backslash-newline pairs bash removes removed (see the module docstring)."""
    if "\\\n" not in text:
        return text
    return _Joiner(text).run()
