"""The commands a command runs from its own arguments (`SimpleCommand.inner`), for deny rules.

`sudo rm`, `env X=1 rm`, `xargs rm`, `find -exec rm`, `sh -c "rm ..."`, `eval rm ...`: which words of a
command are a command of their own, by what `shell_programs` knows of each program. A script argument
(`sh -c SCRIPT`) is parsed by the caller's `parse` (`shell_grammar` passes its own), so this module does
not import the grammar back. Imports nothing from sigit but its siblings `shell_line`, `shell_words`
and `shell_programs`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sigit.permissions.shell_line import SimpleCommand
from sigit.permissions.shell_programs import (
    SHELLS,
    WRAPPERS,
    find_exec_spans,
    script_argument,
    shell_script_index,
    unwrap,
)
from sigit.permissions.shell_words import Word

__all__ = ["ScriptParser", "guess_inner", "inner_commands"]

ScriptParser = Callable[[str, int], Sequence[SimpleCommand]]
"""The simple commands of a script, parsed `depth` levels of `sh -c` deep."""

_MAX_INNER_DEPTH = 6  # `sh -c "sh -c ..."` levels followed for deny rules


def inner_commands(words: Sequence[Word], depth: int, parse: ScriptParser) -> list[SimpleCommand] | None:
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
            return list(parse(script, depth + 1))
        found = unwrap(spec, texts, [w.static for w in words])
        if found is None:
            return None
        assignments, start = found
        if start < len(words) and spec.joins_script:  # `watch a b`: `sh -c "a b"`
            if not all(w.static for w in words[start:]):
                return None
            return list(parse(" ".join(texts[start:]), depth + 1))
        return [_make(words[start:], assignments, depth + 1, parse)] if start < len(words) else []
    if name == "find":
        return [_make(words[start:end], (), depth + 1, parse) for start, end in find_exec_spans(texts)]
    if name in SHELLS:
        index = shell_script_index(texts)
        if index is None or not words[index].static:
            return []
        return list(parse(texts[index], depth + 1))
    if name == "eval" and all(w.static for w in words[1:]):
        return list(parse(" ".join(texts[1:]), depth + 1))
    return []


def _make(words: Sequence[Word], assignments: Sequence[str], depth: int, parse: ScriptParser) -> SimpleCommand:
    inner = inner_commands(words, depth, parse)
    if inner is None:
        inner = guess_inner(words, depth, parse)
    return SimpleCommand(
        words=tuple(w.text for w in words),
        assignments=tuple(assignments),
        inner=tuple(inner),
        static=all(w.static for w in words),
    )


def guess_inner(words: Sequence[Word], depth: int, parse: ScriptParser) -> list[SimpleCommand]:
    """When a wrapper's options are not understood, every later plain word might start its command."""
    guesses: list[SimpleCommand] = []
    for index in range(1, len(words)):
        text = words[index].text
        if text.startswith("-") or "=" in text or not words[index].static:
            continue
        guesses.append(_make(words[index:], (), depth + 1, parse))
        if len(guesses) >= 8:
            break
    return guesses
