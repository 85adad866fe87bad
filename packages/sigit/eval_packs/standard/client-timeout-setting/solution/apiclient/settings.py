"""Settings from the environment."""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    base_url: str = "https://api.example.com"
    retries: int = 3
    timeout_s: float = 10.0


def load_settings(environ=None):
    env = os.environ if environ is None else environ
    return Settings(
        base_url=env.get("APP_BASE_URL", Settings.base_url),
        retries=int(env.get("APP_RETRIES", Settings.retries)),
        timeout_s=float(env.get("APP_TIMEOUT", Settings.timeout_s)),
    )
