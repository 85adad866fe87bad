"""Test helpers that run for real: a scripted OpenAI-compatible HTTP server on 127.0.0.1."""

from .server import ScriptedServer

__all__ = ["ScriptedServer"]
