"""
Command-line interface for vogel-model-trainer.

Provides the main CLI entry point and command handlers.
"""

from vogel_model_trainer.cli.main import main

__all__ = ["main"]
