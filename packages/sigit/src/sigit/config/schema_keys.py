"""What a settings key says about itself (`Key`), and the value types the settings tables share.

Every table of the settings model (`schema`, `schema_mcp`, `schema_hooks`) annotates each key with a
`Key`: the words an error completes. (What a project may set untrusted is one table in `schema`.)
The loader reads those annotations; this module is what the tables all build on.
"""

import math
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from sigit.config.rules import RuleSyntaxError, parse_rule

__all__ = ["Key", "PositiveInt", "Rule", "Text", "choices", "finite", "stripped", "valid_rule"]


@dataclass(frozen=True)
class Key:
    """A settings key: `says` completes "`key` must be ..." in an error. Whether a project file may set
    the key in a folder the user has not trusted is not said here but in one table,
    `schema.UNTRUSTED_MAY_SET`: a key it does not name waits for trust."""

    says: str


# ---------------------------------------------------------------- value types


def choices(options: tuple[str, ...]) -> str:
    return "one of " + ", ".join(f'"{option}"' for option in options)


def valid_rule(text: str) -> str:
    try:
        return parse_rule(text).text
    except RuleSyntaxError as exc:
        raise ValueError(str(exc)) from None


def finite(value: float) -> float:
    if not math.isfinite(value):
        raise PydanticCustomError("finite_number", "not finite")
    return value


def stripped(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("string_too_short", "empty")
    return value.strip()


Text = Annotated[str, AfterValidator(stripped)]
PositiveInt = Annotated[int, Field(gt=0)]
Rule = Annotated[str, AfterValidator(valid_rule)]


KEEP_ALIVE_FORMS = 'a duration such as "5m", "90s", "1h", or 0 (no model host: load in each process)'


def keep_alive_seconds(value: object) -> float:
    """A keep-alive duration ("5m", "90s", 0) in seconds, read by the one parser the flag and env use."""
    from onde.system import parse_keep_alive

    if not isinstance(value, str | int | float):
        raise ValueError(f"not a duration: {value!r:.40}")
    return parse_keep_alive(value)
