"""Command-line interface for lightning-pose."""
