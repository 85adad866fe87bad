"""Old module paths of a regrouped package, kept importable for a release with a DeprecationWarning.

qwen_runtime's modules moved into `calls/`, `grammar/`, `models/`, `speed/`, `testing/` and
`backends/llamacpp/` (0.2); `import qwen_runtime.toolschema` and `from qwen_runtime.backends.llamacpp_vocab
import X` still work: a finder on `sys.meta_path` answers an old name with the module at its new path
(the same module object, so patches and `isinstance` agree).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Final

MOVED: Final[dict[str, str]] = {
    "constrain": "grammar.constrain",
    "constrain_budget": "grammar.budget",
    "constrain_xml": "grammar.xml_form",
    "toolschema": "calls.toolschema",
    "toolformat": "calls.toolformat",
    "registry": "models.registry",
    "download": "models.download",
    "gguf_info": "models.gguf_info",
    "gguf_header": "models.gguf_header",
    "naming": "models.naming",
    "projector": "models.projector",
    "chat_format": "models.chat_format",
    "qwen3_template": "models.qwen3_template",
    "model_report": "models.report",
    "templates": "models.templates",
    "context_window": "models.context_window",
    "parsing.tags": "calls.tags",
    "parsing.json_repair": "calls.json_repair",
    "tuning": "speed.tuning",
    "calibration": "backends.llamacpp.calibration",
    "prompt_cache": "speed.prompt_cache",
    "draft_sources": "speed.draft_sources",
    "cpus": "speed.cpus",
    "backends.draft_control": "speed.draft_control",
    "backends.drafting": "speed.drafting",
    "backends.learned_costs": "speed.learned_costs",
    "backends.save_points": "speed.save_points",
    "testmodel": "testing.testmodel",
    "testmodel_qwen35": "testing.testmodel_qwen35",
    "testmodel_qwen35moe": "testing.testmodel_qwen35moe",
    "testmodel_vision": "testing.testmodel_vision",
    "benchmodel": "testing.benchmodel",
    "backends.llamacpp_lltokenizer": "backends.llamacpp.lltokenizer",
    "backends.llamacpp_load": "backends.llamacpp.load",
    "backends.llamacpp_mtp": "backends.llamacpp.mtp",
    "backends.llamacpp_state": "backends.llamacpp.state",
    "backends.llamacpp_vision": "backends.llamacpp.vision",
    "backends.llamacpp_vocab": "backends.llamacpp.vocab",
    "backends.llama_lib": "backends.llamacpp.lib",
    "backends.llama_build": "backends.llamacpp.build",
}
"""Old path -> new path, both relative to `qwen_runtime`. (`backends.llamacpp` became a package that
still answers the old module's names, so it needs no line here.)"""


class _AliasLoader(importlib.abc.Loader):
    """Hands out the module at its new path instead of executing anything."""

    def __init__(self, new_name: str) -> None:
        self.new_name = new_name
        self._spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.new_name)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system stamped the old spec on the shared module: give it its own back
        module.__spec__ = self._spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    def __init__(self, package: str, moved: dict[str, str]) -> None:
        self.moved = {f"{package}.{old}": f"{package}.{new}" for old, new in moved.items()}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new_name = self.moved.get(fullname)
        if new_name is None:
            return None
        warnings.warn(
            f"{fullname} moved to {new_name}; the old path goes in a later release", DeprecationWarning, stacklevel=2
        )
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new_name))


def install(package: str) -> None:
    """Let the old paths of `package`'s moved modules import (once per process)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder(package, MOVED))
