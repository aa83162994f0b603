"""Module entry point for ``python -m insightface_privateframe_bootstrap``."""

from __future__ import annotations

from . import main

if __name__ == "__main__":
    raise SystemExit(main())
