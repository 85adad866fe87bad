"""Backends, each imported lazily by `qwen_runtime.models.naming` so that heavy dependencies load on use."""
