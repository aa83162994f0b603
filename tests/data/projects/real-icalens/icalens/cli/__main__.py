"""Run the ICA Lens CLI with ``python -m icalens.cli``."""

from __future__ import annotations

from . import main

if __name__ == "__main__":
    main()
