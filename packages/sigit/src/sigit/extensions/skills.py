"""Skills: folders with a SKILL.md (frontmatter name/description, body of instructions).

The model sees only each skill's name and description (in the `skill` tool's description) and
loads a body on demand, so many skills cost little context.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sigit.extensions.frontmatter import (
    ExtensionWarning,
    FrontmatterError,
    first_line,
    read_document,
    text_field,
)
from sigit.extensions.locations import Scope, extension_files

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    """The SKILL.md file; its folder may hold scripts and references the body points to."""
    body: str
    scope: Scope = "project"

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass
class SkillSet:
    skills: list[Skill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> Skill | None:
        wanted = name.strip()
        for skill in self.skills:
            if skill.name == wanted:
                return skill
        lowered = wanted.lower()
        return next((s for s in self.skills if s.name.lower() == lowered), None)

    def names(self) -> list[str]:
        return [skill.name for skill in self.skills]

    def __bool__(self) -> bool:
        return bool(self.skills)

    def __len__(self) -> int:
        return len(self.skills)


def discover_skills(cwd: Path, config_dir: Path, *, home: Path | None = None) -> SkillSet:
    """Every `<root>/<name>/SKILL.md` under the skill roots; the first of a name wins. Blocking I/O."""
    result = SkillSet()
    seen: set[str] = set()
    for root, skill_file in extension_files("skills", cwd, config_dir, home, _skill_files, result.warnings):
        loaded = load_skill(skill_file, root.scope)
        if isinstance(loaded, ExtensionWarning):
            result.warnings.append(loaded)
            continue
        if loaded.name in seen:
            continue  # shadowed by a more specific root
        seen.add(loaded.name)
        result.skills.append(loaded)
    result.skills.sort(key=lambda s: s.name)
    return result


def _skill_files(root: Path) -> Iterable[Path]:
    """`<root>/<name>/SKILL.md` for each folder that has one."""
    folders = (p for p in root.iterdir() if p.is_dir())
    return (folder / SKILL_FILE for folder in folders if (folder / SKILL_FILE).is_file())


def load_skill(path: Path, scope: Scope = "project") -> Skill | ExtensionWarning:
    document = read_document(path)
    if isinstance(document, ExtensionWarning):
        return document
    try:
        name = text_field(document.metadata, "name") or path.parent.name
        description = text_field(document.metadata, "description") or first_line(document.body, 200)
    except FrontmatterError as exc:
        return ExtensionWarning(path, str(exc))
    if not document.body.strip():
        return ExtensionWarning(path, "the skill has no instructions after its frontmatter")
    return Skill(name, description, path, document.body, scope)
