"""Shell command lines read the way a shell reads them, so that permission rules see every command.

A hand-written scanner can be walked around (a comment that hides a quote, `$'...'` quoting, `>&FILE`);
this module parses a line with tree-sitter's bash grammar instead and reports, for the policy:

- `commands`: every simple command the line runs: in pipelines, lists, subshells, groups, if/while/
  for/case bodies, function bodies, command and process substitutions, here-docs. Words are given
  after quote removal; leading `VAR=value` words are kept apart.
- `writes`: redirections that write a file (`>`, `>>`, `>|`, `&>`, `&>>`, `>&FILE`, `<>`), except
  `/dev/null`, `/dev/stdout`, `/dev/stderr` and fd duplications (`2>&1`).
- `opaque`: why the line cannot be judged from its text (a parse error, a command word built from an
  expansion, `eval`, arithmetic, ...): it is "unanalysable". Allow rules never match it, deny rules
  match its text from every word on, and bypass mode asks where a deny rule might apply. Forms the
  grammar reads as text but bash runs are unanalysable too: substitutions inside `${x:-...}` and
  nested `${}`, substitutions in unquoted here-doc bodies, nested backquotes.
- `bash_only`: syntax a POSIX `sh` reads differently (`$'...'`, `[[`, `<(...)`, `&>`, ...). Lines run
  under bash (`sigit.tools.processes.run_shell`); where there is no bash, such lines are refused.

Each command also carries `inner`: the commands it runs from its arguments (`sudo rm`, `env X=1 rm`,
`xargs rm`, `find -exec rm`, `sh -c "rm ..."`), for deny rules. Line continuations are removed first,
as bash removes them (`shell_continuations`). Imports nothing from sigit but its siblings
`shell_programs` and `shell_continuations`.
"""

from __future__ import annotations

import functools
import re
import shlex
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from sigit.permissions.shell_continuations import join_continuations
from sigit.permissions.shell_programs import (
    NAME_TAKING,
    OPAQUE_PROGRAMS,
    SHELLS,
    WRAPPERS,
    find_exec_spans,
    is_risky_assignment,
    names_built_at_run_time,
    script_argument,
    shell_script_index,
    unwrap,
)

__all__ = [
    "HARMLESS_TARGETS",
    "Redirect",
    "ShellLine",
    "SimpleCommand",
    "parse_line",
]

# -- results ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Redirect:
    """A redirection that writes a file: `operator` as written (`>`, `>>`, `&>`, ...), `target` unquoted."""

    operator: str
    target: str
    fd: int | None = None


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: `words[0]` is the command word as the shell sees it (quotes removed).

    `assignments` are the leading `VAR=value` words; `redirects` the writes attached to this command;
    `inner` the commands it runs from its arguments (wrappers, `find -exec`, `xargs`, `sh -c`);
    `static` is False when a word is built from an expansion, a substitution or a glob.
    """

    words: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    inner: tuple[SimpleCommand, ...] = ()
    static: bool = True

    @functools.cached_property
    def name(self) -> str:
        """The command word without its directory (`/bin/rm` -> `rm`); quote removal already made `\\rm` `rm`."""
        return self.words[0].rstrip("/").rsplit("/", 1)[-1] if self.words else ""

    @functools.cached_property
    def argv(self) -> tuple[str, ...]:
        """`words` with the command word replaced by `name`."""
        return (self.name, *self.words[1:]) if self.words else ()

    @property
    def text(self) -> str:
        """The words quoted back into one shell line (assignments left out)."""
        return _join(self.words)

    def walk(self) -> Iterator[SimpleCommand]:
        """This command and, recursively, every command it runs from its arguments."""
        yield self
        for command in self.inner:
            yield from command.walk()


@dataclass(frozen=True)
class ShellLine:
    """A parsed command line; `opaque` lists why it cannot be judged statically (empty when it can)."""

    source: str
    commands: tuple[SimpleCommand, ...]
    writes: tuple[Redirect, ...]
    opaque: tuple[str, ...]
    bash_only: tuple[str, ...] = ()  # syntax a POSIX `sh` (dash) reads differently from bash

    @property
    def analysable(self) -> bool:
        return not self.opaque

    @property
    def deny_candidates(self) -> tuple[SimpleCommand, ...]:
        """Every command of the line and every command those run from their arguments: what deny rules check."""
        return tuple(dict.fromkeys(inner for command in self.commands for inner in command.walk()))


# -- program knowledge -----------------------------------------------------------------------------

HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


# -- parsing ---------------------------------------------------------------------------------------

_LANGUAGE = Language(tree_sitter_bash.language())
_PARSER = Parser(_LANGUAGE)
_PARSER_LOCK = threading.Lock()  # a Parser is not safe to share between threads
_MAX_DEPTH = 150  # nesting beyond this is reported as opaque, not recursed into
_MAX_INNER_DEPTH = 6  # `sh -c "sh -c ..."` levels followed for deny rules


@functools.lru_cache(maxsize=1024)
def parse_line(line: str) -> ShellLine:
    """Parse one shell command line (any number of lines of script); cached, so repeated calls are free."""
    try:
        return _parse(line, 0)
    except RecursionError:  # pathological nesting: never a reason to fail the caller
        return ShellLine(source=line, commands=(), writes=(), opaque=("the line is nested too deeply to check",))


_NON_ASCII = re.compile(rb"[\x80-\xff]")


def _ascii_shadow(source: bytes) -> bytes:
    """`source` with every non-ASCII byte replaced by `X`: the same length, so node offsets still index
    the real text, which the walker reads.

    tree-sitter-bash 0.25's scanner crashes the process on some code points (`{` then U+F254E). For bash a
    non-ASCII byte is never an operator, a quote or a blank, only part of a word, and so is `X`
    (upper case: it cannot complete a keyword such as `case` from a stray byte).
    """
    return _NON_ASCII.sub(b"X", source) if not source.isascii() else source


def _parse(line: str, inner_depth: int) -> ShellLine:
    # the grammar reads the text bash's lexer reads: `r\<newline>m` is the word `rm`
    source = join_continuations(line).encode("utf-8", "surrogateescape")
    with _PARSER_LOCK:
        tree = _PARSER.parse(_ascii_shadow(source))
    walker = _Walker(source, inner_depth)
    root = tree.root_node
    if root.has_error:
        walker.opaque.append("the line does not parse as a shell command line")
    walker.statement(root)
    cuts = [cut for cut in walker.breaks if 0 < cut < len(source)]
    if walker.breaks and not cuts:
        walker.opaque.append("the grammar misreads a line break")
    if cuts:
        # The grammar ran a command on past an unescaped newline (`a` newline `\\b`), where bash starts a
        # new command: read the two sides as lines of their own, and ask.
        cut = min(cuts)
        head = _parse(source[:cut].decode("utf-8", "surrogateescape"), inner_depth)
        tail = _parse(source[cut:].decode("utf-8", "surrogateescape"), inner_depth)
        return ShellLine(
            source=line,
            commands=head.commands + tail.commands,
            writes=tuple(dict.fromkeys(head.writes + tail.writes)),
            opaque=tuple(dict.fromkeys(("the grammar misreads a line break", *head.opaque, *tail.opaque))),
            bash_only=tuple(dict.fromkeys(head.bash_only + tail.bash_only)),
        )
    return ShellLine(
        source=line,
        commands=tuple(walker.commands),
        writes=tuple(dict.fromkeys(walker.writes)),
        opaque=tuple(dict.fromkeys(walker.opaque)),
        bash_only=_bash_only(root, source),
    )


@dataclass
class _Word:
    text: str
    static: bool = True
    plain: str | None = None  # the unquoted characters (quoted ones as spaces): where globs and braces act


@dataclass
class _Walker:
    """One pass over a syntax tree, collecting commands, writes and reasons for opacity."""

    source: bytes
    inner_depth: int
    commands: list[SimpleCommand] = field(default_factory=list)
    writes: list[Redirect] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    depth: int = 0
    trailing: dict[tuple[int, int], list[Node]] = field(default_factory=dict)
    breaks: list[int] = field(default_factory=list)  # line breaks the grammar ran a command on past

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    # statements ---------------------------------------------------------------------------------

    def statement(self, node: Node) -> None:
        if self.depth > _MAX_DEPTH:
            self.opaque.append("the line is nested too deeply to check")
            return
        self.depth += 1
        try:
            self._statement(node)
        finally:
            self.depth -= 1

    def _statement(self, node: Node) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, [])
        elif kind == "redirected_statement":
            self.redirected(node)
        elif kind in _CONTAINERS:
            if kind == "compound_statement" and node.children and node.children[0].type == "((":
                self.arithmetic(node, "an arithmetic command `(( ))`")
                return
            for child in node.named_children:
                self.any(child)
        elif kind == "function_definition":
            for index, child in enumerate(node.children):
                if node.field_name_for_child(index) in ("body", "redirect"):
                    self.any(child)
        elif kind == "c_style_for_statement":
            self.arithmetic(node, "an arithmetic `for (( ))` loop")
        elif kind == "test_command":
            self.test(node)
        elif kind in ("variable_assignment", "variable_assignments"):
            for assignment in [node] if kind == "variable_assignment" else node.named_children:
                self.assignment(assignment, standalone=True)
        elif kind in ("declaration_command", "unset_command"):
            self.declaration(node)
        elif kind == "comment":
            return
        elif kind in _WORD_TYPES:
            self.word(node)
        elif kind in ("heredoc_redirect", "herestring_redirect", "file_redirect"):
            self.redirect(node)
        else:
            self.unknown(node)

    def any(self, node: Node) -> None:
        """A child of a compound: a statement, or the words of a `for`/`case` header."""
        if node.type == "variable_name":  # `for x in ...`
            return
        self.statement(node)

    def unknown(self, node: Node) -> None:
        """Syntax this walker does not model: opaque, but commands inside still reach deny rules."""
        if node.is_error or node.is_missing:
            self.opaque.append("the line does not parse as a shell command line")
        else:
            self.opaque.append(f"unsupported shell syntax: {node.type}")
        for child in node.named_children:
            if child.type in _WORD_TYPES:
                self.word(child)
            else:
                self.statement(child)

    def redirected(self, node: Node) -> None:
        body: Node | None = None
        redirects: list[Node] = []
        for index, child in enumerate(node.children):
            if node.field_name_for_child(index) == "redirect" or child.type in _REDIRECT_TYPES:
                redirects.append(child)
            elif child.is_named and body is None:
                body = child
            elif child.is_named or child.is_error or child.is_missing:
                self.unknown(child)
        if body is not None and body.type == "command":
            self.command(body, redirects)
            return
        last = body
        while last is not None and last.type in ("list", "pipeline") and last.named_children:
            last = last.named_children[-1]
        if body is not None and last is not None and last is not body and last.type == "command":
            # `a && b >out x`: the grammar hangs the redirection on the list; bash gives it (and `x`) to b.
            self.trailing[(last.start_byte, last.end_byte)] = redirects
            self.statement(body)
            return
        if body is not None:
            self.statement(body)
        for redirect in redirects:
            extra = self.redirect(redirect)
            if extra:
                self.opaque.append("words after a redirection of a compound command")

    def command(self, node: Node, trailing: list[Node]) -> None:
        """A simple command; `trailing` are redirections the grammar attached after it."""
        assignments: list[str] = []
        words: list[_Word] = []
        writes: list[Redirect] = []
        children = node.children
        position = node.start_byte
        for index, child in enumerate(children):
            kind = child.type
            fieldname = node.field_name_for_child(index)
            cut = self.line_break(position, child)
            position = child.end_byte
            if cut is not None:
                self.breaks.append(cut)
                break
            if kind == "variable_assignment" and not words:
                assignments.append(self.assignment(child, standalone=False))
            elif fieldname == "redirect" or kind in _REDIRECT_TYPES:
                mark = len(self.writes)
                words.extend(self.redirect(child))
                writes.extend(self.writes[mark:])
            elif fieldname == "name":
                words.extend(self.word(grandchild) for grandchild in child.named_children)
            elif kind in _WORD_TYPES:
                words.append(self.word(child))
            elif kind == "$" and index + 1 < len(children) and children[index + 1].start_byte == child.end_byte:
                continue  # `$"..."` (a translated string): the string that follows is the word
            elif kind == "comment":  # the grammar ran the command on past `# ...` and its newline
                self.breaks.append(child.end_byte)
                break
            elif kind == "variable_assignment":  # `make CC=gcc`: an argument
                words.append(_Word(self.text(child), static=False))
                self.assignment(child, standalone=False)
            else:
                self.unknown(child)
        for redirect in [*trailing, *self.trailing.pop((node.start_byte, node.end_byte), [])]:
            mark = len(self.writes)
            words.extend(self.redirect(redirect))
            writes.extend(self.writes[mark:])
        self.emit(words, assignments, writes)

    def line_break(self, position: int, child: Node) -> int | None:
        """Where an unescaped newline ends the command before or inside `child`; None if none does."""
        gap = _bare_newline(self.source[position : child.start_byte])
        if gap is not None:
            return position + gap
        targets = [child] if child.type == "word" else [c for c in child.named_children if c.type == "word"]
        if child.type == "command_name":
            targets = [c for c in child.named_children if c.type == "word"]
        for target in targets:
            inside = _bare_newline(self.source[target.start_byte : target.end_byte])
            if inside is not None:
                return target.start_byte + inside
        return None

    def emit(self, words: list[_Word], assignments: list[str], writes: list[Redirect]) -> None:
        if not words:  # `A=1 >out`: no command runs (the write is already recorded)
            return
        head = words[0]
        if not head.static:
            self.opaque.append(f"the command word `{head.text}` is built at run time")
        name = head.text.rstrip("/").rsplit("/", 1)[-1]
        if name in OPAQUE_PROGRAMS:
            self.opaque.append(OPAQUE_PROGRAMS[name])
        if name in NAME_TAKING and any("[" in w.text and ("$" in w.text or "`" in w.text) for w in words[1:]):
            self.opaque.append(f"`{name}` is given a variable name with a subscript, which can run commands")
        elif names_built_at_run_time(name, [w.text for w in words], [w.static for w in words]):
            self.opaque.append(f"`{name}` is given a variable name built at run time, whose subscript can run commands")
        inner = _inner_commands(words, self.inner_depth)
        if inner is None:
            self.opaque.append(f"the command that `{name}` runs cannot be told from its words")
            inner = _guess_inner(words, self.inner_depth)
        self.commands.append(
            SimpleCommand(
                words=tuple(word.text for word in words),
                assignments=tuple(assignments),
                redirects=tuple(writes),
                inner=tuple(inner),
                static=all(word.static for word in words),
            )
        )

    def assignment(self, node: Node, *, standalone: bool) -> str:
        """`NAME=value` with the value unquoted; a standalone one that can change later commands is opaque."""
        name = ""
        value = _Word("")
        for index, child in enumerate(node.children):
            fieldname = node.field_name_for_child(index)
            if fieldname == "name":
                if child.type != "variable_name":
                    self.opaque.append("an assignment to an array element, which can run commands")
                name = self.text(child)
            elif fieldname == "value":
                if child.type == "array":
                    parts = [self.word(item) for item in child.named_children]
                    value = _Word("(" + " ".join(part.text for part in parts) + ")",
                                  all(part.static for part in parts))
                else:
                    value = self.word(child)
        operator = "+=" if b"+=" in self.source[node.start_byte : node.end_byte].split(b"=", 1)[0] + b"=" else "="
        text = f"{name}{operator}{value.text}"
        if standalone and is_risky_assignment(text):
            self.opaque.append(f"the assignment `{name}=...` changes how later commands run")
        return text

    def declaration(self, node: Node) -> None:
        """`export A=1`, `declare -i x`, `local y`, `unset z`: a command whose words may be assignments."""
        words: list[_Word] = []
        for child in node.children:
            if child.type == "variable_assignment":
                text = self.assignment(child, standalone=True)
                words.append(_Word(text))
            elif child.type in _WORD_TYPES:
                words.append(self.word(child))
            elif child.type == "variable_name":
                words.append(_Word(self.text(child)))
            elif not child.is_named and child.type in ("declare", "typeset", "export", "readonly", "local",
                                                       "unset", "unsetenv"):
                words.insert(0, _Word(child.type))
            else:
                self.unknown(child)
        if any(w.text.startswith("-") and "i" in w.text for w in words[1:]):
            self.opaque.append("an integer declaration evaluates arithmetic, which can run commands")
        self.emit(words, [], [])

    def test(self, node: Node) -> None:
        """`[ ... ]` / `[[ ... ]]`: no command runs, but `[[` arithmetic and `-v` evaluate subscripts."""
        double = bool(node.children) and node.children[0].type == "[["
        for descendant in _descendants(node):
            if descendant.type == "test_operator":
                operator = self.text(descendant)
                if double and operator in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"):
                    self.opaque.append(f"`[[ {operator} ]]` evaluates arithmetic, which can run commands")
        for child in node.named_children:
            self.expression(child)

    def expression(self, node: Node) -> None:
        if node.type in _WORD_TYPES:
            self.word(node)
        elif node.type in ("test_operator", "regex", "extglob_pattern"):
            return
        elif node.type in ("binary_expression", "unary_expression", "parenthesized_expression"):
            for child in node.named_children:
                self.expression(child)
        else:
            self.unknown(node)

    def arithmetic(self, node: Node, what: str) -> None:
        """Arithmetic on literal numbers only is safe; a name in it may hold `a[$(cmd)]`, which runs cmd."""
        for descendant in _descendants(node):
            if descendant.is_named and descendant.type not in _PURE_ARITHMETIC:
                self.opaque.append(f"{what} with names or expansions in it")
                break
        self.substitutions_in(node)

    def substitutions_in(self, node: Node) -> None:
        for child in node.named_children:
            if child.type in ("command_substitution", "process_substitution"):
                self.word(child)
            else:
                self.substitutions_in(child)

    # redirections -------------------------------------------------------------------------------

    def redirect(self, node: Node) -> list[_Word]:
        """Record a write, if the redirection is one; return words the grammar put after its target."""
        kind = node.type
        if kind == "herestring_redirect":
            for child in node.named_children:
                self.word(child)
            return []
        if kind == "heredoc_redirect":
            return self.heredoc(node)
        if kind != "file_redirect":
            self.unknown(node)
            return []
        fd: int | None = None
        operator = ""
        targets: list[_Word] = []
        target_nodes: list[Node] = []
        for index, child in enumerate(node.children):
            fieldname = node.field_name_for_child(index)
            if fieldname == "descriptor" or child.type == "file_descriptor":
                fd = int(self.text(child)) if self.text(child).isdigit() else None
            elif fieldname == "destination" or (child.is_named and child.type in _WORD_TYPES):
                cut = self.line_break(target_nodes[-1].end_byte if target_nodes else child.start_byte, child)
                if cut is not None:
                    self.breaks.append(cut)
                    break
                target_nodes.append(child)
                targets.append(self.word(child))
            elif not child.is_named and not child.is_error and not operator:
                operator = child.type
            else:
                self.unknown(child)
        extra = targets[1:]
        target = targets[0] if targets else None
        if operator in ("<", "<&", "<&-", ">&-"):
            return extra
        if operator == ">&" or operator == "<&":
            if target is None or (target.static and (target.text.isdigit() or target.text == "-")):
                return extra
            if target_nodes and target_nodes[0].type == "number":
                return extra
        if operator not in (">", ">>", ">|", "&>", "&>>", ">&", "<>"):
            self.opaque.append(f"unsupported redirection `{operator}`")
            return extra
        if target is None:
            self.opaque.append(f"a redirection `{operator}` without a target")
            return extra
        if not target.static:
            self.opaque.append(f"output redirected to a file name built at run time (`{target.text}`)")
        if target.text not in HARMLESS_TARGETS or not target.static:
            self.writes.append(Redirect(operator=operator, target=target.text, fd=fd))
        return extra

    def heredoc(self, node: Node) -> list[_Word]:
        quoted = False
        extra: list[_Word] = []
        for index, child in enumerate(node.children):
            fieldname = node.field_name_for_child(index)
            if child.type == "heredoc_start":
                quoted = any(mark in self.text(child) for mark in "'\"\\")
            elif child.type == "heredoc_body":
                if not quoted and _unread_substitution(child, self.source):
                    # the grammar misses some (after leading blanks, backquotes, `<<-`); bash runs them all
                    self.opaque.append("unanalysable: a command substitution in an unquoted here-document")
                if not quoted:
                    for part in child.named_children:
                        if part.type != "heredoc_content":
                            self.word(part)
            elif fieldname == "redirect" or child.type in _REDIRECT_TYPES:
                extra.extend(self.redirect(child))
            elif child.type in ("heredoc_end", "<<", "<<-"):
                continue
            elif child.is_named:
                self.statement(child)  # `cat <<EOF | grep x`: the rest of the pipeline
            elif child.is_error or child.is_missing:
                self.unknown(child)
        return extra

    # words --------------------------------------------------------------------------------------

    def word(self, node: Node) -> _Word:
        """A word after quote removal; substitutions inside are walked as commands of the line."""
        kind = node.type
        text = self.text(node)
        if kind == "word":
            return _unquoted(text)
        if kind in ("number", "variable_name", "special_variable_name"):
            return _Word(text)
        if kind == "raw_string":
            return _Word(text[1:-1])
        if kind == "ansi_c_string":
            if _ansi_c_length(text) != len(text):  # `$'\\' ; cmd #'`: bash ends the string sooner
                self.opaque.append(f"unanalysable: the grammar misreads the quoting of `{text}`")
                return _Word(text, static=False)
            return _Word(_ansi_c(text[2:-1]))
        if kind in ("string", "translated_string"):
            return self.double_quoted(node)
        if kind == "concatenation":
            # `{/root/.bashrc,}` is three pieces to the grammar; bash expands the braces of the whole word
            parts: list[_Word] = []
            position = node.start_byte
            for child in node.children:
                if child.start_byte > position:
                    parts.append(_unquoted(self.source[position : child.start_byte].decode("utf-8", "replace")))
                if child.is_named:
                    parts.append(self.word(child))
                elif child.type == "$":
                    parts.append(_Word("$"))
                else:
                    parts.append(_unquoted(self.text(child)))
                position = child.end_byte
            plain = "".join(p.plain if p.plain is not None else " " * len(p.text) for p in parts)
            static = all(p.static for p in parts) and not _expands(plain)
            return _Word("".join(p.text for p in parts), static, plain)
        if kind == "simple_expansion":
            return _Word(text, static=False)
        if kind == "expansion":
            self.expansion(node)
            return _Word(text, static=False)
        if kind in ("command_substitution", "process_substitution"):
            if text.startswith("`") and "\\`" in text:
                self.opaque.append("unanalysable: nested backquotes")
            for child in node.named_children:
                self.statement(child)
            return _Word(text, static=False)
        if kind == "arithmetic_expansion":
            self.arithmetic(node, "an arithmetic expansion")
            return _Word(text, static=False)
        if kind in ("brace_expression", "extglob_pattern"):
            return _Word(text, static=False)
        self.unknown(node)
        return _Word(text, static=False)

    def double_quoted(self, node: Node) -> _Word:
        parts: list[_Word] = []
        start = node.start_byte + (2 if self.source[node.start_byte : node.start_byte + 1] == b"$" else 1)
        end = node.end_byte - 1
        position = start
        for child in node.children:
            if child.start_byte < start or child.end_byte > end or not child.is_named:
                continue
            if child.start_byte > position:
                parts.append(_Word(_dq_unescape(self.source[position : child.start_byte].decode("utf-8", "replace"))))
            if child.type == "string_content":
                parts.append(_Word(_dq_unescape(self.text(child))))
            else:
                parts.append(self.word(child))
            position = child.end_byte
        if end > position:
            parts.append(_Word(_dq_unescape(self.source[position:end].decode("utf-8", "replace"))))
        return _Word("".join(p.text for p in parts), all(p.static for p in parts))

    def expansion(self, node: Node) -> None:
        """`${name}` and `${name:-word}`-like forms are fine; indirection, subscripts, `@P`, offsets are not.

        The grammar reads a substitution inside the word of `${x:-...}` (or a nested `${...}`) as text,
        where bash runs it: such a line is unanalysable.
        """
        inner = self.text(node)[2:-1]
        if any(mark in inner for mark in _SUBSTITUTION_MARKS):
            self.opaque.append(f"unanalysable: the expansion `{self.text(node)}` holds a substitution or a "
                               "nested expansion")
        for child in node.children:
            if child.type in ("${", "}", "variable_name", "special_variable_name"):
                continue
            if not child.is_named:
                if child.type not in _SAFE_EXPANSION_OPERATORS:
                    self.opaque.append(f"the expansion `{self.text(node)}` can run commands or evaluate arithmetic")
                continue
            if child.type in _WORD_TYPES:
                self.word(child)
            elif child.type == "regex":
                continue
            elif child.type == "subscript" and _literal_index(self.text(child)):
                continue  # `${a[@]}`, `${a[0]}`: no arithmetic to evaluate
            else:
                self.opaque.append(f"the expansion `{self.text(node)}` can run commands or evaluate arithmetic")
                self.substitutions_in(child)


_CONTAINERS = frozenset(
    {"program", "list", "pipeline", "compound_statement", "subshell", "negated_command", "do_group",
     "if_statement", "elif_clause", "else_clause", "while_statement", "for_statement", "case_statement",
     "case_item"}
)
_REDIRECT_TYPES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_WORD_TYPES = frozenset(
    {"word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation", "simple_expansion",
     "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "number",
     "brace_expression", "special_variable_name", "extglob_pattern"}
)
_PURE_ARITHMETIC = frozenset(
    {"number", "binary_expression", "unary_expression", "parenthesized_expression", "ternary_expression"}
)
_SAFE_EXPANSION_OPERATORS = frozenset(
    {":-", "-", ":=", "=", ":+", "+", ":?", "?", "#", "##", "%", "%%", "/", "//", "/#", "/%", "^", "^^", ",", ",,"}
)


_SUBSTITUTION_MARKS = ("`", "$(", "${", "<(", ">(")
# Syntax that POSIX `sh` (dash) lacks or reads otherwise: node types, and operator tokens.
_BASH_ONLY_NODES = {
    "ansi_c_string": "`$'...'` quoting",
    "translated_string": '`$"..."` strings',
    "process_substitution": "process substitution `<(...)`",
    "herestring_redirect": "here-strings `<<<`",
    "c_style_for_statement": "`for (( ))` loops",
    "array": "arrays",
    "subscript": "array subscripts",
    "brace_expression": "brace expansion",
    "extglob_pattern": "extended globs",
}
_BASH_ONLY_TOKENS = {"[[": "`[[ ]]` tests", "((": "`(( ))` arithmetic", "&>": "`&>` redirection",
                     "&>>": "`&>>` redirection", "|&": "`|&` pipes", "function": "the `function` keyword",
                     "select": "`select` loops", "coproc": "`coproc`"}
_POSIX_EXPANSION_OPERATORS = frozenset({":-", "-", ":=", "=", ":+", "+", ":?", "?", "#", "##", "%", "%%"})


def _unread_substitution(body: Node, source: bytes) -> bool:
    """Whether a here-document body holds `$(` or a backquote outside the substitutions the grammar read."""
    text = bytearray(source[body.start_byte : body.end_byte])
    for part in body.named_children:
        if part.type in ("command_substitution", "expansion", "arithmetic_expansion", "simple_expansion"):
            text[part.start_byte - body.start_byte : part.end_byte - body.start_byte] = b" " * (
                part.end_byte - part.start_byte)
    return b"`" in text or b"$(" in text


def _bash_only(root: Node, source: bytes) -> tuple[str, ...]:
    """The bash-only syntax in a parsed line (what a POSIX `sh` would run differently)."""
    found: list[str] = []
    for node in _descendants(root):
        if node.is_named:
            what = _BASH_ONLY_NODES.get(node.type)
        else:
            what = _BASH_ONLY_TOKENS.get(node.type)
            parent = node.parent
            if what is None and parent is not None and parent.type == "expansion" and node.type not in (
                    "${", "}", *_POSIX_EXPANSION_OPERATORS):
                what = f"the expansion operator `{node.type}`"
        if what is not None:
            found.append(what)
    return tuple(dict.fromkeys(found))


def _literal_index(subscript: str) -> bool:
    """`a[@]`, `a[*]`, `a[3]`: an array subscript that is not an arithmetic expression."""
    match = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\[([@*]|[0-9]+)\]", subscript)
    return match is not None


def _descendants(node: Node) -> Iterator[Node]:
    for child in node.children:
        yield child
        yield from _descendants(child)


# -- quote removal ---------------------------------------------------------------------------------

_GLOB_CHARS = frozenset("*?[")
_BRACE_RE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")


def _expands(plain: str) -> bool:
    """Whether unquoted text holds a glob or a brace expansion."""
    return bool(_GLOB_CHARS & set(plain)) or _BRACE_RE.search(plain) is not None


def _unquoted(text: str) -> _Word:
    """An unquoted word: backslashes removed; a glob or brace expansion makes it run-time built."""
    if "\\" not in text:
        return _Word(text, static=not _expands(text), plain=text)
    out: list[str] = []
    plain: list[str] = []  # the unescaped characters only, to spot globs and braces
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
                plain.append(" ")
            i += 2
            continue
        out.append(char)
        plain.append(char)
        i += 1
    unescaped = "".join(plain)
    return _Word("".join(out), not _expands(unescaped), unescaped)


def _bare_newline(text: bytes) -> int | None:
    """The offset of the first newline not escaped by a backslash (a line continuation), or None."""
    i = 0
    while i < len(text):
        if text[i : i + 1] == b"\\":
            i += 2
            continue
        if text[i : i + 1] == b"\n":
            return i
        i += 1
    return None


def _dq_unescape(text: str) -> str:
    """Inside double quotes a backslash escapes only `$`, a backquote, `"`, `\\` and a newline."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


_ANSI_C_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                  "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_C_RE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL)


def _ansi_c_length(text: str) -> int:
    """How much of `text` (starting `$'`) bash reads as the `$'...'` string: a backslash escapes the
    next character, the first unescaped `'` ends it."""
    i = 2
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "'":
            return i + 1
        i += 1
    return len(text)


def _ansi_c(body: str) -> str:
    """The value of `$'...'`: escapes as bash decodes them (`\\x41`, `\\101`, `\\u0041`, `\\n`, ...)."""

    def decode(match: re.Match[str]) -> str:
        escape = match.group(1)
        head = escape[0]
        if head in "xuU" and len(escape) > 1:
            return chr(min(int(escape[1:], 16), 0x10FFFF))
        if head.isdigit() and head in "01234567":
            return chr(int(escape, 8) & 0xFF)
        if head == "c" and len(escape) == 2:
            return chr(ord(escape[1].upper()) & 0x1F)
        return _ANSI_C_SIMPLE.get(escape, "\\" + escape)

    return _ANSI_C_RE.sub(decode, body)


def _join(words: Sequence[str]) -> str:
    return shlex.join(words)


# -- commands run from arguments -------------------------------------------------------------------

def _inner_commands(words: Sequence[_Word], depth: int) -> list[SimpleCommand] | None:
    """The commands `words` runs from its own arguments; None when they cannot be told apart."""
    if depth >= _MAX_INNER_DEPTH or not words or not words[0].static:
        return []
    texts = [w.text for w in words]
    name = texts[0].rstrip("/").rsplit("/", 1)[-1]
    if name in WRAPPERS:
        spec = WRAPPERS[name]
        script = script_argument(spec, texts) if spec.script_options else None
        if isinstance(script, int):
            script = texts[script] if words[script].static else None
        if script is not None:  # `su -c SCRIPT`: the commands of the script
            return list(_parse(script, depth + 1).commands)
        found = unwrap(spec, texts, [w.static for w in words])
        if found is None:
            return None
        assignments, start = found
        if start < len(words) and spec.joins_script:  # `watch a b`: `sh -c "a b"`
            if not all(w.static for w in words[start:]):
                return None
            return list(_parse(" ".join(texts[start:]), depth + 1).commands)
        return [_make(words[start:], assignments, depth + 1)] if start < len(words) else []
    if name == "find":
        return [_make(words[start:end], (), depth + 1) for start, end in find_exec_spans(texts)]
    if name in SHELLS:
        index = shell_script_index(texts)
        if index is None or not words[index].static:
            return []
        return list(_parse(texts[index], depth + 1).commands)
    if name == "eval" and all(w.static for w in words[1:]):
        return list(_parse(" ".join(texts[1:]), depth + 1).commands)
    return []


def _make(words: Sequence[_Word], assignments: Sequence[str], depth: int) -> SimpleCommand:
    inner = _inner_commands(words, depth)
    if inner is None:
        inner = _guess_inner(words, depth)
    return SimpleCommand(
        words=tuple(w.text for w in words),
        assignments=tuple(assignments),
        inner=tuple(inner),
        static=all(w.static for w in words),
    )


def _guess_inner(words: Sequence[_Word], depth: int) -> list[SimpleCommand]:
    """When a wrapper's options are not understood, every later plain word might start its command."""
    guesses: list[SimpleCommand] = []
    for index in range(1, len(words)):
        text = words[index].text
        if text.startswith("-") or "=" in text or not words[index].static:
            continue
        guesses.append(_make(words[index:], (), depth + 1))
        if len(guesses) >= 8:
            break
    return guesses
