"""
BiaPy configuration package.

This package provides configuration management utilities and default settings
for BiaPy workflows, including experiment setup, model parameters, and system options.
"""
from .config import *
