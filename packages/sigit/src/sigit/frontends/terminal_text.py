"""Untrusted text made safe for a terminal: the one function every frontend that writes to one uses.

A file the model reads, a command's output or the model's own words can hold control sequences that
a terminal obeys: an OSC 52 clipboard write (`ESC ] 52 ; c ; base64 BEL`), a device-status query whose
answer the terminal types into siGit's input (`ESC [ 6 n`), a title change, DCS/APC strings, a `\\r`
that redraws the line over a warning, bidi overrides that reorder what is shown. `terminal_safe`
shows every such character as a visible escape (`\\x1b`, `\\u202e`), so the sequence reads as text
and does nothing; plain SGR colour (`ESC [ 31 m`) may be kept. Newlines and tabs stay where the
context allows them.
"""

from __future__ import annotations

import re

__all__ = ["terminal_safe", "terminal_safe_json"]

_SGR = r"\x1b\[[0-9;]{0,32}m"
"""Plain SGR: colours and attributes, digits and `;` only (no `:` sub-parameters, bounded)."""
_UNSAFE = r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
"""C0 controls but tab (newline is let through below when allowed), DEL, C1 controls (0x9b is a CSI
by itself on some terminals), and the bidi marks and overrides."""
_CONTROLS = re.compile(f"({_SGR})|\r\n|{_UNSAFE}")


def terminal_safe(text: str, *, keep_sgr: bool = True, newlines: bool = True) -> str:
    """`text` with every control character a terminal would act on shown as an escape (`\\x1b`,
    `\\x07`, `\\u202e`) instead: an escape sequence then reads as text and does nothing. Plain SGR
    colour stays with `keep_sgr` (else its ESC is escaped too, for a screen that draws text itself);
    `\\r\\n` becomes `\\n`, and newlines stay unless `newlines` is False. Tabs always stay."""

    def shown(match: re.Match[str]) -> str:
        found = match.group(0)
        if match.group(1):  # plain SGR: kept, or its ESC shown
            return found if keep_sgr else "\\x1b" + found[1:]
        if found == "\r\n":
            return "\n" if newlines else "\\n"
        if found == "\n":
            return found if newlines else "\\n"
        code = ord(found)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _CONTROLS.sub(shown, text)


_RAW_IN_JSON = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe_json(text: str) -> str:
    """JSON text (`json_text`'s) with what JSON leaves raw but a terminal may act on (DEL, C1 controls,
    bidi marks) written as `\\uXXXX` escapes: the same value for a reader, nothing for a terminal.
    JSON escapes the C0 controls itself."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
