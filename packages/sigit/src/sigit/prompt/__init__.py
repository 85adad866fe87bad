"""The system prompt and the instruction files that go into it."""

from sigit.prompt.instructions import find_instruction_files, load_instructions
from sigit.prompt.system_prompt import build_system_prompt, git_summary

__all__ = ["build_system_prompt", "find_instruction_files", "git_summary", "load_instructions"]
