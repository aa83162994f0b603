"""
CLI subcommands to run from the terminal.
"""

from .harness import HarnessCLI


__all__ = ["HarnessCLI"]
