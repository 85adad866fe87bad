"""Frontends: thin adapters over the agent event stream (headless, ACP, TUI)."""
