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
as bash removes them (`shell_continuations`).

This module is the walk over the syntax tree; its siblings hold the rest: `shell_line` the results,
`shell_syntax` the tree-sitter parser and node types, `shell_words` quote removal, `shell_inner` the
commands run from arguments. Imports nothing from sigit but those and `shell_programs`, `shell_continuations`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from tree_sitter import Node

from sigit.permissions.shell_continuations import join_continuations
from sigit.permissions.shell_inner import guess_inner, inner_commands
from sigit.permissions.shell_line import Redirect, ShellLine, SimpleCommand
from sigit.permissions.shell_programs import NAME_TAKING, OPAQUE_PROGRAMS, is_risky_assignment, names_built_at_run_time
from sigit.permissions.shell_syntax import (
    CONTAINERS,
    PURE_ARITHMETIC,
    REDIRECT_TYPES,
    SAFE_EXPANSION_OPERATORS,
    SUBSTITUTION_MARKS,
    WORD_TYPES,
    bash_only,
    descendants,
    literal_index,
    parse_tree,
    unread_substitution,
)
from sigit.permissions.shell_words import Word, ansi_c, ansi_c_length, bare_newline, dq_unescape, expands, unquoted

__all__ = [
    "HARMLESS_TARGETS",
    "Redirect",
    "ShellLine",
    "SimpleCommand",
    "parse_line",
]

# -- program knowledge -----------------------------------------------------------------------------

HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


# -- parsing ---------------------------------------------------------------------------------------

_MAX_DEPTH = 150  # nesting beyond this is reported as opaque, not recursed into


@functools.lru_cache(maxsize=1024)
def parse_line(line: str) -> ShellLine:
    """Parse one shell command line (any number of lines of script); cached, so repeated calls are free."""
    try:
        return _parse(line, 0)
    except RecursionError:  # pathological nesting: never a reason to fail the caller
        return ShellLine(source=line, commands=(), writes=(), opaque=("the line is nested too deeply to check",))


def _parse(line: str, inner_depth: int) -> ShellLine:
    # the grammar reads the text bash's lexer reads: `r\<newline>m` is the word `rm`
    source = join_continuations(line).encode("utf-8", "surrogateescape")
    tree = parse_tree(source)
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
        bash_only=bash_only(root, source),
    )


def _script_commands(script: str, inner_depth: int) -> tuple[SimpleCommand, ...]:
    """The commands of a script a command runs from its arguments (`sh -c SCRIPT`), for `shell_inner`."""
    return _parse(script, inner_depth).commands


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
        elif kind in CONTAINERS:
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
        elif kind in WORD_TYPES:
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
            if child.type in WORD_TYPES:
                self.word(child)
            else:
                self.statement(child)

    def redirected(self, node: Node) -> None:
        body: Node | None = None
        redirects: list[Node] = []
        for index, child in enumerate(node.children):
            if node.field_name_for_child(index) == "redirect" or child.type in REDIRECT_TYPES:
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
        words: list[Word] = []
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
            elif fieldname == "redirect" or kind in REDIRECT_TYPES:
                mark = len(self.writes)
                words.extend(self.redirect(child))
                writes.extend(self.writes[mark:])
            elif fieldname == "name":
                words.extend(self.word(grandchild) for grandchild in child.named_children)
            elif kind in WORD_TYPES:
                words.append(self.word(child))
            elif kind == "$" and index + 1 < len(children) and children[index + 1].start_byte == child.end_byte:
                continue  # `$"..."` (a translated string): the string that follows is the word
            elif kind == "comment":  # the grammar ran the command on past `# ...` and its newline
                self.breaks.append(child.end_byte)
                break
            elif kind == "variable_assignment":  # `make CC=gcc`: an argument
                words.append(Word(self.text(child), static=False))
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
        gap = bare_newline(self.source[position : child.start_byte])
        if gap is not None:
            return position + gap
        targets = [child] if child.type == "word" else [c for c in child.named_children if c.type == "word"]
        if child.type == "command_name":
            targets = [c for c in child.named_children if c.type == "word"]
        for target in targets:
            inside = bare_newline(self.source[target.start_byte : target.end_byte])
            if inside is not None:
                return target.start_byte + inside
        return None

    def emit(self, words: list[Word], assignments: list[str], writes: list[Redirect]) -> None:
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
        inner = inner_commands(words, self.inner_depth, _script_commands)
        if inner is None:
            self.opaque.append(f"the command that `{name}` runs cannot be told from its words")
            inner = guess_inner(words, self.inner_depth, _script_commands)
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
        value = Word("")
        for index, child in enumerate(node.children):
            fieldname = node.field_name_for_child(index)
            if fieldname == "name":
                if child.type != "variable_name":
                    self.opaque.append("an assignment to an array element, which can run commands")
                name = self.text(child)
            elif fieldname == "value":
                if child.type == "array":
                    parts = [self.word(item) for item in child.named_children]
                    value = Word("(" + " ".join(part.text for part in parts) + ")",
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
        words: list[Word] = []
        for child in node.children:
            if child.type == "variable_assignment":
                text = self.assignment(child, standalone=True)
                words.append(Word(text))
            elif child.type in WORD_TYPES:
                words.append(self.word(child))
            elif child.type == "variable_name":
                words.append(Word(self.text(child)))
            elif not child.is_named and child.type in ("declare", "typeset", "export", "readonly", "local",
                                                       "unset", "unsetenv"):
                words.insert(0, Word(child.type))
            else:
                self.unknown(child)
        if any(w.text.startswith("-") and "i" in w.text for w in words[1:]):
            self.opaque.append("an integer declaration evaluates arithmetic, which can run commands")
        self.emit(words, [], [])

    def test(self, node: Node) -> None:
        """`[ ... ]` / `[[ ... ]]`: no command runs, but `[[` arithmetic and `-v` evaluate subscripts."""
        double = bool(node.children) and node.children[0].type == "[["
        for descendant in descendants(node):
            if descendant.type == "test_operator":
                operator = self.text(descendant)
                if double and operator in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"):
                    self.opaque.append(f"`[[ {operator} ]]` evaluates arithmetic, which can run commands")
        for child in node.named_children:
            self.expression(child)

    def expression(self, node: Node) -> None:
        if node.type in WORD_TYPES:
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
        for descendant in descendants(node):
            if descendant.is_named and descendant.type not in PURE_ARITHMETIC:
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

    def redirect(self, node: Node) -> list[Word]:
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
        targets: list[Word] = []
        target_nodes: list[Node] = []
        for index, child in enumerate(node.children):
            fieldname = node.field_name_for_child(index)
            if fieldname == "descriptor" or child.type == "file_descriptor":
                fd = int(self.text(child)) if self.text(child).isdigit() else None
            elif fieldname == "destination" or (child.is_named and child.type in WORD_TYPES):
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

    def heredoc(self, node: Node) -> list[Word]:
        quoted = False
        extra: list[Word] = []
        for index, child in enumerate(node.children):
            fieldname = node.field_name_for_child(index)
            if child.type == "heredoc_start":
                quoted = any(mark in self.text(child) for mark in "'\"\\")
            elif child.type == "heredoc_body":
                if not quoted and unread_substitution(child, self.source):
                    # the grammar misses some (after leading blanks, backquotes, `<<-`); bash runs them all
                    self.opaque.append("unanalysable: a command substitution in an unquoted here-document")
                if not quoted:
                    for part in child.named_children:
                        if part.type != "heredoc_content":
                            self.word(part)
            elif fieldname == "redirect" or child.type in REDIRECT_TYPES:
                extra.extend(self.redirect(child))
            elif child.type in ("heredoc_end", "<<", "<<-"):
                continue
            elif child.is_named:
                self.statement(child)  # `cat <<EOF | grep x`: the rest of the pipeline
            elif child.is_error or child.is_missing:
                self.unknown(child)
        return extra

    # words --------------------------------------------------------------------------------------

    def word(self, node: Node) -> Word:
        """A word after quote removal; substitutions inside are walked as commands of the line."""
        kind = node.type
        text = self.text(node)
        if kind == "word":
            return unquoted(text)
        if kind in ("number", "variable_name", "special_variable_name"):
            return Word(text)
        if kind == "raw_string":
            return Word(text[1:-1])
        if kind == "ansi_c_string":
            if ansi_c_length(text) != len(text):  # `$'\\' ; cmd #'`: bash ends the string sooner
                self.opaque.append(f"unanalysable: the grammar misreads the quoting of `{text}`")
                return Word(text, static=False)
            return Word(ansi_c(text[2:-1]))
        if kind in ("string", "translated_string"):
            return self.double_quoted(node)
        if kind == "concatenation":
            # `{/root/.bashrc,}` is three pieces to the grammar; bash expands the braces of the whole word
            parts: list[Word] = []
            position = node.start_byte
            for child in node.children:
                if child.start_byte > position:
                    parts.append(unquoted(self.source[position : child.start_byte].decode("utf-8", "replace")))
                if child.is_named:
                    parts.append(self.word(child))
                elif child.type == "$":
                    parts.append(Word("$"))
                else:
                    parts.append(unquoted(self.text(child)))
                position = child.end_byte
            plain = "".join(p.plain if p.plain is not None else " " * len(p.text) for p in parts)
            static = all(p.static for p in parts) and not expands(plain)
            return Word("".join(p.text for p in parts), static, plain)
        if kind == "simple_expansion":
            return Word(text, static=False)
        if kind == "expansion":
            self.expansion(node)
            return Word(text, static=False)
        if kind in ("command_substitution", "process_substitution"):
            if text.startswith("`") and "\\`" in text:
                self.opaque.append("unanalysable: nested backquotes")
            for child in node.named_children:
                self.statement(child)
            return Word(text, static=False)
        if kind == "arithmetic_expansion":
            self.arithmetic(node, "an arithmetic expansion")
            return Word(text, static=False)
        if kind in ("brace_expression", "extglob_pattern"):
            return Word(text, static=False)
        self.unknown(node)
        return Word(text, static=False)

    def double_quoted(self, node: Node) -> Word:
        parts: list[Word] = []
        start = node.start_byte + (2 if self.source[node.start_byte : node.start_byte + 1] == b"$" else 1)
        end = node.end_byte - 1
        position = start
        for child in node.children:
            if child.start_byte < start or child.end_byte > end or not child.is_named:
                continue
            if child.start_byte > position:
                parts.append(Word(dq_unescape(self.source[position : child.start_byte].decode("utf-8", "replace"))))
            if child.type == "string_content":
                parts.append(Word(dq_unescape(self.text(child))))
            else:
                parts.append(self.word(child))
            position = child.end_byte
        if end > position:
            parts.append(Word(dq_unescape(self.source[position:end].decode("utf-8", "replace"))))
        return Word("".join(p.text for p in parts), all(p.static for p in parts))

    def expansion(self, node: Node) -> None:
        """`${name}` and `${name:-word}`-like forms are fine; indirection, subscripts, `@P`, offsets are not.

        The grammar reads a substitution inside the word of `${x:-...}` (or a nested `${...}`) as text,
        where bash runs it: such a line is unanalysable.
        """
        inner = self.text(node)[2:-1]
        if any(mark in inner for mark in SUBSTITUTION_MARKS):
            self.opaque.append(f"unanalysable: the expansion `{self.text(node)}` holds a substitution or a "
                               "nested expansion")
        for child in node.children:
            if child.type in ("${", "}", "variable_name", "special_variable_name"):
                continue
            if not child.is_named:
                if child.type not in SAFE_EXPANSION_OPERATORS:
                    self.opaque.append(f"the expansion `{self.text(node)}` can run commands or evaluate arithmetic")
                continue
            if child.type in WORD_TYPES:
                self.word(child)
            elif child.type == "regex":
                continue
            elif child.type == "subscript" and literal_index(self.text(child)):
                continue  # `${a[@]}`, `${a[0]}`: no arithmetic to evaluate
            else:
                self.opaque.append(f"the expansion `{self.text(node)}` can run commands or evaluate arithmetic")
                self.substitutions_in(child)
