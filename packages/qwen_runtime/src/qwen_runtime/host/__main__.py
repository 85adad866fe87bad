"""`python -m qwen_runtime.host`: a model host (started by `client.start_host`, not by hand)."""

from __future__ import annotations

import sys

from .server import main

if __name__ == "__main__":
    sys.exit(main())
