"""`~` in a path the user wrote: expanded where it names a home, left as written where it does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from qwen_runtime import Image, expand_home


def test_a_tilde_is_the_users_home_and_an_unknown_user_is_left_as_written() -> None:
    assert expand_home("~/models/m.gguf") == Path.home() / "models" / "m.gguf"
    assert expand_home("~no-such-user-here/m.gguf") == Path("~no-such-user-here/m.gguf")
    assert expand_home(Path("plain/m.gguf")) == Path("plain/m.gguf")
    with pytest.raises(RuntimeError):  # what pathlib does, and why every package goes through expand_home
        Path("~no-such-user-here/m.gguf").expanduser()


def test_an_image_path_naming_no_home_is_kept_for_a_clear_error_later() -> None:
    assert Image.from_path("~0").path == "~0"  # hypothesis found this one: a RuntimeError before
