"""CLI entrypoint for verbatim."""

from verbatim_cli.main import main

__all__ = ["main"]
