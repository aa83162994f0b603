#!/usr/bin/env python3
"""
AMULETY __main__.py

This module allows AMULETY to be executed as a module with python -m amulety.
"""

from .amulety import main

if __name__ == "__main__":
    main()
