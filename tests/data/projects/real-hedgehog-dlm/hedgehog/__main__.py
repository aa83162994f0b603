#!/usr/bin/env python3
"""
Entry point for hedgehog CLI.
"""

from hedgehog.cli import main

if __name__ == "__main__":
    main()
