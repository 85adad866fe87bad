"""tree-sitter-bash for `shell_grammar`: the parser, the node types the walk tells apart, and queries
over a subtree that need no walk state (bash-only syntax, substitutions a here-doc hides from the grammar).

Kept apart from the walk so that what is specific to this grammar (its node names, the crash its scanner
has on some code points) sits in one place. Imports nothing from sigit.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

__all__ = [
    "CONTAINERS",
    "PURE_ARITHMETIC",
    "REDIRECT_TYPES",
    "SAFE_EXPANSION_OPERATORS",
    "SUBSTITUTION_MARKS",
    "WORD_TYPES",
    "bash_only",
    "descendants",
    "literal_index",
    "parse_tree",
    "unread_substitution",
]

_LANGUAGE = Language(tree_sitter_bash.language())
_PARSER = Parser(_LANGUAGE)
_PARSER_LOCK = threading.Lock()  # a Parser is not safe to share between threads


def parse_tree(source: bytes) -> Tree:
    """The syntax tree of `source` (node offsets index `source` itself)."""
    with _PARSER_LOCK:
        return _PARSER.parse(_ascii_shadow(source))


_NON_ASCII = re.compile(rb"[\x80-\xff]")


def _ascii_shadow(source: bytes) -> bytes:
    """`source` with every non-ASCII byte replaced by `X`: the same length, so node offsets still index
    the real text, which the walker reads.

    tree-sitter-bash 0.25's scanner crashes the process on some code points (`{` then U+F254E). For bash a
    non-ASCII byte is never an operator, a quote or a blank, only part of a word, and so is `X`
    (upper case: it cannot complete a keyword such as `case` from a stray byte).
    """
    return _NON_ASCII.sub(b"X", source) if not source.isascii() else source


# -- node types, as the walk tells them apart ------------------------------------------------------

CONTAINERS = frozenset(
    {"program", "list", "pipeline", "compound_statement", "subshell", "negated_command", "do_group",
     "if_statement", "elif_clause", "else_clause", "while_statement", "for_statement", "case_statement",
     "case_item"}
)
REDIRECT_TYPES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
WORD_TYPES = frozenset(
    {"word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation", "simple_expansion",
     "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "number",
     "brace_expression", "special_variable_name", "extglob_pattern"}
)
PURE_ARITHMETIC = frozenset(
    {"number", "binary_expression", "unary_expression", "parenthesized_expression", "ternary_expression"}
)
SAFE_EXPANSION_OPERATORS = frozenset(
    {":-", "-", ":=", "=", ":+", "+", ":?", "?", "#", "##", "%", "%%", "/", "//", "/#", "/%", "^", "^^", ",", ",,"}
)

SUBSTITUTION_MARKS = ("`", "$(", "${", "<(", ">(")  # text the grammar may leave unread inside `${...}`


# -- queries over a subtree ------------------------------------------------------------------------

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


def unread_substitution(body: Node, source: bytes) -> bool:
    """Whether a here-document body holds `$(` or a backquote outside the substitutions the grammar read."""
    text = bytearray(source[body.start_byte : body.end_byte])
    for part in body.named_children:
        if part.type in ("command_substitution", "expansion", "arithmetic_expansion", "simple_expansion"):
            text[part.start_byte - body.start_byte : part.end_byte - body.start_byte] = b" " * (
                part.end_byte - part.start_byte)
    return b"`" in text or b"$(" in text


def bash_only(root: Node, source: bytes) -> tuple[str, ...]:
    """The bash-only syntax in a parsed line (what a POSIX `sh` would run differently)."""
    found: list[str] = []
    for node in descendants(root):
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


def literal_index(subscript: str) -> bool:
    """`a[@]`, `a[*]`, `a[3]`: an array subscript that is not an arithmetic expression."""
    match = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\[([@*]|[0-9]+)\]", subscript)
    return match is not None


def descendants(node: Node) -> Iterator[Node]:
    for child in node.children:
        yield child
        yield from descendants(child)

