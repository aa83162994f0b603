"""Run the program from -m."""

from __future__ import annotations

from waifu2x import main

main()
