"""
Command-line interface for the Perth library.
"""
from .watermark_cli import main

__all__ = ['main']