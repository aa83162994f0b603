# -*- coding: utf-8 -*-
"""Single source of truth for the package version."""
__version__ = "1.0"
__author__ = "RL"
