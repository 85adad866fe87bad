"""Onde: the ChatEngine SDK."""
