#!/usr/bin/env python3

"""
Entry point for running kokoro-tts as a module.
This allows users to run: python -m kokoro_tts
"""

from . import main

if __name__ == "__main__":
    main()
