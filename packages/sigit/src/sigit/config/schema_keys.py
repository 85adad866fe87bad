"""What a settings key says about itself (`Key`), and the value types the settings tables share.

Every table of the settings model (`schema`, `schema_mcp`, `schema_hooks`) annotates each key with a
`Key`: the words an error completes, and whether a project file may set it in a folder the user has
not trusted. The loader and folder trust read those annotations; this module is what they all build on.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from sigit.config.rules import RuleSyntaxError, parse_rule

__all__ = ["ANY", "TRUSTED", "Key", "PositiveInt", "Rule", "Text", "choices", "finite", "stripped", "valid_rule"]


@dataclass(frozen=True)
class Key:
    """A settings key: `says` completes "`key` must be ..." in an error; `untrusted` says whether a
    project file may set it in a folder the user has not trusted (True, False, or a test of the
    value: True when that value loosens nothing). With `each`, the test judges each entry of the
    key's table on its own. A key without `untrusted` is a table whose own keys say."""

    says: str
    untrusted: bool | Callable[[Any], bool] | None = None
    each: bool = False

    def allows(self, value: Any) -> bool:
        return self.untrusted(value) if callable(self.untrusted) else bool(self.untrusted)


ANY = True
"""A project may set this key in any folder: it loosens nothing."""
TRUSTED = False
"""Only a trusted folder's project file may set this key: it runs code, picks a model or loosens."""


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
