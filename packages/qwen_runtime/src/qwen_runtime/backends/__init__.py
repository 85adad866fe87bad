"""Backends, each imported lazily by `qwen_runtime.naming` so that heavy dependencies load on use."""
